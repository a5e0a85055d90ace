#!/usr/bin/env python3
"""bench/elastic_random.py: elastic resizing on random elastic workloads (docs/EXPERIMENTS.md,
"Elastic jobs").

For each seed, 300 jobs: GPUs uniform in {1, 2, 4, 8}, submit uniform over 24 h, duration
uniform 10 min - 6 h; a job of >= 2 GPUs is elastic with probability 0.5 (min = gpus/2,
max = min(16, 2 gpus)). Written as a native CSV and run with
`frugal simulate --trace-format native --cluster CLUSTER --policy P --format json` for every
policy given. Prints one row per (seed, policy): mean JCT h, makespan h, cost $, GPU
utilisation, resizes; then the median over seeds of each policy's cost and mean JCT as a
ratio to the first policy's.

  FRUGAL_BIN=build/frugal bench/elastic_random.py [--seeds 1-5] [--cluster FILE]
      [--policies backfill,backfill+elastic,frugal:...]

Python 3 stdlib only.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def workload(seed, path):
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("id,submit,gpus,duration,min_gpus,max_gpus\n")
        for i in range(300):
            g = rng.choice([1, 2, 4, 8])
            submit = rng.uniform(0, 24 * 3600)
            duration = rng.uniform(600, 6 * 3600)
            lo = hi = 0
            if g >= 2 and rng.random() < 0.5:
                lo, hi = g // 2, min(16, 2 * g)
            f.write(f"j{i},{submit:.0f},{g},{duration:.0f},{lo},{hi}\n")


def seeds_of(text):
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--cluster", default=os.path.join(ROOT, "examples", "clusters",
                                                       "hetero-small.yaml"))
    ap.add_argument("--policies", default="backfill,backfill+elastic,frugal")
    args = ap.parse_args()
    binary = os.environ.get("FRUGAL_BIN", os.path.join(ROOT, "build", "frugal"))
    if not os.access(binary, os.X_OK):
        sys.exit(f"elastic_random: no frugal binary at {binary} (set FRUGAL_BIN)")
    policies = args.policies.split(",")
    ratios = {p: ([], []) for p in policies}
    print("| seed | policy | mean JCT h | makespan h | cost $ | GPU util | resizes |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="frugal-elastic-") as tmp:
        for seed in seeds_of(args.seeds):
            trace = os.path.join(tmp, f"elastic-{seed}.csv")
            workload(seed, trace)
            base = None
            for p in policies:
                out = os.path.join(tmp, "r.json")
                subprocess.run([binary, "simulate", "--trace", trace, "--trace-format", "native",
                                "--cluster", args.cluster, "--policy", p, "--format", "json",
                                "--out", out], check=True)
                with open(out) as f:
                    r = json.load(f)
                cost, jct = r["cost"]["total_usd"], r["jct_s"]["mean"]
                base = base or (cost, jct)
                ratios[p][0].append(cost / base[0])
                ratios[p][1].append(jct / base[1])
                print(f"| {seed} | {p} | {jct / 3600:.2f} | {r['makespan_s'] / 3600:.1f} "
                      f"| {cost:,.0f} | {r['gpu_utilization']:.3f} | {r['resizes']} |")
    print()
    print(f"Median over seeds, ratio to `{policies[0]}`:")
    for p in policies:
        print(f"  {p}: cost {statistics.median(ratios[p][0]):.3f}, "
              f"mean JCT {statistics.median(ratios[p][1]):.3f}")


if __name__ == "__main__":
    main()
