"""Which renders a replay scores, and in which groups.

GRPO compares rollouts of one prompt with each other, so a replay scores
renders in groups: all renders of one prompt (or one subject), at most
`per_group` of each, whole groups drawn in a seeded random order until
`limit` renders are chosen. Rejected renders are included by default: the
gate signals are about them. A training run's rollouts keep the groups they
were trained in (one prompt at one step)."""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from pool.subjects import subject_of_sketch
from sketches.models import Render


@dataclass(frozen=True)
class ReplaySelection:
    render_ids: tuple[int, ...] = ()  # a hand-picked set; empty for any
    run_id: int | None = None  # a training run's rollouts, in their GRPO groups
    origin: str = ""  # a Sketch.Origin value, or "" for any
    prompt_contains: str = ""
    graded_only: bool = False
    include_rejected: bool = True
    group_by: str = "prompt"  # prompt, subject or none
    per_group: int = 8
    limit: int = 256
    seed: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def renders_select(selection: ReplaySelection) -> list[tuple[int, str]]:
    """(render id, group label) pairs, grouped (module docstring)."""
    if selection.run_id is not None:
        return _run_rollouts(selection)
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
    groups: dict[str, list[int]] = {}
    fields = ("pk", "sketch__prompt", "sketch__meta", "sketch__origin")
    for render in renders.only(*fields).order_by("pk"):
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


def _run_rollouts(selection: ReplaySelection) -> list[tuple[int, str]]:
    from ..models import Rollout

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
