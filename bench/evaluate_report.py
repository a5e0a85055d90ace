"""Turns bench/evaluate's results into docs/RESULTS.md (Python 3 stdlib; imported by evaluate).

Every number on the page comes from the results document; nothing is typed in by hand.
"""
import datetime

FRUGAL, STATIC = "frugal", "fifo-static"
WASTE = [("idle_unallocated_usd", "idle unalloc"), ("stranded_usd", "stranded"),
         ("idle_allocated_usd", "idle alloc"), ("rework_usd", "rework"),
         ("peak_premium_usd", "peak premium"), ("oversized_usd", "oversized"),
         ("storage_tier_usd", "storage tier"), ("duplicate_storage_usd", "dup storage")]


def usd(x):
    if abs(x) >= 1e6:
        return f"${x / 1e6:.2f}M"
    if abs(x) >= 1e3:
        return f"${x / 1e3:.1f}k"
    return f"${x:.0f}"


def h(s):
    return f"{s / 3600:.2f}"


def by_trace(results):
    out = {}
    for r in results:
        out.setdefault(r["trace"], {})[r["policy"]] = r
    return out


def targets(rs):
    """The issue's per-trace targets for `frugal`, as (name, value text, passed)."""
    if FRUGAL not in rs or STATIC not in rs:
        return []
    fr, fs = rs[FRUGAL], rs[STATIC]
    others = [r for p, r in rs.items() if p not in (FRUGAL, STATIC)]
    cost = fr["cost"]["total_usd"]
    rows = [("cost vs fifo-static (≤ 0.70)", f"{cost / fs['cost']['total_usd']:.3f}",
             cost <= 0.70 * fs["cost"]["total_usd"])]
    if others:
        best = min(others, key=lambda r: r["cost"]["total_usd"])
        rows.append((f"cost vs cheapest baseline `{best['policy']}` (≤ 0.85)",
                     f"{cost / best['cost']['total_usd']:.3f}",
                     cost <= 0.85 * best["cost"]["total_usd"]))
        bj = min(others, key=lambda r: r["jct_s"]["mean"])
        rows.append((f"mean JCT vs best baseline `{bj['policy']}` (≤ 1.00)",
                     f"{fr['jct_s']['mean'] / bj['jct_s']['mean']:.3f} "
                     f"({h(fr['jct_s']['mean'])} h vs {h(bj['jct_s']['mean'])} h)",
                     fr["jct_s"]["mean"] <= bj["jct_s"]["mean"] * 1.0001))
        bm = min(r["deadline_misses"] for r in others)
        rows.append(("deadline misses vs fewest of the baselines",
                     f"{fr['deadline_misses']} vs {bm}", fr["deadline_misses"] <= bm))
    share = fr["provisioned_allocated_share"]
    rows.append(("provisioned GPU-time allocated (≥ 0.90)", f"{share:.3f}", share >= 0.90))
    return rows


def replay_cells(rs):
    """targets() without the fifo-static line (not replayed), as table cells: cheapest-baseline
    cost, mean JCT, misses, allocated share."""
    cells = []
    for name, val, ok in targets({**rs, STATIC: {"cost": {"total_usd": float("inf")}}})[1:]:
        who = name[name.find("`"):name.rfind("`") + 1] if "`" in name else ""
        cells.append(f"{val}{' ' + who if who else ''} {'yes' if ok else '**no**'}")
    return cells


# bench/evaluate's reserved pools (paid whether used or not), by name.
RESERVED_POOLS = {"h100-reserved"}


def headroom_row(t, rs):
    """Where frugal's saving against the cheapest baseline comes from: its cost without the
    capacity no job held (unattributed), split into booting, stranded and idle."""
    if FRUGAL not in rs:
        return None
    fr = rs[FRUGAL]
    others = [r for p, r in rs.items() if p not in (FRUGAL, STATIC)]
    if not others:
        return None
    best = min(others, key=lambda r: r["cost"]["total_usd"])
    bc, bu = best["cost"]["total_usd"], best["cost"]["unattributed_usd"]
    fc, fu = fr["cost"]["total_usd"], fr["cost"]["unattributed_usd"]
    w = fr["waste"]
    pct = lambda x: f"{100 * x / fc:.1f} %"  # noqa: E731 (share of frugal's total)
    boot = fr["cost"].get("booting_usd", 0)  # within idle_unallocated_usd
    reserved = sum(a.get("total_usd", 0) for p, a in fr.get("unattributed_by_pool", {}).items()
                   if p in RESERVED_POOLS)
    # The floor: frugal's work with its deferrable jobs at their offline (perfect-foresight)
    # least cost and no capacity left idle; its other jobs' work as it ran.
    bound = (fr.get("offline_bound") or {}).get("deferrable_cost_usd")
    deferrable = fr.get("deferrable", {}).get("cost_usd", 0.0)
    floor = f"{(fc - fu - deferrable + bound) / bc:.3f}" if bound is not None else "–"
    return (f"| {t} | `{best['policy']}` | {fc / bc:.3f} | {(fc - fu) / bc:.3f} | {floor} | "
            f"{(fc - fu) / (bc - bu):.3f} | {pct(fu)} | {pct(boot)} | "
            f"{pct(w.get('stranded_usd', 0))} | {pct(w.get('idle_unallocated_usd', 0) - boot)} | "
            f"{pct(reserved)} | {fr['provisioned_allocated_share']:.3f} | "
            f"{fr.get('ready_allocated_share', 0.0):.3f} | {100 * bu / bc:.1f} % |")


def policy_table(rs):
    head = ("| policy | done | mean JCT h | p99 JCT h | mean JCT h, not deferrable "
            "| mean wait h | alloc share | misses "
            "| cost | " + " | ".join(n for _, n in WASTE) + " | CO2 t | makespan d |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for p, r in rs.items():
        w = r["waste"]
        lines.append(
            f"| {'**' + p + '**' if p == FRUGAL else p} | {r['jobs']['completed']} "
            f"| {h(r['jct_s']['mean'])} | {h(r['jct_s']['p99'])} "
            f"| {h(r.get('jct_other_s', {}).get('mean', 0.0))} | {h(r['wait_s']['mean'])} "
            f"| {r['provisioned_allocated_share']:.3f} | {r['deadline_misses']} "
            f"| {usd(r['cost']['total_usd'])} | "
            + " | ".join(usd(w.get(k, 0.0)) for k, _ in WASTE)
            + f" | {r['co2_kg'] / 1000:.1f} | {r['makespan_s'] / 86400:.1f} |")
    return lines


def time_shift_rows(traces):
    """Deferrable jobs under `timeshift` (time-shifting alone) against `backfill` (the same
    pipeline without it), and each run against the offline bounds solved on its own run
    (src/cost/offline_bound.h): the cost-optimal bound (rental + energy) bounds the deferrable
    jobs' cost, the energy-optimal bound (`energy_optimal_usd`, the same LP minimising energy
    alone) their energy: costs are compared with the first, energies with the second."""
    lines = ["| trace | deferrable jobs | energy backfill → timeshift | energy saving "
             "| cost backfill → timeshift | cost saving | misses (timeshift) "
             "| timeshift cost vs its bound | frugal cost vs its bound "
             "| energy bound (timeshift run) | timeshift energy vs its energy bound "
             "| backfill energy vs its energy bound | frugal energy vs its energy bound |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def bound(r, key, err_key):
        ob = r.get("offline_bound") or {}
        return ob.get(key), ob.get(err_key) or ob.get("error")

    def vs_bound(r, key="deferrable_cost_usd", err_key="error", mine="cost_usd"):
        if r is None:
            return "–"
        b, err = bound(r, key, err_key)
        if b is None:
            return f"no bound ({err})" if err else "–"
        if b <= 0:
            return f"bound {usd(b)}"
        return f"{100 * (r['deferrable'].get(mine, 0) / b - 1):+.1f} %"

    def vs_energy(r):
        return vs_bound(r, "energy_optimal_usd", "energy_optimal_error", "energy_usd")

    for t, rs in traces.items():
        if "backfill" not in rs or "timeshift" not in rs:
            continue
        b, s = rs["backfill"], rs["timeshift"]
        eb, es = b["deferrable"].get("energy_usd", 0), s["deferrable"].get("energy_usd", 0)
        cb, cs = b["deferrable"].get("cost_usd", 0), s["deferrable"].get("cost_usd", 0)
        if eb <= 0 or cb <= 0:
            continue
        ebound = (s.get("offline_bound") or {}).get("energy_optimal_usd")
        lines.append(
            f"| {t} | {b['deferrable'].get('jobs', 0)} | {usd(eb)} → {usd(es)} "
            f"| {100 * (1 - es / eb):.1f} % | {usd(cb)} → {usd(cs)} | {100 * (1 - cs / cb):.1f} % "
            f"| {s['deadline_misses']} | {vs_bound(s)} | {vs_bound(rs.get(FRUGAL))} "
            f"| {'–' if ebound is None else usd(ebound)} | {vs_energy(s)} | {vs_energy(b)} "
            f"| {vs_energy(rs.get(FRUGAL))} |")
    return lines


def energy_line_rows(traces):
    """Issue 5's line "time-shifting alone cuts the energy cost of deferrable jobs by at least
    25 % with zero deadline misses, and lands within 10 % of the offline optimum", for each
    shifter run alone: energy against `backfill`'s, and against the energy-optimal bound
    solved on the shifter's own run."""
    lines = ["| trace | shifter | energy saving vs backfill | misses "
             "| energy vs its energy bound | met (≥ 25 %, 0 misses, ≤ +10 %) |",
             "|---|---|---|---|---|---|"]
    for t, rs in traces.items():
        if not t.startswith("itp-") or "backfill" not in rs:
            continue
        eb = rs["backfill"]["deferrable"].get("energy_usd", 0)
        for name in ("timeshift", "timeshift-energy"):
            s = rs.get(name)
            if s is None or eb <= 0:
                continue
            es = s["deferrable"].get("energy_usd", 0)
            bound = (s.get("offline_bound") or {}).get("energy_optimal_usd")
            saving = 1 - es / eb
            over = es / bound - 1 if bound else None
            met = saving >= 0.25 and s["deadline_misses"] == 0 and over is not None and over <= 0.10
            lines.append(f"| {t} | `{name}` | {100 * saving:.1f} % | {s['deadline_misses']} "
                         f"| {'–' if over is None else f'{100 * over:+.1f} %'} "
                         f"| {'yes' if met else '**no**'} |")
    return lines


def baseline_names(doc):
    seen = []
    for r in doc["results"]:
        if r["policy"] not in (FRUGAL, STATIC) and r["policy"] not in seen:
            seen.append(r["policy"])
    return seen


def ablation_names(doc):
    seen = []
    for r in doc.get("ablations", []):
        if r["policy"] not in seen:
            seen.append(r["policy"])
    return seen


def write_results(doc):
    traces = by_trace(doc["results"])
    ablations = by_trace(doc.get("ablations", []))
    # The time-shifting table compares the `timeshift` ablation with the `backfill` baseline.
    merged = {t: {**rs, **ablations.get(t, {})} for t, rs in traces.items()}
    out = ["# Results", "",
           "Generated by `bench/evaluate` (do not edit by hand; the set-up is documented in "
           "docs/EXPERIMENTS.md, \"The evaluation\").", "",
           f"- Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
           f"{sum(len(doc.get(k, [])) for k in ('results', 'ablations', 'predicted', 'other_seeds')) + sum(len(doc.get('owned', {}).get(k, [])) for k in ('results', 'consolidation'))} "
           f"simulations in {doc['elapsed_s']:.0f} s wall "
           f"({doc['jobs']} at a time).",
           f"- Job rule: `{' '.join(doc['job_rule'])}`.",
           "- Every policy but `fifo-static` runs on the same autoscaled two-region cluster "
           "(per trace); `fifo-static` is fifo on a static on-demand A100 cluster sized for the "
           "trace's peak. The owned-cluster setting (a fixed cluster that queues, "
           "work per dollar) is the last section.",
           "- Baselines: " + ", ".join(f"`{p}`" for p in baseline_names(doc)) + ". "
           "Ablations (frugal's own components run alone, on the same cluster): "
           + (", ".join(f"`{p}`" for p in ablation_names(doc)) or "none") + ". The ablations "
           "are not baselines: the targets never compare `frugal` with them, and they are "
           "listed in a separate table per trace (and under \"ablations\" in the JSON).", ""]
    out += ["## Targets (issue 5), per trace", "",
            "| trace | target | value | met |", "|---|---|---|---|"]
    for t, rs in traces.items():
        if not t.startswith("itp-"):
            continue  # the targets are per ITP cluster; Pollux is reported below
        for name, val, ok in targets(rs):
            out.append(f"| {t} | {name} | {val} | {'yes' if ok else '**no**'} |")
    predicted = by_trace(doc.get("predicted", []))
    if predicted:
        out += ["", "### The same targets with predicted runtimes", "",
                "Every policy above sees each job's true duration as its runtime estimate (an "
                "oracle: it helps frugal and sjf, not las). Here frugal and the baselines are "
                "replayed again with runtimes predicted online from completed jobs "
                "(`simulate --predict-runtimes`, src/policy/runtime_predictor.h); same "
                "clusters and job rule.", "",
                "| trace | cost vs cheapest baseline (≤ 0.85) | mean JCT vs best baseline (≤ 1.00) "
                "| misses vs fewest | allocated (≥ 0.90) |", "|---|---|---|---|---|"]
        for t, rs in predicted.items():
            out.append(f"| {t} | " + " | ".join(replay_cells(rs)) + " |")
    seeds = doc.get("other_seeds", [])
    if seeds:
        out += ["", "### The same targets under other seeds of the job rule", "",
                "The rule that gives jobs their class, tier, deferrable flag and elastic bounds "
                "is seeded (seed 1 above). Frugal and the baselines replayed with every seed of "
                "the rule set to "
                + " and ".join(str(s) for s in sorted({r["rule_seed"] for r in seeds}))
                + "; same clusters, true durations.", "",
                "| trace | seed | cost vs cheapest baseline (≤ 0.85) | mean JCT vs best baseline "
                "(≤ 1.00) | misses vs fewest | allocated (≥ 0.90) |",
                "|---|---|---|---|---|---|"]
        by_seed = {}
        for r in seeds:
            by_seed.setdefault((r["trace"], r["rule_seed"]), {})[r["policy"]] = r
        for (t, seed), rs in sorted(by_seed.items()):
            out.append(f"| {t} | {seed} | " + " | ".join(replay_cells(rs)) + " |")
    out += ["", "Pollux workloads carry no targets (the issue sets them per ITP cluster); their "
            "rows are below.", "",
            "### Where the cost difference comes from", "",
            "frugal's cost against the cheapest baseline, with and without the capacity no job "
            "held (unattributed: provisioned GPUs booting, stranded by fragmentation, or otherwise "
            "idle). "
            "\"without unattributed\" is what frugal would cost if every provisioned GPU-second "
            "were allocated — a floor no online policy reaches (each on-demand node is paid "
            "while it boots); \"… and deferrable at its bound\" goes further: frugal's "
            "deferrable jobs at the least cost the offline bound finds for them (perfect "
            "foresight), its other jobs' work as it ran — where it is above 0.85, the line "
            "needs the work of the jobs that may not be deferred to cost less than it did; "
            "\"work\" compares the two policies' allocated (attributed) cost alone. The "
            "unattributed columns are shares of frugal's total cost; \"of it on reserved "
            "nodes\" is the reserved base left idle (included in other idle). \"of "
            "capacity up\" is frugal's allocated share with the GPU-time of booting nodes left "
            "out of the provisioned time (the target counts it: it is paid for); the gap "
            "between the two is the provisioning delay's part of the share.", "",
            "| trace | cheapest baseline | frugal ÷ it | frugal without unattributed ÷ it | "
            "… and deferrable at its bound ÷ it | work: frugal ÷ it | frugal unattributed | "
            "booting | stranded | other idle | of it on reserved nodes | frugal allocated share "
            "| of capacity up | baseline unattributed |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    out += [row for t, rs in traces.items() if t.startswith("itp-")
            for row in [headroom_row(t, rs)] if row]
    out += ["",
            "## Time-shifting alone (the `timeshift` ablation vs the `backfill` baseline, deferrable jobs)", "",
            "Two offline bounds are solved on each run (perfect foresight, the same LP, "
            "src/cost/offline_bound.h): one minimises the deferrable jobs' rental + energy and "
            "bounds their cost, the other minimises their energy alone and bounds their energy "
            "cost. Each run is compared with the bounds solved on its own run (same centres "
            "and run times).", ""]
    out += time_shift_rows(merged)
    out += ["", "### The issue's energy line, per shifter", "",
            "`timeshift` chooses hours by cost (time-of-use rental + energy), "
            "`timeshift-energy` (`timeshift:energy_only=1:overflow_model=1`) by energy alone, "
            "priced on the model the autoscaler would add; both run alone on the same cluster. "
            "Energies are compared with the energy-optimal bound solved on each run.", ""]
    out += energy_line_rows(merged)
    out += [""]
    for t, rs in traces.items():
        m = doc.get("traces", {}).get(t, {})
        if m.get("sizing") == "trace":
            size = (f"Peak concurrent demand {m.get('peak_gpus', '?')} GPUs, mean load "
                    f"{m.get('mean_gpus', 0):.0f} GPUs (A100, every job at its submit time); "
                    "the clusters are sized from these.")
        else:
            size = (f"Clusters sized for a fixed {m.get('peak_gpus', '?')} GPUs (the Pollux "
                    "testbed's size; no peak measured), reserved base from a load of "
                    f"{m.get('mean_gpus', 0):.0f} GPUs.")
        out += [f"## {t}", "", size, ""]
        out += policy_table(rs)
        out += [""]
        if t in ablations:
            out += ["Ablations (frugal's components alone; not baselines):", ""]
            out += policy_table(ablations[t])
            out += [""]
    if "owned" in doc:
        import evaluate_owned  # noqa: E402  (bench/evaluate_owned.py, beside this file)
        out += evaluate_owned.owned_section(doc["owned"])
    return "\n".join(out) + "\n"
