#!/bin/bash
# Where a request's time goes: perf's cpu-clock samples (no hardware counters needed) of a release
# hearclear-server at its default settings while wrk asks for /healthz, next to the bare Hummingbird
# server's throughput in the same run. `make profile` runs it; docs/profiling.md reads its output.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port_of() { grep -o 'listening on http://127.0.0.1:[0-9]*' "$1" | head -1 | sed 's/.*://'; }
wait_for() { for _ in $(seq 100); do [ -n "$(port_of "$1")" ] && return 0; sleep 0.1; done; echo "no start line in $1" >&2; exit 1; }

.build/release/bare-hummingbird 0 2> "$work/bare.log" &
wait_for "$work/bare.log"
echo "bare Hummingbird /healthz: $(wrk -t2 -c32 -d5s "http://127.0.0.1:$(port_of "$work/bare.log")/healthz" | grep Requests/sec)"

.build/release/hearclear-server serve --port 0 --database "$work/profile.sqlite" 2> "$work/server.log" &
server=$!
wait_for "$work/server.log"
url="http://127.0.0.1:$(port_of "$work/server.log")/healthz"
wrk -t2 -c32 -d2s "$url" > /dev/null   # warm up
perf record -e cpu-clock -F 1999 -g -p "$server" -o "$work/perf.data" -- sleep 6 > /dev/null 2>&1 &
recorder=$!
echo "hearclear-server /healthz (while recorded): $(wrk -t2 -c32 -d5s "$url" | grep Requests/sec)"
wait "$recorder"
echo
echo "Share of the server's samples, self and children, by function (ours and the middleware's):"
perf report -i "$work/perf.data" --children --sort symbol --stdio 2>/dev/null \
    | grep -E '^ +[0-9]' | grep -E 'HearClearServer|MetricsMiddleware|Prometheus|NIOLockedValueBox|String.*format|RouterResponder' \
    | head -25 | awk '{ printf "%8s %8s  %s\n", $1, $2, substr($0, index($0, $4), 140) }' || true
