"""Which idle browser serves which render: the pool's hand-out desk.

A plain queue hands any idle browser to the next caller. A retry needs more:
it must run on a browser other than the one that failed (a second opinion),
and the check that a browser still renders honest code needs that very
browser. So each waiter says which browsers it accepts; a browser coming back
goes to the first waiter that accepts it, and waits idle if none does.
Retries and checks may go to the front: they finish work already in flight.
Everything here runs on the pool's event loop, so no locks are needed.
"""
from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def any_browser(_item: object) -> bool:
    return True


class IdleBrowsers(Generic[T]):
    def __init__(self) -> None:
        self._idle: list[T] = []
        self._waiters: deque[tuple[Callable[[T], bool], asyncio.Future]] = deque()

    def put(self, item: T) -> None:
        """Hand `item` to the first waiter that accepts it, or keep it idle."""
        for waiter in list(self._waiters):
            accepts, future = waiter
            if future.done():  # given up (timed out or cancelled)
                self._waiters.remove(waiter)
            elif accepts(item):
                self._waiters.remove(waiter)
                future.set_result(item)
                return
        self._idle.append(item)

    async def get(self, accepts: Callable[[T], bool] = any_browser, *, first: bool = False,
                  timeout: float | None = None) -> T | None:
        """An idle item that `accepts` takes, waiting for one at most `timeout`
        seconds (None when none came); `first` puts this waiter before the
        others."""
        for item in self._idle:
            if accepts(item):
                self._idle.remove(item)
                return item
        future = asyncio.get_running_loop().create_future()
        waiter = (accepts, future)
        (self._waiters.appendleft if first else self._waiters.append)(waiter)
        try:
            await asyncio.wait({future}, timeout=timeout)
        except asyncio.CancelledError:
            self._give_up(waiter)
            raise
        if future.done():
            return future.result()
        self._give_up(waiter)
        return None

    def take_all(self, predicate: Callable[[T], bool]) -> list[T]:
        """Remove and return the idle items `predicate` picks."""
        taken = [item for item in self._idle if predicate(item)]
        self._idle = [item for item in self._idle if not predicate(item)]
        return taken

    def _give_up(self, waiter) -> None:
        """Withdraw a waiter; an item handed to it meanwhile goes back."""
        _accepts, future = waiter
        if waiter in self._waiters:
            self._waiters.remove(waiter)
        if future.done() and not future.cancelled():
            self.put(future.result())
        else:
            future.cancel()
