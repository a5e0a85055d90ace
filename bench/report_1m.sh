#!/usr/bin/env bash
# The HTML report at scale (issue 24's target: a 1M-job replay's report opens in Chromium in
# under 5 s and weighs under 20 MB). Generates the seeded synthetic trace of bench/run.sh's
# replay (JOBS jobs on GPUS GPUs at LOAD), runs `frugal compare --policies POLICIES --html`,
# and times opening the report in Debian's Chromium (bench/report_open.mjs: load event with
# every chart laid out; RUNS fresh pages, median) against the demo's 3,000-job report
# (baseline, opened in the same browser session). Needs scripts/ui-deps.sh's Chromium and
# tests/ui/node_modules. Prints a small table; numbers go to bench/README.md by hand.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FRUGAL=${FRUGAL:-$ROOT/build/frugal}
JOBS=${JOBS:-1000000}
GPUS=${GPUS:-80000}
LOAD=${LOAD:-0.9}
SEED=${SEED:-1}
RUNS=${RUNS:-3}
POLICIES=${POLICIES:-fifo,backfill}
WORK=${WORK:-$(mktemp -d /tmp/frugal-report-XXXXXX)}
mkdir -p "$WORK"
log() { echo "[report_1m] $*" >&2; }

trace=$WORK/synthetic-$JOBS-$GPUS-$LOAD-$SEED.csv
[ -f "$trace" ] || { log "generating $trace"; "$FRUGAL" gen-trace --jobs "$JOBS" \
  --cluster-gpus "$GPUS" --load "$LOAD" --seed "$SEED" --out "$trace"; }
log "compare --policies $POLICIES --html on $JOBS jobs"
/usr/bin/time -f "%e s, %M kB max RSS" -o "$WORK/big.time" "$FRUGAL" compare --trace "$trace" \
  --gpus "$GPUS" --policies "$POLICIES" --format json --out "$WORK/big.json" \
  --html "$WORK/big.html"
log "compare on the demo (baseline report)"
"$FRUGAL" compare --trace "$ROOT/data/demo/itp-cluster04-first3000.csv" \
  --cluster "$ROOT/examples/clusters/two-region.yaml" --policies "$POLICIES" --format json \
  --out "$WORK/demo.json" --html "$WORK/demo.html"
log "opening both in Chromium, $RUNS times each"
node "$ROOT/bench/report_open.mjs" --runs "$RUNS" "$WORK/demo.html" "$WORK/big.html" \
  >"$WORK/open.jsonl"
python3 - "$WORK" "$JOBS" <<'PY'
import json, sys
work, jobs = sys.argv[1], int(sys.argv[2])
rows = [json.loads(l) for l in open(f"{work}/open.jsonl")]
demo, big = rows[0], rows[1]
print(f"report of {jobs:,} jobs ({open(work + '/big.time').read().strip()} to simulate and write)")
print(f"{'report':<12} {'MB':>8} {'open ms (median)':>18} {'runs ms':>24}")
for name, r in (("demo 3,000", demo), (f"{jobs:,}", big)):
    print(f"{name:<12} {r['bytes'] / 1e6:>8.2f} {r['median_ms']:>18} {str(r['runs_ms']):>24}")
print(f"ratio big/demo: size {big['bytes'] / demo['bytes']:.2f}x, open {big['median_ms'] / demo['median_ms']:.2f}x")
print(f"targets: < 20 MB: {'PASS' if big['bytes'] < 20e6 else 'FAIL'}; "
      f"opens < 5 s: {'PASS' if big['median_ms'] < 5000 else 'FAIL'}")
PY
echo "work files: $WORK" >&2
