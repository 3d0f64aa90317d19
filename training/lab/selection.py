"""Which renders a replay scores, and in which groups.

GRPO compares rollouts of one prompt with each other, so a replay scores
renders in groups: all renders of one prompt (or one subject), at most
`per_group` of each, whole groups drawn in a seeded random order until
`limit` renders are chosen. Rejected renders are included by default: the
gate signals are about them. A training run's rollouts keep the groups they
were trained in (one prompt at one step).

The default grouping ("auto") looks at the renders chosen: groups of one
render have no spread, so every within-group signal would look dead (the
demo corpus has 127 renders and 123 prompts). It groups by prompt where
prompts repeat enough, else by subject, else puts every render in one group,
and records which it used and why."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import asdict, dataclass, replace

from django.template.defaultfilters import pluralize

from pool.subjects import subject_of_sketch
from sketches.models import Render

from ..models import Rollout


@dataclass(frozen=True)
class ReplaySelection:
    render_ids: tuple[int, ...] = ()  # a hand-picked set; empty for any
    run_id: int | None = None  # a training run's rollouts, in their GRPO groups
    origin: str = ""  # a Sketch.Origin value, or "" for any
    prompt_contains: str = ""
    graded_only: bool = False
    include_rejected: bool = True
    group_by: str = "prompt"  # prompt, subject, none, or auto (module docstring)
    group_reason: str = ""  # why auto chose group_by; empty when a person chose it
    per_group: int = 8
    limit: int = 256
    seed: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


AUTO = "auto"
# A group teaches GRPO something only if it holds several renders: 1 has no
# spread, 2 give one comparison. Auto grouping uses a key (prompt, then subject)
# when at least GROUPED_SHARE of the renders fall in groups of MIN_GROUP or more.
MIN_GROUP = 3
GROUPED_SHARE = 0.5


def renders_select(selection: ReplaySelection) -> list[tuple[int, str]]:
    """(render id, group label) pairs, grouped (module docstring)."""
    if selection.run_id is not None:
        return _run_rollouts(selection)
    selection = selection_resolve(selection)
    groups: dict[str, list[int]] = {}
    for render in _renders(selection):
        groups.setdefault(_group_of(render, selection.group_by), []).append(render.pk)
    labels = sorted(groups)
    random.Random(f"replay-selection:{selection.seed}").shuffle(labels)
    chosen: list[tuple[int, str]] = []
    for label in labels:
        room = selection.limit - len(chosen)
        if room <= 0:
            break
        members = groups[label] if selection.group_by == "none" else \
            groups[label][:selection.per_group]
        chosen.extend((pk, label) for pk in members[:room])
    return chosen


def selection_resolve(selection: ReplaySelection) -> ReplaySelection:
    """The selection with an auto grouping replaced by the one it picks, and
    the reason recorded; any other selection as it is."""
    if selection.group_by != AUTO:
        return selection
    if selection.run_id is not None:
        return replace(selection, group_by="prompt",
                       group_reason="a training run's rollouts keep their GRPO groups")
    group_by, reason = grouping_choose(list(_renders(selection)), per_group=selection.per_group)
    return replace(selection, group_by=group_by, group_reason=reason)


def grouping_choose(renders: list[Render], *, per_group: int) -> tuple[str, str]:
    """("prompt" | "subject" | "none", why) for these renders (module docstring)."""
    total = len(renders)
    if not total:
        return "none", "there are no renders to group"
    least = max(2, min(MIN_GROUP, per_group))
    others = f"at least {_count(least - 1, 'other')}"
    sizes = {key: Counter(_group_of(render, key) for render in renders)
             for key in ("prompt", "subject")}
    grouped = {key: sum(n for n in counts.values() if n >= least) for key, counts in sizes.items()}
    distinct = {key: _count(len(counts), key) for key, counts in sizes.items()}
    among = f"among {_count(total, 'render')}"
    if grouped["prompt"] >= GROUPED_SHARE * total:
        return "prompt", (f"{grouped['prompt']} of {_count(total, 'render')} share their prompt "
                          f"with {others} ({distinct['prompt']})")
    rare = f"prompts repeat too rarely ({distinct['prompt']} {among})"
    if grouped["subject"] >= GROUPED_SHARE * total:
        return "subject", (f"{rare}; {grouped['subject']} of {total} share their subject with "
                           f"{others} ({distinct['subject']})")
    return "none", (f"prompts and subjects repeat too rarely ({distinct['prompt']} and "
                    f"{distinct['subject']} {among}): one group of all of them")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{pluralize(n)}"


def _renders(selection: ReplaySelection):
    """The renders the filters match, oldest first, with what grouping reads."""
    statuses = [Render.Status.OK] + ([Render.Status.REJECTED] if selection.include_rejected else [])
    renders = Render.objects.filter(status__in=statuses).select_related("sketch")
    if selection.render_ids:
        renders = renders.filter(pk__in=selection.render_ids)
    if selection.origin:
        renders = renders.filter(sketch__origin=selection.origin)
    if selection.prompt_contains:
        renders = renders.filter(sketch__prompt__icontains=selection.prompt_contains)
    if selection.graded_only:
        renders = renders.filter(grades__isnull=False).distinct()
    fields = ("pk", "sketch__prompt", "sketch__meta", "sketch__origin")
    return renders.only(*fields).order_by("pk")


def _run_rollouts(selection: ReplaySelection) -> list[tuple[int, str]]:
    rows = Rollout.objects.filter(run_id=selection.run_id, render__isnull=False)
    if not selection.include_rejected:
        rows = rows.filter(render__status=Render.Status.OK)
    else:
        rows = rows.filter(render__status__in=[Render.Status.OK, Render.Status.REJECTED])
    chosen = [(render_id, f"step {step}, group {group}") for render_id, step, group in
              rows.order_by("step", "group", "index").values_list("render_id", "step", "group")]
    return chosen[:selection.limit]


def _group_of(render: Render, group_by: str) -> str:
    if group_by == "prompt":
        return render.sketch.prompt.strip() or f"(no prompt) sketch {render.sketch_id}"
    if group_by == "subject":
        return subject_of_sketch(render.sketch)
    return "all"
