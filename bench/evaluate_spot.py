"""bench/evaluate --spot: the spot-capacity sweep (issue 21, item 4), run by bench/evaluate.

Per ITP cluster (01-07; 01 and 03 with --quick) on the evaluation's autoscaled two-region
cluster (bench/evaluate: autoscaled_cluster), with the evaluation's job rule plus a
checkpoint model (ITP declares none): every job checkpoints every CHECKPOINT_S seconds and
needs WRITE_S seconds to write a checkpoint, longer than the default 120 s reclaim notice,
so a reclaim loses the work since the last checkpoint (src/policy/spot_cost.h).

  without spot  frugal and every baseline; the best baseline is the cheapest of them
  with spot     an H100 spot pool (the model the evaluation's work runs on; as large as
                the H100 on-demand pool, listed before it)
                at each reclaim rate RATES (per node-hour) x discount DISCOUNTS, where
                discount d means spot price = (1 - d) x the on-demand rate
                (spot_price_factor = 1 - d); frugal and that best baseline.

Reclaims are seeded (simulate --seed, RECLAIM_SEED). The page (default docs/SPOT_RESULTS.md
for a full run) has, per cluster and sweep point, cost, GPU-hours on spot, mean JCT,
deadline misses and rework, with and without spot, for both. Python 3 stdlib only.
"""
import concurrent.futures as cf
import os
import sys
import tempfile
import time

RATES = [0.002, 0.01, 0.05]
DISCOUNTS = [0.3, 0.5, 0.7]
CHECKPOINT_S = 3600
WRITE_S = 300
RECLAIM_SEED = 1


def spot_rule(ev):
    return ev.job_rule(1) + ["--checkpoint-interval", str(CHECKPOINT_S),
                             "--checkpoint-write", str(WRITE_S), "--seed", str(RECLAIM_SEED)]


def spot_record(ev, trace, policy, point, r, wall):
    rec = ev.record(trace, policy, r, wall)
    spot = r.get("spot", {})
    rec.update({"rate": point[0] if point else None, "discount": point[1] if point else None,
                "spot_gpu_hours": spot.get("gpu_hours", 0.0),
                "spot_reclaims": spot.get("reclaims", 0),
                "spot_rework_gpu_hours": spot.get("rework_gpu_hours", 0.0),
                "spot_reclaim_usd": r.get("waste", {}).get("spot_reclaim_usd", 0.0)})
    return rec


def run_batch(ev, binary, tasks, tmp, jobs, tag):
    """tasks: (trace, path, cluster_yaml, policy, point). Returns records in task order."""
    out = [None] * len(tasks)
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futs = {}
        for i, (trace, path, cluster, policy, point) in enumerate(tasks):
            js = os.path.join(tmp, f"{tag}-{i}.json")
            futs[ex.submit(ev.run_one, binary, trace, path, cluster, policy, False, False, js,
                           spot_rule(ev))] = (i, trace, policy, point)
        for fut in cf.as_completed(futs):
            i, trace, policy, point = futs[fut]
            r, wall = fut.result()
            out[i] = spot_record(ev, trace, policy, point, r, wall)
            tag = f"rate {point[0]:g} discount {point[1]:g}" if point else "no spot"
            print(f"{trace:22} {policy:10} {tag:26} {wall:6.1f}s", file=sys.stderr, flush=True)
    return out


def run_spot(ev, args, binary, baselines):
    """The sweep; returns the JSON document (and writes the page when asked)."""
    started = time.monotonic()
    itp = [t for t in ev.traces(args.data, args.quick) if t[2] == "itp"]
    points = [(r, d) for r in RATES for d in DISCOUNTS]
    with tempfile.TemporaryDirectory(prefix="frugal-evaluate-spot-") as tmp:
        plain, clusters = [], {}
        for trace, path, _ in itp:
            if not os.path.exists(path):
                sys.exit(f"evaluate: missing trace {path} (set FRUGAL_DATA)")
            peak, mean = ev.itp_profile(path)
            base = os.path.join(tmp, f"{trace}-auto.yaml")
            with open(base, "w") as f:
                f.write(ev.autoscaled_cluster(peak, mean))
            for rate, discount in points:
                y = os.path.join(tmp, f"{trace}-spot-{rate:g}-{discount:g}.yaml")
                with open(y, "w") as f:
                    f.write(ev.autoscaled_cluster(peak, mean, spot=(rate, round(1 - discount, 6))))
                clusters[(trace, rate, discount)] = y
            for policy in baselines + [ev.FRUGAL]:
                plain.append((trace, path, base, policy, None))
        without = run_batch(ev, binary, plain, tmp, args.jobs, "plain")
        best = {}
        for rec in without:
            if rec["policy"] == ev.FRUGAL:
                continue
            cur = best.get(rec["trace"])
            if cur is None or rec["cost"]["total_usd"] < cur["cost"]["total_usd"]:
                best[rec["trace"]] = rec
        sweep = []
        for trace, path, _ in itp:
            for rate, discount in points:
                y = clusters[(trace, rate, discount)]
                for policy in (ev.FRUGAL, best[trace]["policy"]):
                    sweep.append((trace, path, y, policy, (rate, discount)))
        with_spot = run_batch(ev, binary, sweep, tmp, args.jobs, "spot")
    doc = {"without_spot": without, "with_spot": with_spot,
           "best_baseline": {t: r["policy"] for t, r in best.items()},
           "rates": RATES, "discounts": DISCOUNTS, "checkpoint_s": CHECKPOINT_S,
           "write_s": WRITE_S, "reclaim_seed": RECLAIM_SEED, "job_rule": spot_rule(ev),
           "elapsed_s": time.monotonic() - started, "jobs": args.jobs, "quick": args.quick}
    return doc


def fmt_row(rec):
    cost = rec["cost"]["total_usd"]
    return (f"${cost / 1e3:,.1f}k", f"{rec['spot_gpu_hours']:,.0f}",
            f"{rec['jct_s']['mean'] / 3600:.2f} h", str(rec["deadline_misses"]),
            f"{rec['rework_gpu_hours']:,.0f}")


def write_page(doc):
    """The SPOT_RESULTS page: one table per ITP cluster."""
    lines = ["# Spot capacity: the sweep (`bench/evaluate --spot`)", "",
             "Generated by `bench/evaluate --spot" + (" --quick" if doc["quick"] else "")
             + f"`: {len(doc['without_spot']) + len(doc['with_spot'])} simulations in "
             f"{doc['elapsed_s']:.0f} s wall ({doc['jobs']} at a time). Set-up and reading: "
             "docs/EXPERIMENTS.md, \"Spot capacity\".", "",
             f"Job rule: `{' '.join(doc['job_rule'])}` (every job checkpoints every "
             f"{doc['checkpoint_s']} s and needs {doc['write_s']} s to write one: more than the "
             "120 s notice, so a reclaim loses the work since the last checkpoint). Spot pool: "
             "H100 in us-west, as large as the H100 on-demand pool and listed before it; "
             "discount d = spot price (1 − d) × the on-demand $12.29/GPU-h (on-demand gets 40 % "
             "off 22:00-08:00, spot no time-of-use discount). Best baseline = the cheapest "
             "baseline without spot.",
             "",
             "Columns per policy: cost, GPU-hours on spot, mean JCT, deadline misses, rework "
             "GPU-hours (all stops; with spot mostly reclaims'). The first row of each cluster "
             "is without spot.", ""]
    by_trace = {}
    for rec in doc["without_spot"]:
        by_trace.setdefault(rec["trace"], {})[(None, rec["policy"])] = rec
    for rec in doc["with_spot"]:
        by_trace[rec["trace"]][((rec["rate"], rec["discount"]), rec["policy"])] = rec
    for trace in sorted(by_trace):
        runs = by_trace[trace]
        b = doc["best_baseline"][trace]
        lines += [f"## {trace} (best baseline `{b}`)", "",
                  "| reclaims /node-h | discount | frugal cost | spot GPU-h | JCT | misses | "
                  f"rework GPU-h | {b} cost | spot GPU-h | JCT | misses | rework GPU-h | "
                  "frugal vs {b} cost |".replace("{b}", b),
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        keys = [None] + [(r, d) for r in doc["rates"] for d in doc["discounts"]]
        for k in keys:
            f, g = runs.get((k, "frugal")), runs.get((k, b))
            if not f or not g:
                continue
            ratio = f["cost"]["total_usd"] / max(g["cost"]["total_usd"], 1e-9)
            head = ["no spot", "—"] if k is None else [f"{k[0] * 100:g} %", f"{k[1]:g}"]
            lines.append("| " + " | ".join(head + list(fmt_row(f)) + list(fmt_row(g))
                                            + [f"{ratio:.3f}"]) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"
