"""`frugal serve` with its default policy (the frugal profile) resizes an elastic job on
real processes: a 1..2-GPU job starts on the one free GPU of a 2-GPU node; when the other
job ends it grows. Its first segment gets its checkpoint signal (SIGUSR1) and exits; that
exit is not the job's end: a second segment starts with FRUGAL_RESTART_COUNT=1,
CUDA_VISIBLE_DEVICES=0,1 and FRUGAL_NUM_GPUS=2, resumes from the checkpoint and completes."""
import time

from harness import ALPHA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2, grace_s=3, term_grace_s=1, policy=None)
try:
    d.start()
    status, health = d.request("GET", "/healthz")
    check(status == 200, f"healthz: {status} {health}")
    check("policy frugal" in d.log_text(), "the default policy is not frugal:\n" + d.log_text())

    def wait_ready(jid):  # the script has installed its traps (bounded: 20 s)
        for _ in range(200):
            if "ready" in d.read_log(jid):
                return
            time.sleep(0.1)
        check(False, f"job {jid} never got ready: {d.read_log(jid)!r}")

    blocker = d.submit({"name": "blocker", "command": "echo ready; exec sleep 120"})
    d.wait_state(blocker, ["running"])
    script = r'''
ck="$FRUGAL_CHECKPOINT_DIR"
echo "start restart=$FRUGAL_RESTART_COUNT gpus=$FRUGAL_NUM_GPUS cvd=$CUDA_VISIBLE_DEVICES"
if [ "$FRUGAL_RESTART_COUNT" -gt 0 ]; then
  echo "resumed from $(cat "$ck/state")"; exit 0
fi
trap 'echo step-42 > "$ck/state"; echo "got USR1"; exit 0' USR1
trap 'echo "got TERM (too late)"; exit 1' TERM
echo ready
i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
echo "never signalled"; exit 2
'''
    elastic = d.submit({"name": "elastic", "command": script, "gpus": 1, "max_gpus": 2})
    j = d.wait_state(elastic, ["running"])
    check(len(j["placement"]["gpus"]) == 1, f"elastic job should start on 1 GPU: {j}")
    wait_ready(elastic)
    status, reply = d.request("POST", f"/v1/jobs/{blocker}/cancel", token=ALPHA)
    check(status == 200, f"cancel the blocker: {status} {reply}")
    d.wait_state(blocker, ["cancelled"])
    j = d.wait_state(elastic, ["completed", "failed"], timeout_s=30)
    out = d.read_log(elastic)
    check(j["state"] == "completed" and j["restart_count"] == 1, f"elastic job: {j}\n{out}")
    check("start restart=0 gpus=1 cvd=" in out, f"first segment: {out!r}")
    check("got USR1" in out and "too late" not in out and "never signalled" not in out,
          f"the resize did not checkpoint first: {out!r}")
    check("start restart=1 gpus=2 cvd=0,1" in out, f"no restart on both GPUs: {out!r}")
    check("resumed from step-42" in out, f"did not resume from its checkpoint: {out!r}")
    check("resize" in d.log_text(), "the service log does not mention the resize")
    d.stop()
    states = d.db_check()
    check(states == {blocker: "cancelled", elastic: "completed"}, f"stored: {states}")
    print("ok: elastic job resized on real processes (signal, restart on 2 GPUs)")
finally:
    d.cleanup(a.keep)
