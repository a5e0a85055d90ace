"""bench/evaluate, owned-cluster setting: the ITP traces on a fixed cluster that queues.

Most LLM training runs on owned or reserved clusters with a queue. This setting replays each
ITP cluster (01-07; 01 and 03, at 1.0x only, with --quick) with the evaluation's job rule on a FIXED
two-region heterogeneous cluster (no autoscaling: simulate --static-capacity), sized at
SIZES x the trace's mean GPU load, in A100-80GB equivalents (the trace's durations are A100
durations; the catalog's pretrain speeds convert the other models):

  us-west   H100, reserved   MIX["H100"] of the capacity (8-GPU nodes)
  us-south  A100-80GB, owned MIX["A100-80GB"] (8-GPU nodes; owned: paid at the reserved rate)
            L4, owned        MIX["L4"]
            T4, owned        MIX["T4"] (4-GPU nodes)

A gang runs on one model, so the A100 pool holds at least the trace's largest job and every
pool at least one node: on a trace whose mean load is small next to its largest job the
cluster is larger than the factor says; the page shows the actual capacity ("A100-eq").

A fixed cluster costs the same per hour under every policy, so cost is measured as work per
dollar over a common horizon H = the trace's span + 24 h: reference (A100) GPU-hours of the
jobs completed within H (simulate --horizon-hours) per dollar of the cluster's rental over H.
Energy and CO2 (which do differ) are reported beside it, over the whole run. The allocated
share is the GPU-time held by jobs within H over the cluster's GPU-time over H; the busy
share the part of it that made lasting progress (simulate's work.horizon.busy_share: not a
checkpoint-first preemption's grace, a restart, nor work lost to a stop and redone).

Bounds (no policy can beat them; computed from the trace and the cluster alone):
  work per dollar  min(the work of the jobs that could finish within H at all — submit +
                   duration x 2^-0.8 (as if elastic at twice its GPUs) / the fastest
                   speed of any class on any model <= H — , the
                   cluster's capacity over H at the fastest class speed of each model) / the
                   rental over H
  mean JCT         simulate's work.jct_bound_s (src/sim/jct_bound.h): at every instant no
                   fewer jobs are in the system than under SRPT on one machine of the
                   cluster's GPUs — at unit weight, and weighted by each job class's speeds
                   (so that an L4 or T4 counts as the fraction of an A100 it is) — nor than
                   are within their run time on the fastest model they may use (elastic jobs
                   at their largest size); the mean of the largest count. Where it exceeds 0.70x a baseline's mean JCT, that target is out of
                   reach and becomes half the gap to the bound (the issue's rule).
  core p99 wait    0

Policies: the baselines as in the autoscaled setting and `frugal` with --predict-runtimes
(it sees no true durations; backfill and sjf keep their oracle estimates, which favours
them). Python 3 stdlib only; run by bench/evaluate (full runs, or --setting owned alone).

Consolidation ablation (issue 26, item 2): every (trace, size) also runs `frugal` without its
consolidation plugin (NO_CONSOLIDATE, policy `frugal:consolidate=0`, the same flags), kept
under "consolidation" in the JSON — never among the results the targets compare. The page
sets its migrations and rework (the simulator summary's `migrations`, `rework_gpu_hours`
and the ledger's `waste.rework_usd`) beside the gain (mean JCT, gang wait, allocated share,
work per dollar, the ledger's stranded waste) with and without it. On a static cluster
nothing else migrates (pack-down only empties on-demand nodes; follow-the-sun relays only
jobs marked movable, none here), so the migrations are consolidation's; rework also holds
preemptions' lost work, so its difference is consolidation's net effect.
"""
import collections
import concurrent.futures as cf
import csv
import math
import os
import sys
import tempfile
import time

SIZES = [0.8, 1.0, 1.3]
QUICK_SIZES = [1.0]  # --quick: the size the targets are stated at
# Share of the cluster's A100-equivalent capacity per model (speeds: data/catalog/gpus.yaml,
# pretrain; the fastest class speed bounds the work).
MIX = {"H100": 0.45, "A100-80GB": 0.40, "L4": 0.10, "T4": 0.05}
PRETRAIN_SPEED = {"H100": 2.5, "A100-80GB": 1.0, "L4": 0.25, "T4": 0.15}
MAX_SPEED = {"H100": 3.0, "A100-80GB": 1.0, "L4": 0.6, "T4": 0.6}
RESERVED_USD_H = {"H100": 7.374, "A100-80GB": 3.072, "L4": 0.48, "T4": 0.316}
PER_NODE = {"H100": 8, "A100-80GB": 8, "L4": 8, "T4": 4}
OVERHEAD_W = {"H100": 2200, "A100-80GB": 1800, "L4": 900, "T4": 500}
HORIZON_SLACK_H = 24
# The simulator's elastic scaling exponent (EngineOptions::elastic_alpha, its default).
ELASTIC_ALPHA = 0.8
# The consolidation ablation: its name in the JSON and on the page, and its policy string.
NO_CONSOLIDATE = "frugal-noconsolidate"
# frugal given the same runtime information as the baselines that use runtime estimates: the
# oracle (the trace's true durations, ITP raw having no user estimates), as those baselines
# get it. The comparison: frugal predicts where a baseline uses no runtimes and may
# use what the baseline uses where it does (targets()).
FRUGAL_ORACLE = "frugal-oracle"
POLICY_OF = {NO_CONSOLIDATE: "frugal:consolidate=0", FRUGAL_ORACLE: "frugal"}
# The baselines whose decisions read JobSpec::runtime_estimate (sjf's order, backfill's EASY
# shadow times); fifo, las and gavel read none (checked by tests/bench/evaluate_owned_it.py:
# their runs with and without --predict-runtimes are identical).
USES_RUNTIMES = {"sjf", "backfill"}


def trace_stats(path):
    """(mean A100 GPU load, largest job's GPUs, first submit, last end, rows) of an ITP trace."""
    rows, total, first, last, big = [], 0.0, math.inf, 0.0, 0
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            s, d, g = float(r["submission_time"]), float(r["duration"]), int(r["num_gpu"])
            if g <= 0:
                continue
            rows.append((s, d, g))
            total += g * d
            first, last, big = min(first, s), max(last, s + d), max(big, g)
    return total / max(last - first, 1.0), big, first, last, rows


def node_counts(mean, biggest, factor):
    """Nodes per model for `factor` x `mean` A100-equivalents (see the module's text)."""
    target = factor * mean
    out = {}
    for model, share in MIX.items():
        gpus = share * target / PRETRAIN_SPEED[model]
        out[model] = max(1, round(gpus / PER_NODE[model]))
    out["A100-80GB"] = max(out["A100-80GB"], math.ceil(biggest / PER_NODE["A100-80GB"]))
    return out


def owned_cluster(ev, nodes):
    """The cluster YAML for `nodes` (model -> node count); `ev` is bench/evaluate."""
    def one(name, capacity, model):
        return ev.pool(name, capacity, model, nodes[model], PER_NODE[model], OVERHEAD_W[model])

    west = ev.region("us-west", "US-CAL-CISO", "America/Los_Angeles", 1.2, "22:00-08:00", 0.4,
                     one("h100-reserved", "reserved", "H100"))
    south = ev.region("us-south", "US-TEX-ERCO", "America/Chicago", 1.5, "22:00-06:00", 0.3,
                      one("a100-owned", "owned", "A100-80GB") + one("l4-owned", "owned", "L4")
                      + one("t4-owned", "owned", "T4"))
    return f'epoch: "2023-01-01T00:00:00Z"\nregions:\n{west}\n{south}\n'


def capacity(nodes):
    """(GPUs, A100-equivalent GPUs at pretrain speed, rental USD per hour) of `nodes`."""
    gpus = sum(n * PER_NODE[m] for m, n in nodes.items())
    eq = sum(n * PER_NODE[m] * PRETRAIN_SPEED[m] for m, n in nodes.items())
    usd_h = sum(n * PER_NODE[m] * RESERVED_USD_H[m] for m, n in nodes.items())
    return gpus, eq, usd_h


def work_bound(rows, first, horizon_s, nodes):
    """Reference GPU-hours no schedule completes within the horizon (module text)."""
    fastest = max(MAX_SPEED.values())
    end = first + horizon_s
    # Any whole-GPU job may be one the job rule made elastic (up to 2x its GPUs, throughput
    # n^alpha): at its largest size it runs d * 2^-alpha (the rule draws which; the bound
    # assumes all, so it stays valid).
    grow = 2 ** -ELASTIC_ALPHA
    feasible = sum(g * d for s, d, g in rows if s + d * grow / fastest <= end) / 3600
    cap = sum(n * PER_NODE[m] * MAX_SPEED[m] for m, n in nodes.items()) * horizon_s / 3600
    return min(feasible, cap)


def owned_record(ev, trace, policy, factor, setting, r, wall):
    rec = ev.record(trace, policy, r, wall)
    work = r.get("work", {})
    hz = work.get("horizon", {})
    rec.update({"size": factor,
                "by_tier": r.get("by_tier", {}),
                "work_ref_gpu_hours": hz.get("ref_gpu_hours", 0.0),
                "completed_in_horizon": hz.get("completed", 0),
                "allocated_share": hz.get("allocated_share", 0.0),
                "busy_share": hz.get("busy_share", 0.0),
                "jct_floor_s": work.get("jct_floor_s", 0.0),
                "jct_bound_s": work.get("jct_bound_s", 0.0),
                "energy_kwh": r.get("cost", {}).get("energy_kwh", 0.0),
                "wait_multi_gpu_s": r.get("wait_multi_gpu_s", {}),
                "rework_usd": r.get("waste", {}).get("rework_usd", 0.0),
                "stranded_usd": r.get("waste", {}).get("stranded_usd", 0.0),
                "work_per_usd": hz.get("ref_gpu_hours", 0.0) / setting["rental_usd"]})
    return rec


def run_owned(ev, args, binary, baselines):
    """The owned-cluster runs: {"settings": {trace: {size: setting}}, "results": [...],
    "consolidation": [frugal without consolidation, per (trace, size)], ...}."""
    started = time.monotonic()
    tasks, settings = [], {}
    sizes = QUICK_SIZES if args.quick else SIZES
    with tempfile.TemporaryDirectory(prefix="frugal-evaluate-owned-") as tmp:
        for trace, path, kind in ev.traces(args.data, args.quick):
            if kind != "itp":
                continue
            if not os.path.exists(path):
                sys.exit(f"evaluate: missing trace {path} (set FRUGAL_DATA)")
            mean, biggest, first, last, rows = trace_stats(path)
            horizon_s = last - first + HORIZON_SLACK_H * 3600
            for factor in sizes:
                nodes = node_counts(mean, biggest, factor)
                gpus, eq, usd_h = capacity(nodes)
                rental = usd_h * horizon_s / 3600
                bound = work_bound(rows, first, horizon_s, nodes)
                setting = {"nodes": nodes, "gpus": gpus, "a100_eq": eq, "usd_h": usd_h,
                           "mean_a100_gpus": mean, "actual_factor": eq / mean,
                           "horizon_h": horizon_s / 3600, "rental_usd": rental,
                           "work_bound_ref_gpu_hours": bound,
                           "work_per_usd_bound": bound / rental}
                settings.setdefault(trace, {})[str(factor)] = setting
                yaml = os.path.join(tmp, f"{trace}-owned-{factor}.yaml")
                with open(yaml, "w") as f:
                    f.write(owned_cluster(ev, nodes))
                extra = [] if args.predict_runtimes else [FRUGAL_ORACLE]
                for policy in baselines + [ev.FRUGAL, NO_CONSOLIDATE] + extra:
                    tasks.append((trace, path, yaml, policy, factor, setting, horizon_s))
        done = {}
        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            futs = {}
            for i, (trace, path, yaml, policy, factor, setting, horizon_s) in enumerate(tasks):
                rule = ev.job_rule(args.rule_seed) + [
                    "--horizon-hours", f"{horizon_s / 3600:.6f}"]
                if policy in (ev.FRUGAL, NO_CONSOLIDATE) or args.predict_runtimes:
                    rule.append("--predict-runtimes")
                out = os.path.join(tmp, f"o{i}.json")
                futs[ex.submit(ev.run_one, binary, trace, path, yaml,
                               POLICY_OF.get(policy, policy), True, False, out, rule)] = i
            for fut in cf.as_completed(futs):
                i = futs[fut]
                trace, _, _, policy, factor, setting, _ = tasks[i]
                r, wall = fut.result()
                done[i] = owned_record(ev, trace, policy, factor, setting, r, wall)
                print(f"{trace:22} owned {factor:<4} {policy:10} {wall:6.1f}s", file=sys.stderr,
                      flush=True)
    side = (NO_CONSOLIDATE, FRUGAL_ORACLE)
    results = [done[i] for i in sorted(done) if tasks[i][3] not in side]
    ablation = [done[i] for i in sorted(done) if tasks[i][3] == NO_CONSOLIDATE]
    oracle = [done[i] for i in sorted(done) if tasks[i][3] == FRUGAL_ORACLE]
    return {"settings": settings, "results": results, "consolidation": ablation,
            "oracle": oracle, "sizes": sizes, "mix": MIX,
            "elapsed_s": time.monotonic() - started}


# ---- the RESULTS page's section (bench/evaluate_report.py calls owned_section) ----------

TIERS = ["core", "important", "general"]


def _h(s):
    return f"{s / 3600:.2f}"


def _busy(r):  # "–" for a record from before the simulator reported it
    return f"{r['busy_share']:.3f}" if "busy_share" in r else "–"


def _tier(r, tier, key, stat):
    return r.get("by_tier", {}).get(tier, {}).get(key, {}).get(stat, 0.0)


# One owned-cluster target on one (trace, size): its name, the page's text, the share of the
# gap to the bound closed (None where the baseline is at the bound), whether it is met, and
# the two figures compared: frugal's and the binding baseline's (mean JCT s, core p99 wait s,
# deadline misses, work per $).
Target = collections.namedtuple("Target", "name text gap ok frugal baseline")


def targets(rs, setting, oracle=None):
    """frugal's four owned-cluster targets on one (trace, size), as Target tuples.
    `rs`: policy -> record (frugal's run with predicted runtimes and the baselines).
    Each target must hold against every baseline; the page names the binding one (for a
    single frugal run, the best baseline per metric). With `oracle` (frugal's run with the
    oracle runtimes) the comparison is the issue's: frugal with predicted runtimes against
    the baselines that use none, frugal with the oracle against those that use the oracle
    (USES_RUNTIMES); without it frugal predicts against all (stricter)."""
    fr = rs.get("frugal")
    others = [r for p, r in rs.items() if p != "frugal"]
    if fr is None or not others:
        return []

    def mine(b):
        return oracle if oracle is not None and b["policy"] in USES_RUNTIMES else fr

    def who(b):
        return f"`{b['policy']}`" + (" (oracle)" if mine(b) is not fr else "")

    out = []

    def jct_bound(b):  # the lower of the two runs' bounds (the same jobs: equal when all end)
        return min(mine(b).get("jct_bound_s", 0.0), b.get("jct_bound_s", 0.0))

    def jct_ok(b):  # 0.70x, or half the gap to the bound where the bound rules 0.70x out
        f, x = mine(b)["jct_s"]["mean"], b["jct_s"]["mean"]
        bound = jct_bound(b)
        if bound > 0.70 * x:
            g = gap(x, f, bound)
            return g is not None and g >= 0.5
        return f <= 0.70 * x

    # The binding baseline: one the target fails against, else the highest ratio.
    bj = max(others, key=lambda b: (not jct_ok(b),
                                    mine(b)["jct_s"]["mean"] / max(b["jct_s"]["mean"], 1e-9)))
    f, b = mine(bj)["jct_s"]["mean"], bj["jct_s"]["mean"]
    bound = jct_bound(bj)
    reach = "" if bound <= 0.70 * b else ", 0.70× out of reach: half the gap"
    out.append(Target(f"mean JCT vs {who(bj)} (≤ 0.70)", f"{f / b:.3f} ({_h(f)} h vs {_h(b)} h, "
                      f"bound {_h(bound)} h{reach})", gap(b, f, bound), jct_ok(bj), f, b))

    def core(r):
        return _tier(r, "core", "wait_s", "p99")

    def core_ratio(b):
        f, x = core(mine(b)), core(b)
        return f / x if x > 0 else (0.0 if f == 0 else math.inf)

    bc = max(others, key=core_ratio)
    f, b = core(mine(bc)), core(bc)
    out.append(Target(f"core p99 wait vs {who(bc)} (≤ 0.50)",
                      f"{f / b:.3f} ({_h(f)} h vs {_h(b)} h)" if b > 0 else f"{_h(f)} h vs 0 h",
                      gap(b, f, 0.0), f <= 0.50 * b, f, b))
    bm = max(others, key=lambda b: mine(b)["deadline_misses"] - b["deadline_misses"])
    f, b = mine(bm)["deadline_misses"], bm["deadline_misses"]
    out.append(Target(f"deadline misses vs {who(bm)} (no more)", f"{f} vs {b}", None, f <= b, f,
                      b))
    bound = setting["work_per_usd_bound"]

    def closed(b):  # share of b's gap to the bound frugal closes; 1 when b is at the bound
        g = gap(b["work_per_usd"], mine(b)["work_per_usd"], bound)
        if g is None:
            return 1.0 if mine(b)["work_per_usd"] >= b["work_per_usd"] - 1e-12 else -math.inf
        return g

    bw = min(others, key=closed)
    f, b = mine(bw)["work_per_usd"], bw["work_per_usd"]
    out.append(Target(f"work per $ vs {who(bw)} (half the gap to the bound)",
                      f"{f:.4f} vs {b:.4f}, bound {bound:.4f}", gap(b, f, bound),
                      closed(bw) >= 0.5, f, b))
    return out


def gap(best, frugal, bound):
    """Share of the gap between the best baseline and the bound that frugal closes (None when
    the best baseline is at the bound)."""
    return None if abs(bound - best) < 1e-12 else (best - frugal) / (best - bound)


def _pct(g):
    return "–" if g is None else f"{100 * g:.0f} %"


def consolidation_rows(owned, runs):
    """(trace, size, frugal's record, its record without consolidation) per (trace, size)
    that has both, in trace then size order. `runs`: (trace, size) -> policy -> record."""
    off = {(r["trace"], str(r["size"])): r for r in owned.get("consolidation", [])}
    out = []
    for t in sorted(owned["settings"]):
        for size in owned["sizes"]:
            on = runs.get((t, str(size)), {}).get("frugal")
            if on is not None and (t, str(size)) in off:
                out.append((t, size, on, off[(t, str(size))]))
    return out


def _gang_wait(r):
    return r.get("wait_multi_gpu_s", {}).get("mean", 0.0)


def _usd(x):
    return f"{x:,.0f}"


# The ablation table's columns after trace and size: (heading, value of a record, format).
CONSOLIDATION_COLUMNS = [
    ("migrations", lambda r: r["migrations"], str),
    ("rework GPU-h", lambda r: r["rework_gpu_hours"], lambda x: f"{x:.1f}"),
    ("rework $", lambda r: r["rework_usd"], _usd),
    ("mean JCT h", lambda r: r["jct_s"]["mean"], _h),
    ("gang wait h", _gang_wait, _h),
    ("allocated", lambda r: r["allocated_share"], lambda x: f"{x:.3f}"),
    ("work per $", lambda r: r["work_per_usd"], lambda x: f"{x:.4f}"),
    ("stranded $", lambda r: r["stranded_usd"], _usd),
]


def consolidation_section(owned, runs):
    """The ablation's table: migrations and rework beside the gain, frugal with / without
    consolidation (nothing when the document has no ablation runs)."""
    rows = consolidation_rows(owned, runs)
    if not rows:
        return []
    out = ["### Consolidation: `frugal` with / without it (`frugal:consolidate=0`)", "",
           "The same runs of `frugal` with its consolidation plugin (migrating smaller jobs off "
           "a node so that a queued gang that fits on one node starts there; "
           "`src/policy/consolidate.h`) / without it. Migrations and rework are the simulator "
           "summary's `migrations` and `rework_gpu_hours` and the ledger's `waste.rework_usd`; "
           "on this static cluster only consolidation migrates, and rework also holds "
           "preemptions' lost work, so its difference is consolidation's net effect. "
           "Stranded $: the ledger's `waste.stranded_usd` (free GPUs on nodes with fewer free "
           "than a queued job blocked by fragmentation). Gang wait: mean wait of the completed "
           "jobs asking for 2 or more GPUs. Reading: docs/EXPERIMENTS.md, \"Consolidation in the "
           "owned setting\".", "",
           "| trace | size | " + " | ".join(c[0] for c in CONSOLIDATION_COLUMNS) + " |",
           "|---|---|" + "---|" * len(CONSOLIDATION_COLUMNS)]
    for t, size, on, off in rows:
        out.append(f"| {t} | {size}× | " + " | ".join(
            f"{fmt(get(on))} / {fmt(get(off))}" for _, get, fmt in CONSOLIDATION_COLUMNS) + " |")
    moved = [(on, off) for _, _, on, off in rows if on["migrations"] > 0]
    still = [(on, off) for _, _, on, off in rows if on["migrations"] == 0]

    def count(get, sign):
        return sum(1 for on, off in moved if sign * (get(on) - get(off)) > 0)

    same = sum(1 for on, off in still
               if all(get(on) == get(off) for _, get, _ in CONSOLIDATION_COLUMNS))
    col = {c[0]: c[1] for c in CONSOLIDATION_COLUMNS}
    line = (f"Consolidation migrated in {len(moved)} of {len(rows)} runs "
            f"({sum(on['migrations'] for on, _ in moved)} migrations in all).")
    if moved:
        line += (f" Where it did, with it: mean JCT lower in {count(col['mean JCT h'], -1)}, "
                 f"gang wait lower in {count(col['gang wait h'], -1)}, work per $ higher in "
                 f"{count(col['work per $'], 1)}, rework higher in "
                 f"{count(col['rework GPU-h'], 1)}, stranded $ lower in "
                 f"{count(col['stranded $'], -1)} (of {len(moved)}).")
    if still:
        line += f" Where it did not, the runs are identical in {same} of {len(still)}."
    return out + ["", line, ""]


def owned_section(owned):
    """Markdown lines for docs/RESULTS.md: the setting, targets at 1.0x, every run."""
    res, settings = owned["results"], owned["settings"]
    runs = {}
    for r in res:
        runs.setdefault((r["trace"], str(r["size"])), {})[r["policy"]] = r
    mix = ", ".join(f"{m} {100 * s:.0f} %" for m, s in owned["mix"].items())
    out = ["## Owned-cluster setting", "",
           "A fixed two-region cluster (reserved H100 in us-west; owned A100-80GB, L4 and T4 in "
           f"us-south; shares of the A100-equivalent capacity: {mix}) sized at "
           + ", ".join(f"{s}×" for s in owned["sizes"])
           + " the trace's mean GPU load, no autoscaling, so queues form. The cluster costs "
           "the same per hour under every policy: cost is **work per dollar**, reference "
           "(A100) GPU-hours completed within the horizon (the trace's span + 24 h) per "
           "dollar of rental over it. `frugal` uses predicted runtimes (`--predict-runtimes`); "
           "the baselines keep their oracle estimates; `frugal (oracle)` is frugal with the "
           "oracle, compared only with the baselines that use it. Allocated / busy: the share "
           "of the cluster's GPU-time over the horizon held by jobs / spent on progress that "
           "lasted (not a preemption's checkpoint grace, a restart, or work lost and redone). "
           "Bounds: work per dollar — the work "
           "that could finish within the horizon at all, capped by the cluster's capacity at "
           "its fastest speeds; mean JCT — the simulator's `jct_bound_s` (`src/sim/jct_bound.h`: "
           "at every instant at least as many jobs are in the system as under SRPT on one "
           "machine of the cluster's GPUs, at unit weight and weighted by each job class's "
           "speeds, and as are within their run time on the fastest model they may use; where it exceeds 0.70× the baseline's mean JCT the target "
           "becomes half the gap to it); core p99 wait — 0. Set-up: "
           "`bench/evaluate_owned.py`.", "",
    ]
    oracle = {(r["trace"], str(r["size"])): r for r in owned.get("oracle", [])}
    tables = [(True, "### Targets at 1.0×, the issue's comparison (frugal predicts runtimes "
                     "against the baselines that use none, and has the oracle against those "
                     "that use it: " + ", ".join(sorted(USES_RUNTIMES)) + ")"),
              (False, "### Targets at 1.0×, stricter: frugal predicting against every baseline")]
    for matched, title in tables:
        if matched and not oracle:
            continue
        out += [title, "",
                "Each target must hold against every baseline; the cell names the binding one "
                "(the best baseline per metric when one frugal run is compared), \"(oracle)\" "
                "where frugal's run with the oracle is the one compared. Gap closed: the share "
                "of the gap between that baseline and the bound that frugal closes.", "",
                "| trace | A100-eq (×mean) | " + " | ".join(
                    ["mean JCT", "core p99 wait", "misses", "work per $"]) + " |",
                "|---|---|---|---|---|---|"]
        met = {}
        for t in sorted(settings):
            rs = runs.get((t, "1.0"), {})
            st = settings[t]["1.0"]
            cells = []
            mine = oracle.get((t, "1.0")) if matched else None
            for i, (name, val, g, ok, _, _) in enumerate(targets(rs, st, mine)):
                met.setdefault(i, []).append(ok)
                who = name[name.find("`"):name.rfind("(") - 1] if "`" in name else ""
                cells.append(f"{val}{' ' + who if who else ''} gap {_pct(g)} "
                             f"{'yes' if ok else '**no**'}")
            out.append(f"| {t} | {st['a100_eq']:.0f} ({st['actual_factor']:.2f}) | "
                       + " | ".join(cells) + " |")
        names = ["mean JCT ≤ 0.70", "core p99 wait ≤ 0.50", "misses ≤ fewest",
                 "work per $ gap ≥ 50 %"]
        out += ["", "Met on: " + "; ".join(f"{n} {sum(met.get(i, []))}/{len(met.get(i, []))}"
                                          for i, n in enumerate(names)), ""]
    out += consolidation_section(owned, runs)
    head = ("| size | policy | mean JCT h | p99 JCT h | " + " | ".join(
        f"{t} wait mean / p99 h" for t in TIERS)
        + " | misses | allocated / busy | done in H | work per $ (bound) | MWh | t CO2 |")
    for t in sorted(settings):
        out += [f"### {t}", "", head, "|" + "---|" * (head.count("|") - 1)]
        for size in owned["sizes"]:
            st = settings[t][str(size)]
            rows = list(runs.get((t, str(size)), {}).items())
            if (t, str(size)) in oracle:
                rows.append(("frugal (oracle)", oracle[(t, str(size))]))
            for p, r in rows:
                tiers = " | ".join(f"{_h(_tier(r, x, 'wait_s', 'mean'))} / "
                                   f"{_h(_tier(r, x, 'wait_s', 'p99'))}" for x in TIERS)
                out.append(
                    f"| {size}× | {'**' + p + '**' if p.startswith('frugal') else p} "
                    f"| {_h(r['jct_s']['mean'])} | {_h(r['jct_s']['p99'])} | {tiers} "
                    f"| {r['deadline_misses']} | {r['allocated_share']:.3f} / {_busy(r)} "
                    f"| {r['completed_in_horizon']}/{r['jobs']['submitted']} "
                    f"| {r['work_per_usd']:.4f} ({st['work_per_usd_bound']:.4f}) "
                    f"| {r['energy_kwh'] / 1000:.1f} | {r['co2_kg'] / 1000:.1f} |")
        out.append("")
    return out
