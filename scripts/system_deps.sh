#!/usr/bin/env bash
# Debian packages paintrl needs: Chromium (the renderer), Redis (the broker),
# Node.js and npm (front-end libraries). Installed when missing and root.
set -euo pipefail
missing=()
command -v "${PAINTRL_CHROMIUM_PATH:-/usr/bin/chromium}" >/dev/null 2>&1 || [ -x "${PAINTRL_CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-venv)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing Debian packages: ${missing[*]}. Install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
