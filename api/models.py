"""API tokens: one per script or notebook, owned by a user, who acts through
it with their own role. Only a hash of the token is stored: the token itself
is shown once, when it is made (api.tokens)."""
from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="api_tokens")
    name = models.CharField(max_length=80, help_text="What the token is for: a script, a notebook.")
    # The token's first characters, kept in clear so a person can tell their tokens
    # apart; too few to guess the rest from.
    prefix = models.CharField(max_length=12, db_index=True, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False,
                              help_text="SHA-256 of the token, hex.")
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True,
                                   help_text="When it stopped working; revoked tokens stay as "
                                             "the record.")

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"

    @property
    def is_active(self) -> bool:
        return self.revoked is None

    def __str__(self) -> str:
        state = "revoked" if self.revoked else "active"
        return f"{self.prefix}… {self.name} ({self.user}, {state})"
