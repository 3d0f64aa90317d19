"""Queue orders: in which order a curator meets the renders they have not
graded. Each order is a function from a queryset of renders to the same
queryset ordered; "most informative first" is supplied from outside the app
(the pool app's reward model) through settings.PAINTRL_INFORMATIVE_ORDER and is
offered only while that function answers with an ordering."""
from __future__ import annotations

from collections.abc import Callable

from django.db.models import QuerySet

from sketches.models import Render

from . import conf

QueueOrder = Callable[[QuerySet[Render]], QuerySet[Render] | None]

DEFAULT = "newest"
INFORMATIVE = "informative"


def newest_first(renders: QuerySet[Render]) -> QuerySet[Render]:
    return renders.order_by("-created", "-pk")


def random_order(renders: QuerySet[Render]) -> QuerySet[Render]:
    return renders.order_by("?")


def by_prompt(renders: QuerySet[Render]) -> QuerySet[Render]:
    # Renders of one prompt arrive together, so a curator compares like with like.
    return renders.order_by("sketch__prompt", "sketch_id", "seed", "pk")


BUILT_IN: dict[str, tuple[str, QueueOrder]] = {
    "newest": ("Newest first", newest_first),
    "random": ("Random", random_order),
    "prompt": ("By prompt", by_prompt),
}
INFORMATIVE_LABEL = "Most informative first"


def orders_available() -> dict[str, str]:
    """Order names and labels to offer; "informative" only once its provider
    can order (it answers None while there is no reward model)."""
    labels = {name: label for name, (label, _) in BUILT_IN.items()}
    provider = conf.informative_order()
    if provider is not None and provider(Render.objects.none()) is not None:
        labels[INFORMATIVE] = INFORMATIVE_LABEL
    return labels


def order_apply(name: str, renders: QuerySet[Render]) -> QuerySet[Render]:
    """`renders` in the named order. Raises ValueError for an unknown order, or
    for "informative" while it is not available."""
    if name in BUILT_IN:
        return BUILT_IN[name][1](renders)
    if name == INFORMATIVE:
        provider = conf.informative_order()
        ordered = provider(renders) if provider is not None else None
        if ordered is None:
            raise ValueError("the 'informative' order needs a reward model; none is available yet")
        return ordered
    raise ValueError(f"unknown queue order {name!r}: expected one of "
                     f"{', '.join([*BUILT_IN, INFORMATIVE])}")
