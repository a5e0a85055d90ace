#!/usr/bin/env python3
"""Random `kill -9` of `frugal serve` while jobs are submitted and run (issue 20).

A real daemon (local backend, 4 GPUs) gets JOBS submissions from 4 client threads, each with
an Idempotency-Key and retried after connection errors, while the daemon is killed with
SIGKILL KILLS times at random instants and restarted. Every job's command appends
"start <id>" and "end <id>" lines to one shared file. At the end, with every job final:

  lost        accepted submissions (a 200/201 was answered) that are not jobs
  duplicated  keys that made more than one job
  rerun       jobs whose command ended and was then started again
  unknown     jobs left `unknown` (a run ended unseen: expected only when a kill hit the
              tiny window between a command's end and its wrapper writing the status)

Prints one JSON line; exits 1 unless lost, duplicated and rerun are all 0.

  python3 bench/kill9.py --frugal build/frugal [--jobs 2000] [--kills 20] [--seed 1]

CI runs the small version (tests/service/kill9_it.py: 200 jobs, 5 kills).
"""
import argparse
import http.client
import json
import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "service"))
from harness import ADMIN, ALPHA, Daemon  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--frugal", required=True)
p.add_argument("--jobs", type=int, default=2000)
p.add_argument("--kills", type=int, default=20)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--keep", action="store_true")
a = p.parse_args()
rng = random.Random(a.seed)

d = Daemon(a.frugal, gpus=4, grace_s=1, term_grace_s=1)
runs = os.path.join(d.dir, "runs.txt")
accepted = {}  # key -> job id
lock = threading.Lock()
up = threading.Event()


def post(body, key):
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
    try:
        c.request("POST", "/v1/jobs", body=json.dumps(body),
                  headers={"Authorization": "Bearer " + ALPHA, "Idempotency-Key": key,
                           "Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        c.close()


def client(indices):
    for i in indices:
        key = f"job-{i}"
        sleep_s = rng.choice([0, 0.05, 0.2, 0.5, 1.5])
        body = {"name": key, "gpus": rng.choice([0, 1, 1, 2]),
                "command": f"echo start $FRUGAL_JOB_ID >> {runs}; sleep {sleep_s}; "
                           f"echo end $FRUGAL_JOB_ID >> {runs}"}
        for _ in range(600):  # retried until answered (the daemon may be down for a while)
            up.wait(timeout=30)
            try:
                st, r = post(body, key)
            except (OSError, http.client.HTTPException, ValueError):
                time.sleep(0.1)
                continue
            if st in (200, 201):
                with lock:
                    accepted[key] = r["id"]
                break
            time.sleep(0.1)  # 503 while shutting down, 507 ...
        else:
            print(f"gave up on {key}", file=sys.stderr)


def list_all():
    jobs, cursor = [], None
    while True:
        st, page = d.request("GET", "/v1/jobs?limit=1000" + (f"&cursor={cursor}" if cursor else ""),
                             token=ADMIN)
        if st != 200:
            raise RuntimeError(f"list: {st} {page}")
        jobs += page["jobs"]
        cursor = page["next_cursor"]
        if cursor is None:
            return jobs


t0 = time.time()
try:
    d.start()
    up.set()
    n = a.jobs
    threads = [threading.Thread(target=client, args=(range(k, n, 4),)) for k in range(4)]
    for t in threads:
        t.start()
    for _ in range(a.kills):
        time.sleep(rng.uniform(0.5, 3.0))
        up.clear()
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait(timeout=10)
        d.proc = None
        time.sleep(rng.uniform(0, 1.0))
        d.start()
        up.set()
    for t in threads:
        t.join()
    deadline = time.time() + 600
    while True:
        jobs = list_all()
        if all(j["state"] in ("completed", "failed", "cancelled", "unknown") for j in jobs):
            break
        if time.time() > deadline:
            raise RuntimeError("jobs still not final after 600 s")
        time.sleep(1)
    ids = {j["id"] for j in jobs}
    by_key = {}
    for j in jobs:
        by_key.setdefault(j["name"], []).append(j["id"])
    lost = sorted(k for k, jid in accepted.items() if jid not in ids)
    duplicated = sorted(k for k, v in by_key.items() if len(v) > 1)
    ended, rerun = set(), set()
    with open(runs) as f:
        for line in f:
            what, _, jid = line.strip().partition(" ")
            if what == "end":
                ended.add(jid)
            elif what == "start" and jid in ended:
                rerun.add(jid)
    states = {}
    for j in jobs:
        states[j["state"]] = states.get(j["state"], 0) + 1
    out = {"jobs": a.jobs, "kills": a.kills, "accepted": len(accepted), "final_jobs": len(jobs),
           "lost": len(lost), "duplicated": len(duplicated), "rerun": len(rerun),
           "unknown": states.get("unknown", 0), "states": states,
           "wall_s": round(time.time() - t0, 1)}
    print(json.dumps(out))
    if lost or duplicated or rerun:
        print(f"lost {lost[:10]} duplicated {duplicated[:10]} rerun {sorted(rerun)[:10]}",
              file=sys.stderr)
        sys.exit(1)
    d.stop()
finally:
    d.cleanup(a.keep)
