#!/usr/bin/env python3
"""bench/owned_seeds.py: the per-seed summary of the owned targets (met counts, JCT ratio
geomean, misses and work per $ of the compared runs) on a hand-made owned document, no
simulation. Python 3 stdlib only."""
import argparse
import importlib.util
import math
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ left in bench/
SOURCE = None


def owned_seeds_module():
    sys.path.insert(0, os.path.join(SOURCE, "bench"))
    spec = importlib.util.spec_from_file_location(
        "owned_seeds", os.path.join(SOURCE, "bench", "owned_seeds.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rec(trace, policy, jct_h, core_p99_h, misses, work):
    return {"trace": trace, "policy": policy, "size": 1.0, "jct_s": {"mean": jct_h * 3600},
            "jct_bound_s": 3600.0, "by_tier": {"core": {"wait_s": {"p99": core_p99_h * 3600}}},
            "deadline_misses": misses, "work_per_usd": work}


class SummarizeTest(unittest.TestCase):
    def setUp(self):
        self.m = owned_seeds_module()

    def owned(self):
        # Trace a: frugal predicting beats las (0.6x JCT) and with the oracle beats sjf
        # (5/12); one miss more than las; with the oracle it closes a quarter of sjf's gap
        # to the work bound. Trace b: frugal equals both baselines. Trace c: no runs.
        return {
            "settings": {t: {"1.0": {"work_per_usd_bound": b}} for t, b in
                         (("a", 1.0), ("b", 0.5), ("c", 1.0))},
            "results": [rec("a", "frugal", 6, 1, 5, 0.8), rec("a", "las", 10, 10, 4, 0.5),
                        rec("a", "sjf", 12, 10, 3, 0.6),
                        rec("b", "frugal", 10, 0, 2, 0.5), rec("b", "las", 10, 0, 2, 0.5),
                        rec("b", "sjf", 10, 0, 2, 0.5)],
            "oracle": [rec("a", "frugal", 5, 0, 3, 0.7), rec("b", "frugal", 10, 0, 2, 0.5)],
        }

    def test_counts_and_sums_of_the_compared_runs(self):
        s = self.m.summarize(self.owned())
        self.assertEqual(s["traces"], 2)
        # JCT: a yes (0.6), b no (1.0); core p99: both; misses: a no (5 vs las's 4), b yes;
        # work: a no (sjf's gap closed 25 %), b yes (at the bound, as high as both).
        self.assertEqual(s["met"], [1, 2, 1, 1])
        self.assertAlmostEqual(s["jct_ratio_geomean"], math.sqrt(0.6 * 1.0), places=3)
        self.assertEqual(s["misses"], 5 + 2)
        self.assertAlmostEqual(s["work_per_usd"], 0.7 + 0.5, places=4)

    def test_without_oracle_runs_frugal_predicts_against_all(self):
        owned = self.owned()
        del owned["oracle"]
        s = self.m.summarize(owned)
        # a against sjf: 6/12 = 0.5 but 6/10 against las binds; misses 5 vs sjf's 3; work
        # 0.8 closes 50 % of sjf's gap (0.6 -> 1.0).
        self.assertEqual(s["met"], [1, 2, 1, 2])
        self.assertEqual(s["misses"], 5 + 2)
        self.assertAlmostEqual(s["work_per_usd"], 0.8 + 0.5, places=4)

    def test_no_runs_at_all(self):
        s = self.m.summarize({"settings": {"a": {"1.0": {"work_per_usd_bound": 1.0}}},
                              "results": []})
        self.assertEqual(s["traces"], 0)
        self.assertTrue(math.isnan(s["jct_ratio_geomean"]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    args, rest = ap.parse_known_args()
    SOURCE = args.source
    unittest.main(argv=[sys.argv[0]] + rest)
