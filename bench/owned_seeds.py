#!/usr/bin/env python3
"""The owned-cluster targets under several seeds of the job rule, one line per seed.

docs/RESULTS.md shows the owned setting for rule seed 1 only. A change to frugal's policy is
judged on more than one seed (docs/EXPERIMENTS.md), and this script gives those numbers. For
each seed it runs `bench/evaluate --setting owned --rule-seed S --json DIR/owned-S.json`, with
the frugal binary from FRUGAL_BIN as evaluate reads it. With --from DIR it reads those files
instead of running anything. It then prints, for the issue's comparison at 1.0× (frugal
predicting against the baselines that read no runtime, frugal with the oracle against those
that do; bench/evaluate_owned.py targets()):

  met        targets met out of the traces: mean JCT, core p99 wait, misses, work per $
  JCT ratio  geometric mean over the traces of frugal's mean JCT / the binding baseline's
  misses     frugal's deadline misses summed over the traces (the run each cell compares)
  work/$     frugal's work per dollar summed over the traces (the run each cell compares)

Usage: python3 bench/owned_seeds.py [--seeds 1,2,3] [--out DIR | --from DIR] [--json FILE]
Python 3 stdlib only.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ left in bench/
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evaluate_owned  # noqa: E402  (bench/evaluate_owned.py)

NAMES = ["mean JCT", "core p99", "misses", "work/$"]


def summarize(owned, size="1.0"):
    """The per-seed line's numbers for one `owned` document (bench/evaluate --json's "owned"):
    {"traces", "met": [4 counts], "jct_ratio_geomean", "misses", "work_per_usd"}."""
    runs = {}
    for r in owned["results"]:
        runs.setdefault((r["trace"], str(r["size"])), {})[r["policy"]] = r
    oracle = {(r["trace"], str(r["size"])): r for r in owned.get("oracle", [])}
    met = [0] * len(NAMES)
    ratios, misses, work, traces = [], 0, 0.0, 0
    for t in sorted(owned["settings"]):
        cells = evaluate_owned.targets(runs.get((t, size), {}), owned["settings"][t][size],
                                       oracle.get((t, size)))
        if not cells:
            continue
        traces += 1
        for i, cell in enumerate(cells):
            met[i] += bool(cell.ok)
        jct, _, miss, wpd = cells  # evaluate_owned.Target: the figures compared
        ratios.append(jct.frugal / jct.baseline)
        misses += miss.frugal
        work += wpd.frugal
    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else math.nan
    return {"traces": traces, "met": met, "jct_ratio_geomean": geomean, "misses": misses,
            "work_per_usd": work}


def run_seed(seed, path):
    cmd = [sys.executable, os.path.join(HERE, "evaluate"), "--setting", "owned",
           "--rule-seed", str(seed), "--json", path]
    print(f"owned_seeds: seed {seed}: {' '.join(cmd)}", file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1,2,3", help="comma-separated rule seeds (default 1,2,3)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--out", help="keep each seed's owned-S.json here (default: a temp dir)")
    src.add_argument("--from", dest="src", help="read DIR/owned-S.json; run nothing")
    ap.add_argument("--json", help="also write the summaries to FILE")
    args = ap.parse_args()
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        sys.exit(f"owned_seeds: --seeds: not a comma-separated list of integers: {args.seeds!r}")
    if not seeds:
        sys.exit("owned_seeds: --seeds: no seed given")
    folder = args.src or args.out or tempfile.mkdtemp(prefix="owned-seeds-")
    out = {}
    for seed in seeds:
        path = os.path.join(folder, f"owned-{seed}.json")
        if not args.src:
            os.makedirs(folder, exist_ok=True)
            run_seed(seed, path)
        try:
            with open(path) as f:
                owned = json.load(f)["owned"]
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"owned_seeds: {path}: not an owned-setting result of bench/evaluate ({e})")
        out[seed] = summarize(owned)
    print("| seed | met: " + ", ".join(NAMES) + " | JCT ratio, geomean | misses | work/$, sum |")
    print("|---|---|---|---|---|")
    for seed, s in out.items():
        met = ", ".join(f"{m}/{s['traces']}" for m in s["met"])
        print(f"| {seed} | {met} | {s['jct_ratio_geomean']:.3f} | {s['misses']} | "
              f"{s['work_per_usd']:.4f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({str(k): v for k, v in out.items()}, f, indent=1)


if __name__ == "__main__":
    main()
