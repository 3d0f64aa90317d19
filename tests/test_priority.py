"""jobs.priority.run_yielding: the work runs nicer, in a thread of its own,
and the caller gets its result or its error while keeping its own priority."""
from __future__ import annotations

import os
import threading

import pytest

from jobs.priority import MAX_NICENESS, run_yielding


def test_the_work_runs_nicer_in_its_own_thread_and_the_caller_keeps_its_priority():
    before = os.nice(0)
    seen = run_yielding(lambda: (os.nice(0), threading.current_thread().name), niceness=5)
    assert seen == (min(MAX_NICENESS, before + 5), "paintrl-yielding")
    assert os.nice(0) == before


def test_threads_the_work_starts_are_as_nice_as_it():
    def work():
        inner = []
        thread = threading.Thread(target=lambda: inner.append(os.nice(0)))
        thread.start()
        thread.join()
        return inner[0]

    assert run_yielding(work, niceness=3) == min(MAX_NICENESS, os.nice(0) + 3)


def test_its_error_is_raised_to_the_caller():
    def work():
        raise ValueError("the build failed")

    with pytest.raises(ValueError, match="the build failed"):
        run_yielding(work, niceness=2)


def test_niceness_zero_runs_the_work_here():
    assert run_yielding(threading.current_thread, niceness=0) is threading.current_thread()
