"""`frugal serve --backend dry-run` with the default `frugal` profile on on-demand nodes with
a time-of-use schedule, at peak, holding an elastic job that runs into the next off-peak
hours (issue 18, item 4). The live cluster is static; the time-of-use peak rules used to
shrink such a job to its minimum while elastic growth gave the GPUs back at once, forever
(`frugal simulate ... --static-capacity` never ended). Now the job starts at its request, grows onto the free GPUs and keeps them whatever
cycles follow; no engine_stalled."""
import datetime as dt
import os
import time

from harness import ADMIN, ALPHA, Daemon, args, check

a = args()
# Peak now; off-peak for 4 hours from the next whole hour (UTC), which a 20-hour job runs
# into and past: held at its minimum until then and at its maximum through those hours (where
# that growth pays), it would end sooner than at its request all along, so the peak rule
# wanted it at its minimum now.
h0 = (dt.datetime.now(dt.timezone.utc).hour + 1) % 24
h1 = (h0 + 4) % 24
CLUSTER = f"""regions:
  - name: r
    timezone: UTC
    electricity: {{usd_per_mwh: 80}}
    time_of_use: {{offpeak: ["{h0:02d}:00-{h1:02d}:00"], discount: 0.5}}
    pools:
      - name: od
        capacity: on_demand
        node_groups: [{{name: n, count: 2, gpu_model: H100, gpus_per_node: 8}}]
"""


def metric(d, name):
    s, text = d.request("GET", "/metrics", token=ADMIN)
    check(s == 200, f"metrics: {s}")
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    check(False, f"no {name} in /metrics")


d = Daemon(a.frugal, backend="dry-run", policy=None, extra="cluster: cluster.yaml\n")
try:
    with open(os.path.join(d.dir, "cluster.yaml"), "w") as f:
        f.write(CLUSTER)
    d.start()
    s, regions = d.request("GET", "/v1/regions", token=ALPHA)
    check(s == 200 and regions["regions"][0]["offpeak"] is False, f"not peak now: {regions}")
    jobs = [d.submit({"name": "e", "command": "train", "gpus": 8, "min_gpus": 1,
                      "max_gpus": 16, "estimate_s": 72000})]
    for j in jobs:  # it starts on one node and grows onto the other (a resize)
        for _ in range(100):
            body = d.job(j)
            if body["state"] == "running" and len(body["placement"]["gpus"]) == 16:
                break
            time.sleep(0.1)
        check(body["state"] == "running" and len(body["placement"]["gpus"]) == 16,
              f"job {j} did not grow to 16 GPUs: {body}")
    time.sleep(1)  # a dry-run stop ends the old segment at once: the grown one runs now
    before = metric(d, "frugal_decisions_total")
    restarts = d.job(jobs[0])["restart_count"]
    # Each submission runs an engine cycle; each used to shrink the job at peak and grow it
    # back (two restarts per cycle).
    for i in range(5):
        c = d.submit({"name": f"cpu{i}", "command": "prep", "gpus": 0})
        d.wait_state(c, ["running"])
    time.sleep(1)
    after = metric(d, "frugal_decisions_total")
    for j in jobs:
        body = d.job(j)
        check(body["state"] == "running" and len(body["placement"]["gpus"]) == 16
              and body["restart_count"] == restarts,
              f"job {j} should keep its 16 GPUs without restarts ({restarts} before): {body}")
    check(after == before + 5, f"decisions: {before} then {after} after 5 starts")
    s, alerts = d.request("GET", "/v1/alerts", token=ADMIN)
    check(not [x for x in alerts["active"] if x["rule"] == "engine_stalled"], f"{alerts}")
    print(f"ok: an elastic job at peak on static on-demand nodes, {after:.0f} decisions")
finally:
    d.cleanup(a.keep)
