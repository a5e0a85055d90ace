"""`frugal serve`: a core-tier job preempts a general-tier one. The victim gets its
checkpoint signal (SIGUSR1) before any kill, is requeued and restarts with
FRUGAL_RESTART_COUNT=1 and the same FRUGAL_CHECKPOINT_DIR. A victim that ignores the
signal is terminated after the grace. A victim that checkpoints and exits at once hands its
GPUs over at once, not when the grace would have ended."""
import os

from harness import ALPHA, BETA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=1, grace_s=2, term_grace_s=1)
try:
    d.start()
    script = r'''
ck="$FRUGAL_CHECKPOINT_DIR"
echo "start restart=$FRUGAL_RESTART_COUNT"
if [ "$FRUGAL_RESTART_COUNT" -gt 0 ]; then
  echo "resumed from $(cat "$ck/state")"; exit 0
fi
trap 'echo signalled > "$ck/state"; echo "got USR1"; exit 0' USR1
trap 'echo "got TERM (too late)"; exit 1' TERM
echo ready
i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
echo "never signalled"; exit 2
'''
    victim = d.submit({"name": "victim", "command": script, "tier": "general"})
    d.wait_state(victim, ["running"])
    import time

    def wait_ready(jid):  # the script has installed its traps (bounded: 20 s)
        for _ in range(200):
            if "ready" in d.read_log(jid):
                return
            time.sleep(0.1)
        check(False, f"job {jid} never got ready: {d.read_log(jid)!r}")

    wait_ready(victim)
    vip = d.submit({"name": "vip", "command": "echo vip-ran", "tier": "core"}, token=BETA)
    d.wait_state(vip, ["completed"], timeout_s=30, token=BETA)
    j = d.wait_state(victim, ["completed", "failed"], timeout_s=30)
    out = d.read_log(victim)
    check("got USR1" in out, f"victim never saw its checkpoint signal: {out!r}")
    check("too late" not in out and "never signalled" not in out, f"victim's log: {out!r}")
    check("start restart=1" in out and "resumed from signalled" in out,
          f"victim did not resume from its checkpoint: {out!r}")
    check(j["state"] == "completed" and j["restart_count"] == 1, f"victim: {j}")
    check(d.job(vip, BETA)["started_at"] >= d.job(victim)["submitted_at"], "order")

    # A victim that ignores the checkpoint signal is terminated after the grace.
    stubborn = d.submit({"name": "stubborn", "tier": "general", "command":
                         "trap '' USR1; [ \"$FRUGAL_RESTART_COUNT\" -gt 0 ] && exit 0; "
                         "echo ready; sleep 60"})
    d.wait_state(stubborn, ["running"])
    wait_ready(stubborn)
    vip2 = d.submit({"name": "vip2", "command": "true", "tier": "core"})
    d.wait_state(vip2, ["completed"], timeout_s=30)
    j = d.wait_state(stubborn, ["completed"], timeout_s=30)
    check(j["restart_count"] == 1, f"stubborn: {j}")
    d.stop()
    d.db_check()
finally:
    d.cleanup(a.keep)

# With a long grace (20 s): the victim checkpoints and exits at once; the preemptor starts
# when it has gone (it used to wait out the whole grace). Half the grace is the bound here.
d = Daemon(a.frugal, gpus=1, grace_s=20, term_grace_s=1)
try:
    d.start()
    quick = d.submit({"name": "quick", "tier": "general", "command":
                      "[ \"$FRUGAL_RESTART_COUNT\" -gt 0 ] && exit 0; "
                      "trap 'echo saved; exit 0' USR1; echo ready; "
                      "i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done"})
    d.wait_state(quick, ["running"])
    for _ in range(200):
        if "ready" in d.read_log(quick):
            break
        time.sleep(0.1)
    vip3 = d.submit({"name": "vip3", "command": "true", "tier": "core"})
    v = d.wait_state(vip3, ["completed"], timeout_s=40)
    waited = v["started_at"] - v["submitted_at"]
    check("saved" in d.read_log(quick), f"quick never checkpointed: {d.read_log(quick)!r}")
    check(waited < 10, f"the preemptor waited {waited:.1f} s for a victim that had exited "
                       f"(grace 20 s)")
    j = d.wait_state(quick, ["completed"], timeout_s=30)
    check(j["restart_count"] == 1, f"quick: {j}")
    d.stop()
    d.db_check()
    print("ok: preemption with checkpoint signal before the kill")
finally:
    d.cleanup(a.keep)
