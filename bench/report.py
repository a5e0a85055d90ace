#!/usr/bin/env python3
"""Turns the raw files bench/run.sh leaves in WORK_DIR into the markdown of RESULTS.md.

Reads machine.txt, sim_bench.json (+ .time), ledger_bench.json, replay.<policy>.<i>.{json,time} and
check.{json,time}; whatever is missing is reported as skipped. Prints to stdout.
"""
import glob
import json
import os
import re
import statistics
import sys

FOUR_BASELINES_TARGET_S = 2.0
REPLAY_WALL_TARGET_S = 60.0
REPLAY_RSS_TARGET_MIB = 2048.0
LEDGER_RATIO_TARGET = 1.20
LEDGER_CASES = {
    "itp640": "ITP cluster04, 640 A100-80GB GPUs",
    "two-region": "ITP cluster04, two-region.yaml",
    "synthetic1M": "1M jobs, 80,000 A100-80GB GPUs",
}


def read_time_v(path):
    """Wall seconds, CPU seconds (user + sys) and peak RSS (MiB) from `/usr/bin/time -v`."""
    text = open(path).read()

    def field(label):
        m = re.search(re.escape(label) + r":\s*(\S+)", text)
        return m.group(1) if m else None

    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss_mib = int(field("Maximum resident set size (kbytes)")) / 1024
    status = int(field("Exit status") or 0)
    return {"wall": wall, "cpu": cpu, "rss": rss_mib, "status": status}


def fmt_s(seconds):
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_rate(x):
    if x is None:
        return "—"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M/s"
    return f"{x / 1e3:.0f} k/s"


def fmt_mib(x):
    return "—" if x is None else f"{x:.0f} MiB"


def verdict(ok):
    return "PASS" if ok else "FAIL"


def micro_rows(work):
    """(group, policy, row) from frugal_bench's medians; errors as rows with a note."""
    path = os.path.join(work, "sim_bench.json")
    if not os.path.exists(path):
        return None, []
    data = json.load(open(path))
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    rows = []
    for b in data.get("benchmarks", []):
        name = b.get("run_name", b["name"]).split("/repeats:")[0]
        if b.get("error_occurred"):
            rows.append((name, {"error": b.get("error_message", "error")}))
            continue
        if b.get("aggregate_name") != "median":
            continue
        unit = scale[b.get("time_unit", "ns")]
        rows.append((name, {"wall": b["real_time"] * unit, "cpu": b["cpu_time"] * unit,
                            "events": b.get("events/s"), "jobs": b.get("jobs/s")}))
    seen, out = set(), []
    for name, row in rows:  # an errored benchmark appears once per repetition
        if name in seen:
            continue
        seen.add(name)
        group, _, policy = name.partition("/")
        if group == "BM_SimItpCluster04FourBaselines":
            policy = "fifo+backfill+sjf+las"
        out.append((group, policy, row))
    return data.get("context", {}), out


def ledger_rows(work):
    """[(case, policy, {"off": row, "on": row})] from ledger_bench.json; None if not run."""
    path = os.path.join(work, "ledger_bench.json")
    if not os.path.exists(path):
        return None
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    cases = {}
    for b in json.load(open(path)).get("benchmarks", []):
        name = b.get("run_name", b["name"]).split("/repeats:")[0].split("/iterations:")[0]
        parts = name.split("/")
        if len(parts) != 4 or parts[0] != "BM_Ledger":
            continue
        _, case, policy, mode = parts
        slot = cases.setdefault((case, policy), {})
        if b.get("error_occurred"):
            slot.setdefault(mode, {"error": b.get("error_message", "error")})
        elif b.get("aggregate_name") == "median":
            unit = scale[b.get("time_unit", "ns")]
            slot[mode] = {"wall": b["real_time"] * unit, "cpu": b["cpu_time"] * unit}
    case_order, policy_order = list(LEDGER_CASES), ["fifo", "backfill", "las"]

    def order(item):
        (case, policy), _ = item
        return (case_order.index(case) if case in case_order else len(case_order),
                policy_order.index(policy) if policy in policy_order else len(policy_order),
                case, policy)

    return [(case, policy, modes) for (case, policy), modes in sorted(cases.items(), key=order)]


def replay_rows(work):
    out = []
    for policy in ("fifo", "backfill"):
        runs = []
        for tpath in sorted(glob.glob(os.path.join(work, f"replay.{policy}.*.time"))):
            t = read_time_v(tpath)
            jpath = tpath[: -len(".time")] + ".json"
            if t["status"] != 0 or not os.path.exists(jpath):
                runs.append({**t, "failed": True})
                continue
            s = json.load(open(jpath))
            sim_wall = s["sim"]["wall_s"]
            runs.append({**t, "sim_wall": sim_wall, "events": s["sim"]["events"] / sim_wall,
                         "jobs": s["jobs"]["submitted"] / sim_wall,
                         "completed": s["jobs"]["completed"],
                         "submitted": s["jobs"]["submitted"],
                         "violation": s.get("invariant_violation", "")})
        if runs:
            out.append((policy, runs))
    return out


def med(runs, key):
    vals = [r[key] for r in runs if key in r]
    return statistics.median(vals) if vals else None


def main():
    work = sys.argv[1]
    machine = dict(line.rstrip("\n").split("=", 1)
                   for line in open(os.path.join(work, "machine.txt")) if "=" in line)
    print("# frugal benchmark results\n")
    print(f"- machine: {machine.get('nproc')} CPUs, {machine.get('cpu')}, "
          f"{machine.get('mem_gib')} GiB; load average at start {machine.get('loadavg')}")
    print(f"- commit: {machine.get('commit')}; run {machine.get('date')}")
    print(f"- replay: {machine.get('replay')}; {machine.get('runs')} runs per policy")
    print("- generated by `bench/run.sh`; `bench/README.md` explains every number\n")

    table = ["| benchmark | policy | median wall | median CPU | events/s | jobs/s | peak RSS "
             "| wall vs fifo |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    targets = []

    context, micro = micro_rows(work)
    if context is None:
        print("Microbenchmarks: skipped (frugal_bench not run).\n")
    else:
        fifo_wall = {}
        for group, policy, row in micro:
            if policy == "fifo" and "wall" in row:
                fifo_wall[group] = row["wall"]
        bench_rss = None
        if os.path.exists(os.path.join(work, "sim_bench.time")):
            bench_rss = read_time_v(os.path.join(work, "sim_bench.time"))["rss"]
        for group, policy, row in micro:
            label = group.removeprefix("BM_Sim")
            if "error" in row:
                table.append(f"| {label} | {policy} | skipped: {row['error']} | | | | | |")
                continue
            base = fifo_wall.get(group, fifo_wall.get("BM_SimItpCluster04"))
            ratio = f"{row['wall'] / base:.2f}×" if base else "—"
            table.append(f"| {label} | {policy} | {fmt_s(row['wall'])} | {fmt_s(row['cpu'])} | "
                         f"{fmt_rate(row['events'])} | {fmt_rate(row['jobs'])} | "
                         f"— | {ratio} |")
            if group == "BM_SimItpCluster04FourBaselines":
                targets.append((f"four baselines on ITP cluster04 < {FOUR_BASELINES_TARGET_S:g} s "
                                "together (one core)",
                                f"{fmt_s(row['wall'])} wall, {fmt_s(row['cpu'])} CPU",
                                row["wall"] < FOUR_BASELINES_TARGET_S))
        if not any(g == "BM_SimItpCluster04FourBaselines" and "wall" in r for g, _, r in micro):
            targets.append(("four baselines on ITP cluster04 < 2 s together", "not measured",
                            False))
        if bench_rss is not None:
            table.append(f"| (frugal_bench process, all of the above) | | | | | | "
                         f"{fmt_mib(bench_rss)} | |")

    replay = replay_rows(work)
    scale = f"{int(machine.get('jobs', 0)):,}-job / {int(machine.get('nodes', 0)):,}-node"
    if replay:
        fifo = next((statistics.median([r["wall"] for r in runs]) for p, runs in replay
                     if p == "fifo"), None)
        for policy, runs in replay:
            ok_runs = [r for r in runs if not r.get("failed")]
            wall = med(runs, "wall")
            rss_max = max(r["rss"] for r in runs)
            ratio = f"{wall / fifo:.2f}×" if fifo else "—"
            table.append(f"| replay {scale} | {policy} | {fmt_s(wall)} | "
                         f"{fmt_s(med(runs, 'cpu'))} | {fmt_rate(med(ok_runs, 'events'))} | "
                         f"{fmt_rate(med(ok_runs, 'jobs'))} | {fmt_mib(med(runs, 'rss'))} | "
                         f"{ratio} |")
            failed = len(runs) - len(ok_runs)
            note = f"{failed} of {len(runs)} runs failed; " if failed else ""
            targets.append((f"{scale} {policy} < {REPLAY_WALL_TARGET_S:g} s",
                            f"{note}{fmt_s(wall)} median wall", not failed and
                            wall < REPLAY_WALL_TARGET_S))
            targets.append((f"{scale} {policy} peak RSS < {REPLAY_RSS_TARGET_MIB / 1024:g} GiB",
                            f"{fmt_mib(rss_max)} (largest of {len(runs)} runs)",
                            rss_max < REPLAY_RSS_TARGET_MIB))
    print("\n".join(table))
    print()

    ledger = ledger_rows(work)
    if ledger is None:
        print("Ledger overhead: skipped (BM_Ledger not run).\n")
    else:
        print("Ledger overhead: the same simulation with `SimOptions::ledger` off and on, in one "
              "`frugal_bench` process, repetitions interleaved at random; medians (5 "
              "repetitions, 3 for the 1M-job case). Ratio = with / without; target < "
              f"{LEDGER_RATIO_TARGET:.2f}, judged on CPU time: the simulation is one thread, so "
              "its CPU time is its run time on an idle machine, while wall time also counts "
              "waiting for a core when the machine is loaded (compare the load average above; "
              "on a quiet machine the two ratios agree).\n")
        print("| case | policy | without ledger | with ledger | ratio | CPU without | CPU with "
              "| CPU ratio | result (CPU) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---|")
        worst = None
        for case, policy, modes in ledger:
            label = LEDGER_CASES.get(case, case)
            off, on = modes.get("off", {}), modes.get("on", {})
            if "wall" not in off or "wall" not in on:
                why = off.get("error") or on.get("error") or "not measured"
                print(f"| {label} | {policy} | skipped: {why} | | | | | | |")
                targets.append((f"ledger overhead < {LEDGER_RATIO_TARGET - 1:.0%}, {label}, "
                                f"{policy}", why, False))
                continue
            ratio, cpu_ratio = on["wall"] / off["wall"], on["cpu"] / off["cpu"]
            ok = cpu_ratio < LEDGER_RATIO_TARGET
            print(f"| {label} | {policy} | {off['wall'] * 1000:.1f} ms | "
                  f"{on['wall'] * 1000:.1f} ms | {ratio:.3f} | {off['cpu'] * 1000:.1f} ms | "
                  f"{on['cpu'] * 1000:.1f} ms | {cpu_ratio:.3f} | {verdict(ok)} |")
            if worst is None or cpu_ratio > worst[0]:
                worst = (cpu_ratio, f"{label}, {policy}")
        print()
        if worst is not None:
            targets.append((f"ledger adds < {LEDGER_RATIO_TARGET - 1:.0%} to simulation time, "
                            "every case above",
                            f"worst CPU ratio {worst[0]:.3f}× ({worst[1]})",
                            worst[0] < LEDGER_RATIO_TARGET))

    if replay:
        print(f"Replay detail ({scale}, medians): the process wall includes reading the trace "
              "and writing the report; events/s and jobs/s use the simulation loop alone.\n")
        print("| policy | process wall | simulation loop | outside the loop | completed |")
        print("|---|---:|---:|---:|---:|")
        for policy, runs in replay:
            ok_runs = [r for r in runs if not r.get("failed")]
            if not ok_runs:
                print(f"| {policy} | failed | | | |")
                continue
            wall, loop = med(ok_runs, "wall"), med(ok_runs, "sim_wall")
            print(f"| {policy} | {fmt_s(wall)} | {fmt_s(loop)} | {fmt_s(wall - loop)} | "
                  f"{ok_runs[0]['completed']} / {ok_runs[0]['submitted']} |")
        print()

    check_json = os.path.join(work, "check.json")
    check_time = os.path.join(work, "check.time")
    if os.path.exists(check_time):
        t = read_time_v(check_time)
        violations = []
        if os.path.exists(check_json):
            for run in json.load(open(check_json))["runs"]:
                if run.get("invariant_violation"):
                    violations.append(f"{run['policy']}: {run['invariant_violation']}")
        else:
            violations.append(f"no report (exit status {t['status']})")
        result = "; ".join(violations) if violations else "none violated"
        print(f"--check-invariants, {machine.get('check_jobs')} jobs on the same cluster, "
              f"fifo + backfill: {result} ({fmt_s(t['wall'])} wall, {fmt_mib(t['rss'])} peak)\n")
        targets.append((f"invariants hold at {machine.get('check_jobs')} jobs (fifo, backfill)",
                        result, not violations))

    print("| target | measured | result |")
    print("|---|---|---|")
    for name, measured, ok in targets:
        print(f"| {name} | {measured} | {verdict(ok)} |")


if __name__ == "__main__":
    main()
