"""Replays: create one (its renders and groups are chosen and frozen then),
queue it, cancel it; its worker scores it in batches (job.py).

A signal the chosen judges can never answer (training.reward.scoring.signal_problem)
would leave every render with no total: such a replay is refused, with the
reason and the way out, unless the person chose to drop those signals; then
each rubric's entry in `rubric_signals` records what was dropped and why,
and the result shows it."""
from __future__ import annotations

from django.db import transaction

from jobs.dispatch import job_enqueue
from jobs.services import Cancel, job_cancel

from ..models import Judge, Replay, ReplayItem, Rubric
from ..presets import LOCAL_JUDGE
from ..reward.rubric import signal_specs, specs_kept
from ..reward.scoring import signal_context_for, signals_unanswerable, unanswerable_text
from ..reward.spec import RubricError
from .selection import ReplaySelection, renders_select, selection_resolve

Status = Replay.Status

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
