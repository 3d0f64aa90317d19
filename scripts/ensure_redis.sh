#!/usr/bin/env bash
# Start a local Redis when none answers at REDIS_URL's host and port.
set -euo pipefail
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
redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
  --dir "$PWD/.make" --logfile "$PWD/.make/redis.log"
for _ in $(seq 1 50); do
  redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && { echo "started Redis on $host:$port"; exit 0; }
  sleep 0.1
done
echo "Redis did not start; see .make/redis.log" >&2
exit 1
