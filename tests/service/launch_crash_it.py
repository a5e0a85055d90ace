"""`frugal serve` killed (SIGKILL, by its own fault-injection hook FRUGAL_FAULT_AT, not by a
timed kill) at every step of the launch path: after the start decision is committed, after
the wrapper is spawned, after the run's handle file is written, after the command is let go.
Each time, after a restart the job ends completed and its command ran exactly once — also
when it completed while the service was down and the handle had never reached the database.
A run that ended unseen, without an exit status, leaves the job `unknown`, not re-run.
Then the Idempotency-Key contract: a retried submission returns the first job."""
import json
import os
import time

from harness import ALPHA, BETA, Daemon, args, check, fail

a = args()

STEPS = ["decided", "spawned", "handle_written", "released"]

for step in STEPS:
    d = Daemon(a.frugal, gpus=1)
    try:
        d.start()
        runs = os.path.join(d.dir, "runs.txt")
        os.environ["FRUGAL_FAULT_AT"] = f"{step}:2"
        try:
            d.stop()
            d.start()  # this daemon dies when job 2 reaches `step`
        finally:
            del os.environ["FRUGAL_FAULT_AT"]
        first = d.submit({"command": "true", "gpus": 0})  # job 1 launches normally
        check(first == 1, f"first job id {first}")
        d.wait_state(first, ["completed"])
        # Job 2 records each run of its command; the daemon dies on its launch path.
        try:
            st, r = d.request("POST", "/v1/jobs", body={"command": f"echo run >> {runs}",
                                                        "gpus": 1}, token=ALPHA, timeout=10)
            check(st == 201 and r["id"] == 2, f"{step}: submit answered {st} {r}")
        except (OSError, ValueError):
            pass  # died before the answer left: the job was committed first either way
        try:
            d.proc.wait(timeout=20)
        except Exception:
            fail(f"{step}: the daemon did not die at the fault")
        check(d.proc.returncode == -9, f"{step}: daemon ended with {d.proc.returncode}")
        d.proc = None
        if step == "released":
            # The command was let go: it completes while nobody watches.
            for _ in range(100):
                if os.path.exists(runs):
                    break
                time.sleep(0.1)
            check(os.path.exists(runs), "released: the command did not run")
        d.start()
        d.wait_state(2, ["completed"], timeout_s=30)
        with open(runs) as f:
            n = f.read().count("run")
        check(n == 1, f"{step}: the command ran {n} times")
        j = d.job(2)
        if step == "released":
            check(j["restart_count"] == 0, f"released: the completed run was not adopted: {j}")
        check(d.db_check() == {1: "completed", 2: "completed"}, f"{step}: {d.db_check()}")
        d.stop()
    finally:
        d.cleanup(a.keep)

# A run that ends while the service is down without recording its exit status (SIGKILLed
# with its wrapper): after the restart the job is `unknown`, with the reason, and not run
# again.
d = Daemon(a.frugal, gpus=1)
try:
    d.start()
    runs = os.path.join(d.dir, "runs.txt")
    jid = d.submit({"command": f"echo run >> {runs}; sleep 60", "gpus": 1})
    d.wait_state(jid, ["running"])
    # `running` comes with the launch, before the shell ran its first command: wait for the
    # run to have started its work (on a loaded machine it may take a while).
    for _ in range(200):
        if os.path.exists(runs):
            break
        time.sleep(0.05)
    check(os.path.exists(runs), "the running job never ran its command")
    pid = int(d.job(jid)["handle"].split(":")[0])
    d.kill9()
    os.killpg(pid, 9)
    time.sleep(0.5)
    d.start()
    d.wait_state(jid, ["unknown", "queued", "running", "completed", "failed"])
    j = d.job(jid)
    check(j["state"] == "unknown" and "no exit status" in j["reason"], f"unseen end: {j}")
    time.sleep(1)
    with open(runs) as f:
        check(f.read().count("run") == 1, "a job whose end was not seen ran again")
    d.stop()
finally:
    d.cleanup(a.keep)

# Idempotency-Key: the same key and body return the first job (200); another body 422; the
# key is per team, survives a restart, and a malformed key is refused.
d = Daemon(a.frugal, gpus=1)
try:
    d.start()
    body = {"name": "idem", "command": "true", "gpus": 0}

    def post(b, key, token=ALPHA):
        import http.client
        c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        c.request("POST", "/v1/jobs", body=json.dumps(b),
                  headers={"Authorization": "Bearer " + token, "Idempotency-Key": key,
                           "Content-Type": "application/json"})
        r = c.getresponse()
        out = (r.status, json.loads(r.read()))
        c.close()
        return out

    st1, r1 = post(body, "k-1")
    st2, r2 = post(body, "k-1")
    check(st1 == 201 and st2 == 200 and r1["id"] == r2["id"], f"retry: {st1} {r1} / {st2} {r2}")
    st3, r3 = post(dict(body, name="other"), "k-1")
    check(st3 == 422 and r3["field"] == "Idempotency-Key", f"same key, other body: {st3} {r3}")
    st4, r4 = post(body, "k-1", token=BETA)
    check(st4 == 201 and r4["id"] != r1["id"], f"another team's key space: {st4} {r4}")
    st5, r5 = post(body, "x" * 300)
    check(st5 == 400 and r5["field"] == "Idempotency-Key", f"a 300-byte key: {st5} {r5}")
    d.kill9()
    d.start()
    st6, r6 = post(body, "k-1")
    check(st6 == 200 and r6["id"] == r1["id"], f"after a restart: {st6} {r6}")
    st, jobs = d.request("GET", "/v1/jobs", token=ALPHA)
    check(len(jobs["jobs"]) == 1, f"one job for the key: {jobs}")
    d.stop()
finally:
    d.cleanup(a.keep)
print("ok: a crash at each launch step leaves one run; Idempotency-Key returns the first job")
