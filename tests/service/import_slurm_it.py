"""`frugal import slurm` from the command line: sacct --json (hand-written 22.05 fixtures) and
the local test cluster's jobcomp file become traces that `frugal compare` replays; bad input
(malformed jobcomp lines and JSON, unknown GRES types, bad options) is refused naming the line
or job and the field."""
import csv
import os
import subprocess
import tempfile

from harness import args, check

a = args()
data = os.path.join(a.source, "tests", "data", "slurm")


def run(*argv):
    return subprocess.run([a.frugal, *argv], capture_output=True, text=True, timeout=60)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "slurm.csv")
    r = run("import", "slurm", "--sacct", os.path.join(data, "sacct_2205.json"), "--out", out)
    check(r.returncode == 0, f"import failed: {r.stderr}")
    for want in ("5 job(s) from 10 record(s)", "2 never ran", "1 not ended yet", "1 without GPUs",
                 "2026-11-30T06:00:00Z", "TIMEOUT 1"):
        check(want in r.stderr, f"summary lacks {want!r}: {r.stderr}")
    with open(out) as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    check(set(rows) == {"101", "102", "106", "200_0", "200_1"}, f"rows: {list(rows)}")
    check(rows["102"]["restarts"] == "1" and float(rows["102"]["first_start"]) == 200
          and float(rows["102"]["end"]) == 1600, f"requeued job: {rows['102']}")
    check(rows["101"]["tier"] == "core" and rows["101"]["gpus"] == "8", f"{rows['101']}")
    check(rows["200_1"]["name"] == "sweep [TIMEOUT]", f"{rows['200_1']}")
    r = run("compare", "--trace", out, "--gpus", "16", "--gpu-model", "A100-80GB",
            "--policies", "fifo,backfill", "--format", "json")
    check(r.returncode == 0 and '"backfill"' in r.stdout, f"compare: {r.stderr}{r.stdout[:300]}")

    # The local cluster's jobcomp file, its GRES log and its nodes.
    r = run("import", "slurm", "--jobcomp", os.path.join(data, "jobcomp.log"), "--gres-log",
            os.path.join(data, "gres.log"), "--sinfo", os.path.join(data, "nodes.json"),
            "--out", out)
    check(r.returncode == 0 and "4 job(s) from 7 record(s)" in r.stderr, f"jobcomp: {r.stderr}")
    with open(out) as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    check(rows["1"]["allowed_models"] == "A100-80GB|H100", f"partition models: {rows['1']}")
    r = run("import", "slurm", "--jobcomp", os.path.join(data, "jobcomp.log"), "--out", out)
    check(r.returncode == 0 and "give --gres-log" in r.stderr, f"no GRES log: {r.stderr}")

    # Bad input: named.
    bad_log = os.path.join(tmp, "bad.log")
    with open(bad_log, "w") as f:
        f.write("JobId=1 JobState=COMPLETED StartTime=2026-11-30T05:00:00\n"
                "JobId=2 JobState=COMPLETED StartTime=2026-11-30T25:00:00\n")
    bad_map = os.path.join(tmp, "map.yaml")
    with open(bad_map, "w") as f:
        f.write("tiers:\n  qos: {high: urgentest}\n")
    sacct = os.path.join(data, "sacct_2205.json")
    cases = (
        (["--jobcomp", bad_log], "bad.log:2: StartTime: cannot read '2026-11-30T25:00:00'"),
        (["--sacct", os.path.join(data, "sacct_malformed.json")],
         "sacct_malformed.json:87: not valid JSON (line 87"),
        (["--sacct", os.path.join(data, "sacct_missing_field.json")],
         "jobs[1] (job 302): time.start: missing"),
        (["--sacct", os.path.join(data, "sacct_unknown_gres.json")],
         "jobs[1] (job 301): tres.allocated: GRES type 'quantum9'"),
        (["--sacct", sacct, "--jobcomp", bad_log], "--jobcomp"),
        ([], "exactly one of --sacct"),
        (["--sacct", sacct, "--default-gpu-model", "Z80"], "--default-gpu-model"),
        (["--sacct", sacct, "--gpu-map", "h100"], "--gpu-map"),
        (["--sacct", sacct, "--map", bad_map], "tiers.qos.high: unknown tier 'urgentest'"),
        (["--sacct", sacct, "--utc-offset", "90000"], "--utc-offset"),
    )
    for argv, want in cases:
        r = run("import", "slurm", *argv, "--out", out)
        check(r.returncode != 0 and want in r.stderr, f"{argv}: rc {r.returncode}: {r.stderr}")
    r = run("import", "slurm", "--sacct", os.path.join(data, "sacct_unknown_gres.json"),
            "--default-gpu-model", "L4", "--out", out)
    check(r.returncode == 0 and "1 job(s) given --default-gpu-model L4" in r.stderr,
          f"default model: {r.stderr}")
print("ok")
