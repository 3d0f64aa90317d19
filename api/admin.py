"""API tokens in the admin: staff see everyone's, make one for a user (the
token is shown once, in the message after saving) and revoke them."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from .models import ApiToken
from .tokens import token_create, token_revoke


class ApiTokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ("user", "name")

    def clean_user(self):
        user = self.cleaned_data["user"]
        if not user.is_active:
            raise forms.ValidationError(f"{user} is not an active user")
        return user


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    form = ApiTokenForm
    list_display = ("prefix", "name", "user", "created", "last_used", "revoked")
    list_filter = ("revoked",)
    search_fields = ("name", "user__username", "prefix")
    fields = ("user", "name", "prefix", "created", "created_by", "last_used", "revoked")
    readonly_fields = ("prefix", "created", "created_by", "last_used", "revoked")
    actions = ["revoke_selected"]

    def get_readonly_fields(self, request, obj=None):
        # A token's owner and name are what it was made as: revoke and make another.
        return (*self.readonly_fields, "user", "name") if obj else self.readonly_fields

    def save_model(self, request, obj, form, change):
        if change:
            return
        token, raw = token_create(user=obj.user, name=obj.name, created_by=request.user)
        obj.pk = token.pk
        obj.refresh_from_db()
        self.message_user(request, f"The token for {obj.user}, shown this once: {raw}",
                          messages.WARNING)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # revoked tokens stay as the record

    @admin.action(description="Revoke the selected tokens")
    def revoke_selected(self, request, queryset):
        for token in queryset:
            token_revoke(token=token, by=request.user)
        self.message_user(request, f"{queryset.count()} token(s) revoked.")
