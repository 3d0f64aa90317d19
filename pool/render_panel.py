"""The render page's pool panel (sketches.conf.render_panels names it): the
render's tier in the live pool and in the newest snapshot, and which reward
model gave its taste score. Curators see tiers (pool.views says why); staff
also see the grade counts behind them."""
from __future__ import annotations

from sketches.access import is_curator
from sketches.models import Render
from sketches.render_panels import RenderPanel

from .reward.scoring import model_label
from .reward.selectors import reward_model_active
from .selectors import render_pool_place


def pool_panel(request, render: Render) -> RenderPanel | None:
    if not is_curator(request.user):
        return None
    active = reward_model_active()
    return RenderPanel("pool/render_panel.html", {
        "place": render_pool_place(render),
        "staff": request.user.is_staff,
        "active_label": model_label(active) if active is not None else "",
    })
