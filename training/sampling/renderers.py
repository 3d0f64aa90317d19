"""Where a run's rollouts render (TrainingRun.renders, frozen at launch):
"process", the train worker's own browser pool (the default: one machine),
or "fleet", the render workers through the `render` queue (sketches/fleet.py:
a GPU host with no browsers, render workers on as many hosts as there are).
The worker chooses once per run (`run_renderer`), with the p5.brush the
run's sketches render with (RunConfig.brush: "2" unless the run says
otherwise); the reward function and the probe call the renderer once per
step and record who rendered it."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sketches.brush_api import brush_choice_check
from sketches.fleet import fleet_render
from sketches.renderer import shared_pool
from sketches.renderer.libraries import DEFAULT_BRUSH
from sketches.rendering import RenderOutcome, render_text

# How TrainingStep.render_workers names the train worker's own browsers (Celery
# node names, which name the render workers, always hold an "@").
IN_PROCESS = "in process"


@dataclass(frozen=True)
class RenderedBatch:
    """A step's renders in order, and how many each render worker gave
    (renders no worker took, the fleet having given up on them, count for none)."""

    outcomes: list[RenderOutcome]
    workers: dict[str, int]


class ProcessRenderer:
    """The train worker's own browser pool (sketches.renderer.RenderPool):
    one waiting thread per browser keeps each browser busy (SwiftShader
    serialises inside one)."""

    def __init__(self, browsers, brush: str = DEFAULT_BRUSH):
        self.browsers, self.brush = browsers, brush_choice_check(brush)

    def __call__(self, texts: Sequence[str], seeds: Sequence[int],
                 keys: Sequence[str]) -> RenderedBatch:
        with ThreadPoolExecutor(max_workers=self.browsers.config.browsers) as executor:
            outcomes = list(executor.map(render_text, [self.browsers] * len(texts), texts, seeds,
                                         [self.brush] * len(texts)))
        return RenderedBatch(outcomes, {IN_PROCESS: len(outcomes)} if outcomes else {})


class FleetRenderer:
    """The render workers, one task per render; the keys make a render done
    twice come back once (sketches/fleet.py)."""

    def __init__(self, brush: str = DEFAULT_BRUSH):
        self.brush = brush_choice_check(brush)

    def __call__(self, texts: Sequence[str], seeds: Sequence[int],
                 keys: Sequence[str]) -> RenderedBatch:
        renders = fleet_render(texts=texts, seeds=seeds, keys=keys, brush=self.brush)
        return RenderedBatch([r.outcome for r in renders],
                             dict(Counter(r.worker for r in renders if r.worker)))


def run_renderer(renders: str, brush: str = DEFAULT_BRUSH) -> ProcessRenderer | FleetRenderer:
    """The renderer for a run's `renders` and `brush` settings. Only
    "process" starts browsers in this process."""
    brush_choice_check(brush)
    if renders == "fleet":
        return FleetRenderer(brush)
    if renders != "process":
        raise ValueError(f"renders must be process or fleet, got {renders!r}")

    return ProcessRenderer(shared_pool(), brush)
