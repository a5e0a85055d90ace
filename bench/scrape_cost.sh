#!/usr/bin/env bash
# What one GET /metrics costs `frugal serve` (issue 20: why back-to-back scrape loops cost
# submissions on a 2-core machine). An idle daemon with NODES 8-GPU nodes (dry-run backend)
# is scraped by SCRAPERS Python keep-alive loops, back to back, for SECONDS_RUN; prints the
# answer's size, scrapes per second, and the daemon's CPU seconds per scrape and in all
# (from /proc/PID/stat). Usage: bench/scrape_cost.sh   Environment: BUILD_DIR (build),
# NODES (10000), SCRAPERS (2), SECONDS_RUN (10).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
NODES=${NODES:-10000}
SCRAPERS=${SCRAPERS:-2}
DURATION=${SECONDS_RUN:-10}
FRUGAL=$BUILD/frugal
[[ -x $FRUGAL ]] || { echo "build frugal in $BUILD first" >&2; exit 1; }
# shellcheck source=bench/serve_lib.sh
source "$ROOT/bench/serve_lib.sh"
work=$(mktemp -d)
trap 'stop_serve; rm -rf "$work"' EXIT
port=$(free_port)
synthetic_cluster "$work/cluster.yaml" "$NODES"
cat >"$work/serve.yaml" <<YAML
listen: 127.0.0.1:$port
backend: dry-run
cluster: cluster.yaml
teams:
  bench: {token_sha256: $("$FRUGAL" hash-token bench-token)}
YAML
start_serve "$work/serve.yaml" "$work/f.db" "$work/serve.log" "$port"
python3 - "$serve_pid" "$port" "$SCRAPERS" "$DURATION" <<'PY'
import http.client, os, sys, threading, time
pid, port, scrapers, duration = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def cpu_s():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
count, size, stop = [0] * scrapers, [0], threading.Event()
def loop(k):
    c = http.client.HTTPConnection("127.0.0.1", port)
    while not stop.is_set():
        c.request("GET", "/metrics")
        body = c.getresponse().read()
        size[0] = len(body)
        count[k] += 1
c0, t0 = cpu_s(), time.time()
threads = [threading.Thread(target=loop, args=(k,)) for k in range(scrapers)]
for t in threads: t.start()
time.sleep(duration)
stop.set()
for t in threads: t.join()
dt, dc, n = time.time() - t0, cpu_s() - c0, sum(count)
print(f"{scrapers} back-to-back scrapers, {dt:.1f} s: {n} scrapes of {size[0]} bytes, {n / dt:.0f} a second")
print(f"daemon CPU {dc:.2f} s: {dc / n * 1e6:.0f} us a scrape, {dc / dt:.2f} cores")
PY
