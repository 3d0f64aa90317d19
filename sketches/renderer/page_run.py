"""What one page saw while running one sketch, before the gate judges it."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PageRun:
    # The harness's own account (phase, frames, brush calls, ...), parsed JSON.
    snapshot: dict = field(default_factory=dict)
    png: bytes | None = None
    # Violations seen from outside the page (requests, dialogs, popups, crashes):
    # the sketch cannot forge or hide these.
    observed: dict[str, str] = field(default_factory=dict)
    page_errors: tuple[str, ...] = ()
    timed_out: bool = False
    # Timed out, then the script was stopped and the page read: the snapshot
    # (its drawMs the time until the deadline) and png are what it had so far.
    # False with timed_out where the page could not be read after the deadline.
    stopped_at_deadline: bool = False
    # From the sandbox: this attempt's page crashed, which the pool retries
    # and never judges on its own. From the pool: its verdict that the sketch
    # crashed its page or browser on two browsers that then rendered a
    # known-good sketch (pool.py says why that is the sketch's doing), with
    # crash_evidence saying so.
    crashed: bool = False
    crash_evidence: str = ""
    elapsed_ms: int = 0
    # Painting by construction: the checked call list the picture was painted
    # from (record.Recording.json()), the painting as data.
    recording: str | None = None
    # Set when the browser failed (not the sketch): no verdict can be given.
    unavailable: str | None = None

    @property
    def draw_ms(self) -> float:
        return float(self.snapshot.get("drawMs") or 0.0)
