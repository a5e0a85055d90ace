#!/usr/bin/env python3
"""deploy/grafana/frugal-dashboard.json: it parses, its panels and variables query the
Prometheus data source variable, and every PromQL expression in it names only metrics that
docs/METRICS.md documents (which in turn are all rendered somewhere in src/service). Python 3
standard library only."""
import argparse
import glob
import json
import os
import re
import sys
import unittest

sys.dont_write_bytecode = True
SOURCE = None

# PromQL words that look like metric names but are not.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "offset", "bool", "inf", "nan"}


def metric_names(expr):
    """The metric names a PromQL expression selects (functions, labels, keywords left out)."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals
    e = re.sub(r"\{[^}]*\}", " ", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)  # range and subquery durations
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        if m.start() > 0 and (e[m.start() - 1].isdigit() or e[m.start() - 1] in ".$"):
            continue  # 1e-9's "e", a Grafana $variable
        if e[m.end():].lstrip().startswith("(") or m.group(0).lower() in KEYWORDS:
            continue
        names.add(m.group(0))
    return names


def documented():
    """Every series name docs/METRICS.md allows: its metrics, plus _bucket/_sum/_count of its
    histograms and _sum/_count of its summaries."""
    with open(os.path.join(SOURCE, "docs", "METRICS.md")) as f:
        text = f.read()
    names = {}
    for row in re.finditer(r"^\| `(frugal_[a-z0-9_]+)[^`]*` \| (\w+) \|", text, re.M):
        names[row.group(1)] = row.group(2)
    series = set(names)
    for n, kind in names.items():
        if kind == "histogram":
            series |= {n + "_bucket", n + "_sum", n + "_count"}
        elif kind == "summary":
            series |= {n + "_sum", n + "_count"}
    return names, series


class DashboardTest(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(SOURCE, "deploy", "grafana", "frugal-dashboard.json")) as f:
            self.dash = json.load(f)
        self.names, self.series = documented()

    def panels(self):
        for p in self.dash["panels"]:
            yield p
            yield from p.get("panels", [])

    def exprs(self):
        for p in self.panels():
            for t in p.get("targets", []):
                yield p["title"], t["expr"]
        for v in self.dash["templating"]["list"]:
            if v["type"] == "query":
                m = re.fullmatch(r"label_values\((\w+),\s*\w+\)", v["definition"])
                self.assertIsNotNone(m, v["definition"])
                yield "variable " + v["name"], m.group(1)

    def test_the_metric_tables_are_read(self):
        for n in ("frugal_gpu_utilization_ratio", "frugal_job_gpu_utilization_ratio",
                  "frugal_decision_latency_seconds", "frugal_cost_usd"):
            self.assertIn(n, self.names)
        self.assertEqual(self.names["frugal_decision_latency_seconds_window"], "summary")

    def test_every_expression_names_documented_metrics_only(self):
        seen = set()
        for where, expr in self.exprs():
            names = metric_names(expr)
            self.assertTrue(names, f"{where}: no metric in {expr!r}")
            self.assertLessEqual(names, self.series, f"{where}: {expr!r}")
            seen |= names
        for n in ("frugal_gpu_utilization_ratio", "frugal_gpu_memory_used_bytes",
                  "frugal_gpu_power_watts", "frugal_gpu_temperature_celsius",
                  "frugal_job_gpu_utilization_ratio", "frugal_queue_length", "frugal_cost_usd"):
            self.assertIn(n, seen)

    def test_the_parser_of_expressions(self):
        self.assertEqual(
            metric_names('histogram_quantile(0.99, sum by (le) (rate(a_bucket{x="b c"}[5m])))'),
            {"a_bucket"})
        self.assertEqual(metric_names("sum by (team) (a * b) / sum(c and d) > 1e-9"),
                         {"a", "b", "c", "d"})
        self.assertEqual(metric_names("rate(x[$__rate_interval]) * $k"), {"x"})

    def test_panels_use_the_datasource_variable(self):
        variables = {v["name"]: v for v in self.dash["templating"]["list"]}
        self.assertEqual(variables["datasource"]["type"], "datasource")
        self.assertEqual(variables["datasource"]["query"], "prometheus")
        ids = []
        for p in self.panels():
            ids.append(p["id"])
            if p["type"] != "row":
                self.assertEqual(p["datasource"], {"type": "prometheus", "uid": "${datasource}"},
                                 p["title"])
                self.assertTrue(p["targets"], p["title"])
        self.assertEqual(len(ids), len(set(ids)), "panel ids repeat")
        self.assertGreaterEqual(self.dash["schemaVersion"], 36)  # Grafana 9

    def test_documented_metrics_are_rendered_by_the_service(self):
        src = ""
        for path in glob.glob(os.path.join(SOURCE, "src", "service", "*.cpp")):
            with open(path) as f:
                src += f.read()
        for n, kind in self.names.items():
            base = n[:-len("_window")] if kind == "summary" else n
            self.assertTrue(re.search(re.escape(base) + r"(?![a-z0-9_])", src),
                            f"{n} is documented but src/service never names it")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the repository root")
    args, rest = ap.parse_known_args()
    SOURCE = args.source
    unittest.main(argv=[sys.argv[0]] + rest)
