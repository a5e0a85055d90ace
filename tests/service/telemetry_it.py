"""Node agents pushing telemetry to `frugal serve` (docs/TELEMETRY.md): two real
`frugal agent` processes, each on the fake NVML (tests/fake_nvml) with its own readings,
report for two nodes of a dry-run cluster. Checked: /v1/nodes shows each node's GPUs, host
load and the job of a GPU process (mapped by the process's FRUGAL_JOB_ID, on another card
than frugal's placement, as on Slurm); the job's measured utilisation is its process's
card's; a low-utilisation alert fires; node tokens can do nothing else; bad telemetry is
refused with the field named; an agent with a wrong token or without NVML stops with a
clear error."""
import hashlib
import os
import subprocess
import sys
import time

from harness import ADMIN, ALPHA, Daemon, args, check, fail

a = args()
fake = os.environ.get("FRUGAL_FAKE_NVML_DIR")
if not fake or not os.path.exists(os.path.join(fake, "libnvidia-ml.so.1")):
    fail("FRUGAL_FAKE_NVML_DIR does not hold libnvidia-ml.so.1 (run through CTest)")
nvml_lib = os.path.join(fake, "libnvidia-ml.so.1")

RACK, ANY = "rack-a-node-token", "any-node-token"


def sha(t):
    return hashlib.sha256(t.encode()).hexdigest()


d = Daemon(a.frugal, backend="dry-run", policy=None, extra=f"""cluster: cluster.yaml
telemetry_period_s: 0.3
alerts:
  low_utilization: {{below: 0.5, minutes: 0.05}}
  job_idle: {{below: 0.3, minutes: 0.05}}
agents:
  rack-a: {{token_sha256: {sha(RACK)}, nodes: [n-0]}}
  spare: {{token_sha256: {sha(ANY)}}}
""")
with open(os.path.join(d.dir, "cluster.yaml"), "w") as c:
    c.write("""regions:
  - name: here
    pools:
      - name: l4
        capacity: owned
        node_groups:
          - {name: n, count: 2, gpu_model: L4, gpus_per_node: 2}
""")
procs = []


def agent(node, token, readings, extra=(), wait=False):
    path = os.path.join(d.dir, f"nvml-{node}.txt")
    with open(path, "w") as f:
        f.write(readings)
    tf = os.path.join(d.dir, f"token-{node}")
    with open(tf, "w") as f:
        f.write(token + "\n")
    env = dict(os.environ, FRUGAL_FAKE_NVML=path)
    cmd = [a.frugal, "agent", "--server", f"http://127.0.0.1:{d.port}", "--token-file", tf,
           "--node", node, "--sample-interval", "0.25", "--interval", "0.5",
           *(extra or ["--nvml-library", nvml_lib])]
    if wait:
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
    log = open(os.path.join(d.dir, f"agent-{node}.log"), "w")
    p = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    procs.append(p)
    return path


def until(what, fn, timeout_s=20):
    deadline = time.time() + timeout_s
    v = None
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    fail(f"{what}: not within {timeout_s} s (last {v})\n{d.log_text()}")


try:
    d.start()
    s, nodes = d.request("GET", "/v1/nodes", token=ADMIN)
    names = [n["name"] for n in nodes["nodes"]]
    check(names == ["n-0", "n-1"], f"nodes {names}")

    jid = d.submit({"command": "sleep 600", "gpus": 1})
    job = d.wait_state(jid, ["running"])
    node = job["placement"]["gpus"][0]["node"]
    gpu = job["placement"]["gpus"][0]["gpu"]
    other = 1 - gpu
    # The job's process, as a GPU process of the node: a real process with the job's id in
    # its environment, shown by the fake NVML on the card frugal did not place it on.
    sleeper = subprocess.Popen(["sleep", "600"], env=dict(os.environ, FRUGAL_JOB_ID=str(jid)))
    procs.append(sleeper)
    util = {gpu: 40, other: 25}
    lines = "".join(
        f"NVIDIA L4;GPU-{node}-{i};23034;{3000 if i == other else 0};{util[i]};{50 + i};{60 + i}"
        f"{';%d:3000' % sleeper.pid if i == other else ''}\n" for i in range(2))
    token = RACK if node == "n-0" else ANY
    agent(node, token, lines)
    spare = "n-1" if node == "n-0" else "n-0"
    agent(spare, ANY, "NVIDIA L4;GPU-x-0;23034;0;0;20;35\nNVIDIA L4;GPU-x-1;23034;0;0;20;35\n")

    def node_view():
        s, body = d.request("GET", "/v1/nodes", token=ALPHA)
        n = next(x for x in body["nodes"] if x["name"] == node)
        t = n["gpus"][other].get("telemetry")
        return n if t and t.get("processes") and "host" in n else None
    n = until("the agent's telemetry in /v1/nodes", node_view)
    t = n["gpus"][other]["telemetry"]
    check(abs(t["utilization"] - 0.25) < 1e-6, f"utilization {t}")
    check(t["power_w"] == 50 + other and t["temperature_c"] == 60 + other, f"power/temp {t}")
    check(t["processes"][0].get("job") == jid, f"process not mapped to job {jid}: {t}")
    check(n["host"]["cpu_count"] >= 1 and n["host"]["memory_total_mib"] > 0, f"host {n['host']}")
    check(n["last_seen_s_ago"] < 5, f"last seen {n}")
    # Another team sees the card's process but not whose it is.
    s, body = d.request("GET", "/v1/nodes", token="beta-dev-token")
    tb = next(x for x in body["nodes"] if x["name"] == node)["gpus"][other]["telemetry"]
    check("job" not in tb["processes"][0], f"beta sees alpha's job: {tb}")

    # The job's measured use is its process's card's (25 %), not its placement's (40 %).
    j = until("measured utilisation", lambda: (lambda j: j if j.get("utilization") is not None
                                                and abs(j["utilization"] - 0.25) < 0.02 else None)(d.job(jid)))
    # Right-sizing: the job's key, measured at 25 %, for its team only.
    s, ins = d.request("GET", "/v1/insights", token=ALPHA)
    keys = [k for k in ins["rightsizing"] if k["team"] == "alpha"]
    check(s == 200 and len(keys) == 1 and abs(keys[0]["mean_utilization"] - 0.25) < 0.02
          and keys[0]["gpu_memory_used_mib"] == 3000, f"insights: {ins}")
    s, ins = d.request("GET", "/v1/insights", token="beta-dev-token")
    check(s == 200 and ins["rightsizing"] == [], f"beta's insights: {ins}")
    # The placement's card is allocated and busy 40 % (< 50 %): the alert fires in 3 s.
    def alert():
        s, body = d.request("GET", "/v1/alerts", token=ADMIN)
        return [x for x in body["active"] if x["rule"] == "low_utilization"
                and x["subject"] == f"{node}/gpu{gpu}"] or None
    al = until("low_utilization alert", alert)
    check("for 0.05 min" in al[0]["message"], f"alert text {al[0]['message']}")
    # The job itself, measured at 25 % (< 30 %) for 3 s: job_idle, seen by its team only.
    def job_idle(token):
        s, body = d.request("GET", "/v1/alerts", token=token)
        return [x for x in body["active"] if x["rule"] == "job_idle"
                and x["subject"] == f"job {jid}"] or None
    until("job_idle alert", lambda: job_idle(ALPHA))
    check(not job_idle("beta-dev-token"), "another team sees the job_idle alert")

    # /metrics: the node's host load and the job's processes' memory, promtool-clean.
    s, text = d.request("GET", "/metrics")
    check(f'frugal_node_cpus{{node="{node}"}}' in text, "no frugal_node_cpus in /metrics")
    check(f'frugal_job_gpu_memory_used_bytes{{job_id="{jid}"' in text
          and str(3000 * 1048576) in text, "job memory from its processes not in /metrics")
    # A node token can do nothing but post telemetry.
    for method, path, body in [("GET", "/v1/jobs", None), ("POST", "/v1/jobs", {"command": "x"}),
                               ("GET", f"/v1/jobs/{jid}", None), ("GET", "/v1/ledger", None),
                               ("POST", f"/v1/jobs/{jid}/cancel", None)]:
        s, reply = d.request(method, path, body, token=RACK)
        check(s == 403 and "node token" in reply["error"], f"{method} {path} with a node token: {s} {reply}")
    # Telemetry only from node tokens (or the admin), for their own nodes, known GPUs, sane values.
    now = time.time()
    rep = {"node": "n-1", "time": now, "window_s": 1, "gpus": [{"index": 0, "utilization": 0.5}]}
    cases = [
        (ALPHA, {"sent_at": now, "reports": [rep]}, 403, "Authorization"),
        (RACK, {"sent_at": now, "reports": [rep]}, 403, "reports[0].node"),
        (ANY, {"sent_at": now, "reports": [dict(rep, node="n-9")]}, 400, "reports[0].node"),
        (ANY, {"sent_at": now, "reports": [dict(rep, gpus=[{"index": 2}])]}, 400, "reports[0].gpus[0].index"),
        (ANY, {"sent_at": now, "reports": [dict(rep, gpus=[{"index": 0, "utilization": 7}])]}, 400,
         "reports[0].gpus[0].utilization"),
        (ANY, {"sent_at": now + 3600, "reports": [rep]}, 400, "sent_at"),
        (ANY, {"sent_at": now, "reports": [{"node": "n-1", "time": now, "window_s": 1}] * 721},
         400, "reports"),
    ]
    for token, body, status, field in cases:
        s, reply = d.request("POST", "/v1/telemetry", body, token=token)
        check(s == status and reply.get("field") == field,
              f"telemetry {field}: wanted {status}, got {s} {reply}")
    s, reply = d.request("POST", "/v1/telemetry", raw="{not json", token=ANY)
    check(s == 400, f"malformed body: {s} {reply}")
    # The refusals the service judged against its cluster are counted in /metrics.
    s, text = d.request("GET", "/metrics")
    bad = [l for l in text.splitlines() if l.startswith('frugal_telemetry_batches_refused_total{reason="bad"}')]
    check(bad and float(bad[0].split()[-1]) >= 4, f"refused batches: {bad}")
    ok = [l for l in text.splitlines() if l.startswith('frugal_telemetry_reports_total{outcome="accepted"}')]
    check(ok and float(ok[0].split()[-1]) > 0, f"accepted reports: {ok}")

    # An agent with a token the service does not know, or without NVML, stops and says why.
    r = agent("n-1", "wrong-token", "NVIDIA L4;GPU-y;23034;0;0;20\n", wait=True)
    check(r.returncode == 2 and "refused the node token" in r.stderr, f"wrong token: {r.returncode} {r.stderr}")
    r = agent("n-1", ANY, "", extra=["--nvml-library", "/nonexistent/libnvidia-ml.so.1"], wait=True)
    check(r.returncode == 2 and "NVML not loaded" in r.stderr and "--allow-no-gpu" in r.stderr,
          f"no NVML: {r.returncode} {r.stderr}")
    # Every agent still running, and the daemon, are well.
    for p in procs:
        check(p.poll() is None, f"exited: {p.args}")
    check(d.request("GET", "/healthz")[0] == 200, "healthz")
finally:
    for p in procs:
        p.kill()
        p.wait()
    d.cleanup(a.keep)
print("ok")
