"""Work that gives way: a function run in a thread the kernel schedules
behind everything else when the cores are busy."""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# The most a nice value goes (POSIX): the kernel clamps anything above it.
MAX_NICENESS = 19


def run_yielding(fn: Callable[[], T], *, niceness: int) -> T:
    """fn() in a new thread `niceness` nicer than this one; its result is
    returned and its exception raised here. Linux keeps a nice value per
    thread, and threads that fn starts inherit it, so the caller's thread (a
    worker's, which runs the jobs after) keeps its priority: raising a nice
    value needs no privilege, lowering it again would. Elsewhere, or with
    niceness 0, fn runs here as it is."""
    if niceness <= 0 or not sys.platform.startswith("linux"):
        return fn()
    outcome: dict = {}

    def body() -> None:
        from django.db import connections

        try:
            os.nice(min(niceness, MAX_NICENESS - os.nice(0)))
            outcome["value"] = fn()
        except BaseException as exc:  # raised in the caller's thread below
            outcome["error"] = exc
        finally:
            connections.close_all()  # this thread's own; nobody else will close them

    thread = threading.Thread(target=body, name="paintrl-yielding")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
