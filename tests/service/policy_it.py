"""Guarded policy changes and shadow policies through the real daemon (local backend): a job
running across POST /v1/policy keeps its run; bad requests are refused naming the field; the
change is in GET /v1/policy, the alert stream and the database's audit table, and wins over
the config after a restart (the start-up log says so); GET /v1/shadow and /metrics show the
shadows, which took every event."""
import sqlite3
import subprocess
import time

from harness import ADMIN, ALPHA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=1, policy="fifo", extra="shadow_policies: [sjf, backfill]\n")
try:
    d.start()
    long = d.submit({"command": "sleep 30", "gpus": 1})
    d.wait_state(long, ["running"])
    short = d.submit({"command": "sleep 0.2", "gpus": 1})
    for body, token, status, field in (
            ({"policy": "sjf"}, ALPHA, 403, None),
            ({"policy": "nosuch"}, ADMIN, 400, "policy"),
            ({"policy": ""}, ADMIN, 400, "policy"),
            ({"policy": "sjf", "why": "x"}, ADMIN, 400, "why"),
            ({"policy": "sjf", "reason": 7}, ADMIN, 400, "reason"),
            ({"policy": "fifo"}, ADMIN, 409, "policy")):
        s, r = d.request("POST", "/v1/policy", body, token)
        check(s == status and (field is None or r.get("field") == field),
              f"{body}: {s} {r}")
    s, r = d.request("POST", "/v1/policy", {"policy": "sjf", "reason": "it test"}, ADMIN)
    check(s == 200 and r["previous"] == "fifo", f"switch: {s} {r}")
    j = d.job(long)
    check(j["state"] == "running" and j["restart_count"] == 0, f"running job after switch: {j}")
    s, p = d.request("GET", "/v1/policy", token=ALPHA)
    check(s == 200 and p["policy"] == "sjf" and p["source"] == "api"
          and p["changes"][-1]["reason"] == "it test", f"GET /v1/policy: {s} {p}")
    s, al = d.request("GET", "/v1/alerts", token=ADMIN)
    check(any(x["rule"] == "policy_changed" for x in al["active"] + al["recent"]), f"alerts {al}")
    d.request("DELETE", f"/v1/jobs/{long}", token=ALPHA)
    d.wait_state(short, ["completed"])
    # The shadows run on a thread of the lowest CPU priority and may lag the loop on a busy
    # machine (src/service/shadows.h): wait until they have taken every event.
    deadline = time.time() + 30
    while True:
        s, sh = d.request("GET", "/v1/shadow", token=ALPHA)
        if s != 200 or all(x["events"] == sh["events"] for x in sh["shadows"]) \
                or time.time() > deadline:
            break
        time.sleep(0.1)
    check(s == 200 and sh["active_policy"] == "sjf", f"GET /v1/shadow: {s} {sh}")
    names = [x["policy"] for x in sh["shadows"]]
    check(names == ["sjf", "fifo", "backfill"], f"shadows {names}")
    check(all(x["events"] == sh["events"] for x in sh["shadows"]) and sh["events"] >= 3,
          f"events {[x['events'] for x in sh['shadows']]} vs {sh['events']}")
    s, text = d.request("GET", "/metrics")
    check('frugal_shadow_events_total{policy="backfill"}' in text, "shadow metrics")
    # The client commands.
    url = ["--server", f"http://127.0.0.1:{d.port}"]

    def cli(*argv, token=ADMIN):
        return subprocess.run([a.frugal, *argv, *url, "--token", token], capture_output=True,
                              text=True, timeout=30)
    r = cli("policy")
    check(r.returncode == 0 and "active policy: sjf (from a policy change)" in r.stdout
          and "fifo -> sjf  by admin: it test" in r.stdout, f"frugal policy: {r.stdout}{r.stderr}")
    r = cli("shadow", "--window", "1h")
    check(r.returncode == 0 and "sjf (real)" in r.stdout and "backfill" in r.stdout,
          f"frugal shadow: {r.stdout}{r.stderr}")
    r = cli("policy", "--set", "backfill", "--reason", "from the cli", token=ALPHA)
    check(r.returncode == 1 and "HTTP 403" in r.stderr, f"team --set: {r.stderr}")
    r = cli("policy", "--set", "nosuch")
    check(r.returncode == 1 and "(field policy)" in r.stderr, f"bad --set: {r.stderr}")
    r = cli("policy", "--reason", "alone")
    check(r.returncode == 1 and "--reason goes with --set" in r.stderr, f"--reason: {r.stderr}")
    r = cli("policy", "--set", "sjf")
    check(r.returncode == 1 and "HTTP 409" in r.stderr, f"same --set: {r.stderr}")
    d.stop()
    con = sqlite3.connect(d.db)
    rows = con.execute("SELECT from_policy, to_policy, by, reason FROM policy_changes").fetchall()
    con.close()
    check(rows == [("fifo", "sjf", "admin", "it test")], f"audit table {rows}")
    d.start()
    s, p = d.request("GET", "/v1/policy", token=ADMIN)
    check(p["policy"] == "sjf", f"after restart: {p}")
    check("policy: sjf (set by admin at" in d.log_text(), "start-up log:\n" + d.log_text())
    d.db_check()
finally:
    d.cleanup(a.keep)
print("ok")
