#!/usr/bin/env bash
# Start a local Redis when none answers at REDIS_URL's host and port.
# With a file named (`ensure_redis.sh .make/redis-demo.pid`, as `make demo`
# does), a Redis started here has its pid written there, so that
# scripts/stop_redis.sh stops that one on exit and never one that was running
# already.
set -euo pipefail
record="${1:-}"
url="${REDIS_URL:-redis://127.0.0.1:6379/0}"
hostport="${url#redis://}"; hostport="${hostport%%/*}"; hostport="${hostport##*@}"
host="${hostport%%:*}"; port="${hostport##*:}"; [ "$port" = "$host" ] && port=6379
if redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; then
  exit 0
fi
if [ "$host" != "127.0.0.1" ] && [ "$host" != "localhost" ]; then
  echo "Redis at $host:$port does not answer, and it is not local: start it there." >&2
  exit 1
fi
if ! command -v redis-server >/dev/null; then
  echo "redis-server is not installed: apt-get install redis-server (make does this as root)." >&2
  exit 1
fi
mkdir -p .make
pidfile="$PWD/.make/redis-$port.pid"
redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
  --dir "$PWD/.make" --logfile "$PWD/.make/redis.log" --pidfile "$pidfile"
for _ in $(seq 1 50); do
  if redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; then
    if [ -n "$record" ]; then
      for _ in $(seq 1 20); do [ -s "$pidfile" ] && break; sleep 0.05; done
      cp "$pidfile" "$record"
    fi
    echo "started Redis on $host:$port"
    exit 0
  fi
  sleep 0.1
done
echo "Redis did not start; see .make/redis.log" >&2
exit 1
