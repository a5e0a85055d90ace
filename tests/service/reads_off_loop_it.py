"""Reads that do not wait for the decision loop (issue: the service under hostile clients,
item 6): /healthz answers while the loop is held for 10 s (the fault hook's `stall`) and
shows how long ago its last turn was; /metrics and /v1/ledger answer from one snapshot at
most read_snapshot_s old, so many readers cost the loop one build; lists page by cursor
with a bounded page size."""
import os
import re
import time

from harness import ADMIN, ALPHA, BETA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=1, read_snapshot_s=5)


def snapshots_built():
    st, text = d.request("GET", "/metrics")
    check(st == 200, f"/metrics: {st}")
    m = re.search(r"^frugal_read_snapshots_total (\S+)$", text, re.M)
    check(m is not None, "no frugal_read_snapshots_total in /metrics")
    return float(m.group(1))


try:
    # The loop stalls for 10 s when it launches job 30 (decided, before the driver's start).
    os.environ["FRUGAL_FAULT_AT"] = "decided:30=stall"
    try:
        d.start()
    finally:
        del os.environ["FRUGAL_FAULT_AT"]

    # Pages: 29 CPU-only jobs (ids 1..29; alpha and beta alternating), then every page of
    # limit 4 by cursor: all of a team's jobs exactly once, newest first.
    for i in range(29):
        d.submit({"command": "true", "gpus": 0}, token=ALPHA if i % 2 == 0 else BETA)
    seen, cursor = [], None
    for _ in range(40):
        path = "/v1/jobs?limit=4" + (f"&cursor={cursor}" if cursor else "")
        st, page = d.request("GET", path, token=ALPHA)
        check(st == 200 and len(page["jobs"]) <= 4, f"page {path}: {st} {page}")
        seen += [j["id"] for j in page["jobs"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    check(seen == list(range(29, 0, -2)), f"alpha's pages: {seen}")
    st, r = d.request("GET", "/v1/jobs?limit=5000", token=ADMIN)
    check(st == 400 and r["field"] == "limit", f"limit 5000: {st} {r}")
    st, r = d.request("GET", "/v1/jobs?cursor=x", token=ADMIN)
    check(st == 400 and r["field"] == "cursor", f"bad cursor: {st} {r}")

    # One snapshot serves many readers within read_snapshot_s.
    first = snapshots_built()
    for _ in range(20):
        st, _ = d.request("GET", "/v1/ledger", token=ALPHA)
        check(st == 200, f"ledger: {st}")
    again = snapshots_built()
    check(again - first <= 1, f"21 reads built {again - first} snapshots")

    # Job 30 holds the loop for 10 s; /healthz still answers at once, and says so.
    jid = d.submit({"command": "true", "gpus": 1})
    check(jid == 30, f"job id {jid}")
    age = 0.0
    for _ in range(40):
        st, h = d.request("GET", "/healthz", timeout=5)
        check(st == 200, f"/healthz while the loop is held: {st} {h}")
        age = h["loop_age_s"]
        if age >= 2:
            break
        time.sleep(0.2)
    check(age >= 2, f"loop_age_s stayed {age} while the loop was held")
    d.wait_state(jid, ["completed"], timeout_s=30)
    st, h = d.request("GET", "/healthz")
    check(st == 200 and h["loop_age_s"] < 5, f"after the stall: {h}")
    d.stop()
    print("ok: /healthz off the loop, one snapshot for many readers, cursor pages")
finally:
    d.cleanup(a.keep)
