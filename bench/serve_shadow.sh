#!/usr/bin/env bash
# The cost of shadow policies to the service (issue 23 target: with three shadow policies,
# decision p99 and submissions/s of bench/serve_load.sh within 20 % of none, medians of 3;
# every shadow saw the same number of events as the active engine, and its lag is reported).
#
# The serve load test (bench/serve_load.sh: dry-run backend, NODES synthetic 8-GPU nodes,
# THREADS client threads submitting JOBS jobs) with and without SHADOWS (default
# backfill,sjf,fifo; the active policy's own shadow comes on top), one run of each per round
# and RUNS rounds, alternating which goes first so that both see the same machine. Decision
# latency is the daemon's own measurement of an engine cycle. The shadows run on their own
# thread of the lowest priority (config shadow_thread, the default; SHADOW_THREAD=false puts
# them in the loop's turn): while the clients keep the machine busy they fall behind, and the
# script reports their lag when the submissions ended and how long they took to catch up
# (then checks their events). Prints each run, the medians, the ratios (with / without), each
# shadow's events, lag and compute time, and a JSON line; PASS/FAIL on both targets (a FAIL
# does not fail the script).
#
# Usage: bench/serve_shadow.sh   Environment: BUILD_DIR (default build), NODES (10000),
#   JOBS (20000), THREADS (16), RUNS (3), POLICY (frugal), SHADOWS (backfill,sjf,fifo),
#   SHADOW_THREAD (true).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$ROOT/build}
export NODES=${NODES:-10000}
export JOBS=${JOBS:-20000}
export THREADS=${THREADS:-16}
export POLICY=${POLICY:-frugal}
SHADOW_LIST=${SHADOWS:-backfill,sjf,fifo}
RUNS=${RUNS:-3}

results=()
one() {  # SHADOWS value: one run of serve_load.sh; its JSON line, tagged
  local line
  line=$(SHADOWS=$1 RUNS=1 bash "$ROOT/bench/serve_load.sh" | sed -n 's/^run 1: //p')
  [[ $line == "{"* ]] || { echo "serve_load.sh gave no result (SHADOWS=$1)" >&2; exit 1; }
  echo "  ${2}: $line" >&2
  results+=("{\"shadows\": $([[ -z $1 ]] && echo false || echo true), \"row\": $line}")
}
for round in $(seq "$RUNS"); do
  echo "round $round/$RUNS" >&2
  if ((round % 2)); then
    one "" without
    one "$SHADOW_LIST" with
  else
    one "$SHADOW_LIST" with
    one "" without
  fi
done

printf '%s\n' "${results[@]}" | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
keys = ("submissions_per_s", "decision_latency_p50_ms", "decision_latency_p99_ms",
        "submit_latency_p99_ms", "serve_peak_rss_mb")
def med(on, k): return statistics.median(r["row"][k] for r in rows if r["shadows"] == on)
off = {k: med(False, k) for k in keys}
on = {k: med(True, k) for k in keys}
ratio = {k: on[k] / off[k] for k in keys if off[k]}
withs = [r["row"] for r in rows if r["shadows"]]
n = len(withs)
print("medians of %d runs each (%d nodes, %d jobs, %d client threads; with: shadows %s):"
      % (n, int(sys.argv[1]), withs[0]["jobs"], withs[0]["threads"],
         ", ".join(s["policy"] for s in withs[0]["shadows"])))
print("                              without      with   with/without")
for k, what in (("submissions_per_s", "accepted submissions/s"), ("decision_latency_p50_ms", "decision p50 (ms)"),
                ("decision_latency_p99_ms", "decision p99 (ms)"), ("submit_latency_p99_ms", "submit p99 (ms, client)")):
    print("  %-26s %9.3f %9.3f   %.3f" % (what, off[k], on[k], ratio.get(k, float("nan"))))
same = all(s["events"] == r["shadow_events"] for r in withs for s in r["shadows"])
for i, s in enumerate(withs[0]["shadows"]):
    adv = statistics.median(r["shadows"][i]["advance_s"] for r in withs)
    mx = statistics.median(r["shadows"][i]["advance_max_s"] for r in withs)
    lag = statistics.median(r["shadows"][i]["lag_s"] for r in withs)
    print("  shadow %-10s events %d, lag when the submissions ended %.3f s, compute %.3f s in all "
          "(longest call %.1f ms)" % (s["policy"], s["events"], lag, adv, 1000 * mx))
print("  events queued for the shadows when the submissions ended: %d; caught up %.1f s later"
      % (statistics.median(r.get("shadow_queued_at_end", 0) for r in withs),
         statistics.median(r.get("shadow_catch_up_s", 0) for r in withs)))
print("  every shadow saw the events fed to the set: %s" % ("yes" if same else "NO"))
print("  daemon peak RSS: %.0f MB without, %.0f MB with the shadows"
      % (statistics.median(r["row"].get("serve_peak_rss_mb", 0) for r in rows if not r["shadows"]),
         statistics.median(r["row"].get("serve_peak_rss_mb", 0) for r in rows if r["shadows"])))
ok_p99 = ratio.get("decision_latency_p99_ms", 99) <= 1.20
ok_sub = ratio.get("submissions_per_s", 0) >= 0.80
print("  target decision p99 within 20 %%: %s (%.3f)" % ("PASS" if ok_p99 else "FAIL", ratio.get("decision_latency_p99_ms", float("nan"))))
print("  target submissions/s within 20 %%: %s (%.3f)" % ("PASS" if ok_sub else "FAIL", ratio.get("submissions_per_s", float("nan"))))
print(json.dumps({"runs": n, "without": off, "with": on, "ratio": ratio, "p99_target_pass": ok_p99,
                  "submissions_target_pass": ok_sub, "same_events": same}))
' "$NODES"
