#!/usr/bin/env python3
"""bench/evaluate_report.py: the RESULTS page's target tables, from a hand-made results
document (no simulation): the per-trace targets, the replays with predicted runtimes and under
other seeds of the job rule. Python 3 standard library only."""
import argparse
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ left in bench/
SOURCE = None


def record(trace, policy, cost, jct, misses=0, share=0.95, **extra):
    stats = {"mean": jct, "p50": jct, "p95": jct, "p99": jct}
    r = {"trace": trace, "policy": policy, "jobs": {"completed": 10, "submitted": 10},
         "jct_s": stats, "wait_s": dict(stats, mean=0.0), "jct_deferrable_s": stats,
         "jct_other_s": stats, "makespan_s": 1000.0, "gpu_utilization": 0.5,
         "cost": {"total_usd": cost, "unattributed_usd": 0.0, "booting_usd": 0.0,
                  "energy_usd": 0.0, "rental_usd": cost, "co2_kg": 0.0},
         "waste": {}, "unattributed_by_pool": {}, "deadline_misses": misses,
         "provisioned_allocated_share": share, "co2_kg": 0.0,
         "deferrable": {"jobs": 0, "energy_usd": 0.0, "cost_usd": 0.0}, "offline_bound": None,
         "preemptions": 0, "migrations": 0, "rework_gpu_hours": 0.0, "nodes_provisioned": 0,
         "profile": policy, "sim_wall_s": 0.0, "process_wall_s": 0.0}
    r.update(extra)
    return r


def trace_runs(trace, frugal_cost, frugal_jct, **extra):
    """fifo (cost 100, JCT 1000 s), las (cost 120, JCT 900 s) and frugal."""
    return [record(trace, "fifo", 100.0, 1000.0, **extra),
            record(trace, "las", 120.0, 900.0, **extra),
            record(trace, "frugal", frugal_cost, frugal_jct, share=0.88, **extra)]


class ReportTest(unittest.TestCase):
    def setUp(self):
        sys.path.insert(0, os.path.join(SOURCE, "bench"))
        import evaluate_report  # noqa: E402
        self.report = evaluate_report

    def page(self):
        t = "itp-cluster01"
        doc = {"results": trace_runs(t, 80.0, 890.0) + [record(t, "fifo-static", 400.0, 1000.0)],
               "ablations": [], "predicted": trace_runs(t, 90.0, 950.0),
               "other_seeds": [dict(r, rule_seed=2) for r in trace_runs(t, 84.0, 910.0)]
               + [dict(r, rule_seed=3) for r in trace_runs(t, 86.0, 880.0)],
               "traces": {t: {"peak_gpus": 8, "mean_gpus": 1, "sizing": "trace"}},
               "elapsed_s": 1.0, "jobs": 2, "job_rule": ["--assign-classes", "1"]}
        return self.report.write_results(doc)

    def test_targets_against_the_cheapest_and_fastest_baseline(self):
        page = self.page()
        self.assertIn("| itp-cluster01 | cost vs fifo-static (≤ 0.70) | 0.200 | yes |", page)
        self.assertIn("| itp-cluster01 | cost vs cheapest baseline `fifo` (≤ 0.85) | 0.800 | yes |",
                      page)
        self.assertIn("| itp-cluster01 | mean JCT vs best baseline `las` (≤ 1.00) | 0.989", page)
        self.assertIn("| itp-cluster01 | provisioned GPU-time allocated (≥ 0.90) | 0.880 | **no** |",
                      page)

    def test_replays_with_predictions_and_other_seeds(self):
        page = self.page()
        self.assertIn("### The same targets with predicted runtimes", page)
        self.assertIn("| itp-cluster01 | 0.900 `fifo` **no** | 1.056 (0.26 h vs 0.25 h) `las` **no** "
                      "| 0 vs 0 yes | 0.880 **no** |", page)
        self.assertIn("### The same targets under other seeds of the job rule", page)
        self.assertIn("set to 2 and 3;", page)
        self.assertIn("| itp-cluster01 | 2 | 0.840 `fifo` yes | 1.011", page)
        self.assertIn("| itp-cluster01 | 3 | 0.860 `fifo` **no** | 0.978", page)
        # 4 results + 3 predicted + 6 other-seed runs.
        self.assertIn("13 simulations", page)

    def test_cost_headroom_row(self):
        t = "itp-cluster01"
        runs = trace_runs(t, 80.0, 890.0)
        fr = runs[-1]
        # frugal: $80, of it $8 unattributed ($4 booting, $1 stranded, $3 other idle).
        fr["cost"].update(unattributed_usd=8.0, booting_usd=4.0)
        fr["waste"] = {"stranded_usd": 1.0, "idle_unallocated_usd": 7.0}
        fr["ready_allocated_share"] = 0.93
        # Its deferrable jobs cost $20; the offline bound finds $12 for them.
        fr["deferrable"] = {"jobs": 3, "energy_usd": 1.0, "cost_usd": 20.0}
        fr["offline_bound"] = {"jobs": 3, "deferrable_cost_usd": 12.0}
        page = self.report.write_results({"results": runs, "ablations": [], "traces": {},
                                          "elapsed_s": 1.0, "jobs": 2, "job_rule": []})
        # Against fifo ($100, nothing unattributed): 0.800, 0.720 without unattributed,
        # 0.640 with the deferrable work at its bound ($72 − $20 + $12).
        self.assertIn("| itp-cluster01 | `fifo` | 0.800 | 0.720 | 0.640 | 0.720 | 10.0 % | "
                      "5.0 % | 1.2 % | 3.8 % | 0.0 % | 0.880 | 0.930 | 0.0 % |", page)
        # Without a bound (not solved on the run) the floor is left blank.
        del fr["offline_bound"]
        page = self.report.write_results({"results": runs, "ablations": [], "traces": {},
                                          "elapsed_s": 1.0, "jobs": 2, "job_rule": []})
        self.assertIn("| itp-cluster01 | `fifo` | 0.800 | 0.720 | – | 0.720 |", page)

    def test_no_seed_section_without_seed_runs(self):
        page = self.report.write_results({
            "results": trace_runs("itp-cluster01", 80.0, 890.0), "ablations": [],
            "traces": {}, "elapsed_s": 1.0, "jobs": 2, "job_rule": []})
        self.assertNotIn("other seeds of the job rule", page)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the repository root")
    args, rest = ap.parse_known_args()
    SOURCE = args.source
    unittest.main(argv=[sys.argv[0]] + rest)
