#!/usr/bin/env python3
"""bench/evaluate's owned-cluster consolidation ablation against the simulator itself.

Runs `bench/evaluate --setting owned --quick` (one baseline, fifo) on two small synthetic
ITP-format traces (1- to 8-GPU jobs arriving every 10 minutes on average, so gangs get
blocked by fragmentation and consolidation migrates), then replays each (trace, size) with
`frugal simulate` directly — the same cluster, job rule and flags, `frugal` and
`frugal:consolidate=0` — and checks that the ablation's records and the RESULTS section's rows
hold exactly the summaries' migrations, rework (GPU-hours and the ledger's USD) and gain
figures. Python 3 standard library only; files under $TMPDIR (build/test-tmp under ctest).
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ left in bench/
FRUGAL = SOURCE = None
TRACES = {"itp-cluster01": 1, "itp-cluster03": 2}  # trace name -> generator seed


def write_trace(path, seed, jobs=300):
    """An ITP-format trace: Poisson arrivals (mean gap 600 s), 1/2/4/8 GPUs, 0.5-8 h."""
    rng = random.Random(seed)
    t = 0.0
    with open(path, "w") as f:
        f.write("job_id,submission_time,duration,num_gpu\n")
        for i in range(jobs):
            t += rng.expovariate(1 / 600)
            g = rng.choices([1, 2, 4, 8], [0.5, 0.2, 0.15, 0.15])[0]
            f.write(f"j{i},{int(t)},{int(rng.uniform(1800, 8 * 3600))},{g}\n")


def load_evaluate():
    """bench/evaluate (a script without .py) and bench/evaluate_owned.py as modules."""
    sys.path.insert(0, os.path.join(SOURCE, "bench"))
    loader = importlib.machinery.SourceFileLoader("evaluate", os.path.join(SOURCE, "bench",
                                                                           "evaluate"))
    spec = importlib.util.spec_from_loader("evaluate", loader)
    ev = importlib.util.module_from_spec(spec)
    loader.exec_module(ev)
    import evaluate_owned  # noqa: E402
    return ev, evaluate_owned


class OwnedConsolidation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ev, cls.owned_mod = load_evaluate()
        cls.tmp = tempfile.mkdtemp(prefix="frugal-evaluate-owned-it-")
        raw = os.path.join(cls.tmp, "itp", "raw")
        os.makedirs(raw)
        for name, seed in TRACES.items():
            write_trace(os.path.join(raw, name.replace("itp-", "") + ".csv"), seed)
        out, md = os.path.join(cls.tmp, "e.json"), os.path.join(cls.tmp, "R.md")
        env = dict(os.environ, FRUGAL_BIN=FRUGAL, FRUGAL_DATA=cls.tmp, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, os.path.join(SOURCE, "bench", "evaluate"),
                            "--setting", "owned", "--quick", "--policies", "fifo", "--json",
                            out, "--md", md], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise AssertionError(f"bench/evaluate: exit {p.returncode}: {p.stderr[-2000:]}")
        with open(out) as f:
            cls.owned = json.load(f)["owned"]
        with open(md) as f:
            cls.page = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def simulate(self, trace, size, policy, predict=True):
        """The summary of `frugal simulate` run here on (trace, size) as the setting runs it
        (with --predict-runtimes unless `predict` is false)."""
        setting = self.owned["settings"][trace][str(size)]
        yaml = os.path.join(self.tmp, f"{trace}-{size}.yaml")
        with open(yaml, "w") as f:
            f.write(self.owned_mod.owned_cluster(self.ev, setting["nodes"]))
        out = os.path.join(self.tmp, "direct.json")
        path = os.path.join(self.tmp, "itp", "raw", trace.replace("itp-", "") + ".csv")
        subprocess.run([FRUGAL, "simulate", "--trace", path, "--cluster", yaml, "--policy", policy,
                        "--format", "json", "--out", out, "--static-capacity",
                        "--horizon-hours", f"{setting['horizon_h']:.6f}"]
                       + (["--predict-runtimes"] if predict else []) + self.ev.job_rule(1),
                       check=True, capture_output=True)
        with open(out) as f:
            return json.load(f)

    def pairs(self):
        """(trace, size, frugal's record, the record without consolidation)."""
        frugal = {(r["trace"], r["size"]): r for r in self.owned["results"]
                  if r["policy"] == "frugal"}
        off = {(r["trace"], r["size"]): r for r in self.owned["consolidation"]}
        self.assertEqual(set(frugal), set(off))
        self.assertEqual(set(off), {(t, 1.0) for t in TRACES})
        return [(t, s, frugal[(t, s)], off[(t, s)]) for t, s in sorted(off)]

    def test_the_ablation_is_frugal_without_consolidation_and_not_a_result(self):
        self.assertEqual({r["policy"] for r in self.owned["results"]}, {"fifo", "frugal"})
        for _, _, on, off in self.pairs():
            self.assertEqual(off["policy"], "frugal-noconsolidate")
            self.assertIn("consolidate=consolidate", on["profile"])
            self.assertNotIn("consolidate", off["profile"])
            self.assertEqual(off["migrations"], 0)  # nothing else migrates on a static cluster

    def test_records_hold_the_simulator_summaries(self):
        migrations = 0
        for trace, size, on, off in self.pairs():
            for rec, policy in ((on, "frugal"), (off, "frugal:consolidate=0")):
                with self.subTest(trace=trace, policy=policy):
                    d = self.simulate(trace, size, policy)
                    self.assertEqual(rec["migrations"], d["migrations"])
                    self.assertEqual(rec["preemptions"], d["preemptions"])
                    self.assertEqual(rec["rework_gpu_hours"], d["rework_gpu_hours"])
                    self.assertEqual(rec["rework_usd"], d["waste"]["rework_usd"])
                    self.assertEqual(rec["stranded_usd"], d["waste"]["stranded_usd"])
                    self.assertEqual(rec["jct_s"], d["jct_s"])
                    self.assertEqual(rec["wait_multi_gpu_s"], d["wait_multi_gpu_s"])
                    self.assertEqual(rec["allocated_share"],
                                     d["work"]["horizon"]["allocated_share"])
                    self.assertEqual(rec["busy_share"], d["work"]["horizon"]["busy_share"])
                    # Busy is part of allocated; preemptions' graces and lost work make the
                    # difference.
                    self.assertLessEqual(rec["busy_share"], rec["allocated_share"] + 1e-12)
                    setting = self.owned["settings"][trace][str(size)]
                    self.assertAlmostEqual(rec["work_per_usd"],
                                           d["work"]["horizon"]["ref_gpu_hours"]
                                           / setting["rental_usd"], places=12)
            migrations += on["migrations"]
        # The traces are made so that consolidation acts: a table of zeros would prove little.
        self.assertGreater(migrations, 0)

    def test_the_oracle_run_is_frugal_without_predictions(self):
        oracle = {(r["trace"], r["size"]): r for r in self.owned["oracle"]}
        self.assertEqual(set(oracle), {(t, 1.0) for t in TRACES})
        for (trace, size), rec in sorted(oracle.items()):
            self.assertEqual(rec["policy"], "frugal-oracle")
            d = self.simulate(trace, size, "frugal", predict=False)
            self.assertEqual(rec["jct_s"], d["jct_s"])
            self.assertEqual(rec["deadline_misses"], d["deadline_misses"])
        self.assertIn("### Targets at 1.0×, the issue's comparison", self.page)
        self.assertIn("| 1.0× | **frugal (oracle)** |", self.page)

    def test_baselines_outside_uses_runtimes_read_no_runtime(self):
        # The matched comparison gives frugal the oracle only against USES_RUNTIMES; every other
        # baseline must decide the same with predicted runtimes as with true ones.
        trace = sorted(TRACES)[0]
        for policy in sorted(set(self.ev.BASELINES) - self.owned_mod.USES_RUNTIMES):
            with self.subTest(policy=policy):
                a = self.simulate(trace, 1.0, policy, predict=True)
                b = self.simulate(trace, 1.0, policy, predict=False)
                self.assertEqual(a["jct_s"], b["jct_s"])
                self.assertEqual(a["wait_s"], b["wait_s"])
        # ... and the ones in it do read them (else the set is wrong the other way).
        for policy in sorted(self.owned_mod.USES_RUNTIMES):
            with self.subTest(policy=policy):
                a = self.simulate(trace, 1.0, policy, predict=True)
                b = self.simulate(trace, 1.0, policy, predict=False)
                self.assertNotEqual(a["jct_s"], b["jct_s"])

    def test_page_rows_are_the_summaries(self):
        self.assertIn("### Consolidation: `frugal` with / without it", self.page)
        hours = lambda x: f"{x / 3600:.2f}"  # noqa: E731
        usd = lambda x: f"{x:,.0f}"  # noqa: E731
        moved = 0
        for trace, size, _, _ in self.pairs():
            rental = self.owned["settings"][trace][str(size)]["rental_usd"]
            on = self.simulate(trace, size, "frugal")
            off = self.simulate(trace, size, "frugal:consolidate=0")
            moved += on["migrations"] > 0
            columns = [(lambda d: d["migrations"], str),
                       (lambda d: d["rework_gpu_hours"], lambda x: f"{x:.1f}"),
                       (lambda d: d["waste"]["rework_usd"], usd),
                       (lambda d: d["jct_s"]["mean"], hours),
                       (lambda d: d["wait_multi_gpu_s"]["mean"], hours),
                       (lambda d: d["work"]["horizon"]["allocated_share"], lambda x: f"{x:.3f}"),
                       (lambda d: d["work"]["horizon"]["ref_gpu_hours"] / rental,
                        lambda x: f"{x:.4f}"),
                       (lambda d: d["waste"]["stranded_usd"], usd)]
            row = f"| {trace} | {size}× | " + " | ".join(
                f"{fmt(get(on))} / {fmt(get(off))}" for get, fmt in columns) + " |"
            self.assertIn(row, self.page.splitlines())
        self.assertIn(f"Consolidation migrated in {moved} of {len(TRACES)} runs", self.page)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", required=True, help="the frugal binary")
    ap.add_argument("--source", required=True, help="the repository root")
    args, rest = ap.parse_known_args()
    FRUGAL, SOURCE = os.path.abspath(args.frugal), args.source
    unittest.main(argv=[sys.argv[0]] + rest)
