"""A restart with fewer GPUs (issue: the service under hostile clients, item 5): a job found
running on a GPU the cluster no longer has is stopped and requeued with that reason, and its
next run starts only after the stopped one has exited — never two copies at once, even when
the stopped run ignores SIGTERM and lasts its whole term grace."""
import os
import time

from harness import ALPHA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2, term_grace_s=3)
try:
    d.start()
    log = os.path.join(d.dir, "runs.log")
    pidfile = os.path.join(d.dir, "run.pid")
    # Job 1 holds GPU 0 for a moment; job 2 gets GPU 1 and records each run: "overlap" if
    # the previous run's shell is still alive when a new one begins. It ignores SIGTERM.
    first = d.submit({"command": "sleep 1", "gpus": 1})
    d.wait_state(first, ["running"])
    cmd = (f"if [ -f {pidfile} ] && kill -0 $(cat {pidfile}) 2>/dev/null; then "
           f"echo overlap >> {log}; fi; echo $$ > {pidfile}; echo run >> {log}; "
           "trap '' TERM; sleep 60")
    jid = d.submit({"command": cmd, "gpus": 1})
    d.wait_state(jid, ["running"])
    check(d.job(jid)["placement"]["gpus"][0]["gpu"] == 1, f"job 2 not on GPU 1: {d.job(jid)}")
    d.wait_state(first, ["completed"])
    d.kill9()
    # The node now has one GPU: job 2's GPU 1 is gone.
    with open(d.config) as f:
        text = f.read()
    with open(d.config, "w") as f:
        f.write(text.replace("gpus: 2", "gpus: 1"))
    d.start()
    j = d.job(jid)
    lost = [h for h in j["history"] if h["event"] == "run_lost"]
    check(lost and "no longer in the cluster" in lost[-1]["reason"], f"reason: {j['history']}")
    # Its next run starts on GPU 0 once the stopped one is gone (KILL after 3 s).
    for _ in range(150):
        with open(log) as f:
            if f.read().count("run") >= 2:
                break
        time.sleep(0.1)
    with open(log) as f:
        runs = f.read()
    check(runs.count("run") == 2, f"second run never began: {runs!r}")
    check("overlap" not in runs, f"two copies of job 2 ran at once: {runs!r}")
    st, _ = d.request("POST", f"/v1/jobs/{jid}/cancel", token=ALPHA)
    check(st == 200, f"cancel: {st}")
    d.wait_state(jid, ["cancelled"], timeout_s=20)
    d.stop()
    print("ok: a run on a vanished GPU is stopped before the job runs again")
finally:
    d.cleanup(a.keep)
