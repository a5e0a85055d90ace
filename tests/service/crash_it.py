"""`frugal serve` killed with SIGKILL while jobs run: after a restart no accepted job is
lost or duplicated, running jobs are found again (their runs are not repeated), jobs that
ended meanwhile are seen with their exit codes, and the store stays consistent."""
import os
import time

from harness import ADMIN, ALPHA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2)
try:
    d.start()
    runs = os.path.join(d.dir, "runs.txt")
    ids = []
    # Two long jobs hold both GPUs across the crash; short ones queue behind them; one
    # ends while the daemon is down.
    ids.append(d.submit({"command": f"echo $FRUGAL_JOB_ID >> {runs}; sleep 4"}))
    ids.append(d.submit({"command": f"echo $FRUGAL_JOB_ID >> {runs}; sleep 1.5; exit 4"}))
    for i in range(6):
        ids.append(d.submit({"command": f"echo $FRUGAL_JOB_ID >> {runs}; sleep 0.2",
                             "gpus": 1}))
    d.wait_state(ids[0], ["running"])
    d.wait_state(ids[1], ["running"])
    d.kill9()
    time.sleep(2.5)  # ids[1] exits (code 4) while nobody watches
    d.start()
    j = d.job(ids[0])
    check(j["state"] in ("running", "completed"), f"running job came back as {j['state']}")
    for jid in ids:
        d.wait_state(jid, ["completed", "failed"], timeout_s=40)
    j1 = d.job(ids[1])
    check(j1["state"] == "failed" and j1["exit_code"] == 4, f"exit during downtime: {j1}")
    s, r = d.request("GET", "/v1/jobs", token=ADMIN)
    listed = sorted(j["id"] for j in r["jobs"])
    check(listed == sorted(ids), f"jobs after restart {listed} != accepted {sorted(ids)}")
    started = [int(x) for x in open(runs).read().split()]
    check(sorted(started) == sorted(ids), f"each job must run exactly once: {started}")
    check(d.job(ids[0])["restart_count"] == 0, "the adopted job was restarted")
    # A second crash right after submissions: every 201 survives.
    more = [d.submit({"command": "true", "gpus": 0}) for _ in range(20)]
    d.kill9()
    d.start()
    for jid in more:
        d.wait_state(jid, ["completed"], timeout_s=30)
    s, r = d.request("GET", "/v1/ledger", token=ADMIN)
    check(s == 200 and r["cost"]["total_usd"] > 0, f"ledger after restarts: {r}")
    d.stop()
    states = d.db_check()
    check(len(states) == len(ids) + len(more), f"stored jobs {len(states)}")
    print("ok: kill -9 and restart lost and duplicated nothing")
finally:
    d.cleanup(a.keep)
