"""Panels other apps add to the render page. Sketches sits below rating and
pool and imports neither: the page asks the functions settings name
(sketches.conf.render_panels) and includes the templates they return."""
from __future__ import annotations

from dataclasses import dataclass, field

from .conf import render_panels


@dataclass(frozen=True)
class RenderPanel:
    template: str  # included with `panel` set to this panel
    context: dict = field(default_factory=dict)


def render_panels_for(request, render) -> list[RenderPanel]:
    """The panels the configured functions give for `render`, in order; a
    function answers None where it has nothing to show this user."""
    panels = (panel_for(request, render) for panel_for in render_panels())
    return [panel for panel in panels if panel is not None]
