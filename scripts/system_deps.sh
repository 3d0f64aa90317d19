#!/usr/bin/env bash
# Debian packages paintrl needs: Chromium (the renderer), Redis (the broker),
# Node.js and npm (front-end libraries), libGL (linked by OpenCV, which the
# painted-words OCR loads). Installed when missing and root; as root it also
# creates the user Chromium's sandbox runs as. Safe to run again.
set -euo pipefail
missing=()
command -v "${PAINTRL_CHROMIUM_PATH:-/usr/bin/chromium}" >/dev/null 2>&1 || [ -x "${PAINTRL_CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-venv)
compgen -G '/usr/lib/*/libGL.so.1' >/dev/null || compgen -G '/usr/lib/libGL.so.1' >/dev/null \
  || missing+=(libgl1)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "Missing Debian packages: ${missing[*]}. Install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# Chromium's sandbox (sketches/renderer/os_sandbox.py). Chromium refuses it as
# root, so a root worker runs the browser as this unprivileged system user: no
# home, no shell, no password. Workers that are not root need no such user.
[ "$(id -u)" -eq 0 ] || exit 0
sandbox_user=${PAINTRL_CHROMIUM_USER:-paintrl-chromium}
if ! id -u "$sandbox_user" >/dev/null 2>&1; then
  echo "creating the Chromium sandbox user $sandbox_user"
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin "$sandbox_user"
fi
# The sandbox needs unprivileged user namespaces (or Debian's setuid helper,
# chromium-sandbox, not installed by default); the renderer refuses to start
# without them, so say so now.
if ! setpriv --reuid="$sandbox_user" --regid="$(id -g "$sandbox_user")" --clear-groups \
    unshare --user true 2>/dev/null; then
  echo "warning: unprivileged user namespaces are off here, so Chromium cannot sandbox" >&2
  echo "  itself and the renderer will refuse to start. Enable them" >&2
  echo "  (sysctl kernel.unprivileged_userns_clone=1), install chromium-sandbox, or see" >&2
  echo "  SECURITY.md, 'Browser sandbox'." >&2
fi
