#!/usr/bin/env python3
"""bench/evaluate --html: thinning a run's timeline (adjacent buckets merged into their
time-weighted mean) keeps every metric's integral and the covered seconds, halves the points
per pass and stops at the cap. Hand-made timelines, no simulation. Python 3 stdlib only."""
import argparse
import importlib.machinery
import importlib.util
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ left in bench/
SOURCE = None


def evaluate_module():
    path = os.path.join(SOURCE, "bench", "evaluate")
    loader = importlib.machinery.SourceFileLoader("evaluate", path)
    spec = importlib.util.spec_from_loader("evaluate", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def integral(tl, key):
    return sum(v * c for v, c in zip(tl[key], tl["covered_s"]))


class ThinTimelineTest(unittest.TestCase):
    def setUp(self):
        self.ev = evaluate_module()

    def timeline(self, n):
        return {"t0": 0.0, "bucket_s": 60.0, "t": [60.0 * i for i in range(n)],
                "covered_s": [60.0 if i % 7 else 30.0 for i in range(n)],
                "allocated_gpus": [float(i % 5) for i in range(n)],
                "queue_jobs": [float((i * 3) % 11) for i in range(n)]}

    def test_keeps_integrals_and_covered_seconds(self):
        tl = self.timeline(1001)
        before = {k: integral(tl, k) for k in ("allocated_gpus", "queue_jobs")}
        covered = sum(tl["covered_s"])
        self.ev.thin_timeline(tl, 128)
        self.assertEqual(len(tl["t"]), 126)  # 1001 -> 501 -> 251 -> 126
        self.assertEqual(tl["bucket_s"], 480.0)
        self.assertEqual(tl["t"][:3], [0.0, 480.0, 960.0])
        for k, v in before.items():
            self.assertAlmostEqual(integral(tl, k), v, places=6)
            self.assertEqual(len(tl[k]), 126)
        self.assertAlmostEqual(sum(tl["covered_s"]), covered, places=6)
        # The last bucket of an odd count stays as it was.
        self.assertEqual(tl["t"][-1], 60.0 * 1000)

    def test_a_short_timeline_is_left_alone(self):
        tl = self.timeline(100)
        want = dict(tl)
        self.ev.thin_timeline(tl, 128)
        self.assertEqual(tl, want)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the repository root")
    args, rest = ap.parse_known_args()
    SOURCE = args.source
    unittest.main(argv=[sys.argv[0]] + rest)
