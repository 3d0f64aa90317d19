"""The tokens page: a user's own API tokens, a form to make one (shown once,
on the page that made it) and a button to revoke each. Any logged-in user
may have tokens; what a token may do is its user's role (api.auth). Staff
also manage everyone's in the admin."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from .models import ApiToken
from .tokens import MAX_NAME, TokenError, token_create, token_revoke, tokens_of


class TokenForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME, widget=forms.TextInput(
        attrs={"placeholder": "e.g. sweep notebook"}))


class RevokeForm(forms.Form):
    token = forms.IntegerField(min_value=1)


@never_cache
def tokens_page(request):
    form, made, status = TokenForm(), None, 200
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            try:
                _token, made = token_create(user=request.user, name=form.cleaned_data["name"])
                form = TokenForm()
            except TokenError as error:
                form.add_error("name", str(error))
        if not made:
            status = 400
    return _page(request, form=form, made=made, status=status)


def _page(request, *, form=None, made=None, status=200):
    return render(request, "api/tokens.html",
                  {"form": form or TokenForm(), "made": made, "tokens": tokens_of(request.user)},
                  status=status)


@require_POST
def revoke(request):
    form = RevokeForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Not revoked: " + "; ".join(
            f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
        return _page(request, status=400)
    # Only one's own tokens here; staff revoke anyone's in the admin.
    token = get_object_or_404(ApiToken, pk=form.cleaned_data["token"], user=request.user)
    token_revoke(token=token, by=request.user)
    messages.success(request, f"Token {token.prefix}… ({token.name}) revoked.")
    return redirect("api_tokens")

