"""`frugal serve`: GET /v1/usage (the usage series) and GET /v1/nodes?summary=1 over HTTP —
their query parameters are validated (400 naming the field), a team sees its own burn only,
and the series' buckets are in SQLite (table usage_samples) and answered again after a
restart."""
import sqlite3
import time

from harness import ADMIN, ALPHA, BETA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2, extra="usage_interval_s: 0.5\ntelemetry_period_s: 0.1")
try:
    d.start()
    job = d.submit({"name": "burner", "command": "sleep 30", "gpus": 1})
    d.wait_state(job, ["running"])
    time.sleep(2)
    s, r = d.request("GET", "/v1/usage?window=24h", token=ADMIN)
    check(s == 200 and r["interval_s"] == 0.5 and r["scope"] == "cluster", f"usage: {s} {r}")
    closed = [p for p in r["points"] if not p.get("partial")]
    check(len(closed) >= 2, f"usage: fewer than 2 buckets after 2 s: {r}")
    last = closed[-1]
    check(last["provisioned_gpus"] == 2 and last["allocated_gpus"] == 1, f"usage point: {last}")
    check(last["burn_usd_h"] > 0 and last["teams"].get("alpha", 0) > 0, f"usage burn: {last}")
    s, r = d.request("GET", "/v1/usage", token=ADMIN)
    check(s == 200 and r["window_s"] == 86400, f"usage default window: {s} {r}")
    for bad in ["2d", "", "24", "-1h", "24h%20"]:
        s, r = d.request("GET", f"/v1/usage?window={bad}", token=ADMIN)
        check(s == 400 and r.get("field") == "window", f"usage?window={bad}: {s} {r}")
    s, r = d.request("GET", "/v1/usage")
    check(s == 401, f"usage without a token: {s}")
    # A team: the capacity series, its own burn, never the cluster's or another team's.
    s, r = d.request("GET", "/v1/usage?window=1h", token=BETA)
    check(s == 200 and r["scope"] == "team beta", f"beta's usage: {s} {r}")
    for p in r["points"]:
        check("burn_usd_h" not in p and list(p["teams"]) == ["beta"] and p["teams"]["beta"] == 0,
              f"beta's usage point shows others' burn: {p}")
    s, r = d.request("GET", "/v1/usage?window=1h", token=ALPHA)
    check(all(list(p["teams"]) == ["alpha"] for p in r["points"]), f"alpha's usage: {r}")
    check(any(p["teams"]["alpha"] > 0 for p in r["points"]), f"alpha's burn: {r}")

    # The node summary.
    s, r = d.request("GET", "/v1/nodes?summary=1", token=BETA)
    check(s == 200 and r["summary"] is True and r["nodes"] == 1 and r["gpus"] == 2,
          f"nodes?summary=1: {s} {r}")
    g = r["groups"][0]
    check(g["state"] == "up" and g["gpus"] == 2 and g["allocated_gpus"] == 1 and g["idle_gpus"] == 1,
          f"summary group: {g}")
    s, r = d.request("GET", "/v1/nodes?summary=0", token=ALPHA)
    check(s == 200 and "groups" not in r and len(r["nodes"]) == 1, f"nodes?summary=0: {s} {r}")
    s, r = d.request("GET", "/v1/nodes?summary=yes", token=ALPHA)
    check(s == 400 and r.get("field") == "summary", f"nodes?summary=yes: {s} {r}")

    # Stored, and answered again after a restart.
    s, before = d.request("GET", "/v1/usage", token=ADMIN)
    d.request("POST", f"/v1/jobs/{job}/cancel", token=ALPHA)
    d.stop()
    con = sqlite3.connect(d.db)
    stored = con.execute("SELECT COUNT(*) FROM usage_samples").fetchone()[0]
    con.close()
    check(stored >= 2, f"usage_samples holds {stored} rows")
    d.start()
    s, after = d.request("GET", "/v1/usage", token=ADMIN)
    old = {p["at"] for p in before["points"] if not p.get("partial")}
    check(old <= {p["at"] for p in after["points"]}, f"buckets lost by the restart: {before} {after}")
    print("usage_it: ok")
finally:
    d.stop()
    d.cleanup(a.keep)
