"""Who may grade: see sketches.access (one set of rules for every app)."""
from sketches.access import curator_required, is_curator, staff_required

__all__ = ["curator_required", "is_curator", "staff_required"]
