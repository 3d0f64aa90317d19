#!/usr/bin/env bash
# Stop the Redis whose pid scripts/ensure_redis.sh recorded in the file named
# (`make demo` stops the one it started when it exits, Ctrl-C included), and
# forget it. No file, or a pid that is no longer a redis-server: nothing to
# stop, so a Redis the demo found running is left alone.
set -uo pipefail
record="${1:?usage: stop_redis.sh PIDFILE}"
[ -s "$record" ] || exit 0
pid="$(cat "$record")"
rm -f "$record"
case "$pid" in ''|*[!0-9]*) exit 0 ;; esac
if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q redis-server; then
  kill -TERM "$pid" && echo "stopped the Redis make demo started (pid $pid)"
fi
exit 0
