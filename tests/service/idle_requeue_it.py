"""The opt-in reaction to an idle job (alerts.job_idle.requeue_after_minutes): a running job
measured idle on all its GPUs — telemetry posted through POST /v1/telemetry, as node agents
do — gets its job_idle alert, and while another job waits for its GPUs it is checkpointed
(its checkpoint signal) and requeued; the waiting job starts on the freed GPUs. Without a
waiting job nothing is requeued."""
import json
import os
import time

from harness import ADMIN, ALPHA, Daemon, args, check, fail

a = args()
d = Daemon(a.frugal, gpus=1, grace_s=2, policy="fifo", extra="""telemetry_period_s: 0.2
alerts:
  low_utilization: {below: 0.5, minutes: 0}
  job_idle: {below: 0.05, minutes: 0.02, requeue_after_minutes: 0.05, requeue_hold_s: 3}
""")


def post_idle(node, gpu):
    now = time.time()
    body = {"sent_at": now, "reports": [{"node": node, "time": now, "window_s": 0.3,
                                         "gpus": [{"index": gpu, "utilization": 0.01}]}]}
    s, r = d.request("POST", "/v1/telemetry", body, token=ADMIN)
    check(s == 202, f"telemetry: {s} {r}")


def until(what, fn, timeout_s=20):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.3)
    fail(f"{what}: not within {timeout_s} s\n{d.log_text()}")


try:
    d.start()
    # The idle job writes its checkpoint when signalled (SIGUSR1), then exits.
    idle = d.submit({"name": "idle", "command":
                     'trap \'echo ckpt >> "$FRUGAL_CHECKPOINT_DIR/ckpt"; exit 0\' USR1; '
                     'while :; do sleep 0.1; done'})
    j = d.wait_state(idle, ["running"])
    node = j["placement"]["gpus"][0]["node"]
    gpu = j["placement"]["gpus"][0]["gpu"]
    # Idle with nothing waiting: the alert fires, the job keeps running.
    for _ in range(20):
        post_idle(node, gpu)
        time.sleep(0.3)
    s, al = d.request("GET", "/v1/alerts", token=ALPHA)
    check(any(x["rule"] == "job_idle" and x["subject"] == f"job {idle}" for x in al["active"]),
          f"no job_idle alert: {al}")
    check(d.job(idle)["state"] == "running" and d.job(idle)["restart_count"] == 0,
          f"requeued with nothing waiting: {d.job(idle)}")
    # Another job waits for the GPU: the idle one is checkpointed and requeued.
    waiting = d.submit({"name": "waiting", "command": "sleep 1"})

    def requeued():
        post_idle(node, gpu)
        j = d.job(idle)
        return j if j["restart_count"] >= 1 else None
    j = until("the idle job requeued", requeued)
    check("idle on all its GPUs" in d.log_text(), "no log line for the requeue")
    # Held back 3 s: the waiting job (behind it in FIFO order) starts first.
    w = d.wait_state(waiting, ["running", "completed"])
    check(d.job(idle)["state"] in ("deferred", "preempted"), f"not held back: {d.job(idle)}")
    ck = os.path.join(d.dir, "frugal-checkpoints", str(idle), "ckpt")
    check(os.path.exists(ck), f"no checkpoint written at {ck}")
    # It runs again once the waiting job is done.
    d.wait_state(idle, ["running"], timeout_s=30)
finally:
    d.cleanup(a.keep)
print("ok")
