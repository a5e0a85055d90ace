#!/usr/bin/env bash
# The node agent's own cost (issue 22 target: at 1 s sampling with 8 GPUs, at most 2 % of one
# core and 50 MB resident).
#
# `frugal agent` runs on the fake NVML (tests/fake_nvml; the file it reads describes 8 GPUs,
# each with one compute process: a real `sleep` whose environment holds FRUGAL_JOB_ID, so the
# agent maps processes to jobs through /proc as on a real node), sampling every 1 s and
# posting a report every 10 s to a real `frugal serve --backend dry-run` on loopback with a
# node token. Each run starts three agents side by side, so that they see the same machine:
#   post8   8 GPUs, posting        the configuration the target is about
#   print8  8 GPUs, --print        baseline 1: the same sampling without HTTP (what posting costs)
#   post1   1 GPU, posting         baseline 2: what 7 more GPUs cost
# After WARMUP seconds (start-up: loading NVML, the first samples), each agent's CPU time
# (the run time of its threads, /proc/PID/task/*/schedstat) is read, and again DURATION
# seconds later: CPU % of one
# core = CPU seconds / wall seconds. Peak RSS is VmHWM (/proc/PID/status) at the end,
# start-up included. Prints each run, then medians, the ratios against both baselines and a
# JSON line; PASS/FAIL against the targets (a FAIL does not fail the script).
#
# Caveat: the fake NVML re-reads its text file at every query (about 60 a second here); a
# real NVML's calls are driver ioctls instead, whose cost this does not measure.
#
# Usage: bench/agent_overhead.sh   Environment: BUILD_DIR (default build), DURATION (60),
#   RUNS (3), WARMUP (5).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
DURATION=${DURATION:-60}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-5}
FRUGAL=$BUILD/frugal
NVML=$BUILD/fake-nvml/libnvidia-ml.so.1
[[ -x $FRUGAL && -e $NVML ]] || { echo "build frugal and fake_nvml in $BUILD first" >&2; exit 1; }
# shellcheck source=bench/serve_lib.sh
source "$ROOT/bench/serve_lib.sh"
work=$(mktemp -d)
sleepers=()
agents=()
cleanup() {
  for p in "${agents[@]}" "${sleepers[@]}"; do kill "$p" 2>/dev/null || true; done
  stop_serve
  rm -rf "$work"
}
trap cleanup EXIT

# The GPU processes, and the fake NVML files: 8 GPUs and 1 GPU.
for i in $(seq 0 7); do
  FRUGAL_JOB_ID=$((i + 1)) sleep 100000 &
  sleepers+=($!)
done
for i in $(seq 0 7); do
  echo "NVIDIA A100-SXM4-80GB;GPU-bench-$i;81920;$((20000 + 1000 * i));$((40 + 5 * i));$((250 + i));$((55 + i));${sleepers[$i]}:$((19000 + 1000 * i))"
done >"$work/nvml8.txt"
head -n 1 "$work/nvml8.txt" >"$work/nvml1.txt"

synthetic_cluster "$work/cluster.yaml" 4
token=bench-agent-token
echo "$token" >"$work/token"
port=$(free_port)
cat >"$work/serve.yaml" <<YAML
listen: 127.0.0.1:$port
backend: dry-run
cluster: cluster.yaml
teams:
  bench: {token_sha256: $("$FRUGAL" hash-token bench-token)}
agents:
  bench: {token_sha256: $("$FRUGAL" hash-token "$token")}
YAML
start_serve "$work/serve.yaml" "$work/f.db" "$work/serve.log" "$port"

accepted_reports() {
  curl -fs "http://127.0.0.1:$port/metrics" |
    awk '/^frugal_telemetry_reports_total\{outcome="accepted"\}/ {print $2}'
}

start_agent() {  # NAME NVML_FILE ARGS...: starts an agent, appends its pid to `agents`
  local name=$1 file=$2
  shift 2
  FRUGAL_FAKE_NVML=$file "$FRUGAL" agent --nvml-library "$NVML" --sample-interval 1 \
    --interval 10 "$@" >"$work/$name.out" 2>"$work/$name.log" &
  agents+=($!)
}

results=()
for run in $(seq "$RUNS"); do
  agents=()
  before=$(accepted_reports)
  start_agent post8 "$work/nvml8.txt" --server "http://127.0.0.1:$port" --token-file "$work/token" --node n-0
  start_agent print8 "$work/nvml8.txt" --print --node n-1
  start_agent post1 "$work/nvml1.txt" --server "http://127.0.0.1:$port" --token-file "$work/token" --node n-2
  sleep "$WARMUP"
  t0=$(date +%s.%N)
  c0=()
  for p in "${agents[@]}"; do c0+=("$(cpu_ns "$p")"); done
  sleep "$DURATION"
  t1=$(date +%s.%N)
  line="{\"run\": $run"
  k=0
  for name in post8 print8 post1; do
    p=${agents[$k]}
    kill -0 "$p" 2>/dev/null || { echo "agent $name stopped:" >&2; cat "$work/$name.log" >&2; exit 1; }
    c1=$(cpu_ns "$p")
    pct=$(python3 -c "print(round(($c1 - ${c0[$k]}) / 1e9 / ($t1 - $t0) * 100, 4))")
    line+=", \"${name}_cpu_pct\": $pct, \"${name}_hwm_mib\": $(python3 -c "print(round($(hwm_kib "$p") / 1024, 2))")"
    k=$((k + 1))
  done
  for p in "${agents[@]}"; do kill "$p"; wait "$p" 2>/dev/null || true; done
  line+=", \"reports_accepted\": $(python3 -c "print(int($(accepted_reports) - $before))")"
  line+=", \"printed_reports\": $(wc -l <"$work/print8.out")}"
  echo "run $run: $line"
  results+=("$line")
done
agents=()

printf '%s\n' "${results[@]}" | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
duration = float(sys.argv[1])
def med(k): return statistics.median(r[k] for r in rows)
out = {"runs": len(rows), "duration_s": duration, "sample_interval_s": 1, "report_interval_s": 10}
for c in ("post8", "print8", "post1"):
    out[c + "_cpu_pct"] = med(c + "_cpu_pct")
    out[c + "_hwm_mib"] = med(c + "_hwm_mib")
out["cpu_vs_print8"] = out["post8_cpu_pct"] / out["print8_cpu_pct"] if out["print8_cpu_pct"] else None
out["cpu_vs_post1"] = out["post8_cpu_pct"] / out["post1_cpu_pct"] if out["post1_cpu_pct"] else None
out["hwm_vs_print8"] = out["post8_hwm_mib"] / out["print8_hwm_mib"]
out["hwm_vs_post1"] = out["post8_hwm_mib"] / out["post1_hwm_mib"]
hwm_mb = max(r["post8_hwm_mib"] for r in rows) * 1.048576
cpu_ok = out["post8_cpu_pct"] <= 2.0
mem_ok = hwm_mb <= 50.0
out["cpu_target_pass"], out["rss_target_pass"] = cpu_ok, mem_ok
print("median of %d runs, %g s each (1 s sampling, a report every 10 s):" % (len(rows), duration))
print("  agent              CPU % of one core   peak RSS (VmHWM)")
for c, what in (("post8", "8 GPUs, posting"), ("print8", "8 GPUs, --print"), ("post1", "1 GPU, posting")):
    print("  %-16s %10.3f %%      %8.1f MiB" % (what, out[c + "_cpu_pct"], out[c + "_hwm_mib"]))
def ratio(x): return "n/a" if x is None else "%.2fx" % x
print("  8 GPUs posting vs --print: CPU %s, RSS %.2fx;  vs 1 GPU: CPU %s, RSS %.2fx"
      % (ratio(out["cpu_vs_print8"]), out["hwm_vs_print8"], ratio(out["cpu_vs_post1"]), out["hwm_vs_post1"]))
print("  target CPU <= 2 %% of one core: %s (%.3f %%)" % ("PASS" if cpu_ok else "FAIL", out["post8_cpu_pct"]))
print("  target peak RSS <= 50 MB:      %s (largest run %.1f MB)" % ("PASS" if mem_ok else "FAIL", hwm_mb))
print("  reports accepted by the service: %s per run (both posting agents, %g s)"
      % ("/".join(str(r["reports_accepted"]) for r in rows), duration + float(sys.argv[2])))
print(json.dumps(out))
' "$DURATION" "$WARMUP"
