"""Helpers every endpoint module shares: look a row up or answer 404."""

from django.http import Http404

from sketches.input_rules import ID_MAX


def one(queryset, pk: int, what: str):
    """The row `pk` of `queryset`, or a 404 naming what was asked for (a
    number no key can be is not looked up: SQLite's query would overflow)."""
    row = queryset.filter(pk=pk).first() if 1 <= pk <= ID_MAX else None
    if row is None:
        raise Http404(f"there is no {what} {pk}")
    return row
