"""Retention (issue: the service under hostile clients, item 8): finished jobs leave memory
after retain_jobs_s and are still answered from SQLite (GET by id, lists, a 409 for actions);
their logs and per-run files are deleted after retain_logs_s; a job that ends with an empty
checkpoint folder leaves none behind, one that wrote a checkpoint keeps it."""
import os
import re
import time

from harness import ALPHA, BETA, Daemon, args, check

a = args()
# Retention runs every min(60 s, the shortest age): here every second.
d = Daemon(a.frugal, gpus=1, extra="retain_jobs_s: 1\nretain_logs_s: 1\n")
try:
    d.start()
    ckpt = os.path.join(d.dir, "frugal-checkpoints")
    empty = d.submit({"command": "echo out; echo err >&2", "gpus": 0})
    wrote = d.submit({"command": 'echo state > "$FRUGAL_CHECKPOINT_DIR/step1"', "gpus": 0})
    other = d.submit({"command": "true", "gpus": 0}, token=BETA)
    for jid in (empty, wrote, other):
        d.wait_state(jid, ["completed"], token=ALPHA if jid != other else BETA)
    check(not os.path.exists(os.path.join(ckpt, str(empty))), "an empty checkpoint folder was kept")
    check(os.path.exists(os.path.join(ckpt, str(wrote), "step1")), "a written checkpoint was lost")
    logs = os.path.join(d.dir, "frugal-logs")
    check(os.path.exists(os.path.join(logs, f"{empty}.out")), "no log before retention")
    retired = 0
    for _ in range(30):
        st, text = d.request("GET", "/metrics")
        m = re.search(r"^frugal_jobs_retired_total (\S+)$", text, re.M)
        retired = float(m.group(1)) if m else 0
        if retired >= 3:
            break
        time.sleep(1)
    check(retired >= 3, f"finished jobs still in memory after 30 s ({retired} retired)")
    j = d.job(empty)
    check(j["state"] == "completed" and j["history"][-1]["to"] == "completed",
          f"a retired job read back: {j}")
    st, r = d.request("POST", f"/v1/jobs/{empty}/cancel", token=ALPHA)
    check(st == 409, f"cancel of a retired job: {st} {r}")
    st, r = d.request("GET", f"/v1/jobs/{other}", token=ALPHA)
    check(st == 404, f"another team's retired job: {st} {r}")
    st, page = d.request("GET", "/v1/jobs", token=ALPHA)
    check(sorted(x["id"] for x in page["jobs"]) == [empty, wrote], f"list: {page}")
    st, page = d.request("GET", "/v1/jobs?state=completed&limit=1", token=ALPHA)
    check([x["id"] for x in page["jobs"]] == [wrote] and page["next_cursor"] == wrote,
          f"first page: {page}")
    left = [f for f in os.listdir(logs) if f.split(".")[0] in (str(empty), str(wrote))]
    check(left == [], f"logs kept past retain_logs_s: {left}")
    d.stop()
    print("ok: retired jobs answered from the store, logs removed, no empty checkpoint folders")
finally:
    d.cleanup(a.keep)
