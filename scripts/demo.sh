#!/usr/bin/env bash
# The main job on bundled data: set-up, build, then replay the first 3,000 jobs of
# Microsoft's ITP cluster04 trace (data/demo/) on the two-region example cluster
# (examples/clusters/two-region.yaml: 640 GPUs of H100, A100, L4 and T4, reserved and
# on-demand pools, priced with bundled 2023 CAISO and ERCOT market data) under every
# baseline policy and frugal's default profile, and print JCT, cost, waste and CO2, split
# by region. It also writes demo-report.html (the same runs as a self-contained HTML page,
# docs/REPORT.md) and demo-report.html.jobs.csv beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
echo "frugal compare: ITP cluster04 (first 3,000 jobs) on examples/clusters/two-region.yaml"
./build/frugal compare --trace data/demo/itp-cluster04-first3000.csv \
  --cluster examples/clusters/two-region.yaml --policies fifo,backfill,sjf,las,firstfit,bestfit,frugal \
  --html demo-report.html "$@"
echo "HTML report (charts, per-job table): demo-report.html; every job: demo-report.html.jobs.csv" >&2
