#!/usr/bin/env python3
"""bench/pack_robust.py: frugal's packer against FGD on every visible openb pod list and on
generated ones (scripts/gen_openb_pods.py), the robustness table of bench/PACK_RESULTS.md.

For each pod list, one `frugal pack --policies fgd,frugal --seeds SEEDS --format json` on the
openb GPU node list; a cell is frugal's median allocated share minus FGD's (points of GPU
capacity, median over the seeds, as `pack` reports it) at an arrived level. Positive: frugal
allocates more. The rules frugal chose for the list (its own or FGD's, src/pack/calibrate.h;
`--frugal-rules own` in the extra flags forces its own) are printed beside the cells. Prints a Markdown table (variants x levels) and a verdict line; --json FILE
also writes the cells. Exit status 0 whatever the cells (a measurement, not a test); 2 on a
failed run. Python 3 stdlib; FRUGAL_BIN (default ./build/frugal), FRUGAL_DATA as the scripts.

  bench/pack_robust.py [--generated 20] [--first-gen-seed 1] [--seeds 10] [--no-visible]
                       [--levels 90,95,100,110,120,130] [--policy frugal] [--json FILE]
                       [-- extra pack flags, e.g. --migrations-per-100 5]

The table of bench/PACK_RESULTS.md §6 is `bench/pack_robust.py --seeds 10 -- --bound none`
(and `--no-visible --first-gen-seed 101` / 201 / 301 for held-out lists): the bound is not part
of the comparison. --no-visible leaves out the ten visible lists (faster iteration).
`--policy fgd-alt` measures the noise of such a table (§6.2): fgd-alt is FGD with another
random tie order between nodes, the same packer in distribution, so its cells show how far a
median of SEEDS seeds moves by chance alone.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("FRUGAL_DATA", os.path.join(ROOT, "..", "shared", "data"))
OPENB = os.path.join(DATA, "traces", "openb")
BIN = os.environ.get("FRUGAL_BIN", os.path.join(ROOT, "build", "frugal"))


def run_pack(pods, seeds, policy, extra):
    cmd = [BIN, "pack", "--nodes", os.path.join(OPENB, "openb_node_list_gpu_node.csv"),
           "--pods", pods, "--policies", f"fgd,{policy}", "--seeds", str(seeds),
           "--format", "json"] + extra
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"pack_robust: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    doc = json.loads(p.stdout)
    alloc = {(r["policy"], r["arrived_pct"]): r["alloc_pct"] for r in doc["summary"]}
    rules = doc["meta"].get("frugal_rules", {}).get("rules", "-")
    return alloc, rules, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generated", type=int, default=20)
    ap.add_argument("--first-gen-seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--levels", default="90,95,100,110,120,130")
    ap.add_argument("--policy", default="frugal", help="the packer compared with fgd")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-visible", action="store_true",
                    help="only the generated lists (faster iteration)")
    ap.add_argument("--json")
    ap.add_argument("extra", nargs="*", help="more `frugal pack` flags (after --)")
    a = ap.parse_args()
    levels = [int(x) for x in a.levels.split(",")]
    lists = [(os.path.basename(p)[len("openb_pod_list_"):-4], p)
             for p in sorted(glob.glob(os.path.join(OPENB, "openb_pod_list_*.csv")))]
    if a.no_visible:
        lists = []
    elif not lists:
        sys.exit(f"pack_robust: no openb_pod_list_*.csv under {OPENB}")
    tmp = tempfile.mkdtemp(prefix="pack_robust.")
    mixes = {}
    for s in range(a.first_gen_seed, a.first_gen_seed + a.generated):
        out = os.path.join(tmp, f"gen{s}.csv")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_openb_pods.py"),
                        str(s), out], check=True, capture_output=True)
        with open(out + ".mix.json") as f:
            mixes[f"gen{s}"] = json.load(f)
        lists.append((f"gen{s}", out))
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        runs = list(ex.map(lambda l: run_pack(l[1], a.seeds, a.policy, a.extra), lists))
    cells, rows, worst = {}, [], None
    chosen = {}
    for (name, _), (alloc, rules, secs) in zip(lists, runs):
        chosen[name] = rules
        row = []
        for lv in levels:
            f, g = alloc.get((a.policy, lv)), alloc.get(("fgd", lv))
            d = None if f is None or g is None else round(f - g, 3)
            cells.setdefault(name, {})[lv] = d
            row.append("—" if d is None else f"{d:+.2f}")
            if d is not None and (worst is None or d < worst[0]):
                worst = (d, name, lv)
        rows.append(f"| {name} | " + " | ".join(row) + f" | {rules} | {secs:.1f} |")
    print(f"{a.policy} − FGD, allocated GPU share (points, median of {a.seeds} seeds)"
          + (f", pack flags: {' '.join(a.extra)}" if a.extra else "") + "\n")
    print("| pod list | " + " | ".join(f"{lv} %" for lv in levels) + " | frugal's rules | s |")
    print("|---|" + "---:|" * len(levels) + "---|---:|")
    print("\n".join(rows))
    neg = [(n, lv, d) for n, c in cells.items() for lv, d in c.items() if d is not None and d < 0]
    med = statistics.median(d for c in cells.values() for d in c.values() if d is not None)
    print(f"\n{len(lists)} lists x {len(levels)} levels: {len(neg)} negative cells, "
          f"median {med:+.3f}, worst {worst[0]:+.3f} ({worst[1]} at {worst[2]} %)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"policy": a.policy, "seeds": a.seeds, "levels": levels,
                       "extra": a.extra, "cells": cells, "rules": chosen, "mixes": mixes}, f,
                      indent=1)


if __name__ == "__main__":
    main()
