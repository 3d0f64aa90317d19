"""Which renders are in the pool, and in which tier?

A render's grades resolve under the rule in force (the newest PoolRule):

* fewer grades than `min_grades` (or none): not in the pool;
* LOVE when more than `love_share` of its grades are love;
* else OKAY, when the rule keeps an okay tier, when more than `love_share` of
  its grades are okay or better (a curator who loved it at least found it okay);
* else not in the pool.

With the default rule (love_share 0.5, okay tier, min_grades 1): one grade
of love is love and one okay is okay; at overlap > 1 love needs a strict
majority of love, and okay a strict majority of okay-or-love, so it is the
median grade, with a tie (love + nope) resolving to neither. Examples:
[love, love, okay] love; [love, okay] okay; [love, okay, nope] okay;
[love, nope] out; [okay, nope] out.

A staff pin overrides the grades: pinned in, a render joins the pin's tier
whatever its grades (even none); pinned out, it is left out. Only renders
that passed the gate and have a PNG can be members.

Whose grades count is rating.sources' rule: people's whenever any exist,
else the simulated curator's, never both; a pool (and a snapshot) that rests
on simulated grades says so."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Q

from rating.models import Grade
from rating.selectors import renders_gradable
from rating.sources import grade_sources
from sketches.models import Render

from .models import PoolPin, PoolRule, Tier
from .subjects import subject_of_sketch

DEFAULT_RULE_NOTE = "The default rule, saved when a snapshot first named it."


@dataclass(frozen=True)
class GradeTally:
    love: int = 0
    okay: int = 0
    nope: int = 0

    @property
    def total(self) -> int:
        return self.love + self.okay + self.nope


@dataclass(frozen=True)
class PoolEntry:
    """A render in the current pool: its tier, why, and what it shows."""
    render: Render  # with .sketch loaded (its code deferred)
    tier: str  # a Tier value
    subject: str
    tally: GradeTally
    pin: PoolPin | None  # set when pinned in

    @property
    def pinned(self) -> bool:
        return self.pin is not None


def render_strength(render: Render, loves: int) -> tuple:
    """Sort key for which of two near-duplicate renders to keep: more love
    grades, then (on a tie) the higher taste score (none counts lowest),
    then the newer render."""
    score = render.taste_score
    return (loves, score is not None, score or 0.0, render.created, render.pk)


def pool_rule_current() -> PoolRule:
    """The rule in force: the newest PoolRule or, before staff have saved one,
    the model's defaults, unsaved (pk None). Reading saves nothing:
    pool.services.pool_rule_default_save stores it where a write needs to
    name it."""
    rule = PoolRule.objects.order_by("-created", "-pk").first()
    return rule if rule is not None else PoolRule(note=DEFAULT_RULE_NOTE)


def tier_resolve(tally: GradeTally, rule: PoolRule) -> str | None:
    """The tier `tally` resolves to under `rule` (module docstring), or None."""
    total = tally.total
    if total == 0 or total < rule.min_grades:
        return None
    if tally.love / total > rule.love_share:
        return Tier.LOVE
    if rule.okay_tier and (tally.love + tally.okay) / total > rule.love_share:
        return Tier.OKAY
    return None


def pool_entries(rule: PoolRule | None = None, *,
                 render_ids: Iterable[int] | None = None) -> list[PoolEntry]:
    """Every render in the pool under `rule` (by default the one in force),
    pins applied, by render id; only those of `render_ids` when given. One
    query for the renders with their grade counts and pins; the sketches'
    code is not loaded (it can be long)."""
    rule = rule or pool_rule_current()
    sources = grade_sources()

    def counted(value: str) -> Count:
        return Count("grades", filter=Q(grades__value=value, grades__source__in=sources))

    renders = renders_gradable()
    if render_ids is not None:
        renders = renders.filter(pk__in=list(render_ids))
    renders = (
        renders
        .annotate(n_love=counted(Grade.Value.LOVE), n_okay=counted(Grade.Value.OKAY),
                  n_nope=counted(Grade.Value.NOPE))
        .filter(Q(n_love__gt=0) | Q(n_okay__gt=0) | Q(n_nope__gt=0)
                | Q(pool_pin__action=PoolPin.Action.IN))
        .select_related("sketch", "pool_pin")
        .defer("sketch__code")
        .order_by("pk")
    )
    entries = []
    for render in renders:
        tally = GradeTally(render.n_love, render.n_okay, render.n_nope)
        pin = getattr(render, "pool_pin", None)
        if pin is not None and pin.action == PoolPin.Action.OUT:
            continue
        if pin is not None:  # pinned in
            tier = pin.tier
        else:
            tier = tier_resolve(tally, rule)
            if tier is None:
                continue
        entries.append(PoolEntry(render=render, tier=tier, subject=subject_of_sketch(render.sketch),
                                 tally=tally, pin=pin))
    return entries
