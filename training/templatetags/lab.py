"""Template filters for the lab's numbers."""
from django import template

register = template.Library()


@register.filter
def percent(value, digits: int = 0) -> str:
    """0.405 -> "41%"; None (undefined: no spread, no values) -> "–"."""
    if value is None or value == "":
        return "–"
    return f"{float(value) * 100:.{int(digits)}f}%"
