#!/usr/bin/env python3
"""Node agents on the local Slurm cluster (CTest label slurm): `frugal serve --backend slurm`
gets its GPU telemetry from `frugal agent`s, one per node, each on the project's fake NVML
with its own readings (tests/fake_nvml), as on a Slurm cluster whose nodes the service does
not run on.

  telemetry_it.py --frugal BIN --unavailable MARKER --fake-nvml DIR

Two 8-GPU jobs run through Slurm on gpu1 and gpu2. Each job's process (a real process the
Slurm job started, so it carries FRUGAL_JOB_ID and SLURM_JOB_ID) is shown by its node's fake
NVML on one card: gpu1's at 30 % busy, gpu2's at 80 %. Checked: /v1/nodes shows each node's
readings and the job on the card; /metrics has the per-GPU and per-job gauges; the ledger
has each job's measured utilisation (that of its process's card); a low_utilization alert
fires on gpu1, whose job's GPUs are allocated and idle; and a node token cannot read jobs.
Standard library only.
"""
import argparse, hashlib, json, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurm_test_util import ADMIN, TOKEN_SHA, Serve, cancel_and_wait, free_port, run as sh  # noqa: E402

NODE_TOKEN = "node-agent-token"


def wait_for(what, pred, timeout_s):
    end = time.time() + timeout_s * 2  # doubled for a loaded CI machine
    last = None
    while time.time() < end:
        last = pred()
        if last:
            return last
        time.sleep(0.3)
    raise AssertionError(f"{what}: not reached in {timeout_s * 2} s (last: {last})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", required=True)
    ap.add_argument("--unavailable", required=True)
    ap.add_argument("--fake-nvml", required=True, help="folder of the fake libnvidia-ml.so.1")
    a = ap.parse_args()
    if os.path.exists(a.unavailable) and open(a.unavailable).read().strip():
        print("[  SKIPPED ] local Slurm unavailable:", open(a.unavailable).read().strip())
        return 0
    nvml = os.path.join(a.fake_nvml, "libnvidia-ml.so.1")
    agents = []
    with tempfile.TemporaryDirectory(prefix="frugal-slurm-telemetry-") as d:
        os.chmod(d, 0o777)
        port = free_port()
        svc = Serve(a.frugal, d, f"""listen: 127.0.0.1:{port}
db: {d}/frugal.db
backend: slurm
policy: backfill
log_dir: {d}/logs
checkpoint_dir: {d}/ckpt
telemetry_period_s: 0.5
alerts:
  low_utilization: {{below: 0.5, minutes: 0.1}}
teams:
  alpha: {{token_sha256: {TOKEN_SHA}}}
admin: {{token_sha256: {hashlib.sha256(ADMIN.encode()).hexdigest()}}}
agents:
  nodes: {{token_sha256: {hashlib.sha256(NODE_TOKEN.encode()).hexdigest()}, nodes: [gpu1, gpu2, gpu3, gpu4]}}
slurm:
  rest_url: http://127.0.0.1:6820
  partition: gpu
  poll_interval_s: 1
  stale_after_s: 5
  timeout_s: 5
  max_backoff_s: 4
  gpu_map: {{h100: H100, a100: A100-80GB}}
""", port)
        try:
            ids = []
            for name in ("tel-a", "tel-b"):
                # The job's GPU process: a child of the batch script (so its environment has
                # FRUGAL_JOB_ID and SLURM_JOB_ID), its pid written where the test reads it.
                cmd = f"sh -c 'echo $$ > {d}/pid-$FRUGAL_JOB_ID; exec sleep 300'"
                st, body = svc.call("POST", "/v1/jobs", {"name": name, "command": cmd, "gpus": 8,
                                                         "gpu_model": "A100-80GB",
                                                         "estimate_s": 300})
                assert st == 201, (st, body)
                ids.append(body["id"])
            pids = {}
            for jid in ids:
                path = f"{d}/pid-{jid}"
                wait_for(f"job {jid} running in Slurm", lambda: os.path.exists(path)
                         and open(path).read().strip(), 60)
                pids[jid] = int(open(path).read())
            node_of = {}
            for jid in ids:
                j = wait_for(f"job {jid} running", lambda: (lambda j: j if j["state"] == "running"
                                                           else None)(svc.call("GET", f"/v1/jobs/{jid}")[1]), 30)
                node_of[jid] = j["placement"]["node"]
            assert sorted(node_of.values()) == ["gpu1", "gpu2"], node_of
            busy = {ids[0]: 30, ids[1]: 80}
            card = {ids[0]: 0, ids[1]: 3}
            for jid in ids:
                node = node_of[jid]
                lines = [f"NVIDIA A100-SXM4-80GB;GPU-{node}-{i};81920;"
                         f"{20000 if i == card[jid] else 0};{busy[jid] if i == card[jid] else 0};"
                         f"{300 if i == card[jid] else 60};{55 + i}"
                         f"{';%d:20000' % pids[jid] if i == card[jid] else ''}\n" for i in range(8)]
                f = os.path.join(d, f"nvml-{node}.txt")
                open(f, "w").writelines(lines)
                env = dict(os.environ, FRUGAL_FAKE_NVML=f, FRUGAL_AGENT_TOKEN=NODE_TOKEN)
                log = open(os.path.join(d, f"agent-{node}.log"), "w")
                agents.append(subprocess.Popen(
                    [a.frugal, "agent", "--server", f"http://127.0.0.1:{port}", "--node", node,
                     "--sample-interval", "0.5", "--interval", "1", "--nvml-library", nvml],
                    env=env, stdout=log, stderr=subprocess.STDOUT))

            def nodes_view():
                nodes = {n["name"]: n for n in svc.call("GET", "/v1/nodes")[1]["nodes"]}
                ok = all(nodes[node_of[j]]["gpus"][card[j]].get("telemetry", {}).get("processes")
                         for j in ids)
                return nodes if ok else None
            nodes = wait_for("agents' telemetry in /v1/nodes", nodes_view, 20)
            for jid in ids:
                t = nodes[node_of[jid]]["gpus"][card[jid]]["telemetry"]
                assert abs(t["utilization"] - busy[jid] / 100) < 1e-6, t
                assert t["processes"][0].get("job") == jid, (jid, t)
                assert t["temperature_c"] == 55 + card[jid] and t["power_w"] == 300, t
                assert "host" in nodes[node_of[jid]], nodes[node_of[jid]]

            # The ledger's per-job utilisation is the job's process's card's.
            def ledger_jobs():
                body = svc.call("GET", "/v1/ledger", token=ADMIN)[1]
                js = {j["id"]: j for j in body.get("jobs", [])}
                ok = all(js.get(j, {}).get("utilization") is not None and
                         abs(js[j]["utilization"] - busy[j] / 100) < 0.02 for j in ids)
                return body if ok else None
            wait_for("measured utilisation in the ledger", ledger_jobs, 20)
            text = svc.call("GET", "/metrics", token=ADMIN, raw=True)[1]
            for jid in ids:
                node = node_of[jid]
                m = re.search(rf'frugal_gpu_utilization_ratio\{{[^}}]*node="{node}"[^}}]*gpu="{card[jid]}"[^}}]*\}} ([0-9.e+-]+)', text) \
                    or re.search(rf'frugal_gpu_utilization_ratio\{{[^}}]*gpu="{card[jid]}"[^}}]*node="{node}"[^}}]*\}} ([0-9.e+-]+)', text)
                assert m and abs(float(m.group(1)) - busy[jid] / 100) < 1e-6, (node, text[-3000:])
                m = re.search(rf'frugal_job_gpu_utilization_ratio\{{[^}}]*job_id="{jid}"[^}}]*\}} ([0-9.e+-]+)', text)
                assert m and abs(float(m.group(1)) - busy[jid] / 100) < 0.02, (jid, text[-3000:])

            def alert():
                body = svc.call("GET", "/v1/alerts", token=ADMIN)[1]
                return [x for x in body["active"] if x["rule"] == "low_utilization"
                        and x["subject"].startswith("gpu1/")] or None
            wait_for("a low_utilization alert on gpu1", alert, 30)
            st, body = svc.call("GET", "/v1/jobs", token=NODE_TOKEN)
            assert st == 403, (st, body)
            for p in agents:
                assert p.poll() is None, f"an agent exited: {p.args}"
            print("ok: two agents' telemetry in /v1/nodes, /metrics and the ledger per Slurm "
                  "job; a low_utilization alert fired for a Slurm job's GPUs")
        except BaseException:
            svc.stop()
            print(open(os.path.join(d, "serve.log")).read()[-6000:])
            for f in os.listdir(d):
                if f.startswith("agent-"):
                    print(f, open(os.path.join(d, f)).read()[-2000:])
            raise
        finally:
            for p in agents:
                p.kill()
                p.wait()
            svc.stop()
            out = sh("squeue", "-h", "-o", "%i %k").stdout.split("\n")
            mine = [l.split()[0] for l in out if l.strip() and "frugal-" in l]
            cancel_and_wait(mine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
