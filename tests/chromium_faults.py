"""A Chromium that dies as each render begins, for tests that need a real render to come
back `unavailable` (the browser's failure, not the sketch's).

`chromium_that_dies_on_render(folder)` writes an executable to use as the renderer's
Chromium (PAINTRL_CHROMIUM_PATH). It starts the real Chromium and relays the DevTools pipe
Playwright talks over (--remote-debugging-pipe: commands on fd 3, replies on fd 4), as
tests/tcp_proxy.py relays PostgreSQL: the fault comes at a moment chosen by what the client
sends, not by a timer. Launching and loading the sandbox page work as usual; the first
`Storage.clearDataForOrigin` (which the sandbox sends only as a render starts) is never
delivered: the browser and its children are killed, as an out-of-memory kill or a lost
machine would. The pool retries on a relaunched browser, which dies the same way, so
every render reports `unavailable`. Each kill appends the browser's pid to `kills`.

The files live in a folder of their own that anyone may enter: a root worker runs
Chromium as the sandbox user (sketches/renderer/os_sandbox.py), who cannot enter pytest's
tmp_path."""
from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import chromium_path

RELAY = r'''
import os, sys, threading
import psutil

CHROMIUM, TRIGGER, KILLS = {chromium!r}, {trigger!r}, {kills!r}

commands_r, commands_w = os.pipe()
replies_r, replies_w = os.pipe()
pid = os.fork()
if pid == 0:  # the real Chromium, on its own ends of the two pipes at fd 3 and 4
    os.dup2(commands_r, 3)
    os.dup2(replies_w, 4)
    for fd in (commands_r, commands_w, replies_r, replies_w):
        os.close(fd)
    os.execv(CHROMIUM, [CHROMIUM, *sys.argv[1:]])
os.close(commands_r)
os.close(replies_w)


def kill_browser():
    browser = psutil.Process(pid)
    for process in [browser, *browser.children(recursive=True)]:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    with open(KILLS, "a") as out:
        out.write(f"{{pid}}\n")
    os._exit(137)


def commands():
    """Playwright -> Chromium, one NUL-terminated JSON message at a time."""
    pending = b""
    while chunk := os.read(3, 1 << 16):
        pending += chunk
        *messages, pending = pending.split(b"\0")
        for message in messages:
            if TRIGGER in message:
                kill_browser()
            os.write(commands_w, message + b"\0")
    os.close(commands_w)  # Playwright closed the pipe: Chromium exits


def replies():
    """Chromium -> Playwright, as it comes."""
    while chunk := os.read(replies_r, 1 << 16):
        os.write(4, chunk)


threading.Thread(target=commands, daemon=True).start()
forward = threading.Thread(target=replies, daemon=True)
forward.start()
_, status = os.waitpid(pid, 0)
forward.join(timeout=5)
os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
'''


@contextmanager
def chromium_that_dies_on_render() -> Iterator[tuple[Path, Path]]:
    """(the executable, the file listing each browser killed), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="paintrl-chromium-faults-") as name:
        folder = Path(name)
        os.chmod(folder, 0o755)
        kills = folder / "kills"
        kills.touch()
        os.chmod(kills, 0o666)
        wrapper = folder / "chromium-dies-on-render"
        wrapper.write_text(f"#!{sys.executable}\n" + RELAY.format(
            chromium=chromium_path(), trigger=b'"Storage.clearDataForOrigin"',
            kills=str(kills)))
        wrapper.chmod(0o755)
        yield wrapper, kills
