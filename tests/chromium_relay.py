"""The relay behind tests/chromium_faults.py: run in place of Chromium, it starts the real
one and relays the DevTools pipe Playwright talks over (--remote-debugging-pipe: commands on
fd 3, replies on fd 4), one NUL-terminated JSON message at a time, and kills on cue.

It runs as the browser's user (a root worker's is the sandbox user), from a folder of its
own, under a Python that user can run, which need not be the test's virtual environment (a
checkout in a private folder is closed to that user): so it imports nothing but the standard
library, and walks the process tree in /proc itself. The folder holds:
  browsers  the pid of every real Chromium the relays started (one a line)
  kills     MODE "start": one pid a line for each browser killed as a render started
  armed     MODE "armed": how many strikes are armed (a number)
  strikes   MODE "armed": "struck STRIKE" for each strike, or "missed" where the sketch's
            call had returned before the strike was due (so nothing was killed)
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import threading

# MODE "start": as the sandbox sends this (only as a render starts), the browser dies.
START_TRIGGER = b'"Storage.clearDataForOrigin"'
# MODE "armed": the call that hands the sketch to its page; it returns once setup() has run.
RUN_TRIGGER = b"__paintrl.run(code, seed)"
STRIKES = ("browser", "browsers", "renderers")


def _children() -> dict[int, list[int]]:
    """Each live process's children, read from /proc (a process gone while it is read is
    left out, as it would be a moment later)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
                ppid = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    return children


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read()
    except OSError:
        return b""


def processes(pids: list[int], *, renderers: bool) -> list[int]:
    """The browsers `pids` and every process under them, or only their pages'
    renderer processes."""
    children = _children()
    found = []
    for pid in pids:
        if not os.path.exists(f"/proc/{pid}"):
            continue
        tree, pending = [], [pid]
        while pending:
            process = pending.pop()
            tree.append(process)
            pending.extend(children.get(process, ()))
        found += [process for process in tree
                  if not renderers or b"--type=renderer" in _cmdline(process)]
    return found


def kill(pids: list[int], *, renderers: bool = False) -> int:
    """Kill the browsers `pids` with all below them (or only their renderers),
    as an out-of-memory kill would; how many processes were killed."""
    killed = 0
    for process in processes(pids, renderers=renderers):
        try:
            os.kill(process, signal.SIGKILL)
            killed += 1
        except OSError:  # gone already, or not ours
            pass
    return killed


def browsers(folder: str) -> list[int]:
    with open(os.path.join(folder, "browsers")) as recorded:
        return [int(pid) for pid in recorded.read().split()]


def append(path: str, line: str) -> None:
    with open(path, "a") as out:
        out.write(line + "\n")


def take_armed(folder: str) -> bool:
    """One armed strike, if any is left (several relays share the count)."""
    with open(os.path.join(folder, "armed"), "r+") as armed:
        fcntl.flock(armed, fcntl.LOCK_EX)
        left = int(armed.read().strip() or 0)
        if left <= 0:
            return False
        armed.seek(0)
        armed.truncate()
        armed.write(str(left - 1))
        return True


def messages(fd: int):
    """NUL-terminated messages read from `fd` until it closes."""
    pending = b""
    while chunk := os.read(fd, 1 << 16):
        pending += chunk
        *complete, pending = pending.split(b"\0")
        yield from complete


def call_id(message: bytes) -> tuple | None:
    try:
        parsed = json.loads(message)
    except ValueError:
        return None
    return (parsed.get("sessionId"), parsed["id"]) if "id" in parsed else None


class Relay:
    def __init__(self, chromium: str, folder: str, mode: str, strike: str,
                 after_s: float) -> None:
        assert mode in ("start", "armed") and strike in STRIKES, (mode, strike)
        self.folder, self.mode, self.strike, self.after_s = folder, mode, strike, after_s
        commands_r, self.commands_w = os.pipe()
        self.replies_r, replies_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the real Chromium, on its own ends of the two pipes at fd 3 and 4
            os.dup2(commands_r, 3)
            os.dup2(replies_w, 4)
            for fd in (commands_r, self.commands_w, self.replies_r, replies_w):
                os.close(fd)
            os.execv(chromium, [chromium, *sys.argv[1:]])
        os.close(commands_r)
        os.close(replies_w)
        append(os.path.join(folder, "browsers"), str(self.pid))
        # Held while a reply is relayed and while a strike looks whether its call returned.
        self.lock = threading.Lock()
        self.unanswered: set[tuple] = set()

    def commands(self) -> None:
        """Playwright -> Chromium."""
        for message in messages(3):
            if self.mode == "start" and START_TRIGGER in message:
                kill([self.pid])
                append(os.path.join(self.folder, "kills"), str(self.pid))
                os._exit(137)
            struck = (self.mode == "armed" and RUN_TRIGGER in message
                      and take_armed(self.folder))
            if struck:
                self.unanswered.add(call_id(message))
            try:
                os.write(self.commands_w, message + b"\0")
            except OSError:  # Chromium is gone (a strike killed it)
                return
            if struck:
                threading.Timer(self.after_s, self.strike_now, [call_id(message)]).start()
        os.close(self.commands_w)  # Playwright closed the pipe: Chromium exits

    def strike_now(self, call: tuple) -> None:
        """The kill, provided the sketch's call has not returned: its render is
        then provably in flight, the sketch running."""
        with self.lock:
            if call not in self.unanswered:
                append(os.path.join(self.folder, "strikes"), "missed")
                return
            # Recorded before the kill: killing this relay's own Chromium ends
            # the relay (run() exits when it does), which could beat a write after.
            append(os.path.join(self.folder, "strikes"), f"struck {self.strike}")
            if self.strike == "browser":
                kill([self.pid])
            else:
                kill(browsers(self.folder), renderers=self.strike == "renderers")

    def replies(self) -> None:
        """Chromium -> Playwright."""
        for message in messages(self.replies_r):
            with self.lock:
                if self.unanswered:
                    self.unanswered.discard(call_id(message))
                try:
                    os.write(4, message + b"\0")
                except OSError:  # Playwright closed the pipe
                    return

    def run(self) -> None:
        threading.Thread(target=self.commands, daemon=True).start()
        forward = threading.Thread(target=self.replies, daemon=True)
        forward.start()
        _, status = os.waitpid(self.pid, 0)
        forward.join(timeout=5)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
