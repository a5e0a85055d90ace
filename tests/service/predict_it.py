"""Live runtime prediction: a job that gives no `estimate_s` is planned with a runtime the
service predicts from its own completed jobs like it (RuntimePredictor, as `frugal simulate
--predict-runtimes`: team, name, GPUs, class, then wider keys), 1 h with no history; the
predictor is rebuilt from SQLite at start-up. A given estimate is used as given. A job that
outlives its estimate (a guess, given or predicted) can still be preempted by higher-tier
work: it used to count as "about to end" forever, and the core job waited behind it."""
from harness import Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2)
try:
    d.start()
    first = d.submit({"name": "train", "command": "sleep 1", "gpus": 1})
    j = d.job(first)
    check(j["estimate_predicted"] is True and j["estimate_used_s"] == 3600,
          f"no history: {j['estimate_used_s']} {j['estimate_predicted']}")
    d.wait_state(first, ["completed"])
    for _ in range(2):
        d.wait_state(d.submit({"name": "train", "command": "sleep 1", "gpus": 1}), ["completed"])
    nxt = d.job(d.submit({"name": "train", "command": "sleep 1", "gpus": 1}))
    check(nxt["estimate_predicted"] is True and 0.8 <= nxt["estimate_used_s"] <= 10,
          f"after three 1-s runs: {nxt['estimate_used_s']}")
    given = d.job(d.submit({"name": "train", "command": "true", "gpus": 1, "estimate_s": 7200}))
    check(given["estimate_predicted"] is False and given["estimate_used_s"] == 7200,
          f"given: {given['estimate_used_s']}")
    d.wait_state(nxt["id"], ["completed"])
    d.wait_state(given["id"], ["completed"])
    d.stop()
    d.start()  # rebuilt from SQLite
    again = d.job(d.submit({"name": "train", "command": "true", "gpus": 1}))
    check(again["estimate_predicted"] is True and 0.8 <= again["estimate_used_s"] <= 10,
          f"after a restart: {again['estimate_used_s']}")
    # Past its estimate: a 1-s estimate for a 60-s job; a core job arrives 3 s in.
    long = d.submit({"name": "long", "command": "trap 'exit 0' USR1; sleep 60 & wait",
                     "gpus": 2, "estimate_s": 1})
    d.wait_state(long, ["running"])
    import time
    time.sleep(3)
    vip = d.submit({"name": "vip", "command": "true", "gpus": 1, "tier": "core"})
    d.wait_state(vip, ["completed"], timeout_s=20)
    check(d.job(long)["restart_count"] >= 1 or d.job(long)["state"] != "running",
          f"long: {d.job(long)}")
finally:
    d.cleanup(a.keep)
print("ok")
