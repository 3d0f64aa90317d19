"""Chromium's own sandbox, on even when the render worker is root.

Model-written code runs in the renderer processes, so they run in Chromium's
sandbox: user, PID and network namespaces and a seccomp-bpf filter (Debian's
Chromium uses unprivileged user namespaces; its setuid helper, the package
chromium-sandbox, is not installed).
Playwright turns the sandbox off unless asked (`chromium_sandbox=True`), and
Chromium refuses it as root, so a root worker launches the browser through
`chromium-sandboxed` (next to this file), which drops to an unprivileged user
(RendererConfig.sandbox_user, which scripts/system_deps.sh creates) before it
execs Chromium. A worker that is not root launches Chromium as before, with
the sandbox on. Where the sandbox cannot be had the renderer refuses to start
and names the fix, unless RendererConfig.allow_unsandboxed says to render
without it (with a warning at every launch). SECURITY.md, "Browser sandbox",
says what this contains and what it does not.
"""
from __future__ import annotations

import logging
import os
import pwd
from pathlib import Path

from playwright.async_api import Browser, BrowserType
from playwright.async_api import Error as PlaywrightError

from .config import RendererConfig

log = logging.getLogger(__name__)

WRAPPER = Path(__file__).with_name("chromium-sandboxed")
# What a root worker's browser inherits: the locale, the time zone and
# fontconfig's settings (the wrapper sets PATH and HOME), never the worker's
# secrets (DATABASE_URL, PAINTRL_SECRET_KEY, judge keys), which the browser's
# own user could read back from its environment.
PASSED_ENV = ("LANG", "LANGUAGE", "TZ", "FONTCONFIG_FILE", "FONTCONFIG_PATH")
PASSED_ENV_PREFIXES = ("LC_",)
# Chromium's own words when it will not start sandboxed: no user namespaces
# and no setuid helper (zygote_host_impl_linux.cc), or run as root.
REFUSALS = ("No usable sandbox", "Running as root without --no-sandbox")
FIX = ("Chromium's sandbox needs unprivileged user namespaces: enable them (sysctl "
       "kernel.unprivileged_userns_clone=1 on Debian, "
       "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu, a container seccomp profile "
       "that allows them), or install Debian's setuid helper (apt-get install "
       "chromium-sandbox), or set PAINTRL_CHROMIUM_ALLOW_UNSANDBOXED=1 to render without the "
       "sandbox (not for model-written code you do not trust).")


class SandboxUnavailable(RuntimeError):
    """Chromium cannot run sandboxed here, and running it without is not allowed."""


def launch_options(config: RendererConfig) -> dict:
    """executable_path, env and chromium_sandbox for Playwright's launch()."""
    if os.geteuid() != 0:
        return {"executable_path": config.chromium_path, "chromium_sandbox": True}
    user = sandbox_account(config.sandbox_user)
    if not os.access(WRAPPER, os.X_OK):
        raise SandboxUnavailable(f"{WRAPPER} is missing or not executable (chmod 755 it).")
    env = {name: value for name, value in os.environ.items()
           if name in PASSED_ENV or name.startswith(PASSED_ENV_PREFIXES)}
    env.update(PAINTRL_CHROMIUM_TARGET=config.chromium_path,
               PAINTRL_CHROMIUM_UID=str(user.pw_uid), PAINTRL_CHROMIUM_GID=str(user.pw_gid))
    return {"executable_path": str(WRAPPER), "env": env, "chromium_sandbox": True}


def sandbox_account(name: str) -> pwd.struct_passwd:
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        raise SandboxUnavailable(
            f"the render worker is root and the Chromium sandbox user {name!r} does not exist: "
            "run scripts/system_deps.sh as root (make demo and make test do), or set "
            "PAINTRL_CHROMIUM_USER to an unprivileged user.") from None
    if user.pw_uid == 0 or user.pw_gid == 0:
        raise SandboxUnavailable(
            f"the Chromium sandbox user {name!r} is privileged (uid {user.pw_uid}, gid "
            f"{user.pw_gid}): PAINTRL_CHROMIUM_USER must name an unprivileged user.")
    return user


def refusal(exc: BaseException) -> str | None:
    """Chromium's own sentence refusing the sandbox, from the launch error's
    browser log, or None when the launch failed for another reason."""
    text = str(exc)
    at = min((text.find(words) for words in REFUSALS if words in text), default=-1)
    return None if at < 0 else text[at:].splitlines()[0][:160]


async def launch(chromium: BrowserType, config: RendererConfig, **options) -> Browser:
    """Launch Chromium with its sandbox on, or say why it cannot be."""
    sandboxed = launch_options(config)
    try:
        return await chromium.launch(**options, **sandboxed)
    except PlaywrightError as exc:
        said = refusal(exc)
        if said is None:
            raise
        if not config.allow_unsandboxed:
            raise SandboxUnavailable(
                f"Chromium refused to start sandboxed ({said}). {FIX}") from exc
    who = config.sandbox_user if os.geteuid() == 0 else f"uid {os.geteuid()}"
    log.warning("RENDERING WITHOUT CHROMIUM'S SANDBOX (PAINTRL_CHROMIUM_ALLOW_UNSANDBOXED is "
                "on): a browser exploit in a sketch runs unconfined as %s. %s", who, FIX)
    return await chromium.launch(**options, **{**sandboxed, "chromium_sandbox": False})
