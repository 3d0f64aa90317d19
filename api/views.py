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
    return render(request, "api/tokens.html",
                  {"form": form, "made": made, "tokens": tokens_of(request.user)}, status=status)


@require_POST
def revoke(request, pk: int):
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    try:
        token_revoke(token=token, by=request.user)
    except TokenError as error:  # never for one's own token; kept for the rule's sake
        messages.error(request, str(error))
    else:
        messages.success(request, f"Token {token.prefix}… ({token.name}) revoked.")
    return redirect("api_tokens")

