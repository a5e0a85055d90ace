"""`frugal history export` against a running `frugal serve` (local backend): the database
is read while the daemon holds it, the trace has the jobs that ran with what happened to
them, and `frugal compare` replays it. Bad arguments are refused naming the option."""
import csv
import json
import os
import subprocess
import time

from harness import ALPHA, Daemon, args, check, fail

a = args()
d = Daemon(a.frugal, gpus=1)
try:
    d.start()
    ok = d.submit({"command": "sleep 1", "gpus": 1, "class": "finetune", "tier": "important",
                   "name": "run, one"})
    bad = d.submit({"command": "sleep 0.5; exit 3", "gpus": 1})
    waiting = d.submit({"command": "sleep 60", "gpus": 1, "tier": "general"})
    d.wait_state(ok, ["completed"])
    d.wait_state(bad, ["failed"])
    d.wait_state(waiting, ["running"])
    out = os.path.join(d.dir, "history.csv")
    spec = os.path.join(d.dir, "cluster.yaml")
    r = subprocess.run([a.frugal, "history", "export", "--db", d.db, "--out", out,
                        "--reference-model", "none", "--cluster-out", spec],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"export failed: {r.stderr}")
    check("2 job(s)" in r.stderr and "1 not ended yet" in r.stderr, f"summary: {r.stderr}")
    # The cluster the service recorded at start: this host, node "testnode" with one L4.
    with open(spec) as f:
        text = f.read()
    check("this host's inventory (backend local)" in text and "name: testnode" in text
          and "gpu_model: L4" in text and "gpus_per_node: 1" in text, f"spec:\n{text}")
    check("cluster spec recorded" in d.log_text(), "serve did not log the recorded spec")
    with open(out) as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    check(set(rows) == {str(ok), str(bad)}, f"rows: {list(rows)}")
    row = rows[str(ok)]
    check(row["name"] == "run, one" and row["class"] == "finetune" and row["tier"] == "important",
          f"row: {row}")
    for jid in (ok, bad):
        j = d.job(jid)
        row = rows[str(jid)]
        ran = j["finished_at"] - j["started_at"]
        check(abs(float(row["duration"]) - ran) < 0.05, f"job {jid}: duration {row} vs {ran}")
        check(abs(float(row["end"]) - float(row["first_start"]) - ran) < 1e-3, f"row {row}")
    # Replayed under two policies.
    r = subprocess.run([a.frugal, "compare", "--trace", out, "--gpus", "1", "--gpu-model", "L4",
                        "--reference-model", "none", "--policies", "fifo,frugal",
                        "--format", "json"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and '"fifo"' in r.stdout, f"compare: {r.stderr}{r.stdout[:300]}")
    # What-if: the recorded schedule replayed beside the policies, from the database and from
    # the exported trace alike; the replay follows the record (one GPU, jobs one after another).
    quick = ["--gpus", "1", "--gpu-model", "L4", "--reference-model", "none",
             "--policies", "fifo,sjf", "--format", "json"]
    reports = []
    for src in (["--db", d.db], ["--trace", out]):
        r = subprocess.run([a.frugal, "whatif"] + src + quick, capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0, f"whatif {src}: {r.stderr}")
        rep = json.loads(r.stdout)
        runs = rep["runs"]
        check([x["policy"] for x in runs] == ["recorded", "fifo", "sjf"] and runs[0]["actual"],
              f"whatif {src}: rows {[x['policy'] for x in runs]}")
        fid = runs[0]["fidelity"]
        check(fid["jobs"] == 2 and fid["max_start_error_s"] < 0.5, f"fidelity {fid}")
        check(rep["recorded_starts"] == 2 and "vs_actual" in runs[1], f"report {rep}")
        reports.append(runs[0]["jct_s"]["mean"])
    check(abs(reports[0] - reports[1]) < 1e-3, f"db vs trace: {reports}")
    # Without --cluster: the recorded spec, said on stderr; the exported one reads back alike.
    bare = ["--reference-model", "none", "--policies", "fifo", "--format", "json"]
    for src in (["--db", d.db], ["--trace", out, "--cluster", spec]):
        r = subprocess.run([a.frugal, "whatif"] + src + bare, capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0, f"whatif {src}: {r.stderr}")
        check(("spec recorded in" in r.stderr) == (src[0] == "--db"), f"whatif {src}: {r.stderr}")
        rep = json.loads(r.stdout)
        check(abs(rep["runs"][0]["jct_s"]["mean"] - reports[0]) < 1e-3, f"whatif {src}: {rep}")
    r = subprocess.run([a.frugal, "whatif", "--trace", out, "--since", "2026-01-01"] + quick,
                       capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and "--since" in r.stderr, f"whatif --since: {r.stderr}")
    r = subprocess.run([a.frugal, "whatif", "--db", d.db, "--gpus", "1", "--policies",
                        "recorded"], capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and "actual row" in r.stderr, f"whatif recorded: {r.stderr}")
    # Bad arguments: named.
    for argv, want in ((["--since", "last tuesday"], "--since"),
                       (["--reference-model", "Z80"], "--reference-model"),
                       (["--db", os.path.join(d.dir, "nope.db")], "nope.db")):
        base = ["--db", d.db, "--out", out]
        if argv[0] == "--db":
            base = []
        r = subprocess.run([a.frugal, "history", "export"] + base + argv + (["--out", out] if not base else []),
                           capture_output=True, text=True, timeout=60)
        check(r.returncode != 0 and want in r.stderr, f"{argv}: rc {r.returncode}: {r.stderr}")
    d.request("DELETE", f"/v1/jobs/{waiting}", token=ALPHA)
    d.wait_state(waiting, ["cancelled"])
    d.db_check()
finally:
    d.cleanup(a.keep)
print("ok")
