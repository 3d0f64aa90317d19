"""Replays: create one (its renders and groups are chosen and frozen then),
run it on a worker in batches, cancel it.

A run is resumable and idempotent: items are scored in batches and each
batch's values are saved before the next begins, so a redelivered task
scores only what is left. Diagnostics are computed from the stored values
at the end, for each rubric.

A signal the chosen judges can never answer (training.reward_signals.signal_problem)
would leave every render with no total: such a replay is refused, with the
reason and the way out, unless the person chose to drop those signals; then
each rubric's entry in `rubric_signals` records what was dropped and why,
and the result shows it."""
from __future__ import annotations

import time

from django.db import transaction

from jobs.dispatch import job_enqueue
from jobs.runner import Ending, JobStopped, Running, job_run
from jobs.services import Cancel, job_cancel
from sketches.models import Render

from ..diagnostics import rubric_diagnostics
from ..models import Judge, Replay, ReplayItem, Rubric
from ..presets import LOCAL_JUDGE
from ..reward_signals import (
    rollout_from_render,
    signal_context_for,
    signals_compute,
    signals_unanswerable,
    unanswerable_text,
)
from ..rubrics import RubricError, rubric_specs, signal_specs, specs_kept
from .selection import ReplaySelection, renders_select, selection_resolve

Status = Replay.Status

# Renders scored together: one judge batch, one database write, one cancel check.
BATCH = 64
# Where the lab's form offers the choice to drop signals (in a refusal's way out).
HOW_TO_DROP = 'tick "Drop signals the judges cannot answer"'


class ReplayError(ValueError):
    """A replay that cannot be made as asked; the message says why."""


def replay_create(*, rubric: Rubric, selection: ReplaySelection,
                  compare_rubric: Rubric | None = None, snapshot=None,
                  judge: Judge | None = None, scorer: Judge | None = None,
                  drop_unanswerable: bool = False, name: str = "", created_by=None,
                  queue: bool = True) -> Replay:
    """A queued replay of `rubric` (and `compare_rubric`) on the renders
    `selection` chooses; queued on the short queue after commit. Signals the
    judges can never answer refuse it, or with `drop_unanswerable` are
    dropped openly (module docstring)."""
    rubrics = [rubric] + ([compare_rubric] if compare_rubric else [])
    for each in rubrics:
        signal_specs(each.signals)  # RubricError says what is wrong with it
    selection = selection_resolve(selection)  # an auto grouping is stored as the one it picked
    chosen = renders_select(selection)
    if not chosen:
        raise ReplayError("no renders match the selection: widen the filter")
    default_judge = Judge.objects.filter(name=LOCAL_JUDGE).first()
    judge, scorer = judge or default_judge, scorer or default_judge
    if judge is None or scorer is None:
        raise ReplayError("choose a judge and a scorer (the local judge preset is missing)")
    entries = replay_rubrics(rubrics, judge=judge, scorer=scorer, snapshot=snapshot,
                             drop_unanswerable=drop_unanswerable)
    with transaction.atomic():
        replay = Replay.objects.create(
            name=name, rubric=rubric, compare_rubric=compare_rubric, snapshot=snapshot,
            judge=judge, scorer=scorer, selection=selection.as_dict(),
            group_by=selection.group_by, seed=selection.seed, created_by=created_by,
            rubric_signals=entries,
            progress={"stage": "queued", "done": 0, "total": len(chosen)})
        ReplayItem.objects.bulk_create(
            ReplayItem(replay=replay, render_id=pk, group=label[:300]) for pk, label in chosen)
        if queue:
            job_enqueue(job=replay)
    return replay


def replay_rubrics(rubrics: list[Rubric], *, judge: Judge, scorer: Judge, snapshot,
                   drop_unanswerable: bool) -> list[dict]:
    """Each rubric as the replay scores it, {label, rubric_id, signals,
    dropped}; ReplayError where a signal can never be answered and dropping
    was not chosen, or where dropping would leave nothing to reward."""
    context = signal_context_for(judge=judge, scorer=scorer, snapshot=snapshot)
    entries = []
    for each in rubrics:
        specs = signal_specs(each.signals)
        found = signals_unanswerable(specs, context)
        if found and not drop_unanswerable:
            raise ReplayError(f"rubric {each}: {unanswerable_text(found, how_to_drop=HOW_TO_DROP)}")
        try:
            specs_kept(specs, found)
        except RubricError as error:
            raise ReplayError(f"rubric {each}: {error}") from error
        entries.append({"label": str(each), "rubric_id": each.pk, "signals": each.signals,
                        "dropped": found})
    return entries


def replay_answerable(rubric: Rubric, *, judge: Judge | None, scorer: Judge | None,
                      snapshot) -> bool:
    """Whether replay_create would take `rubric` with these judges without
    dropping a signal: the lab's form preselects only a comparison its own
    defaults can run."""
    if judge is None or scorer is None:
        return False
    try:
        replay_rubrics([rubric], judge=judge, scorer=scorer, snapshot=snapshot,
                       drop_unanswerable=False)
    except (ReplayError, RubricError):
        return False
    return True


def replay_cancel(*, replay: Replay) -> Cancel:
    """Ask a replay to stop after its current batch; a queued one stops at
    once (jobs.services.job_cancel)."""
    return job_cancel(job=replay)


def replay_run(*, replay_id: int, on_progress=None) -> Replay:
    """Score a queued (or interrupted) replay to the end in this process
    (what its worker runs: the "replay" kind, training.kinds); ends done,
    failed or cancelled. `on_progress(dict)` sees each progress row."""
    job_run(kind="replay", pk=replay_id, on_progress=on_progress)
    return Replay.objects.get(pk=replay_id)


def replay_body(running: Running) -> Ending:
    """The replay kind's body (jobs.runner): score what is left in batches,
    each saved before the next begins; a cancel is read between batches."""
    replay = Replay.objects.get(pk=running.pk)
    specs = [spec for entry in replay.rubric_signals for spec in entry_specs(entry)]
    context = signal_context_for(judge=replay.judge, scorer=replay.scorer,
                                 snapshot=replay.snapshot, seed=replay.seed)
    notices = context.notices
    total = replay.items.count()
    pending = list(replay.items.filter(values={}).values_list("pk", flat=True))
    done = total - len(pending)
    started = time.monotonic()
    for start in range(0, len(pending), BATCH):
        if running.lease.cancel_requested():
            raise JobStopped(extra={"done": done, "total": total}, notices=notices)
        items = list(ReplayItem.objects.filter(pk__in=pending[start:start + BATCH])
                     .select_related("render__sketch"))
        scored = [item for item in items if item.render is not None]
        rollouts = [rollout_from_render(item.render) for item in scored]
        for item, values in zip(scored, signals_compute(specs, rollouts, context), strict=True):
            item.values = values
        for item in items:
            if item.render is None:  # deleted since: nothing to score, nothing to show
                item.values = {"deleted": True}
        ReplayItem.objects.bulk_update(items, ["values"])
        done += len(items)
        progress = {"stage": "scoring", "done": done, "total": total,
                    "elapsed_s": round(time.monotonic() - started, 1)}
        running.lease.write(progress=progress, notices=notices)
        if running.on_progress is not None:
            running.on_progress(progress)
    return Ending(extra={"done": done, "total": total},
                  fields={"notices": notices, "results": replay_results(replay)})


def entry_specs(entry: dict):
    """What one of a replay's rubrics scores: its signals without those dropped."""
    return rubric_specs(entry["signals"], entry.get("dropped") or ())


def replay_results(replay: Replay) -> dict:
    """Diagnostics of each rubric on the replay's stored values."""
    rows = [(item.values, item.group) for item in replay.items.only("values", "group")
            if item.values and not item.values.get("deleted")]
    values, groups = [v for v, _ in rows], [g for _, g in rows]
    return {"rubrics": [{"label": entry["label"],
                         "diagnostics": rubric_diagnostics(entry_specs(entry), values, groups)}
                        for entry in replay.rubric_signals]}


def renders_of(replay: Replay):
    """The renders a replay scored, for its gallery."""
    return Render.objects.filter(pk__in=replay.items.values("render_id"))
