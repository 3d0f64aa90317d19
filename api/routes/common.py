"""Helpers every endpoint module shares: look a row up or answer 404."""

from django.http import Http404


def one(queryset, pk: int, what: str):
    """The row `pk` of `queryset`, or a 404 naming what was asked for."""
    row = queryset.filter(pk=pk).first()
    if row is None:
        raise Http404(f"there is no {what} {pk}")
    return row
