"""The replay kind's body (jobs.runner; registered in training.kinds): score
what is left of a replay in batches, each batch's values saved before the
next begins, so a redelivered job scores only what is left; a cancel is read
between batches. The diagnostics are computed from the stored values at the
end (selectors.replay_results)."""
from __future__ import annotations

import time

from jobs.runner import Ending, JobStopped, Running

from ..models import Replay, ReplayItem
from ..reward.inputs import rollout_from_render
from ..reward.scoring import signal_context_for, signals_compute
from .selectors import entry_specs, replay_results

# Renders scored together: one judge batch, one database write, one cancel check.
BATCH = 64


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
