#!/usr/bin/env bash
# The node agent's cost on this host's REAL NVML (needs an NVIDIA driver; the twin of
# bench/agent_overhead.sh, whose figures come from the fake NVML).
#
# Each run starts two agents side by side, both `--print` (no HTTP), sampling every 1 s:
#   real   the host's libnvidia-ml.so.1, all of its GPUs
#   fake1  the fake NVML (tests/fake_nvml) with one GPU: the baseline run in the same script
# After WARMUP seconds each agent's CPU time (/proc/PID/task/*/schedstat) is read, and again
# DURATION seconds later; peak RSS is VmHWM at the end. Prints each run, the medians and the
# ratio real / fake1, and PASS/FAIL against issue 22's bound (2 % of one core, 50 MB) scaled
# to the host's GPU count (the bound is for 8 GPUs; a FAIL does not fail the script).
#
# Usage: bench/agent_real_nvml.sh   Environment: BUILD_DIR (default build), DURATION (30),
#   RUNS (3), WARMUP (5).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
DURATION=${DURATION:-30}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-5}
FRUGAL=$BUILD/frugal
FAKE=$BUILD/fake-nvml/libnvidia-ml.so.1
[[ -x $FRUGAL && -e $FAKE ]] || { echo "build frugal and fake_nvml in $BUILD first" >&2; exit 1; }
# shellcheck source=bench/serve_lib.sh
source "$ROOT/bench/serve_lib.sh"
gpus=$("$FRUGAL" agent --print --once --interval 1 --node probe 2>/dev/null |
  python3 -c 'import json,sys; print(len(json.loads(sys.stdin.readline())["gpus"]))' 2>/dev/null) ||
  { echo "no real NVML on this host: $("$FRUGAL" agent --print --once 2>&1 | tail -1)" >&2; exit 2; }
work=$(mktemp -d)
sleeper=
agents=()
cleanup() {
  for p in "${agents[@]}" $sleeper; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
FRUGAL_JOB_ID=1 sleep 100000 &
sleeper=$!
echo "NVIDIA A100-SXM4-80GB;GPU-bench-0;81920;20000;40;250;55;$sleeper:19000" >"$work/nvml1.txt"

results=()
for run in $(seq "$RUNS"); do
  agents=()
  "$FRUGAL" agent --print --sample-interval 1 --interval 10 --node real >"$work/real.out" 2>&1 &
  agents+=($!)
  FRUGAL_FAKE_NVML=$work/nvml1.txt "$FRUGAL" agent --nvml-library "$FAKE" --print \
    --sample-interval 1 --interval 10 --node fake >"$work/fake.out" 2>&1 &
  agents+=($!)
  sleep "$WARMUP"
  t0=$(date +%s.%N)
  c0=("$(cpu_ns "${agents[0]}")" "$(cpu_ns "${agents[1]}")")
  sleep "$DURATION"
  t1=$(date +%s.%N)
  line="{\"run\": $run, \"gpus\": $gpus"
  k=0
  for name in real fake1; do
    p=${agents[$k]}
    kill -0 "$p" 2>/dev/null || { echo "agent $name stopped:" >&2; cat "$work/$name.out" >&2; exit 1; }
    pct=$(python3 -c "print(round(($(cpu_ns "$p") - ${c0[$k]}) / 1e9 / ($t1 - $t0) * 100, 4))")
    line+=", \"${name}_cpu_pct\": $pct, \"${name}_hwm_mib\": $(python3 -c "print(round($(hwm_kib "$p") / 1024, 2))")"
    k=$((k + 1))
  done
  for p in "${agents[@]}"; do kill "$p"; wait "$p" 2>/dev/null || true; done
  echo "run $run: $line}"
  results+=("$line}")
done
agents=()
printf '%s\n' "${results[@]}" | python3 -c '
import json, statistics, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
def med(k): return statistics.median(r[k] for r in rows)
g = rows[0]["gpus"]
out = {"runs": len(rows), "gpus": g, "duration_s": float(sys.argv[1])}
for k in ("real_cpu_pct", "real_hwm_mib", "fake1_cpu_pct", "fake1_hwm_mib"):
    out[k] = med(k)
out["cpu_real_vs_fake1"] = out["real_cpu_pct"] / out["fake1_cpu_pct"] if out["fake1_cpu_pct"] else None
out["hwm_real_vs_fake1"] = out["real_hwm_mib"] / out["fake1_hwm_mib"]
print("median of %d runs, %g s each (1 s sampling, --print):" % (len(rows), out["duration_s"]))
print("  real NVML, %d GPU(s): %.3f %% of one core, %.1f MiB peak RSS" % (g, out["real_cpu_pct"], out["real_hwm_mib"]))
print("  fake NVML, 1 GPU:     %.3f %% of one core, %.1f MiB peak RSS" % (out["fake1_cpu_pct"], out["fake1_hwm_mib"]))
r = out["cpu_real_vs_fake1"]
print("  real / fake: CPU %s, RSS %.2fx" % ("n/a" if r is None else "%.2fx" % r, out["hwm_real_vs_fake1"]))
# The bound is for 8 GPUs; with fewer, it is scaled as if all of the cost were per GPU
# (an upper bound: part of it is per sample, whatever the count).
ok = out["real_cpu_pct"] * 8 / g <= 2.0 and max(x["real_hwm_mib"] for x in rows) * 1.048576 <= 50.0
out["target_pass_if_all_per_gpu"] = ok
print("  8-GPU bound (2 %% of a core, 50 MB), the cost scaled as all per GPU: %.2f %% -> %s"
      % (out["real_cpu_pct"] * 8 / g, "PASS" if ok else "FAIL"))
print(json.dumps(out))
' "$DURATION"
