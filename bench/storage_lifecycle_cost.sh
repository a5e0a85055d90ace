#!/usr/bin/env bash
# The simulated storage cost of a 30-day LLM run with and without a checkpoint lifecycle
# (bench/STORAGE_RESULTS.md): one job's checkpoint series (frugal storage-cost), then a small
# trace of such jobs through `frugal simulate --storage-lifecycle` (the ledger's pricing).
# Usage: bench/storage_lifecycle_cost.sh [path/to/frugal]   (default: build/frugal)
set -euo pipefail
cd "$(dirname "$0")/.."
FRUGAL=${1:-build/frugal}
# The ledger's cost of a `simulate --format json` run.
cost_line() {
  python3 -c '
import json, sys
c = json.load(sys.stdin)["cost"]
print("storage USD %.2f of total USD %.2f (%.3f %%)" % (c["storage_usd"], c["total_usd"],
      100 * c["storage_usd"] / c["total_usd"]))'
}
RUN=(--checkpoint-gb 1000 --interval-h 2 --run-days 30 --write-min 10)

echo "== 70B pre-training, 30 days: 1 TB checkpoint (bf16 weights + fp32 Adam) every 2 h"
for p in llm move-only retain-only; do
  echo "-- policy examples/lifecycle/$p.yaml"
  "$FRUGAL" storage-cost --lifecycle "examples/lifecycle/$p.yaml" "${RUN[@]}"
  echo
done
echo "-- the same run counted over 90 days (60 days after it ends)"
"$FRUGAL" storage-cost --lifecycle examples/lifecycle/llm.yaml "${RUN[@]}" --horizon-days 90
echo

# A trace: the 70B run, a 7B run (100 GB every hour, 5 days) and two 13B fine-tunes
# (180 GB every 30 min, 12 h) on the 640-GPU A100 example cluster.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/llm.csv" <<'CSV'
id,team,class,submit,gpus,duration,checkpoint_interval,checkpoint_gb,dataset,dataset_gb
llm70b,pretrain,pretrain,0,512,2592000,7200,1000,web-15t,30000
llm7b,pretrain,pretrain,3600,64,432000,3600,100,web-15t,30000
ft13b-a,nlp,finetune,86400,16,43200,1800,180,chat-v2,50
ft13b-b,nlp,finetune,172800,16,43200,1800,180,chat-v2,50
CSV
for p in keep-everything llm; do
  echo "== trace, simulate --storage-lifecycle examples/lifecycle/$p.yaml"
  "$FRUGAL" simulate --trace "$TMP/llm.csv" --cluster examples/clusters/a100-640.yaml \
    --policy fifo --storage-lifecycle "examples/lifecycle/$p.yaml" --format json | cost_line
done
echo "== trace, no --storage-lifecycle (one copy of checkpoint_gb per job)"
"$FRUGAL" simulate --trace "$TMP/llm.csv" --cluster examples/clusters/a100-640.yaml \
  --policy fifo --format json | cost_line
