#!/usr/bin/env python3
"""A seeded openb-format pod list (the FGD artifact's pod CSV) with a randomly drawn mix of
fractional-GPU pods, multi-GPU pods, GPU-type constraints and CPU-heavy pods, for testing
packers on workloads beyond the ten published variants (bench/pack_robust.py).

Usage: gen_openb_pods.py SEED OUT.csv [--base POD_LIST] [--nodes NODE_LIST] [--pods N]

The pods are resampled from a real list (default: openb_pod_list_default.csv), so each pod's
CPU, memory and GPU request is one the trace holds; only the mix changes. Per SEED the
generator draws (uniformly, printed on stderr and written to OUT.mix.json):
  cpu_share    0.03-0.30  of all pods ask for no GPU (resampled from the CPU-only pods)
  frac_share   0.15-0.75  of the GPU pods ask for part of one GPU (gpu_milli < 1000)
  multi_share  0.00-0.08  of the GPU pods ask for 2, 4 or 8 whole GPUs
  spec_share   0.00-0.30  of the GPU pods name GPU models (gpu_spec: one model, or two or three
                          "|"-separated ones), drawn in proportion to the cluster's GPUs of
                          those models, and only where a node of the model can hold the pod
  heavy_share  0.00-0.40  of the GPU pods ask for 2-4x their CPU (and memory), capped at what
                          the largest node of a model that fits the pod offers
The rest are one-whole-GPU pods. Deterministic for a SEED (Python's random.Random).
"""
import argparse
import csv
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("FRUGAL_DATA", os.path.join(ROOT, "..", "shared", "data"))
OPENB = os.path.join(DATA, "traces", "openb")
FIELDS = ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
          "pod_phase", "creation_time", "deletion_time", "scheduled_time"]
RANGES = {"cpu_share": (0.03, 0.30), "frac_share": (0.15, 0.75), "multi_share": (0.0, 0.08),
          "spec_share": (0.0, 0.30), "heavy_share": (0.0, 0.40)}


def read_csv(path, need):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"gen_openb_pods: {path}: {e.strerror}")
    if not rows:
        sys.exit(f"gen_openb_pods: {path}: no rows")
    missing = [k for k in need if k not in rows[0]]
    if missing:
        sys.exit(f"gen_openb_pods: {path}: missing column(s) {', '.join(missing)}")
    return rows


def pools(rows):
    """The base list's pods by kind: cpu, frac, one, multi (each a list of request dicts)."""
    out = {"cpu": [], "frac": [], "one": [], "multi": []}
    for i, r in enumerate(rows, start=2):
        try:
            req = {k: int(r[k]) for k in ("cpu_milli", "memory_mib", "num_gpu", "gpu_milli")}
        except ValueError:
            sys.exit(f"gen_openb_pods: base list line {i}: a request field is not an integer")
        g, m = req["num_gpu"], req["gpu_milli"]
        kind = "cpu" if g == 0 else "frac" if m < 1000 else "one" if g == 1 else "multi"
        out[kind].append(req)
    empty = [k for k, v in out.items() if not v]
    if empty:
        sys.exit(f"gen_openb_pods: base list has no {', '.join(empty)} pods to resample")
    return out


def node_models(nodes):
    """{model: (gpus in the cluster, [(gpus, cpu_milli, memory_mib) per node])}."""
    out = {}
    for n in nodes:
        g = int(n["gpu"])
        if g == 0:
            continue
        tot, shapes = out.setdefault(n["model"], (0, []))
        shapes.append((g, int(n["cpu_milli"]), int(n["memory_mib"])))
        out[n["model"]] = (tot + g, shapes)
    return out


def fits(shapes, req):
    return any(g >= req["num_gpu"] and c >= req["cpu_milli"] and m >= req["memory_mib"]
               for g, c, m in shapes)


def pick_spec(rng, models, req):
    """A gpu_spec for `req`: 1-3 models that can hold it, weighted by GPUs; '' if none can."""
    ok = [(name, tot) for name, (tot, shapes) in sorted(models.items()) if fits(shapes, req)]
    if not ok:
        return ""
    k = min(len(ok), rng.choice([1, 1, 1, 2, 3]))
    chosen = []
    while len(chosen) < k:
        name = rng.choices([n for n, _ in ok], weights=[t for _, t in ok])[0]
        if name not in chosen:
            chosen.append(name)
    return "|".join(sorted(chosen))


def heavier(rng, models, req):
    """`req` with 2-4x the CPU and memory, capped at the largest node that could hold it."""
    f = rng.choice([2, 3, 4])
    shapes = [s for _, (_, ss) in models.items() for s in ss if s[0] >= req["num_gpu"]]
    cap_c = max(c for _, c, _ in shapes)
    cap_m = max(m for _, _, m in shapes)
    out = dict(req)
    out["cpu_milli"] = min(req["cpu_milli"] * f, cap_c)
    out["memory_mib"] = min(req["memory_mib"] * f, cap_m)
    return out


def generate(seed, base, nodes, n):
    rng = random.Random(seed)
    mix = {k: round(rng.uniform(lo, hi), 4) for k, (lo, hi) in RANGES.items()}
    pool = pools(base)
    models = node_models(nodes)
    rows = []
    for i in range(n):
        if rng.random() < mix["cpu_share"]:
            req, spec = dict(rng.choice(pool["cpu"])), ""
        else:
            u = rng.random()
            kind = ("frac" if u < mix["frac_share"] else
                    "multi" if u < mix["frac_share"] + mix["multi_share"] else "one")
            req = dict(rng.choice(pool[kind]))
            if rng.random() < mix["heavy_share"]:
                req = heavier(rng, models, req)
            spec = pick_spec(rng, models, req) if rng.random() < mix["spec_share"] else ""
        rows.append({"name": f"gen{seed}-pod-{i:05d}", **req, "gpu_spec": spec, "qos": "LS",
                     "pod_phase": "Running", "creation_time": i, "deletion_time": n + i,
                     "scheduled_time": i})
    return mix, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("out")
    ap.add_argument("--base", default=os.path.join(OPENB, "openb_pod_list_default.csv"))
    ap.add_argument("--nodes", default=os.path.join(OPENB, "openb_node_list_gpu_node.csv"))
    ap.add_argument("--pods", type=int, default=8152, help="pods to write (default 8152)")
    a = ap.parse_args()
    if a.pods < 1:
        sys.exit("gen_openb_pods: --pods must be at least 1")
    base = read_csv(a.base, ["cpu_milli", "memory_mib", "num_gpu", "gpu_milli"])
    nodes = read_csv(a.nodes, ["cpu_milli", "memory_mib", "gpu", "model"])
    mix, rows = generate(a.seed, base, nodes, a.pods)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    with open(a.out + ".mix.json", "w") as f:
        json.dump({"seed": a.seed, **mix}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"gen_openb_pods: seed {a.seed}: {json.dumps(mix, sort_keys=True)}", file=sys.stderr)


if __name__ == "__main__":
    main()
