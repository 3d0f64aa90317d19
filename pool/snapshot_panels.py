"""Panels higher apps add to a snapshot's page (its calibrations, which are
the training app's). The pool imports none of them: the page asks the
functions settings.PAINTRL_SNAPSHOT_PANELS names (pool.conf) and includes
the templates they return, and shows each member's badge beside its tile."""
from __future__ import annotations

from dataclasses import dataclass, field

from .conf import snapshot_panels


@dataclass(frozen=True)
class MemberBadge:
    """A word on a member's tile: `text`, `title` on hover, `marked` to stand out."""

    text: str
    title: str = ""
    marked: bool = False


@dataclass(frozen=True)
class SnapshotPanel:
    template: str  # included with `panel` set to this panel
    context: dict = field(default_factory=dict)
    badges: dict[int, MemberBadge] = field(default_factory=dict)  # by member id


def snapshot_panels_for(request, snapshot) -> list[SnapshotPanel]:
    """The panels the configured functions give for `snapshot`, in order; a
    function answers None where it has nothing to show this user."""
    panels = (panel_for(request, snapshot) for panel_for in snapshot_panels())
    return [panel for panel in panels if panel is not None]
