"""The render page's grading panel (sketches.conf.render_panels names it):
the render's grades and who gave them, and buttons to grade it. Staff see
every curator's grade; a curator sees only their own, so their grades stay
independent (sketches.access)."""
from __future__ import annotations

import time

from sketches.access import is_curator
from sketches.models import Render
from sketches.render_panels import RenderPanel

from .models import Grade
from .selectors import render_grades, renders_gradable


def grading_panel(request, render: Render) -> RenderPanel | None:
    user = request.user
    if not is_curator(user):
        return None
    grades = render_grades(render=render)
    mine = next((grade for grade in grades if grade.curator_id == user.pk), None)
    return RenderPanel("rating/render_panel.html", {
        "grades": grades if user.is_staff else [],
        "mine": mine,
        "staff": user.is_staff,
        "gradable": renders_gradable().filter(pk=render.pk).exists(),
        "values": Grade.Value.choices,
        "shown_at": int(time.time() * 1000),
        "back": request.get_full_path(),
    })
