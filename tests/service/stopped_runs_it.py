"""Runs that do not end when told, and ends nobody watched, against a real daemon (local
backend):
- a preempted job that ignores its checkpoint signal and SIGTERM is killed after the grace,
  and until then neither the core job that preempted it nor its own next run starts: no two
  processes ever hold its GPU, and the job never runs twice at once;
- a job that ends while the service is down is recorded with its real end, and the
  background children it left are killed when the service comes back."""
import os
import subprocess
import time

from harness import ALPHA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=1, grace_s=1, term_grace_s=1)
try:
    d.start()
    log = os.path.join(d.dir, "runs.txt")
    # Both write "<job> <restart> <unix time>" every 0.1 s while they run.
    line = f'echo "$FRUGAL_JOB_ID $FRUGAL_RESTART_COUNT $(date +%s.%N)" >> {log}'
    stubborn = d.submit({"command": f'trap "" USR1 TERM; while :; do {line}; sleep 0.1; done',
                         "gpus": 1})
    d.wait_state(stubborn, ["running"])
    time.sleep(0.5)
    core = d.submit({"command": f"for i in 1 2 3 4 5; do {line}; sleep 0.1; done", "gpus": 1,
                     "tier": "core"})
    d.wait_state(core, ["completed"], timeout_s=30)
    d.wait_state(stubborn, ["running"], timeout_s=30)
    time.sleep(1.0)
    rows = [line.split() for line in open(log).read().splitlines() if len(line.split()) == 3]
    first = [float(t) for j, r, t in rows if int(j) == stubborn and r == "0"]
    core_t = [float(t) for j, r, t in rows if int(j) == core]
    again = [float(t) for j, r, t in rows if int(j) == stubborn and r == "1"]
    check(first and core_t and again, f"runs seen: {len(first)} {len(core_t)} {len(again)}")
    # The first run was killed (grace 1 s + term grace 1 s) before anything else ran.
    check(max(first) < min(core_t), f"the core job ran beside the stopped run: "
          f"{max(first):.2f} >= {min(core_t):.2f}")
    check(max(core_t) < min(again), "the restarted run overlapped the core job")
    check(d.job(stubborn)["restart_count"] == 1, f"{d.job(stubborn)}")
    d.request("POST", f"/v1/jobs/{stubborn}/cancel", token=ALPHA)
    d.wait_state(stubborn, ["cancelled"], timeout_s=15)

    # A job ends while the service is down, leaving a background child behind.
    marker = "777.25"
    quick = d.submit({"command": f"sleep {marker} & sleep 2; exit 0", "gpus": 0})
    d.wait_state(quick, ["running"])
    d.kill9()
    time.sleep(4)
    d.start()
    j = d.wait_state(quick, ["completed"], timeout_s=15)
    ran = j["finished_at"] - j["started_at"]
    check(ran < 3.5, f"run time {ran:.1f} s: the downtime was billed as running")
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
    check(left.stdout.strip() == "", f"the job's background child survived: {left.stdout}")
    d.stop()
    print("ok: stopped runs are waited for; ends during downtime are timed and cleaned up")
finally:
    d.cleanup(a.keep)
