#!/usr/bin/env bash
# The main job on bundled data: set-up, build, then replay the first 3,000 jobs of
# Microsoft's ITP cluster04 trace (data/demo/) on a 256-GPU A100 cluster under every
# baseline policy, and print the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
echo "frugal compare: ITP cluster04, first 3,000 jobs, 256 x A100-80GB (32 nodes of 8)"
./build/frugal compare --trace data/demo/itp-cluster04-first3000.csv --gpus 256 \
  --policies fifo,backfill,sjf,las,firstfit,bestfit "$@"
