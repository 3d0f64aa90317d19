"""Chromiums that fail on cue, for tests that need a real render to lose its browser or its
page, with the moment of the fault seen from outside the renderer.

Each is an executable to use as the renderer's Chromium (RendererConfig.chromium_path,
PAINTRL_CHROMIUM_PATH): tests/chromium_relay.py, which starts the real Chromium and relays
the DevTools pipe Playwright talks over, as tests/tcp_proxy.py relays PostgreSQL: the fault
comes at a moment chosen by what the client sends, not by a timer.

`chromium_that_dies_on_render()`: launching and loading the sandbox page work as usual; the
first `Storage.clearDataForOrigin` (which the sandbox sends only as a render starts) is
never delivered: the browser and its children are killed, as an out-of-memory kill or a
lost machine would. The pool retries on a relaunched browser, which dies the same way, so
every render reports `unavailable`. Each kill appends the browser's pid to `kills`.

`chromium_that_fails_mid_render(strike, after_s)`: renders work as usual until the test
`arm()`s a strike; then the next sketch handed to a page (its `__paintrl.run` call) is
struck `after_s` into that call, unless the call has returned by then: the relay sees the
reply, so a strike lands only while the sketch runs and its render is in flight. `strike`:
"browsers" kills every browser of the pool, "renderers" every page's renderer process (as
the kernel's OOM killer would). `strikes()` says what happened. `kill_browsers()` and
`kill_renderers()` kill from outside at once, whatever is running.

The files live in a folder of their own that anyone may enter, and the relay runs under a
Python that the browser's user can run (`relay_python()`): a root worker runs Chromium as the
sandbox user (sketches/renderer/os_sandbox.py), who cannot enter pytest's tmp_path, nor a
checkout cloned into a private folder, and so not its virtual environment."""
from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sketches.renderer.os_sandbox import sandbox_account
from tests import chromium_relay
from tests.chromium import chromium_path, make_config

WRAPPER = """#!{python} -I
import sys
sys.path.insert(0, {folder!r})
from chromium_relay import Relay
Relay({chromium!r}, {folder!r}, {mode!r}, {strike!r}, {after_s!r}).run()
"""


# What the relay imports (tests/chromium_relay.py): a Python that can import these can run it.
RELAY_IMPORTS = "import fcntl, json, os, signal, threading"


@functools.cache
def relay_python() -> str:
    """The interpreter for the relay. Not root: the browser runs as this user, so the test's
    own. Root: the browser runs as the sandbox user, so the first of the base interpreter and
    the system's that this user can start and import the relay's modules with, tried as it."""
    if os.geteuid() != 0:
        return sys.executable
    user = sandbox_account(make_config().sandbox_user)
    candidates = dict.fromkeys([os.path.realpath(sys._base_executable),
                                "/usr/bin/python3", "/usr/local/bin/python3"])
    for python in candidates:
        tried = subprocess.run(
            ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
             "--", python, "-I", "-c", RELAY_IMPORTS], capture_output=True, cwd="/")
        if tried.returncode == 0:
            return python
    raise RuntimeError(
        f"no Python the Chromium sandbox user {user.pw_name!r} can run (tried "
        f"{', '.join(candidates)}): install Debian's python3 (apt-get install python3), which "
        "the fault tests' relay runs under as that user.")


@dataclass(frozen=True)
class FaultyChromium:
    path: Path    # the executable
    folder: Path  # its files (tests/chromium_relay.py names them)

    def arm(self) -> None:
        """Strike the next sketch handed to a page."""
        with open(self.folder / "armed", "r+") as armed:
            fcntl.flock(armed, fcntl.LOCK_EX)
            left = int(armed.read().strip() or 0)
            armed.seek(0)
            armed.truncate()
            armed.write(str(left + 1))

    def strikes(self) -> list[str]:
        return (self.folder / "strikes").read_text().splitlines()

    def browsers(self) -> list[int]:
        """Every real Chromium started, relaunches included."""
        return chromium_relay.browsers(str(self.folder))

    def kill_browsers(self) -> int:
        return chromium_relay.kill(self.browsers())

    def kill_renderers(self) -> int:
        return chromium_relay.kill(self.browsers(), renderers=True)


@contextmanager
def _relay_chromium(mode: str, strike: str = "browser",
                    after_s: float = 0.0) -> Iterator[FaultyChromium]:
    with tempfile.TemporaryDirectory(prefix="paintrl-chromium-faults-") as name:
        folder = Path(name)
        os.chmod(folder, 0o755)
        shutil.copy(chromium_relay.__file__, folder / "chromium_relay.py")
        os.chmod(folder / "chromium_relay.py", 0o644)
        for shared in ("browsers", "kills", "armed", "strikes"):
            (folder / shared).touch()
            os.chmod(folder / shared, 0o666)
        wrapper = folder / f"chromium-{mode}"
        wrapper.write_text(WRAPPER.format(python=relay_python(), folder=str(folder),
                                          chromium=chromium_path(), mode=mode, strike=strike,
                                          after_s=after_s))
        wrapper.chmod(0o755)
        yield FaultyChromium(wrapper, folder)


@contextmanager
def chromium_that_dies_on_render() -> Iterator[tuple[Path, Path]]:
    """(the executable, the file listing each browser killed), removed afterwards."""
    with _relay_chromium("start") as chromium:
        yield chromium.path, chromium.folder / "kills"


@contextmanager
def chromium_that_fails_mid_render(strike: str, after_s: float = 0.0,
                                   ) -> Iterator[FaultyChromium]:
    """A Chromium whose armed strikes land while a sketch runs; removed afterwards."""
    with _relay_chromium("armed", strike, after_s) as chromium:
        yield chromium
