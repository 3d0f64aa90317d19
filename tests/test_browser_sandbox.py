"""Chromium's own sandbox around the renderer (sketches/renderer/os_sandbox.py),
read from the running processes in /proc: every renderer is in a seccomp-bpf
filter and in user, PID and network namespaces of its own, no browser process
runs as root, and a machine where the sandbox cannot be had refuses to render
unless told otherwise."""
from __future__ import annotations

import logging
import os
import pwd
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from sketches.renderer import RendererConfig, RendererUnavailable, RenderPool
from sketches.renderer.config import SANDBOX_JS_MAX_OPT
from sketches.renderer.sandbox import js_flags
from sketches.rendering import render_text
from tests.chromium import chromium_path, make_config
from tests.sketch_files import read_sketch

pytestmark = pytest.mark.browser

AS_ROOT = os.geteuid() == 0
root_only = pytest.mark.skipif(not AS_ROOT, reason="the user switch happens only for a root worker")
SANDBOX_USER = RendererConfig().sandbox_user
# Set in the worker's environment while the pool starts: the browser of a root
# worker must not inherit it (judge keys are named this way).
SECRET = ("PAINTRL_SANDBOX_TEST_API_KEY", "the-worker-secret")
# Chromium on a machine without unprivileged user namespaces: a user namespace
# of its own mapping only its own ids, in which no further one may be made
# (the limit is per namespace, so the machine's stays as it is).
WITHOUT_USER_NAMESPACES = """#!/usr/bin/python3
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                   ("gid_map", f"{gid} {gid} 1"), ("/proc/sys/user/max_user_namespaces", "0")):
    with open(name if name.startswith("/") else f"/proc/self/{name}", "w") as f:
        f.write(text)
os.execv(sys.argv[1], sys.argv[1:])
"""


def status(pid: int) -> dict[str, str]:
    text = Path(f"/proc/{pid}/status").read_text()
    return {key: value.strip() for key, _, value in
            (line.partition(":") for line in text.splitlines())}


def namespace(pid: int | str, kind: str) -> str:
    return os.readlink(f"/proc/{pid}/ns/{kind}")


def chromium_processes() -> list[psutil.Process]:
    """Every Chromium process this test process started: the browsers (they
    hold Playwright's DevTools pipe) and their children (a --type)."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            args = proc.cmdline()
        except psutil.Error:
            continue
        if any(a == "--remote-debugging-pipe" or a.startswith("--type=") for a in args):
            found.append(proc)
    return found


def renderers() -> list[psutil.Process]:
    return [p for p in chromium_processes() if "--type=renderer" in p.cmdline()]


def expected_ids() -> tuple[int, int]:
    """Who the browser runs as: the sandbox user for a root worker, else us."""
    if AS_ROOT:
        user = pwd.getpwnam(SANDBOX_USER)
        return user.pw_uid, user.pw_gid
    return os.getuid(), os.getgid()


@pytest.fixture(scope="module")
def pool():
    with pytest.MonkeyPatch.context() as env:
        env.setenv(*SECRET)
        with RenderPool(make_config(browsers=1)) as pool:
            yield pool


@pytest.fixture(scope="module")
def rendered(pool):
    outcome = render_text(pool, read_sketch("good/hibiscus.js"), seed=1)
    assert outcome.status == "ok", outcome.details
    return outcome


@pytest.fixture
def public_folder():
    """A folder the sandbox user can read (pytest's tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="paintrl-sandbox-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


class TestSandboxedRenderers:
    def test_a_watercolour_painting_renders_inside_the_sandbox(self, rendered):
        assert rendered.paint_fraction > 0.02
        assert rendered.brush_call_counts["circle"] == 1

    def test_every_renderer_is_under_a_seccomp_filter(self, rendered):
        found = renderers()
        assert found, "no renderer process found"
        for proc in found:
            state = status(proc.pid)
            assert state["Seccomp"] == "2", (proc.pid, state["Seccomp"])
            assert state["NoNewPrivs"] == "1", proc.pid

    def test_every_renderer_has_its_own_user_pid_and_network_namespace(self, rendered):
        found = renderers()
        assert found, "no renderer process found"
        for proc in found:
            for kind in ("user", "pid", "net"):
                assert namespace(proc.pid, kind) != namespace("self", kind), (proc.pid, kind)

    def test_no_browser_process_runs_as_root(self, rendered):
        uid, gid = expected_ids()
        found = chromium_processes()
        assert len(found) > len(renderers()), "no browser or helper process found"
        for proc in found:
            state = status(proc.pid)
            assert state["Uid"].split() == [str(uid)] * 4, (proc.pid, proc.cmdline()[:2])
            assert state["Gid"].split() == [str(gid)] * 4, proc.pid
            if AS_ROOT:
                assert state["Groups"] == "", proc.pid
            # No capability on this machine's namespace (a sandboxed zygote
            # holds some over the empty namespace it made for itself).
            if namespace(proc.pid, "user") == namespace("self", "user"):
                assert int(state["CapEff"], 16) == 0, (proc.pid, state["CapEff"])

    def test_every_renderer_runs_v8_without_turbofan(self, pool, rendered):
        # Chromium hands --js-flags on to each renderer and rewrites its
        # process title, arguments joined by spaces: read as one text.
        wanted = f"--js-flags={js_flags(pool.config)} "
        assert f"--max-opt={SANDBOX_JS_MAX_OPT}" in wanted
        assert "--max-opt" not in js_flags(replace(pool.config, js_turbofan=True))
        found = renderers()
        assert found, "no renderer process found"
        for proc in found:
            assert wanted in Path(f"/proc/{proc.pid}/cmdline").read_text(), proc.pid

    @root_only
    def test_the_browser_does_not_inherit_the_workers_secrets(self, rendered):
        for proc in chromium_processes():
            if "--remote-debugging-pipe" in proc.cmdline():
                environ = Path(f"/proc/{proc.pid}/environ").read_bytes()
                assert SECRET[0].encode() not in environ
                assert SECRET[1].encode() not in environ


@root_only
def test_a_missing_sandbox_user_stops_the_renderer_and_names_the_fix():
    config = make_config(browsers=1, sandbox_user="paintrl-no-such-user")
    with pytest.raises(RendererUnavailable, match=r"scripts/system_deps\.sh"):
        RenderPool(config)


class TestWithoutUserNamespaces:
    @pytest.fixture
    def config(self, public_folder):
        helper = public_folder / "without-user-namespaces"
        helper.write_text(WITHOUT_USER_NAMESPACES)
        wrapper = public_folder / "chromium"
        wrapper.write_text(f'#!/bin/sh\nexec "{helper}" "{chromium_path()}" "$@"\n')
        for program in (helper, wrapper):
            program.chmod(0o755)
        return replace(make_config(browsers=1), chromium_path=str(wrapper))

    def test_the_renderer_refuses_to_start_and_names_the_fix(self, config):
        with pytest.raises(RendererUnavailable, match="user namespaces") as refused:
            RenderPool(config)
        assert "No usable sandbox" in str(refused.value)
        assert "PAINTRL_CHROMIUM_ALLOW_UNSANDBOXED" in str(refused.value)

    def test_allowed_it_renders_without_the_sandbox_and_warns(self, config, caplog):
        caplog.set_level(logging.WARNING, logger="sketches.renderer.os_sandbox")
        others = {proc.pid for proc in renderers()}  # the sandboxed pool's, if it still runs
        with RenderPool(replace(config, allow_unsandboxed=True)) as pool:
            outcome = render_text(pool, read_sketch("good/lines.js"), seed=1)
            assert outcome.status == "ok", outcome.details
            found = [proc for proc in renderers() if proc.pid not in others]
            assert found, "no renderer process found"
            assert all(status(proc.pid)["Seccomp"] == "0" for proc in found)
        assert "WITHOUT CHROMIUM'S SANDBOX" in caplog.text
