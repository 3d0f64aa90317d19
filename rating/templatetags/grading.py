"""Template reads for the grading page: the guidelines staff wrote (from the
cached settings row, so no query on most requests)."""
from django import template

from rating.selectors import grading_settings

register = template.Library()


@register.simple_tag
def grading_guidelines() -> str:
    return grading_settings().guidelines
