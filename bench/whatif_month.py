#!/usr/bin/env python3
"""`frugal whatif` on a month of a service's history (issue 23: whatif of a 1-month database
through `history export`, no slower than 1.5x `compare` of the same policies on the same input).

The month is made, not waited for: a real trace (default ITP cluster04) is simulated under
one policy (`frugal simulate --jobs-out`: each job's first start, finish and GPU model), and
the jobs submitted in its first DAYS days are written into a `frugal serve` database — the
schema made by the service itself (`frugal serve` started once on the dry-run backend and
stopped), one completed job per trace job with its request, times and one run segment. So
the database holds a schedule whose figures are known: the `recorded` row of `whatif` must
give them back, and the script prints how closely it does.

Timed, medians of RUNS: `history export` of the database; `whatif --db` with POLICIES; and,
as the baseline in the same script, `compare` of the same POLICIES on the exported trace.
Prints each run, the medians, the ratio whatif / compare, and a JSON line.

Usage: python3 bench/whatif_month.py --frugal build/frugal [--trace FILE] [--cluster FILE]
         [--days 30] [--policy backfill] [--policies fifo,backfill,sjf,las,bestfit,frugal]
         [--runs 3]
"""
import argparse
import csv
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EPOCH = 1793577600.0  # 2026-11-01T00:00:00Z: second 0 of the month
TEAMS = ("alpha", "beta", "gamma")


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return r


def timed(argv):
    t0 = time.perf_counter()
    r = run(argv)
    return time.perf_counter() - t0, r


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_schema(frugal, db, cluster, work):
    """An empty database as `frugal serve` makes it (its own migrations)."""
    port = free_port()
    config = os.path.join(work, "serve.yaml")
    shutil.copy(cluster, os.path.join(work, "cluster.yaml"))
    with open(config, "w") as f:
        f.write(f"listen: 127.0.0.1:{port}\nbackend: dry-run\ncluster: cluster.yaml\n"
                "admin: {token_sha256: " + "a" * 64 + "}\n")
    with open(os.path.join(work, "serve.log"), "w") as log:
        proc = subprocess.Popen([frugal, "serve", "--config", config, "--db", db],
                                stdout=log, stderr=subprocess.STDOUT, cwd=work)
        try:
            for _ in range(150):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                    break
                except OSError:
                    if proc.poll() is not None:
                        sys.exit("serve exited:\n" + open(os.path.join(work, "serve.log")).read())
                    time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(timeout=15)


def month(trace, jobs_out, days):
    """The trace's jobs submitted in the first `days` days that ran, with their outcome."""
    outcome = {}
    with open(jobs_out) as f:
        for row in csv.DictReader(f):
            outcome[row["id"]] = row
    jobs = []
    with open(trace) as f:
        for row in csv.DictReader(f):
            o = outcome.get(row["job_id"])
            submit = float(row["submission_time"])
            if o is None or submit >= days * 86400 or float(o["first_start"]) < 0:
                continue
            jobs.append({"gpus": int(row["num_gpu"]), "submit": submit,
                         "start": float(o["first_start"]), "end": float(o["finish"]),
                         "model": o["model"], "estimate": float(row["duration"])})
    jobs.sort(key=lambda j: j["submit"])
    return jobs


def fill(db, jobs):
    con = sqlite3.connect(db)
    with con:
        for i, j in enumerate(jobs, start=1):
            request = {"command": "train", "name": f"job{i}", "gpus": j["gpus"],
                       "class": "pretrain", "tier": "general", "estimate_s": j["estimate"]}
            con.execute(
                "INSERT INTO jobs (id, team, request, state, submitted_at, started_at,"
                " finished_at, restart_count, exit_code) VALUES (?,?,?,?,?,?,?,0,0)",
                (i, TEAMS[i % len(TEAMS)], json.dumps(request), "completed",
                 EPOCH + j["submit"], EPOCH + j["start"], EPOCH + j["end"]))
            con.execute(
                "INSERT INTO segments (job_id, t0, t1, kept_s, placement) VALUES (?,?,?,?,?)",
                (i, EPOCH + j["start"], EPOCH + j["end"], j["end"] - j["start"],
                 json.dumps({"model": j["model"], "slots": []})))
    con.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--frugal", required=True)
    p.add_argument("--trace", default=os.path.join(ROOT, "..", "shared", "data", "traces", "itp",
                                                   "raw", "cluster04.csv"))
    p.add_argument("--cluster", default=os.path.join(ROOT, "examples", "clusters",
                                                     "a100-640.yaml"))
    p.add_argument("--days", type=float, default=30)
    p.add_argument("--policy", default="backfill", help="the schedule the month really had")
    p.add_argument("--policies", default="fifo,backfill,sjf,las,bestfit,frugal")
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    a.frugal = os.path.abspath(a.frugal)
    work = tempfile.mkdtemp(prefix="frugal-month-")
    try:
        jobs_out = os.path.join(work, "jobs.csv")
        run([a.frugal, "simulate", "--trace", a.trace, "--cluster", a.cluster, "--policy",
             a.policy, "--jobs-out", jobs_out, "--format", "json"])
        jobs = month(a.trace, jobs_out, a.days)
        db = os.path.join(work, "frugal.db")
        make_schema(a.frugal, db, a.cluster, work)
        fill(db, jobs)
        # The month's own figures, as the database records them.
        waits = [j["start"] - j["submit"] for j in jobs]
        jct = [j["end"] - j["submit"] for j in jobs]
        print(f"{len(jobs)} jobs over {a.days:g} days ({a.policy} on {os.path.basename(a.trace)}),"
              f" database {os.path.getsize(db) / 1e6:.1f} MB")
        exported = os.path.join(work, "month.csv")
        rows, report = [], None
        for i in range(a.runs):
            t_export, _ = timed([a.frugal, "history", "export", "--db", db, "--out", exported])
            common = ["--cluster", a.cluster, "--policies", a.policies, "--format", "json"]
            t_whatif, w = timed([a.frugal, "whatif", "--db", db] + common)
            t_compare, _ = timed([a.frugal, "compare", "--trace", exported] + common)
            rows.append({"export_s": t_export, "whatif_s": t_whatif, "compare_s": t_compare})
            print(f"run {i + 1}: export {t_export:.3f} s, whatif --db {t_whatif:.3f} s, "
                  f"compare {t_compare:.3f} s")
            report = json.loads(w.stdout)
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        ratio = med["whatif_s"] / med["compare_s"]
        actual = report["runs"][0]
        fid = actual["fidelity"]
        rec_wait = statistics.mean(waits)
        rec_jct = statistics.mean(jct)
        print(f"medians of {a.runs}: export {med['export_s']:.3f} s, whatif {med['whatif_s']:.3f} s,"
              f" compare {med['compare_s']:.3f} s; whatif / compare {ratio:.3f}"
              f" (target <= 1.5: {'PASS' if ratio <= 1.5 else 'FAIL'})")
        print(f"recorded row vs the database: mean wait {actual['wait_s']['mean']:.0f} s vs"
              f" {rec_wait:.0f} s, mean JCT {actual['jct_s']['mean']:.0f} s vs {rec_jct:.0f} s;"
              f" start error median {fid['start_error_s']['p50']:.1f} s, p99"
              f" {fid['start_error_s']['p99']:.1f} s, max {fid['max_start_error_s']:.1f} s over"
              f" {fid['jobs']} jobs; makespan {fid['replay_makespan_s']:.0f} s replayed,"
              f" {fid['recorded_makespan_s']:.0f} s recorded")
        print(json.dumps({"jobs": len(jobs), "days": a.days, "medians": med, "ratio": ratio,
                          "pass": ratio <= 1.5, "recorded_wait_mean_s": actual["wait_s"]["mean"],
                          "database_wait_mean_s": rec_wait,
                          "recorded_jct_mean_s": actual["jct_s"]["mean"],
                          "database_jct_mean_s": rec_jct, "fidelity": fid}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
