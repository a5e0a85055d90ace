#!/usr/bin/env python3
"""A seeded synthetic native-CSV trace of fractional jobs and small gangs, for the
consolidation experiment (docs/EXPERIMENTS.md). Usage: gen_frag_mix.py SEED OUT.csv

3000 jobs, Poisson arrivals (mean gap 60 s), log-normal durations (median 1800 s, sigma 1,
at least 60 s). 60 % fractional (0.1-0.8 of a card), 25 % 1-2 whole GPUs, 15 % 3-4 GPUs.
"""
import math
import random
import sys

seed, out = int(sys.argv[1]), sys.argv[2]
random.seed(seed)
rows = ["id,submit,duration,gpus,gpu_milli"]
t = 0.0
for i in range(3000):
    t += random.expovariate(1 / 60.0)
    d = max(60, round(random.lognormvariate(math.log(1800), 1.0)))
    k = random.random()
    if k < 0.6:
        g, m = 1, random.choice([100, 200, 250, 300, 400, 500, 600, 700, 800])
    elif k < 0.85:
        g, m = random.choice([1, 1, 2]), 1000
    else:
        g, m = random.choice([3, 4, 4]), 1000
    rows.append(f"s{i},{round(t)},{d},{g},{m}")
with open(out, "w") as f:
    f.write("\n".join(rows) + "\n")
