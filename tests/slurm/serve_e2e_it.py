#!/usr/bin/env python3
"""End-to-end: `frugal serve --backend slurm` against the local Slurm (CTest label slurm).

  serve_e2e_it.py --frugal BIN --unavailable MARKER placement   core job on H100, preprocess on A100
  serve_e2e_it.py --frugal BIN --unavailable MARKER preempt     checkpoint signal, then Slurm requeue
  serve_e2e_it.py --frugal BIN --unavailable MARKER outage      slurmctld frozen: retry, nothing lost
  serve_e2e_it.py --frugal BIN --unavailable MARKER compare     same workload as `frugal simulate`
  serve_e2e_it.py --frugal BIN --unavailable MARKER nodedown    node down: job requeued elsewhere
  serve_e2e_it.py --frugal BIN --unavailable MARKER defer       deferral visible as Slurm begin time
  serve_e2e_it.py --frugal BIN --unavailable MARKER external    a job sbatch'ed directly: its GPUs taken
  serve_e2e_it.py --frugal BIN --unavailable MARKER fidelity    history export / import slurm replayed

Each case starts its own daemon on a free loopback port with a temporary database and checks
what the service says against what Slurm says (squeue --json). Standard library only. With
FRUGAL_E2E_KEEP_FAILED=DIR a failing case's directory (database, logs, traces) is copied there.
"""
import argparse, hashlib, json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurm_test_util import ADMIN, TOKEN, TOKEN_SHA, Serve, cancel_and_wait, free_port  # noqa: E402


POLL_S = 0.5  # the service's slurm.poll_interval_s
DECISION_WINDOW_S = 0.01  # the fidelity replay's --decision-window (case_fidelity)


class Service(Serve):
    def __init__(self, frugal, workdir, policy="tiers/hetero", extra=""):
        port = free_port()
        # The service's Slurm jobs carry the comment "frugal-<FNV-1a of the db path>:<id>".
        h = 2166136261
        for ch in os.path.abspath(os.path.join(workdir, "frugal.db")).encode():
            h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
        self.instance = f"frugal-{h:08x}"
        super().__init__(frugal, workdir, f"""listen: 127.0.0.1:{port}
db: {workdir}/frugal.db
backend: slurm
policy: {policy}
checkpoint_grace_s: 3
term_grace_s: 2
log_dir: {workdir}/logs
checkpoint_dir: {workdir}/ckpt
teams:
  alpha: {{token_sha256: {TOKEN_SHA}}}
admin: {{token_sha256: {hashlib.sha256(ADMIN.encode()).hexdigest()}}}
{extra}
slurm:
  rest_url: http://127.0.0.1:6820
  partition: gpu
  poll_interval_s: {POLL_S}
  stale_after_s: 5
  timeout_s: 2
  max_backoff_s: 4
  gres_log: slurm-gres.log
  gpu_map: {{h100: H100, a100: A100-80GB}}
""", port)

    def submit(self, **job):
        status, body = self.call("POST", "/v1/jobs", job)
        assert status == 201, (status, body)
        return body["id"]

    def job(self, jid, token=TOKEN):
        return self.get(f"/v1/jobs/{jid}", token=token)[1]

    def wait(self, jid, pred, timeout=30, what="state", token=TOKEN):
        # Upper bounds for a hang, not timings: doubled for a loaded 2-core CI machine.
        timeout *= 2
        end = time.time() + timeout
        j = None
        while time.time() < end:
            j = self.job(jid, token)
            if pred(j):
                return j
            time.sleep(0.2)
        raise AssertionError(f"job {jid}: {what} not reached in {timeout} s; last {json.dumps(j)}")


INSTANCE = None  # the running Service's instance name


def slurm_jobs():
    """This service's Slurm jobs (comment "<instance>:<id>") by frugal job id."""
    out = subprocess.run(["squeue", "--json"], check=True, capture_output=True, text=True).stdout
    jobs = {}
    for j in json.loads(out)["jobs"]:
        if j["comment"].startswith(INSTANCE + ":"):
            jobs.setdefault(int(j["comment"].split(":")[1]), []).append(j)
    return jobs


def cancel_instance_jobs():
    """Leaves nothing of this test in Slurm, whatever happened: cancels the instance's live
    jobs and waits until Slurm lists none of them (slurm_test_util.cancel_and_wait)."""
    live = ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING")
    cancel_and_wait([j["job_id"] for js in slurm_jobs().values() for j in js
                     if j["job_state"] in live])


def slurm_job(jid):
    """The newest Slurm job of frugal job `jid` (by Slurm id), or None."""
    js = slurm_jobs().get(jid, [])
    return max(js, key=lambda j: j["job_id"]) if js else None


def cancel_all(svc, ids):
    for i in ids:
        svc.call("POST", f"/v1/jobs/{i}/cancel")


def case_placement(svc):
    core = svc.submit(name="core-train", command="sleep 60", gpus=4, tier="core", **{"class": "pretrain"})
    prep = svc.submit(name="prep", command="sleep 60", gpus=1, tier="general", **{"class": "preprocess"})
    jc = svc.wait(core, lambda j: j["state"] == "running")
    jp = svc.wait(prep, lambda j: j["state"] == "running")
    print("service: core ->", json.dumps(jc.get("placement")), "| preprocess ->", json.dumps(jp.get("placement")))
    assert jc["placement"]["gpu_model"] == "H100", jc
    assert jp["placement"]["gpu_model"] == "A100-80GB", jp
    # Slurm runs them where frugal decided, with the GRES type of that model.
    end = time.time() + 20
    while time.time() < end:
        sc, sp = slurm_job(core), slurm_job(prep)
        if sc and sp and sc["job_state"] == "RUNNING" and sp["job_state"] == "RUNNING":
            break
        time.sleep(0.3)
    print("slurm: core", sc["job_id"], sc["nodes"], sc["tres_per_node"], sc["job_state"],
          "| preprocess", sp["job_id"], sp["nodes"], sp["tres_per_node"], sp["job_state"])
    assert sc["job_state"] == "RUNNING" and sp["job_state"] == "RUNNING"
    assert sc["nodes"] == jc["placement"]["node"] and sc["tres_per_node"] == "gres:gpu:h100:4", sc
    assert sp["nodes"] == jp["placement"]["node"] and sp["tres_per_node"] == "gres:gpu:a100:1", sp
    # Tiers as Slurm priorities (slurm.priority_*: core 30000 > important > general 10000).
    print("slurm priority: core", sc["priority"], "| general", sp["priority"])
    assert sc["priority"] == 30000 and sp["priority"] == 10000, (sc["priority"], sp["priority"])
    # Completion flows back: a cancelled job ends in Slurm too.
    cancel_all(svc, [core, prep])
    svc.wait(core, lambda j: j["state"] == "cancelled")
    end = time.time() + 20
    while time.time() < end and slurm_job(core)["job_state"] not in ("CANCELLED", "COMPLETED"):
        time.sleep(0.3)
    assert slurm_job(core)["job_state"] == "CANCELLED", slurm_job(core)


def case_preempt(svc):
    marker = os.path.join(svc.dir, "events.txt")
    gen_cmd = (f"echo start restart=$FRUGAL_RESTART_COUNT slurm=$SLURM_RESTART_COUNT >> {marker}; "
               f"trap 'echo checkpoint >> {marker}' USR1; "
               "for i in $(seq 1 120); do sleep 1 & wait $!; done")
    # Two general jobs fill both H100 nodes; a core job then needs one of them.
    gens = [svc.submit(name=f"general-{k}", command=gen_cmd if k == 0 else "sleep 120", gpus=4,
                       gpu_model="H100", tier="general", grace_s=3) for k in range(2)]
    for g in gens:
        svc.wait(g, lambda j: j["state"] == "running")
    end = time.time() + 20
    while time.time() < end and not os.path.exists(marker):
        time.sleep(0.2)
    core = svc.submit(name="core", command="sleep 60", gpus=4, gpu_model="H100", tier="core")
    jc = svc.wait(core, lambda j: j["state"] == "running", timeout=40, what="core running")
    states = {g: svc.job(g)["state"] for g in gens}
    print("service: core placement", json.dumps(jc["placement"]), "general states", states)
    victim = [g for g in gens if states[g] != "running"]
    assert len(victim) == 1, states
    v = victim[0]
    end = time.time() + 20
    while time.time() < end and slurm_job(v)["job_state"] != "PENDING":
        time.sleep(0.3)
    sv = slurm_job(v)
    print("slurm: victim", sv["job_id"], sv["job_state"], sv["state_reason"], "restarts", sv["restart_cnt"])
    # The victim's Slurm job was requeued (same Slurm job, restarted count 1), not cancelled.
    assert sv["restart_cnt"] == 1 and sv["job_state"] == "PENDING", sv
    if v == gens[0]:
        text = open(marker).read()
        print("job events:", text.replace("\n", " | "))
        # The checkpoint signal reached the job before Slurm requeued (killed) it.
        assert text.startswith("start restart=0 slurm=\ncheckpoint\n"), text
    # The core job runs in Slurm on the victim's node. It is submitted to Slurm only once the
    # victim's run is seen gone (requeued), so it may not exist in Slurm yet.
    end = time.time() + 20
    while time.time() < end and (slurm_job(core) or {}).get("job_state") != "RUNNING":
        time.sleep(0.3)
    sc = slurm_job(core)
    assert sc and sc["job_state"] == "RUNNING" and sc["tres_per_node"] == "gres:gpu:h100:4", sc
    cancel_all(svc, gens + [core])
    # The victim waited in frugal's queue; cancelling it there cancels its held Slurm job.
    end = time.time() + 20
    while time.time() < end and slurm_job(v)["job_state"] != "CANCELLED":
        time.sleep(0.3)
    assert slurm_job(v)["job_state"] == "CANCELLED", slurm_job(v)


def case_outage(svc):
    """slurmctld unreachable: the job is accepted, nothing is started on stale state, it runs
    once Slurm answers again, exactly once."""
    pid = open("/run/frugal-slurm/launch/slurmctld.pid").read().strip()
    os.kill(int(pid), 19)  # SIGSTOP: frozen, state intact
    try:
        t0 = time.time()
        jid = svc.submit(name="during-outage", command="sleep 30", gpus=2, gpu_model="H100", tier="core")
        accepted_s = time.time() - t0
        time.sleep(6)  # longer than stale_after_s: the driver has no fresh state
        j = svc.job(jid)
        log = open(svc.log.name).read()
        print(f"accepted in {accepted_s:.2f} s during the outage; frugal state {j['state']}")
        assert accepted_s < 2, accepted_s
        assert "not answering" in log, log
        assert "→ Slurm job" not in log, log  # nothing submitted while Slurm was away
        # Raised once, through the alerts mechanism (log, webhook, GET /v1/alerts).
        st, al = svc.get("/v1/alerts")
        down = [x for x in al["active"] if x["rule"] == "backend_unreachable"]
        print("alert during the outage:", down)
        assert st == 200 and len(down) == 1 and down[0]["subject"] == "slurm", al
        assert log.count("alert firing: [backend_unreachable]") == 1, log
    finally:
        os.kill(int(pid), 18)  # SIGCONT
    end = time.time() + 30
    while time.time() < end:
        sj = slurm_job(jid)
        if sj and sj["job_state"] == "RUNNING":
            break
        time.sleep(0.3)
    print("after the outage: slurm", sj and (sj["job_id"], sj["nodes"], sj["tres_per_node"], sj["job_state"]))
    assert sj and sj["job_state"] == "RUNNING" and sj["tres_per_node"] == "gres:gpu:h100:2", sj
    assert len(slurm_jobs()[jid]) == 1, slurm_jobs()[jid]  # submitted exactly once
    log = open(svc.log.name).read()
    assert "answering again" in log, log
    st, al = svc.get("/v1/alerts")
    assert not [x for x in al["active"] if x["rule"] == "backend_unreachable"], al
    resolved = [x for x in al["recent"] if x["rule"] == "backend_unreachable"]
    assert len(resolved) == 1 and resolved[0]["resolved_at"] >= resolved[0]["fired_at"], al
    assert log.count("alert resolved: [backend_unreachable]") == 1, log
    cancel_all(svc, [jid])


def case_external(svc):
    """A job submitted with sbatch directly (not through frugal) holding all four H100 of
    gpu3: frugal shows it (team external, /v1/nodes), places its own H100 work only on gpu4,
    never submits what does not fit, refuses to act on it, and accounts for it in the
    ledger; when it ends, its GPUs are frugal's to use."""
    out = subprocess.run(["sbatch", "--parsable", "-p", "gpu", "-w", "gpu3", "--gres=gpu:h100:4",
                          "-J", "outside-job", "-o", "/dev/null", "--wrap", "sleep 120"],
                         check=True, capture_output=True, text=True).stdout
    ext_slurm = int(out.strip().split(";")[0])
    try:
        end = time.time() + 20
        ext = None
        while time.time() < end and not ext:
            jobs = svc.get("/v1/jobs", token=ADMIN)[1]["jobs"]
            ext = next((j for j in jobs if j["team"] == "external" and j["state"] == "running"), None)
            time.sleep(0.3)
        print("frugal sees:", json.dumps(ext))
        assert ext and str(ext_slurm) in ext["name"] and ext["placement"]["node"] == "gpu3", ext
        assert svc.get("/v1/jobs")[1]["jobs"] == [], "team alpha sees the external job"
        nodes = {n["name"]: n for n in svc.get("/v1/nodes")[1]["nodes"]}
        assert all(g["external"] and g["allocated_milli"] == 1000 for g in nodes["gpu3"]["gpus"]), nodes["gpu3"]
        st, body = svc.call("POST", f"/v1/jobs/{ext['id']}/cancel", token=ADMIN)
        assert st == 409, (st, body)
        # frugal's own H100 work: one fits (gpu4), the second must wait, not be overcommitted.
        a = svc.submit(name="h100-a", command="sleep 60", gpus=4, gpu_model="H100", tier="core")
        b = svc.submit(name="h100-b", command="sleep 60", gpus=4, gpu_model="H100", tier="core")
        ja = svc.wait(a, lambda j: j["state"] == "running")
        assert ja["placement"]["node"] == "gpu4", ja
        time.sleep(3)
        jb = svc.job(b)
        print("second H100 job while gpu3 is taken:", jb["state"], jb.get("reason"))
        assert jb["state"] == "queued", jb
        assert b not in slurm_jobs(), slurm_jobs().get(b)  # nothing submitted to Slurm for it
        led = svc.get("/v1/ledger", token=ADMIN)[1]
        print("ledger external:", json.dumps(led["by_team"].get("external")))
        assert led["by_team"]["external"]["gpu_hours"] > 0, led["by_team"]
        # The outside job ends: frugal records it and its GPUs take the waiting job.
        subprocess.run(["scancel", str(ext_slurm)], check=True)
        je = svc.wait(ext["id"], lambda j: j["state"] in ("completed", "failed"), timeout=30,
                      token=ADMIN)
        print("outside job after scancel:", je["state"], je.get("reason"))
        jb = svc.wait(b, lambda j: j["state"] == "running", timeout=30)
        assert jb["placement"]["node"] == "gpu3", jb
        cancel_all(svc, [a, b])
    finally:
        subprocess.run(["scancel", str(ext_slurm)], check=False)


def defer_setup(d):
    """A price series for today and tomorrow (UTC) in which the hour two hours from now is
    the cheap one, and the cluster file that gives the Slurm-backed service that region."""
    now = int(time.time())
    day0 = now - now % 86400
    cheap = now - now % 3600 + 2 * 3600
    with open(os.path.join(d, "prices.csv"), "w") as f:
        f.write("Datetime (UTC),Datetime (Local),Price (USD/MWh)\n")
        for h in range(72):
            t = day0 + 3600 * h
            stamp = time.strftime("%Y-%m-%d %H:%M:%S+00:00", time.gmtime(t))
            f.write(f"{stamp},{stamp},{5 if t == cheap else 200}\n")
    with open(os.path.join(d, "region.yaml"), "w") as f:
        f.write("regions:\n  - name: cheap-nights\n    timezone: UTC\n"
                "    electricity: {prices: prices.csv}\n    pools:\n      - name: slurm\n"
                "        node_groups: [{name: any, count: 1, gpu_model: H100, gpus_per_node: 4}]\n")
    return f"cluster: {d}/region.yaml", cheap


def case_defer(svc, cheap):
    """A deferrable job is deferred to the cheap hour by the timeshift policy; in Slurm it
    waits as a held job whose begin time (squeue START_TIME) is that hour."""
    jid = svc.submit(name="deferrable", command="sleep 5", gpus=1, gpu_model="A100-80GB",
                     deferrable=True, deadline=time.time() + 6 * 3600, estimate_s=600,
                     **{"class": "eval"})
    j = svc.wait(jid, lambda x: x["state"] == "deferred")
    end = time.time() + 20
    sj = None
    while time.time() < end:
        sj = slurm_job(jid)
        if sj and sj["job_state"] == "PENDING" and sj["eligible_time"] > 0:
            break
        time.sleep(0.3)
    print(f"frugal: job {jid} deferred until {time.strftime('%H:%M:%S', time.gmtime(j['deferred_until']))} "
          f"UTC (cheap hour {time.strftime('%H:%M', time.gmtime(cheap))}); slurm: job {sj['job_id']} "
          f"{sj['job_state']} {sj['state_reason']} begin {time.strftime('%H:%M:%S', time.gmtime(sj['eligible_time']))}")
    assert abs(j["deferred_until"] - cheap) < 1, (j["deferred_until"], cheap)
    assert sj["job_state"] == "PENDING" and sj["state_reason"] == "JobHeldUser", sj
    assert sj["eligible_time"] == int(j["deferred_until"]), sj
    cancel_all(svc, [jid])
    end = time.time() + 20
    while time.time() < end and slurm_job(jid)["job_state"] != "CANCELLED":
        time.sleep(0.3)
    assert slurm_job(jid)["job_state"] == "CANCELLED", slurm_job(jid)


def case_nodedown(svc):
    """A node goes down under a running job: frugal requeues it and places it on another
    node of its model; in Slurm the same job runs again there."""
    jid = svc.submit(name="on-a-failing-node", command="sleep 60", gpus=4, gpu_model="H100",
                     tier="general")
    j = svc.wait(jid, lambda x: x["state"] == "running")
    first = j["placement"]["node"]
    end = time.time() + 20
    while time.time() < end and (slurm_job(jid) or {}).get("job_state") != "RUNNING":
        time.sleep(0.3)
    other = "gpu4" if first == "gpu3" else "gpu3"
    # The node fails: its slurmd hangs (SIGSTOP) and it is marked down (as a health check or
    # SlurmdTimeout would); with slurmd answering, ReturnToService would bring it back at once.
    slurmd = int(open(f"/run/frugal-slurm/launch/slurmd-{first}.pid").read())
    os.kill(slurmd, 19)
    subprocess.run(["scontrol", "update", f"nodename={first}", "state=down", "reason=frugal-e2e"],
                   check=True)
    try:
        j2 = svc.wait(jid, lambda x: x["state"] == "running" and x["placement"]["node"] == other,
                      timeout=40, what=f"running again on {other}")
        end = time.time() + 30
        while time.time() < end:
            sj = slurm_job(jid)
            if sj["job_state"] == "RUNNING" and sj["nodes"] == other:
                break
            time.sleep(0.3)
        print(f"frugal: {first} down -> job {jid} restart_count {j2['restart_count']} on "
              f"{j2['placement']['node']}; slurm: job {sj['job_id']} {sj['job_state']} on {sj['nodes']} "
              f"restarts {sj['restart_cnt']}; slurm jobs of it: {len(slurm_jobs()[jid])}")
        assert sj["job_state"] == "RUNNING" and sj["nodes"] == other, sj
        assert j2["restart_count"] == 1, j2
    finally:
        os.kill(slurmd, 18)
        subprocess.run(["scontrol", "update", f"nodename={first}", "state=resume"], check=False)
        end = time.time() + 30
        while time.time() < end and "down" in subprocess.run(
                ["sinfo", "-h", "-n", first, "-o", "%t"], capture_output=True, text=True).stdout:
            time.sleep(0.3)
    cancel_all(svc, [jid])


WORKLOAD = [  # id, gpus, model, duration on the reference model (A100-80GB), seconds
    ("j1", 8, "A100-80GB", 30), ("j2", 8, "A100-80GB", 15), ("j3", 8, "A100-80GB", 15),
    ("j4", 4, "H100", 37.5), ("j5", 4, "H100", 37.5), ("j6", 4, "H100", 75)]
NODE_MODEL = {"gpu1": "A100-80GB", "gpu2": "A100-80GB", "gpu3": "H100", "gpu4": "H100"}


def case_compare(svc):
    """The same workload through the Slurm backend and through `frugal simulate`: start
    order, GPU models and makespan (within 10%)."""
    d = svc.dir
    with open(os.path.join(d, "trace.csv"), "w") as f:
        f.write("id,submit,gpus,allowed_models,duration,estimate,class\n")
        for jid, g, m, dur in WORKLOAD:
            f.write(f"{jid},0,{g},{m},{dur},{dur},pretrain\n")
    with open(os.path.join(d, "cluster.yaml"), "w") as f:
        f.write("regions:\n  - name: default\n    pools:\n      - name: slurm\n        node_groups:\n"
                "          - {name: a100, count: 2, gpu_model: A100-80GB, gpus_per_node: 8}\n"
                "          - {name: h100, count: 2, gpu_model: H100, gpus_per_node: 4}\n")
    sim = subprocess.run([svc.frugal, "simulate", "--trace", f"{d}/trace.csv", "--cluster",
                          f"{d}/cluster.yaml", "--policy", "backfill", "--reference-model",
                          "A100-80GB", "--jobs-out", f"{d}/sim.csv", "--format", "json"],
                         check=True, capture_output=True, text=True)
    sim_makespan = json.loads(sim.stdout)["makespan_s"]
    simj = {r["id"]: (float(r["first_start"]), float(r["finish"]), r["model"])
            for r in csv_rows(f"{d}/sim.csv")}
    # The live run: each job sleeps its duration at the speed of the model it was given
    # (the catalog's pretrain speed relative to A100-80GB, from `frugal catalog`).
    speed = {}
    for line in subprocess.run([svc.frugal, "catalog"], check=True, capture_output=True,
                               text=True).stdout.split("\n")[1:]:
        parts = line.split()
        if len(parts) >= 3:
            speed[parts[0]] = float(parts[2])
    ids = {}
    t0 = time.time()
    for jid, g, m, dur in WORKLOAD:
        secs = dur / (speed[m] / speed["A100-80GB"])
        ids[jid] = svc.submit(name=jid, command=f"sleep {secs:g}", gpus=g, gpu_model=m,
                              estimate_s=dur, **{"class": "pretrain"})
    for jid in ids:
        svc.wait(ids[jid], lambda j: j["state"] == "completed", timeout=120, what="completed")
    live = {}
    for jid, fid in ids.items():
        sj = slurm_job(fid)
        live[jid] = (sj["start_time"] - t0, sj["end_time"] - t0, NODE_MODEL[sj["nodes"]], sj["nodes"])
    live_makespan = max(v[1] for v in live.values())
    print(f"{'job':4} {'sim start':>9} {'sim end':>8} {'sim model':>10} | {'slurm start':>11} "
          f"{'slurm end':>9} {'slurm model':>11} node")
    for jid, *_ in WORKLOAD:
        a, b = simj[jid], live[jid]
        print(f"{jid:4} {a[0]:9.1f} {a[1]:8.1f} {a[2]:>10} | {b[0]:11.1f} {b[1]:9.1f} {b[2]:>11} {b[3]}")
    print(f"makespan: simulate {sim_makespan:.1f} s, slurm {live_makespan:.1f} s "
          f"({100 * (live_makespan - sim_makespan) / sim_makespan:+.1f}%)")
    for jid, *_ in WORKLOAD:
        assert simj[jid][2] == live[jid][2], (jid, simj[jid], live[jid])  # same GPU model
    # Start order: whenever the simulation starts a before b, Slurm does not start b first
    # (starts within 3 s count as together: Slurm's clock is whole seconds, plus polling).
    for a, *_ in WORKLOAD:
        for b, *_ in WORKLOAD:
            if simj[a][0] < simj[b][0]:
                assert live[a][0] <= live[b][0] + 3, (a, b, live[a], live[b])
            if simj[a][0] == simj[b][0]:
                assert abs(live[a][0] - live[b][0]) <= 3, (a, b, live[a], live[b])
    assert abs(live_makespan - sim_makespan) <= 0.10 * sim_makespan, (live_makespan, sim_makespan)


# id, GPUs, work (seconds on A100-80GB, class pretrain), submission (s after the first). No
# job names a GPU model: backfill places each, and each sleeps its work at the speed of the
# model it got (H100: 2.5x), so a replay that places it alike runs it as long. 24 GPUs, 12
# jobs: most queue behind the first four. Every run outlives its estimate by Slurm's launch
# latency, and f7/f10 (H100, 2.4 s) tend to end within a poll of f3/f4 (A100): the replay
# must decide when the service did (estimates running out, turns tens of ms apart).
FIDELITY_WORKLOAD = [
    ("f1", 8, 20, 0), ("f2", 8, 12.5, 0), ("f3", 4, 15, 0), ("f4", 4, 15, 0),
    ("f5", 8, 7.5, 0), ("f6", 4, 25, 0), ("f7", 2, 6, 0), ("f8", 8, 15, 0),
    ("f9", 4, 12.5, 0), ("f10", 1, 6, 0), ("f11", 8, 7.5, 12), ("f12", 4, 20, 12)]


def slurm_launch_bound():
    """The longest Slurm takes to start a job frugal released: its next scheduling pass, the
    main scheduler's or the backfill scheduler's (sched_interval, bf_interval; Slurm's
    defaults 60 and 30 s; deploy/slurm-local: 2 and 2)."""
    out = subprocess.run(["scontrol", "show", "config"], check=True, capture_output=True,
                         text=True).stdout
    params = dict(sched_interval=60.0, bf_interval=30.0)
    for line in out.split("\n"):
        if line.startswith("SchedulerParameters"):
            for kv in line.split("=", 1)[1].strip().split(","):
                k, _, v = kv.partition("=")
                if k in params and v:
                    params[k] = float(v)
    return min(params.values())


def trace_epoch(stderr):
    """The Unix time of "times in seconds from <ISO UTC>" in an export/import summary."""
    stamp = stderr.split("times in seconds from ")[1].split(",")[0].split(" ")[0]
    return float(time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone)


def csv_rows(path):
    lines = [x for x in open(path).read().split("\n") if x]
    head = lines[0].split(",")
    return [dict(zip(head, x.split(","))) for x in lines[1:]]  # no quoted cells here


def replay(svc, trace, epoch, policy, tag, extra=()):
    """`frugal simulate --jobs-out` of `trace` under `policy` on the service's cluster: per
    trace id (start, finish) in Unix seconds and the GPU model it ran on."""
    d = svc.dir
    subprocess.run([svc.frugal, "simulate", "--trace", trace, "--cluster", f"{d}/cluster.yaml",
                    "--policy", policy, "--jobs-out", f"{d}/{tag}-jobs.csv", "--format", "json",
                    "--out", f"{d}/{tag}.json", *extra], check=True, capture_output=True, text=True)
    return {r["id"]: (epoch + float(r["first_start"]), epoch + float(r["finish"]), r["model"])
            for r in csv_rows(f"{d}/{tag}-jobs.csv")}


def case_fidelity(svc, policy):
    """Jobs through serve on Slurm; the service's history (`history export`) and Slurm's own
    accounting (`import slurm` of its jobcomp file with the service's GRES log), each
    replayed under the active policy on the service's cluster, give back every job's start
    and GPU model and the makespan.

    Allowances (each printed with what was measured):
    - history replay vs the starts the service recorded (the trace's first_start): the poll
      interval; the replay is the same engine on the same events, deciding at the same
      instants (the ends the history holds, and, with --wake-at-estimates as the service's
      engine, the expected ends of runs that outlive their estimates while jobs wait). It
      decides the events within DECISION_WINDOW_S together (--decision-window): ends the
      service saw in one turn reach its history microseconds apart (each job's start lagged
      its submission by its own decision latency: 10-60 us measured), while two turns that
      saw ends are tens of milliseconds apart or more (a start makes the Slurm driver poll
      at once: 53 ms apart measured). Half a poll, as before, merged such turns.
    - history replay vs Slurm's start: the poll interval plus Slurm's launch latency L (from
      frugal's release to Slurm's start: its next scheduling pass, slurm_launch_bound()).
    - Slurm accounting replay vs Slurm's start: the same plus 1 s, Slurm's times being whole
      seconds (a job is submitted to Slurm when frugal starts it, so its Slurm submission,
      floored to the second, is when the replay starts it).
    - makespan (first submission to last end) within 10 %: the errors above at the last end
      are at most poll + L + 1 s, under 10 % of this workload's ~40 s."""
    d = svc.dir
    with open(os.path.join(d, "cluster.yaml"), "w") as f:
        f.write("regions:\n  - name: default\n    pools:\n      - name: slurm\n        node_groups:\n"
                "          - {name: a100, count: 2, gpu_model: A100-80GB, gpus_per_node: 8}\n"
                "          - {name: h100, count: 2, gpu_model: H100, gpus_per_node: 4}\n")
    speed = {}
    for line in subprocess.run([svc.frugal, "catalog"], check=True, capture_output=True,
                               text=True).stdout.split("\n")[1:]:
        parts = line.split()
        if len(parts) >= 3:
            speed[parts[0]] = float(parts[2])
    h100 = speed["H100"] / speed["A100-80GB"]
    launch = slurm_launch_bound()
    ids = {}
    t0 = time.time()
    for name, g, work, at in FIDELITY_WORKLOAD:
        time.sleep(max(0.0, t0 + at - time.time()))
        cmd = f'case "$SLURMD_NODENAME" in gpu3|gpu4) sleep {work / h100:g};; *) sleep {work:g};; esac'
        ids[name] = svc.submit(name=name, command=cmd, gpus=g, estimate_s=work,
                               **{"class": "pretrain"})
    for name in ids:
        svc.wait(ids[name], lambda j: j["state"] == "completed", timeout=120, what="completed")
    # The truth: Slurm's own start and end of each job (squeue --json, whole seconds).
    real, slurm_id = {}, {}
    for name, fid in ids.items():
        sj = slurm_job(fid)
        first = sj["nodes"].replace("[", "").split("-")[0].split(",")[0]  # gpu[3-4] -> gpu3
        real[name] = (sj["start_time"], sj["end_time"], NODE_MODEL[first], sj["nodes"])
        slurm_id[name] = str(sj["job_id"])
    real_makespan = max(v[1] for v in real.values()) - t0

    # (1) The service's database as a trace.
    ex = subprocess.run([svc.frugal, "history", "export", "--db", f"{d}/frugal.db", "--out",
                         f"{d}/history.csv"], check=True, capture_output=True, text=True)
    print(ex.stderr.strip())
    hist_epoch = trace_epoch(ex.stderr)
    hist = {r["name"]: r for r in csv_rows(f"{d}/history.csv")}
    # (2) Slurm's accounting as a trace: the jobcomp records of this test's jobs (the file
    # holds every test's), the GRES log the service wrote, the nodes as sinfo shows them;
    # each job kept on the GPU model it ran on (--pin-models: the records carry frugal's
    # placement, not a request).
    jobcomp = "/var/log/frugal-slurm/jobcomp.log"
    want = set(slurm_id.values())
    end = time.time() + 30
    lines = []
    while time.time() < end:
        lines = [x for x in open(jobcomp).read().split("\n")
                 if x.startswith("JobId=") and x.split()[0][6:] in want]
        if len(lines) == len(want):
            break
        time.sleep(0.3)
    assert len(lines) == len(want), (lines, want)
    with open(f"{d}/jobcomp.log", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(f"{d}/nodes.json", "w") as f:
        f.write(subprocess.run(["sinfo", "--json"], check=True, capture_output=True, text=True).stdout)
    im = subprocess.run([svc.frugal, "import", "slurm", "--jobcomp", f"{d}/jobcomp.log",
                         "--gres-log", f"{d}/slurm-gres.log", "--sinfo", f"{d}/nodes.json",
                         "--utc-offset", str(time.localtime().tm_gmtoff), "--pin-models",
                         "--out", f"{d}/slurm.csv"], check=True, capture_output=True, text=True)
    print(im.stderr.strip())
    slurm_epoch = trace_epoch(im.stderr)

    # As the service decides: also when a run outlives its estimate (its engine's option).
    live = ["--wake-at-estimates"]
    window = ["--decision-window", f"{DECISION_WINDOW_S:g}", *live]
    reps = {"history": (replay(svc, f"{d}/history.csv", hist_epoch, policy, "history", window),
                        {n: r["id"] for n, r in hist.items()}, POLL_S + launch),
            "slurm": (replay(svc, f"{d}/slurm.csv", slurm_epoch, policy, "slurm", live), slurm_id,
                      POLL_S + launch + 1)}
    print("seconds from the first submission; Slurm's times are whole seconds")
    print(f"{'job':4} {'gpus':>4} {'recorded':>8} | {'slurm start':>11} {'end':>5} {'model':>9} | "
          f"{'history replay':>14} {'end':>5} {'model':>9} | {'slurm replay':>12} {'end':>5} {'model':>9}")
    worst = {k: 0.0 for k in reps}
    worst_recorded = 0.0
    lag = []  # Slurm's start - the service's recorded start
    for name, g, *_ in FIDELITY_WORKLOAD:
        r = real[name]
        recorded = hist_epoch + float(hist[name]["first_start"])
        lag.append(r[0] - recorded)
        row = f"{name:4} {g:4} {recorded - t0:8.2f} | {r[0] - t0:11.0f} {r[1] - t0:5.0f} {r[2]:>9} |"
        for k, (rep, idmap, _) in reps.items():
            p = rep[idmap[name]]
            worst[k] = max(worst[k], abs(p[0] - r[0]))
            if k == "history":
                worst_recorded = max(worst_recorded, abs(p[0] - recorded))
            row += f" {p[0] - t0:{14 if k == 'history' else 12}.2f} {p[1] - t0:5.1f} {p[2]:>9} |"
        print(row)
    print(f"Slurm start - recorded start (launch, whole-second Slurm clock): {min(lag):+.2f} .. "
          f"{max(lag):+.2f} s; launch bound L {launch:g} s (Slurm's next scheduling pass)")
    print(f"history replay: max |start - recorded start| {worst_recorded:.2f} s (allowance "
          f"{POLL_S:g} s)")
    # The window's premise: longer than the decision lag, shorter than the gap between turns.
    ends = sorted({float(r["end"]) for r in hist.values()})
    gaps = [b - a for a, b in zip(ends, ends[1:])] or [float("inf")]
    lags = [float(r["first_start"]) - float(r["submit"]) for r in hist.values()]
    lags = [x for x in lags if x < DECISION_WINDOW_S] or [float("nan")]
    print(f"decision window {DECISION_WINDOW_S * 1e3:g} ms: submission-to-start lag of the jobs "
          f"started on arrival {min(lags) * 1e3:.3f} .. {max(lags) * 1e3:.3f} ms; turns that saw "
          f"ends at least {min(gaps) * 1e3:.0f} ms apart")
    makespans = {k: max(p[1] for p in rep.values()) - t0 for k, (rep, *_) in reps.items()}
    for k, (_, _, allowance) in reps.items():
        print(f"{k} replay ({policy}): max |start - Slurm start| {worst[k]:.2f} s (allowance "
              f"{allowance:g} s); makespan {makespans[k]:.1f} s vs real {real_makespan:.1f} s "
              f"({100 * (makespans[k] - real_makespan) / real_makespan:+.1f}%)")
    assert worst_recorded <= POLL_S, worst_recorded
    for k, (rep, idmap, allowance) in reps.items():
        for name, *_ in FIDELITY_WORKLOAD:
            p, r = rep[idmap[name]], real[name]
            assert abs(p[0] - r[0]) <= allowance, (k, name, p, r)
            assert p[2] == r[2], (k, name, p, r)  # placed on the same GPU model
        assert abs(makespans[k] - real_makespan) <= 0.10 * real_makespan, (k, makespans[k], real_makespan)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", required=True)
    ap.add_argument("--unavailable", required=True)
    ap.add_argument("case", choices=["placement", "preempt", "outage", "compare", "nodedown", "defer",
                                     "external", "fidelity"])
    a = ap.parse_args()
    if os.path.exists(a.unavailable) and open(a.unavailable).read().strip():
        print("[  SKIPPED ] local Slurm unavailable:", open(a.unavailable).read().strip())
        return 0
    # Start from a settled cluster: all four nodes of partition gpu usable (a restart test may
    # have just run; the cloud nodes of partition `cloud` stay powered down).
    end = time.time() + 30
    while time.time() < end:
        out = subprocess.run(["sinfo", "-h", "-N", "-p", "gpu", "-o", "%t"], capture_output=True,
                             text=True).stdout
        if sorted(out.split()) == ["idle"] * 4:
            break
        time.sleep(0.3)
    with tempfile.TemporaryDirectory(prefix="frugal-slurm-e2e-") as d:
        os.chmod(d, 0o755)
        # placement: heterogeneity-aware tiers; preempt: plain tiers (explicit H100 requests),
        # whose checkpoint grace is the config's 3 s.
        policy = {"placement": "tiers/hetero", "compare": "backfill", "fidelity": "backfill",
                  "defer": "timeshift"}.get(a.case, "tiers")
        extra, cheap = defer_setup(d) if a.case == "defer" else ("", 0)
        svc = Service(a.frugal, d, policy, extra)
        svc.log.flush()
        global INSTANCE
        INSTANCE = svc.instance
        try:
            {"placement": case_placement, "preempt": case_preempt, "outage": case_outage,
             "compare": case_compare, "nodedown": case_nodedown, "external": case_external,
             "defer": lambda s: case_defer(s, cheap),
             "fidelity": lambda s: case_fidelity(s, policy)}[a.case](svc)
        except BaseException:
            svc.stop()
            cancel_instance_jobs()
            if os.environ.get("FRUGAL_E2E_KEEP_FAILED"):  # the case's files, for a post-mortem
                shutil.copytree(d, os.environ["FRUGAL_E2E_KEEP_FAILED"])
            print("---- serve.log ----\n" + open(os.path.join(d, "serve.log")).read())
            raise
        svc.stop()
        cancel_instance_jobs()
        text = open(os.path.join(d, "serve.log"), errors="replace").read()
        print("serve.log:\n" + text)
        # UBSan prints to the daemon's stderr only (scripts/sanitize.sh): any report fails.
        for marker in ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                       "WARNING: ThreadSanitizer"):
            assert marker not in text, f"sanitizer report in serve.log ({marker})"
    print("ok:", a.case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
