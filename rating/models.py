from django.conf import settings
from django.db import models

from sketches.models import Render


class Grade(models.Model):
    """One curator's verdict on one render. Changing it keeps the old value in
    GradeChange, so nothing a curator said is lost."""

    class Value(models.TextChoices):
        LOVE = "love", "Love"
        OKAY = "okay", "Okay"
        NOPE = "nope", "Nope"

    class Source(models.TextChoices):
        APP = "app", "Graded in the app"
        IMPORT = "import", "Imported"

    # Ordinal position, for agreement statistics and reward-model training.
    ORDINAL = {Value.NOPE: 0, Value.OKAY: 1, Value.LOVE: 2}

    render = models.ForeignKey(Render, on_delete=models.CASCADE, related_name="grades")
    curator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="grades")
    value = models.CharField(max_length=8, choices=Value.choices)
    shown_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="How long the render was on screen before the grade.")
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.APP)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated"]
        constraints = [
            models.UniqueConstraint(fields=["render", "curator"], name="one_grade_per_curator"),
        ]

    def __str__(self) -> str:
        return f"{self.curator} graded render {self.render_id} {self.value}"


class GradeChange(models.Model):
    """The history of a grade: every value it had, who set it and when."""

    grade = models.ForeignKey(Grade, on_delete=models.CASCADE, related_name="changes")
    previous = models.CharField(max_length=8, choices=Grade.Value.choices, blank=True)
    value = models.CharField(max_length=8, choices=Grade.Value.choices)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                   related_name="+")
    changed = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed"]
