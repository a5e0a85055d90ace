#!/usr/bin/env bash
# Runs frugal's performance benchmarks and writes bench/RESULTS.md (also printed):
#   1. frugal_bench (Google Benchmark): every baseline on ITP cluster04 and openb default,
#      and the four baselines together on cluster04 (medians of 5 repetitions);
#   2. the 1,000,000-job replay on 10,000 8-GPU nodes: `frugal simulate` with fifo and
#      backfill under /usr/bin/time -v, RUNS runs each, medians of wall time and peak RSS;
#   1b. frugal_bench's BM_Ledger*: ITP cluster04 (640-GPU cluster and two-region.yaml) and
#      the 1M-job trace with SimOptions::ledger off and on, for the ledger-overhead table;
#   3. a --check-invariants replay of a 100,000-job instance (fifo, backfill) on the same
#      cluster: engine and cluster state are verified after every cycle;
#   4. the `frugal serve` load test (bench/serve_load.sh: 10,000 nodes, dry-run backend,
#      accepted submissions/s and decision latency p50/p99, medians of 5 runs), appended;
#   5. telemetry (issue 22), appended: the node agent's CPU and peak RSS at 1 s sampling with
#      8 GPUs (bench/agent_overhead.sh, on the fake NVML) and the load test with and without
#      1,000 agents x 8 GPUs reporting every 10 s (bench/serve_telemetry.sh).
# Targets are printed PASS/FAIL; a FAIL does not fail the script (only errors do).
#
# Usage: bench/run.sh            (from anywhere; about 10-12 minutes on 2 cores, 3-5 with
#   SKIP_TELEMETRY=1)
# Environment: BUILD_DIR (default build), WORK_DIR (default /tmp/frugal-bench-$UID),
#   OUT (default bench/RESULTS.md), JOBS (1000000), GPUS (80000), LOAD (0.9), SEED (1),
#   RUNS (3), CHECK_JOBS (100000), SKIP_MICRO=1, SKIP_LEDGER=1, SKIP_REPLAY=1, SKIP_CHECK=1, SKIP_SERVE=1,
#   SKIP_TELEMETRY=1,
#   BUILD_JOBS (2), LEDGER_FILTER (^BM_Ledger; a regex of ledger benchmarks to run).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
WORK=${WORK_DIR:-/tmp/frugal-bench-$(id -u)}
OUT=${OUT:-$ROOT/bench/RESULTS.md}
JOBS=${JOBS:-1000000}
GPUS=${GPUS:-80000}
LOAD=${LOAD:-0.9}
SEED=${SEED:-1}
RUNS=${RUNS:-3}
CHECK_JOBS=${CHECK_JOBS:-100000}
BUILD_JOBS=${BUILD_JOBS:-2}
mkdir -p "$WORK"
log() { echo "bench: $*" >&2; }

# --- tools ---
if [ ! -x /usr/bin/time ] || ! command -v python3 >/dev/null; then
  log "installing missing packages (scripts/setup.sh)"
  "$ROOT/scripts/setup.sh"
fi

# --- Release build (configured only when missing or not Release) ---
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)
if [ "$build_type" != "Release" ]; then
  log "configuring $BUILD (Release; was '${build_type:-none}')"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
targets=(frugal frugal_serve_load)
if [ "${SKIP_TELEMETRY:-0}" != 1 ]; then
  if ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^fake_nvml:'; then
    targets+=(fake_nvml)
  else
    log "the fake NVML is not built (FRUGAL_BUILD_TESTS off): agent overhead skipped"
    SKIP_AGENT=1
  fi
fi
if ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^frugal_bench:'; then
  targets+=(frugal_bench)
else
  log "Google Benchmark not found: frugal_bench is not built, microbenchmarks skipped"
  SKIP_MICRO=1
fi
cmake --build "$BUILD" -j"$BUILD_JOBS" --target "${targets[@]}" >&2
FRUGAL=$BUILD/frugal

# --- machine and revision ---
{
  echo "nproc=$(nproc)"
  echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
  echo "mem_gib=$(awk '/MemTotal/ {printf "%.1f", $2 / 1048576}' /proc/meminfo)"
  echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    rev="$rev (with uncommitted changes)"
  fi
  echo "commit=$rev"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "replay=$JOBS jobs, $GPUS GPUs ($((GPUS / 8)) 8-GPU A100-80GB nodes), load $LOAD, seed $SEED"
  echo "jobs=$JOBS"
  echo "nodes=$((GPUS / 8))"
  echo "runs=$RUNS"
  echo "check_jobs=$CHECK_JOBS"
} >"$WORK/machine.txt"

# --- 1. microbenchmarks ---
rm -f "$WORK/sim_bench.json" "$WORK/sim_bench.time"
if [ "${SKIP_MICRO:-0}" != 1 ]; then
  log "frugal_bench (BM_Sim*, 5 repetitions each)"
  /usr/bin/time -v -o "$WORK/sim_bench.time" "$BUILD/frugal_bench" --benchmark_filter='^BM_Sim' \
    --benchmark_format=json >"$WORK/sim_bench.json"
fi

# --- 1b. ledger overhead: the same simulations with the ledger off and on ---
rm -f "$WORK/ledger_bench.json"
if [ "${SKIP_MICRO:-0}" != 1 ] && [ "${SKIP_LEDGER:-0}" != 1 ]; then
  log "frugal_bench (BM_Ledger*, ledger off/on, repetitions interleaved; about 2 minutes)"
  # Random interleaving runs the repetitions of all cases in a shuffled order, so that
  # ledger off and on see the same machine load.
  "$BUILD/frugal_bench" --benchmark_filter="${LEDGER_FILTER:-^BM_Ledger}" \
    --benchmark_enable_random_interleaving=true --benchmark_format=json \
    >"$WORK/ledger_bench.json"
fi

# --- 2. the 1M-job replay ---
rm -f "$WORK"/replay.*
if [ "${SKIP_REPLAY:-0}" != 1 ]; then
  trace=$WORK/synthetic-$JOBS-$GPUS-$LOAD-$SEED.csv
  log "generating $trace"
  "$FRUGAL" gen-trace --jobs "$JOBS" --cluster-gpus "$GPUS" --load "$LOAD" --seed "$SEED" \
    --out "$trace"
  for policy in fifo backfill; do
    for ((i = 1; i <= RUNS; ++i)); do
      log "replay $policy run $i/$RUNS"
      /usr/bin/time -v -o "$WORK/replay.$policy.$i.time" "$FRUGAL" simulate --trace "$trace" \
        --gpus "$GPUS" --policy "$policy" --format json --out "$WORK/replay.$policy.$i.json"
    done
  done
fi

# --- 3. invariants at scale ---
rm -f "$WORK"/check.*
if [ "${SKIP_CHECK:-0}" != 1 ]; then
  trace=$WORK/synthetic-$CHECK_JOBS-$GPUS-$LOAD-$SEED.csv
  "$FRUGAL" gen-trace --jobs "$CHECK_JOBS" --cluster-gpus "$GPUS" --load "$LOAD" --seed "$SEED" \
    --out "$trace"
  log "--check-invariants replay of $CHECK_JOBS jobs (fifo, backfill; slow)"
  # Exit status 1 means a violation; the report says which.
  /usr/bin/time -v -o "$WORK/check.time" "$FRUGAL" compare --trace "$trace" --gpus "$GPUS" \
    --policies fifo,backfill --check-invariants --format json --out "$WORK/check.json" ||
    log "invariant check exited $? (see report)"
fi

# --- report ---
python3 "$ROOT/bench/report.py" "$WORK" >"$OUT"
if [ "${SKIP_SERVE:-0}" != 1 ]; then
  log "frugal serve load test (bench/serve_load.sh)"
  {
    echo
    echo "## frugal serve load test (bench/serve_load.sh)"
    echo
    echo '```'
    BUILD_DIR=$BUILD bash "$ROOT/bench/serve_load.sh" | tail -n 6
    echo '```'
  } >>"$OUT"
fi
if [ "${SKIP_TELEMETRY:-0}" != 1 ]; then
  {
    if [ "${SKIP_AGENT:-0}" != 1 ]; then
      log "node agent overhead (bench/agent_overhead.sh; about 3.5 minutes)"
      echo
      echo "## Node agent overhead (bench/agent_overhead.sh)"
      echo
      echo '```'
      BUILD_DIR=$BUILD RUNS=3 bash "$ROOT/bench/agent_overhead.sh" | sed -n '/^median/,$p'
      echo '```'
    fi
    log "telemetry ingest under load (bench/serve_telemetry.sh; about 3 minutes)"
    echo
    echo "## Telemetry ingest under load (bench/serve_telemetry.sh)"
    echo
    echo '```'
    # JOBS and RUNS set here: the replay's JOBS (1,000,000) may be in the environment.
    BUILD_DIR=$BUILD JOBS=50000 RUNS=3 bash "$ROOT/bench/serve_telemetry.sh" 2>/dev/null
    echo '```'
  } >>"$OUT"
fi
cat "$OUT"
log "written to $OUT (raw files in $WORK)"
