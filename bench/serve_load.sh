#!/usr/bin/env bash
# Load test of `frugal serve` (issue 6 target: >= 2,000 accepted submissions/s and p99
# decision latency < 5 ms with 10,000 registered nodes, on this 2-core machine).
#
# A synthetic inventory of NODES 8-GPU nodes (cluster YAML), the dry-run backend (jobs are
# planned and "run" without processes), SQLite in WAL with synchronous=FULL in a temporary
# directory. RUNS fresh daemons; each gets JOBS submissions from THREADS client threads
# (frugal_serve_load). Prints each run's JSON line and the medians.
#
# Usage: bench/serve_load.sh   Environment: BUILD_DIR (default build), NODES (10000),
#   JOBS (20000), THREADS (16), RUNS (5), POLICY (frugal: the product default).
# The full-cluster phase (issue 20): FILL=10000 first fills the NODES x 8 GPUs with whole-node
#   jobs, then the JOBS submissions are measured while a completer cancels COMPLETE_RATE
#   (100) filling jobs a second and SCRAPERS (0) threads read /metrics in a loop, back to
#   back or SCRAPE_INTERVAL_MS apart:
#   FILL=10000 JOBS=50000 RUNS=3 bench/serve_load.sh    (then again with SCRAPERS=2)
# MAX_JOBS_PER_CYCLE sets the daemon's max_jobs_per_cycle (default: the service's, 1,000;
#   0 = unbounded, the baseline of docs/API.md "Deep queues").
# Telemetry (issue 22; bench/serve_telemetry.sh runs it with and without): AGENTS (0) simulated
#   node agents, on nodes n-0 .. n-(AGENTS-1), each post a report of AGENT_GPUS (8) GPUs every
#   AGENT_INTERVAL_S (10) seconds to POST /v1/telemetry with a node token, from
#   AGENT_WARMUP_S (12) seconds before the submissions until they end.
# Shadow policies (issue 23; bench/serve_shadow.sh runs it with and without): SHADOWS
#   ("" = none) a comma-separated list for the daemon's shadow_policies; SHADOW_THREAD (unset:
#   the service's default) its shadow_thread.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
NODES=${NODES:-10000}
JOBS=${JOBS:-20000}
THREADS=${THREADS:-16}
RUNS=${RUNS:-5}
FILL=${FILL:-0}
COMPLETE_RATE=${COMPLETE_RATE:-100}
SCRAPERS=${SCRAPERS:-0}
SCRAPE_INTERVAL_MS=${SCRAPE_INTERVAL_MS:-0}
POLICY=${POLICY:-frugal}
MAX_JOBS_PER_CYCLE=${MAX_JOBS_PER_CYCLE:-}
AGENTS=${AGENTS:-0}
AGENT_GPUS=${AGENT_GPUS:-8}
AGENT_INTERVAL_S=${AGENT_INTERVAL_S:-10}
AGENT_WARMUP_S=${AGENT_WARMUP_S:-12}
SHADOWS=${SHADOWS:-}
FRUGAL=$BUILD/frugal
LOAD=$BUILD/frugal_serve_load
[[ -x $FRUGAL && -x $LOAD ]] || { echo "build frugal and frugal_serve_load in $BUILD first" >&2; exit 1; }
((AGENTS <= NODES)) || { echo "AGENTS ($AGENTS) must not exceed NODES ($NODES)" >&2; exit 1; }
# shellcheck source=bench/serve_lib.sh
source "$ROOT/bench/serve_lib.sh"
work=$(mktemp -d)
trap 'stop_serve; rm -rf "$work"' EXIT
synthetic_cluster "$work/cluster.yaml" "$NODES"
token=bench-token
hash=$("$FRUGAL" hash-token "$token")
agent_token=bench-agent-token
agent_args=()
if ((AGENTS > 0)); then
  agent_args=(--agents "$AGENTS" --agent-token "$agent_token" --agent-gpus "$AGENT_GPUS"
    --agent-interval-s "$AGENT_INTERVAL_S" --agent-warmup-s "$AGENT_WARMUP_S")
fi
results=()
for run in $(seq "$RUNS"); do
  port=$(free_port)
  cat >"$work/serve.yaml" <<YAML
listen: 127.0.0.1:$port
backend: dry-run
cluster: cluster.yaml
policy: $POLICY
${MAX_JOBS_PER_CYCLE:+max_jobs_per_cycle: $MAX_JOBS_PER_CYCLE}
${SHADOWS:+shadow_policies: [$SHADOWS]}
${SHADOW_THREAD:+shadow_thread: $SHADOW_THREAD}
teams:
  bench: {token_sha256: $hash}
YAML
  ((AGENTS > 0)) && printf 'agents:\n  sim: {token_sha256: %s}\n' \
    "$("$FRUGAL" hash-token "$agent_token")" >>"$work/serve.yaml"
  rm -f "$work"/f.db*
  start_serve "$work/serve.yaml" "$work/f.db" "$work/serve.log" "$port"
  # frugal_serve_load exits 1 when a submission was not accepted (it prints the first
  # failure); the run still counts, and its "refused" field says how many.
  line=$("$LOAD" --url "http://127.0.0.1:$port" --token "$token" --threads "$THREADS" --jobs "$JOBS" \
    --fill "$FILL" --complete-rate "$COMPLETE_RATE" --scrapers "$SCRAPERS" --scrape-interval-ms "$SCRAPE_INTERVAL_MS" \
    "${agent_args[@]}") || true
  [[ $line == "{"* ]] || { echo "run $run: no result from frugal_serve_load" >&2; exit 1; }
  if [[ -n $SHADOWS ]]; then
    # Each shadow's lag when the submissions ended (on their own thread they fall behind while
    # the machine is busy), then, once they caught up (nothing queued, every shadow took every
    # event fed to the set), their events and compute time, into the JSON line.
    line=$(python3 -c '
import json, sys, time, urllib.request
row, url, token = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
def get():
    req = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
    return json.load(urllib.request.urlopen(req, timeout=30))
t0 = time.monotonic()
sh = get()
lag_end = {s["policy"]: s["lag_s"] for s in sh["shadows"]}
row["shadow_queued_at_end"] = sh.get("queued", 0)
while time.monotonic() - t0 < 900:
    if sh.get("queued", 0) == 0 and all(s["events"] == sh["events"] for s in sh["shadows"]):
        break
    time.sleep(0.2)
    sh = get()
row["shadow_catch_up_s"] = round(time.monotonic() - t0, 3)
row["shadow_events"] = sh["events"]
row["shadows"] = [{"policy": s["policy"], "events": s["events"], "lag_s": lag_end[s["policy"]],
                   "advance_s": s["advance_s"], "advance_max_s": s["advance_max_s"]}
                  for s in sh["shadows"]]
print(json.dumps(row))' "$line" "http://127.0.0.1:$port/v1/shadow" "$token")
  fi
  # The daemon's peak resident memory (VmHWM, kB), shadows included.
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$serve_pid/status" 2>/dev/null || echo 0)
  line=$(python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r["serve_peak_rss_mb"] = round(int(sys.argv[2] or 0) / 1024, 1); print(json.dumps(r))' "$line" "${hwm:-0}")
  echo "run $run: $line"
  results+=("$line")
  stop_serve
done
printf '%s\n' "${results[@]}" | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
def med(k): return statistics.median(r[k] for r in rows)
r0 = rows[0]
print("median of %d runs (%d client threads, %d jobs each, %d nodes):" % (len(rows), r0["threads"], r0["jobs"], int(sys.argv[1])))
print("  accepted submissions/s   %8.0f   (target >= 2000)" % med("submissions_per_s"))
print("  decision latency p50     %8.3f ms" % med("decision_latency_p50_ms"))
print("  decision latency p99     %8.3f ms   (target < 5 ms)" % med("decision_latency_p99_ms"))
print("  submit latency p50/p99   %8.2f / %.2f ms (client side)" % (med("submit_latency_p50_ms"), med("submit_latency_p99_ms")))
if "fill" in r0:
    print("  full-cluster phase: %d filling jobs, %d cancelled during it, %d scrapers" % (r0["fill"], med("completed"), r0.get("scrapers", 0)))
    print("  phase decision p99       %8.3f ms   (from the histogram buckets; target < 10 ms)" % med("phase_decision_latency_p99_ms"))
    print("  phase cycles <= 10 ms    %8.4f" % med("phase_cycles_within_10ms"))
    print("  queue length at the end  %8.0f" % med("queue_length"))
    print("  longest wait before first examined %8.2f s" % med("max_wait_unexamined_s"))
if r0.get("scrapers", 0):
    print("  /metrics scrapes         %8.0f a second (%d scrapers, %d ms apart)" % (statistics.median(r["scrapes"] / r["elapsed_s"] for r in rows), r0["scrapers"], r0.get("scrape_interval_ms", 0)))
if r0.get("agents", 0):
    print("  telemetry                %8.0f GPU samples/s accepted (%d agents x %d GPUs every %g s); %d posts refused, %d unanswered"
          % (med("agent_gpu_samples_per_s"), r0["agents"], r0["agent_gpus"], r0["agent_interval_s"],
             sum(r["agent_refused"] for r in rows), sum(r["agent_unanswered"] for r in rows)))
refused = sum(r["refused"] for r in rows)
print("  not accepted             %8d of %d submissions" % (refused, sum(r["jobs"] for r in rows)))
' "$NODES"
