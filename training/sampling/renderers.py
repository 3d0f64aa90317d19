"""Where a run's rollouts render (TrainingRun.renders, frozen at launch):
"process", the train worker's own browser pool (the default: one machine),
or "fleet", the render workers through the `render` queue (sketches/fleet.py:
a GPU host with no browsers, render workers on as many hosts as there are).
The worker chooses once per run (`run_renderer`); the reward function calls
the renderer once per step and records who rendered it."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sketches.fleet import fleet_render
from sketches.renderer import shared_pool
from sketches.rendering import RenderOutcome, render_text

# How TrainingStep.render_workers names the train worker's own pool (Celery
# node names, which name the render workers, always hold an "@").
IN_PROCESS = "in process"


@dataclass(frozen=True)
class RenderedBatch:
    """A step's renders in order, and how many each render worker gave
    (renders no worker took, the fleet having given up on them, count for none)."""

    outcomes: list[RenderOutcome]
    workers: dict[str, int]


class ProcessRenderer:
    """The train worker's own pool: one waiting thread per browser keeps each
    browser busy (SwiftShader serialises inside one)."""

    def __init__(self, pool):
        self.pool = pool

    def __call__(self, texts: Sequence[str], seeds: Sequence[int],
                 keys: Sequence[str]) -> RenderedBatch:
        with ThreadPoolExecutor(max_workers=self.pool.config.browsers) as executor:
            outcomes = list(executor.map(render_text, [self.pool] * len(texts), texts, seeds))
        return RenderedBatch(outcomes, {IN_PROCESS: len(outcomes)} if outcomes else {})


class FleetRenderer:
    """The render workers, one task per render; the keys make a render done
    twice come back once (sketches/fleet.py)."""

    def __call__(self, texts: Sequence[str], seeds: Sequence[int],
                 keys: Sequence[str]) -> RenderedBatch:
        renders = fleet_render(texts=texts, seeds=seeds, keys=keys)
        return RenderedBatch([r.outcome for r in renders],
                             dict(Counter(r.worker for r in renders if r.worker)))


def run_renderer(renders: str) -> ProcessRenderer | FleetRenderer:
    """The renderer for a run's `renders` setting. Only "process" starts
    browsers in this process."""
    if renders == "fleet":
        return FleetRenderer()
    if renders != "process":
        raise ValueError(f"renders must be process or fleet, got {renders!r}")

    return ProcessRenderer(shared_pool())
