#!/usr/bin/env python3
"""Live elastic capacity end to end: `frugal serve --backend slurm` powers the local cluster's
cloud nodes up and down through Slurm's power saving (CTest label slurm).

  cloud_capacity_it.py --frugal BIN --unavailable MARKER

Against scripts/slurm-local.sh's cluster (gpu1-4 always on; gpu5, gpu6: 8 A100 each, State=CLOUD,
powered down, ResumeProgram/SuspendProgram logging to /var/log/frugal-slurm/power.log):

1. Burst: with the cloud nodes powered down, four 8-GPU A100 jobs (two more than the reserved
   A100 nodes hold) make frugal power both cloud nodes up (their ResumeProgram runs), the jobs
   run there, and after the pool's idle timeout frugal powers them down. The live ledger's
   provisioned node-hours of pool `cloud` match the power log's (resume to suspend) within
   max(5 %, two poll intervals), and `frugal simulate` of the same workload (same cluster,
   boot delay, idle timeout) predicts them within 15 %. /metrics shows the pool's GPUs.
2. A failed power-up: gpu5's ResumeProgram fails (the fail-gpu5 marker); with the reserved A100
   nodes busy, the job that needs a cloud node waits for gpu5, which Slurm marks down after
   ResumeTimeout: frugal reports it (alert node_power_failed) and powers up gpu6, where the job
   runs; nothing of frugal's ever runs on gpu5.
3. A spot reclaim: gpu6 is pool `spot`; `scripts/slurm-local.sh reclaim gpu6 5` drains it with
   reason "spot reclaim" (the notice) and powers it down 5 s later. frugal sends the job there
   its checkpoint signal within the notice (it writes a checkpoint file), requeues it, powers
   gpu5 up for it, and the job completes there from its checkpoint.
Standard library only; leaves the cloud nodes powered down.
"""
import argparse, hashlib, json, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurm_test_util import (ADMIN, POWER, TOKEN_SHA, Serve, cancel_and_wait,  # noqa: E402
                             free_port, power_log, run as sh, state)

POLL_S = 1.0          # slurm.poll_interval_s
BOOT_S = 4            # the pool's provisioning_delay_s: the local ResumeProgram's 2 s + registration
IDLE_S = 10           # the pools' idle_timeout_s
JOB_S = 20            # each burst job's run time
NOTICE_S = 5          # the spot pool's reclaim notice


def wait_for(what, pred, timeout_s):
    end = time.time() + timeout_s * 2  # upper bounds for a hang, doubled for a loaded CI machine
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.3)
    raise AssertionError(f"{what}: not reached in {timeout_s * 2} s")


class Service(Serve):
    def __init__(self, frugal, d):
        port = free_port()
        super().__init__(frugal, d, f"""listen: 127.0.0.1:{port}
db: {d}/frugal.db
backend: slurm
policy: backfill
log_dir: {d}/logs
checkpoint_dir: {d}/ckpt
teams:
  alpha: {{token_sha256: {TOKEN_SHA}}}
admin: {{token_sha256: {hashlib.sha256(ADMIN.encode()).hexdigest()}}}
slurm:
  rest_url: http://127.0.0.1:6820
  partition: gpu,cloud
  poll_interval_s: {POLL_S}
  stale_after_s: 5
  timeout_s: 5
  max_backoff_s: 4
  gpu_map: {{h100: H100, a100: A100-80GB}}
  pools:
    - name: cloud
      nodes: gpu5
      capacity: on_demand
      provisioning_delay_s: {BOOT_S}
      idle_timeout_s: {IDLE_S}
      rental: {{A100-80GB: {{on_demand_usd_h: 4.0}}}}
    - name: spot
      nodes: gpu6
      capacity: spot
      provisioning_delay_s: {BOOT_S}
      idle_timeout_s: {IDLE_S}
      spot_price_factor: 0.35
      reclaim_notice_s: {NOTICE_S}
      rental: {{A100-80GB: {{on_demand_usd_h: 4.0}}}}
""", port)

    def submit(self, name, secs):
        return self.submit_command(name, f"sleep {secs}", secs)

    def submit_command(self, name, command, estimate_s):
        st, body = self.call("POST", "/v1/jobs", {"name": name, "command": command, "gpus": 8,
                                                  "gpu_model": "A100-80GB",
                                                  "estimate_s": estimate_s, "class": "pretrain"})
        assert st == 201, (st, body)
        return body["id"]

    def job(self, jid):
        return self.call("GET", f"/v1/jobs/{jid}")[1]

    def until_done(self, ids, timeout_s):
        """Waits until every job completed; the nodes each was seen running on."""
        seen = {j: set() for j in ids}

        def done():
            ok = True
            for jid in ids:
                j = self.job(jid)
                if j["state"] == "running":
                    seen[jid].update(g["node"] for g in j["placement"]["gpus"])
                elif j["state"] in ("failed", "cancelled", "unknown"):
                    raise AssertionError(f"job {jid} {j['state']}: {json.dumps(j)}")
                ok = ok and j["state"] == "completed"
            return ok
        wait_for(f"jobs {ids} completed", done, timeout_s)
        return seen


def pool_gpus(svc, pool="cloud"):
    text = svc.call("GET", "/metrics", token=ADMIN, raw=True)[1]
    out = {}
    for m in re.finditer(rf'frugal_pool_gpus\{{pool="{pool}",state="(\w+)"\}} ([0-9.e+-]+)', text):
        out[m.group(1)] = float(m.group(2))
    return out


def simulate(svc, d, n_jobs):
    """`frugal simulate` of the burst on the same cluster: the cloud pool's node-hours."""
    with open(f"{d}/trace.csv", "w") as f:
        f.write("id,submit,gpus,allowed_models,duration,estimate,class\n")
        for i in range(n_jobs):
            f.write(f"b{i},0,8,A100-80GB,{JOB_S},{JOB_S},pretrain\n")
    with open(f"{d}/cluster.yaml", "w") as f:
        f.write(f"""regions:
  - name: default
    pools:
      - name: local
        node_groups:
          - {{name: a100, count: 2, gpu_model: A100-80GB, gpus_per_node: 8}}
          - {{name: h100, count: 2, gpu_model: H100, gpus_per_node: 4}}
      - name: cloud
        capacity: on_demand
        provisioning_delay_s: {BOOT_S}
        idle_timeout_s: {IDLE_S}
        node_groups:
          - {{name: cloud, count: 1, gpu_model: A100-80GB, gpus_per_node: 8}}
      - name: spot
        capacity: spot
        provisioning_delay_s: {BOOT_S}
        idle_timeout_s: {IDLE_S}
        reclaim_rate_per_node_hour: 0
        node_groups:
          - {{name: spot, count: 1, gpu_model: A100-80GB, gpus_per_node: 8}}
""")
    r = subprocess.run([svc.frugal, "simulate", "--trace", f"{d}/trace.csv", "--cluster",
                        f"{d}/cluster.yaml", "--policy", "backfill", "--reference-model",
                        "A100-80GB", "--format", "json"], check=True, capture_output=True, text=True)
    cap = json.loads(r.stdout)["capacity_by_pool"]
    return cap["cloud"]["node_hours"] + cap["spot"]["node_hours"]


def burst(svc, d):
    t0 = time.time()
    ids = [svc.submit(f"burst{i}", JOB_S) for i in range(4)]
    wait_for("both cloud nodes up", lambda: state("gpu5") in ("alloc", "mix", "idle")
             and state("gpu6") in ("alloc", "mix", "idle"), 60)
    booting_seen = pool_gpus(svc)
    seen = svc.until_done(ids, 120)
    cloud_jobs = [j for j in ids if seen[j] & {"gpu5", "gpu6"}]
    assert len(cloud_jobs) == 2, f"two jobs should run on cloud nodes: {seen}"
    wait_for("both cloud nodes powered down", lambda: state("gpu5") == "idle~"
             and state("gpu6") == "idle~", IDLE_S + 60)
    log = power_log(t0)
    spans = {}
    for node in ("gpu5", "gpu6"):
        ups = [t for t, k, n in log if k == "resume" and n == node]
        downs = [t for t, k, n in log if k == "suspend" and n == node]
        assert len(ups) == 1 and len(downs) == 1, f"{node}: power log since the burst: {log}"
        spans[node] = downs[0] - ups[0]
    log_h = sum(spans.values()) / 3600
    led = svc.call("GET", "/v1/ledger", token=ADMIN)[1]
    live_h = sum(led["capacity_by_pool"][p]["node_hours"] for p in ("cloud", "spot"))
    sim_h = simulate(svc, d, 4)
    tol_h = max(0.05 * log_h, 2 * POLL_S / 3600 * 2)  # two polls at each of the two nodes
    print(f"burst: cloud node-seconds: power log {log_h * 3600:.1f} ({spans}), live ledger "
          f"{live_h * 3600:.1f}, simulate {sim_h * 3600:.1f}; pool GPUs while up {booting_seen}")
    assert abs(live_h - log_h) <= tol_h, (live_h * 3600, log_h * 3600, tol_h * 3600)
    assert abs(sim_h - log_h) <= 0.15 * log_h, (sim_h * 3600, log_h * 3600)
    assert led["unattributed_by_pool"]["cloud"]["gpu_hours"] > 0, "idle cloud capacity unpriced"
    assert booting_seen.get("provisioned", 0) == 8, booting_seen
    final = pool_gpus(svc)
    assert final == {"provisioned": 0, "booting": 0, "idle": 0}, final


def failed_power_up(svc):
    marker = os.path.join(POWER, "fail-gpu5")
    open(marker, "w").close()
    t0 = time.time()
    try:
        hold = [svc.submit(f"hold{i}", 600) for i in range(2)]  # the reserved A100 nodes
        wait_for("holders running", lambda: all(svc.job(j)["state"] == "running" for j in hold), 30)
        jid = svc.submit("needs-cloud", 5)
        wait_for("gpu5 failed to resume", lambda: state("gpu5").startswith("down"), 60)
        alert = wait_for("node_power_failed alert", lambda: [
            a for a in svc.call("GET", "/v1/alerts", token=ADMIN)[1].get("active", [])
            if a.get("rule") == "node_power_failed" and a.get("subject") == "gpu5"], 30)
        print("failed power-up reported:", alert[0].get("message"))
        seen = svc.until_done([jid], 90)
        assert seen[jid] == {"gpu6"}, seen
        log = power_log(t0)
        assert ("resume-failed", "gpu5") in [(k, n) for _, k, n in log], log
        assert ("resume", "gpu6") in [(k, n) for _, k, n in log], log
        # While gpu6 is still up (its idle timeout), a job for the reclaim phase lands there.
        spot_job = svc.submit_command("on-spot", SPOT_JOB, 300)
        wait_for("the job running on gpu6", lambda: svc.job(spot_job)["state"] == "running", 10)
    finally:
        os.remove(marker)
        sh("scontrol", "update", "NodeName=gpu5", "State=RESUME")
    wait_for("gpu5 back to powered down", lambda: state("gpu5") == "idle~", 60)
    return hold, spot_job


# Checkpoints on SIGUSR1 (a file in its checkpoint folder); a run that finds it ends in 3 s.
SPOT_JOB = ('mkdir -p "$FRUGAL_CHECKPOINT_DIR"; '
            'if [ -f "$FRUGAL_CHECKPOINT_DIR/ckpt" ]; then sleep 3; exit 0; fi; '
            'trap \'echo saved > "$FRUGAL_CHECKPOINT_DIR/ckpt"\' USR1; '
            'touch "$FRUGAL_CHECKPOINT_DIR/started"; sleep 300 & wait; sleep 300 & wait')


def reclaim(svc, hold, jid, script):
    """The provider reclaims spot node gpu6 under a job: the notice (a drain with reason "spot
    reclaim") makes frugal checkpoint the job within the notice and requeue it; it finishes on
    gpu5, powered up for it."""
    started = os.path.join(svc.dir, "ckpt", str(jid), "started")
    wait_for("the job's process started on gpu6", lambda: os.path.exists(started), 30)
    t0 = time.time()
    seen = {"gpu6"}
    r = subprocess.run(["bash", script, "reclaim", "gpu6", str(NOTICE_S)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    def done():
        j = svc.job(jid)
        if j["state"] == "running":
            seen.update(g["node"] for g in j["placement"]["gpus"])
        return j if j["state"] == "completed" else None
    j = wait_for("the reclaimed job completed elsewhere", done, 90)
    assert seen == {"gpu6", "gpu5"}, seen
    assert j["restart_count"] >= 1, j
    ckpt = os.path.join(svc.dir, "ckpt", str(jid), "ckpt")
    assert os.path.exists(ckpt), f"no checkpoint written on the reclaim notice ({ckpt})"
    log = [(k, n) for _, k, n in power_log(t0)]
    assert [k for k, n in log if n == "gpu6"][:3] == ["reclaim-notice", "reclaim", "suspend"], log
    assert ("resume", "gpu5") in log, log
    print(f"reclaim: job {jid} ran on gpu6, checkpointed within the {NOTICE_S} s notice, "
          f"finished on gpu5 (restart_count {j['restart_count']})")
    for h in hold:
        svc.call("POST", f"/v1/jobs/{h}/cancel")
    for node in ("gpu5", "gpu6"):
        wait_for(f"{node} powered down at the end", lambda: state(node) == "idle~", IDLE_S + 60)


def settle():
    """Both cloud nodes powered down (after an earlier run that failed half-way, too)."""
    for node in ("gpu5", "gpu6"):
        st = state(node)
        if st.startswith("down"):
            sh("scontrol", "update", f"NodeName={node}", "State=RESUME")
        elif st != "idle~" and not st.endswith("%"):
            sh("scontrol", "update", f"NodeName={node}", "State=POWER_DOWN_FORCE")
    for node in ("gpu5", "gpu6"):
        wait_for(f"{node} powered down", lambda: state(node) == "idle~", 60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", required=True)
    ap.add_argument("--unavailable", required=True)
    ap.add_argument("--slurm-local", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "slurm-local.sh"))
    a = ap.parse_args()
    if os.path.exists(a.unavailable) and open(a.unavailable).read().strip():
        print("[  SKIPPED ] local Slurm unavailable:", open(a.unavailable).read().strip())
        return 0
    settle()
    with tempfile.TemporaryDirectory(prefix="frugal-slurm-cloud-") as d:
        os.chmod(d, 0o755)
        svc = Service(a.frugal, d)
        try:
            burst(svc, d)
            hold, spot_job = failed_power_up(svc)
            reclaim(svc, hold, spot_job, a.slurm_local)
            print("ok: cloud nodes powered up for a burst and down after the idle timeout; "
                  "a failed power-up reported and its job placed elsewhere; a spot reclaim "
                  "checkpointed and requeued its job")
        except BaseException:
            svc.stop()
            print(open(os.path.join(d, "serve.log")).read()[-6000:])
            raise
        finally:
            svc.stop()
            ids = sh("squeue", "-h", "-o", "%i %k").stdout.split("\n")
            mine = [l.split()[0] for l in ids if l.strip() and "frugal-" in l]
            cancel_and_wait(mine)
            settle()
    return 0


if __name__ == "__main__":
    sys.exit(main())
