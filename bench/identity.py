#!/usr/bin/env python3
"""bench/identity.py: the golden outputs every refactoring must keep (issue 19).

Runs the frugal binary on the three result sets the project publishes and compares each,
after dropping the fields that measure the machine rather than the schedule (wall times),
with the copy committed in bench/golden/:
  demo      `frugal compare` of scripts/demo.sh (bundled data: ITP cluster04, first 3,000
            jobs, examples/clusters/two-region.yaml, seven policies);
  evaluate  `bench/evaluate` (every baseline, frugal and the ablations on ITP clusters 01-07
            and the Pollux workloads, predicted runtimes and other job-rule seeds; each run
            kept as a few headline figures and a digest of its whole report; the autoscaled
            setting only: the owned-cluster setting adds minutes and is not yet golden);
  pack      `frugal pack` on every openb variant, all 7 policies x 10 seeds (per-seed curves
            kept as digests).
evaluate and pack need ../shared/data; without it they are skipped (said so), never
passed silently.

Same input, same bytes: a difference is printed with the first differing lines and the exit
status is 1. A commit that changes a figure on purpose reruns this with --update, names the
figure in its message and adds a test showing the old value was a bug.

Usage: bench/identity.py [--frugal build/frugal] [--data ../shared] [--only demo,pack]
                         [--update]
Python 3 stdlib only.
"""
import argparse
import difflib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "bench", "golden")
# Fields that time the run, not the schedule.
TIMING_KEYS = {"wall_s", "sim_wall_s", "process_wall_s", "elapsed_s"}
PACK_VARIANTS = ["default", "cpu050", "cpu100", "gpushare20", "gpushare40", "gpushare60",
                 "gpuspec10", "gpuspec20", "multigpu20", "multigpu30"]


def scrub(x, parent=""):
    """`x` without timing fields (and pack's meta.seconds, the fill's wall time)."""
    if isinstance(x, dict):
        return {k: scrub(v, k) for k, v in x.items()
                if k not in TIMING_KEYS and not (parent == "meta" and k == "seconds")}
    if isinstance(x, list):
        return [scrub(v, parent) for v in x]
    return x


def canonical(obj):
    return json.dumps(scrub(obj), indent=1, sort_keys=True) + "\n"


def digest(x):
    return hashlib.sha256(canonical(x).encode()).hexdigest()


def run_json(cmd, out):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def demo(a, tmp):
    out = os.path.join(tmp, "demo.json")
    return run_json([a.frugal, "compare", "--trace",
                     os.path.join(ROOT, "data/demo/itp-cluster04-first3000.csv"), "--cluster",
                     os.path.join(ROOT, "examples/clusters/two-region.yaml"), "--policies",
                     "fifo,backfill,sjf,las,firstfit,bestfit,frugal", "--format", "json",
                     "--out", out], out)


def headline(rec):
    """One evaluate record as its key, a few figures to read in a diff, and a digest of all
    of it (every figure of the report counts)."""
    out = {k: rec[k] for k in ("trace", "policy", "rule_seed") if k in rec}
    out["jct_mean_s"] = rec["jct_s"]["mean"]
    out["cost_usd"] = rec["cost"]["total_usd"]
    out["preemptions"] = rec["preemptions"]
    out["deadline_misses"] = rec["deadline_misses"]
    out["provisioned_allocated_share"] = rec["provisioned_allocated_share"]
    out["sha256"] = digest(rec)
    return out


def evaluate(a, tmp):
    """Every record of every section as headline(); the rest of the file in full."""
    out = os.path.join(tmp, "evaluate.json")
    env = dict(os.environ, FRUGAL_BIN=a.frugal)
    subprocess.run([sys.executable, os.path.join(ROOT, "bench/evaluate"), "--setting",
                    "autoscaled", "--json", out, "--md", os.path.join(tmp, "RESULTS.md")], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        res = json.load(f)
    for section, recs in res.items():
        if isinstance(recs, list) and recs and isinstance(recs[0], dict) and "jct_s" in recs[0]:
            res[section] = [headline(r) for r in recs]
    return res


def pack(a, tmp):
    """Per variant: meta and summary in full; each policy's per-seed curves as a SHA-256
    of their canonical JSON (the curves are 2 MB; the summary shows what moved)."""
    traces = os.path.join(a.data, "data", "traces", "openb")
    runs = {}
    for v in PACK_VARIANTS:
        out = os.path.join(tmp, f"pack-{v}.json")
        runs[v] = run_json([a.frugal, "pack", "--nodes",
                            os.path.join(traces, "openb_node_list_gpu_node.csv"), "--pods",
                            os.path.join(traces, f"openb_pod_list_{v}.csv"), "--seeds", "10",
                            "--format", "json", "--out", out], out)
        runs[v]["curves"] = {p: digest(c) for p, c in runs[v]["curves"].items()}
        # Input paths as file names: the checkout's location is not a result.
        for key in ("nodes", "pods"):
            if key in runs[v]["meta"]:
                runs[v]["meta"][key] = os.path.basename(runs[v]["meta"][key])
    return runs


SETS = {"demo": (demo, False), "evaluate": (evaluate, True), "pack": (pack, True)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frugal", default=os.path.join(ROOT, "build", "frugal"))
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--only", default=",".join(SETS))
    ap.add_argument("--update", action="store_true", help="rewrite bench/golden/")
    a = ap.parse_args()
    a.frugal = os.path.abspath(a.frugal)
    names = a.only.split(",")
    unknown = [n for n in names if n not in SETS]
    if unknown:
        sys.exit(f"identity: unknown set(s) {unknown}; known: {list(SETS)}")
    have_data = os.path.isdir(os.path.join(a.data, "data", "traces"))
    failed = []
    os.makedirs(GOLDEN, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="frugal-identity-") as tmp:
        for name in names:
            fn, needs_data = SETS[name]
            if needs_data and not have_data:
                print(f"{name:9} SKIPPED: no shared data at {a.data}/data/traces")
                continue
            t0 = time.monotonic()
            got = canonical(fn(a, tmp))
            wall = time.monotonic() - t0
            path = os.path.join(GOLDEN, f"{name}.json")
            if a.update:
                with open(path, "w") as f:
                    f.write(got)
                print(f"{name:9} written to {os.path.relpath(path, ROOT)} ({wall:.1f} s)")
                continue
            try:
                with open(path) as f:
                    want = f.read()
            except OSError:
                print(f"{name:9} FAIL: no golden file {path} (run with --update)")
                failed.append(name)
                continue
            if got == want:
                print(f"{name:9} identical ({wall:.1f} s)")
                continue
            failed.append(name)
            diff = list(difflib.unified_diff(want.splitlines(), got.splitlines(), "golden",
                                             "now", n=2, lineterm=""))
            print(f"{name:9} DIFFERS ({len(diff)} diff lines; first 40):")
            print("\n".join(diff[:40]))
    if failed:
        print(f"identity: {', '.join(failed)} changed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
