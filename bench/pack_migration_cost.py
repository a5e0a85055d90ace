#!/usr/bin/env python3
"""bench/pack_migration_cost.py: what migrations cost `frugal pack` in time.

For each pod list (openb default, and generated lists from scripts/gen_openb_pods.py; 311 is
CPU-bound: pods fail from ~50 % arrived, so frugal searches for make-room plans and swaps on
most arrivals from there), times `frugal pack --policies frugal --seeds SEEDS --bound none`
with M = 0 and with M (default 5), REPS times each, alternating, and prints the medians of
user CPU seconds (the stable figure on a shared machine) and wall seconds, and the ratio
M / M = 0. Python 3 stdlib; FRUGAL_BIN (default ./build/frugal), FRUGAL_DATA as the scripts.

  bench/pack_migration_cost.py [--gen 311] [--seeds 3] [--reps 3] [--migrations 5]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("FRUGAL_DATA", os.path.join(ROOT, "..", "shared", "data"))
OPENB = os.path.join(DATA, "traces", "openb")
BIN = os.environ.get("FRUGAL_BIN", os.path.join(ROOT, "build", "frugal"))


def timed(pods, seeds, m):
    """(user CPU s, wall s) of one `frugal pack` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    t0 = time.monotonic()
    subprocess.run([BIN, "pack", "--nodes", os.path.join(OPENB, "openb_node_list_gpu_node.csv"),
                    "--pods", pods, "--policies", "frugal", "--seeds", str(seeds), "--bound",
                    "none", "--migrations-per-100", str(m), "--format", "json"],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", default="311", help="comma-separated generator seeds ('' for none)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--migrations", type=float, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lists = [("default", os.path.join(OPENB, "openb_pod_list_default.csv"))]
        for g in [x for x in a.gen.split(",") if x]:
            path = os.path.join(tmp, f"gen{g}.csv")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_openb_pods.py"), g,
                            path], check=True, capture_output=True)
            lists.append((f"gen{g}", path))
        print(f"frugal pack, {a.seeds} seeds, medians of {a.reps} runs (user CPU s / wall s)")
        print(f"| pod list | M = 0 | M = {a.migrations:g} | ratio (user) |")
        print("|---|---|---|---|")
        for name, path in lists:
            runs = {0: [], a.migrations: []}
            for _ in range(a.reps):
                for m in runs:
                    runs[m].append(timed(path, a.seeds, m))
            med = {m: (statistics.median(u for u, _ in r), statistics.median(w for _, w in r))
                   for m, r in runs.items()}
            base, mig = med[0], med[a.migrations]
            print(f"| {name} | {base[0]:.2f} / {base[1]:.2f} | {mig[0]:.2f} / {mig[1]:.2f} | "
                  f"{mig[0] / max(base[0], 1e-9):.1f}x |", flush=True)


if __name__ == "__main__":
    main()
