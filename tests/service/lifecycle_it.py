"""`frugal serve`: jobs run to completion with their environment and logs; cancel, hold,
release and priority; 401 / 404 / 400 / 413; /metrics, /v1/nodes, /v1/ledger, /v1/alerts;
the CLI client commands."""
import os
import subprocess
import time

from harness import ADMIN, ALPHA, BETA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2)
try:
    d.start()
    # A job runs to completion; its stdout goes to its log; it sees its GPU and restart count.
    ok = d.submit({"name": "hello", "command":
                   'echo "cvd=$CUDA_VISIBLE_DEVICES restart=$FRUGAL_RESTART_COUNT '
                   'ckpt=$FRUGAL_CHECKPOINT_DIR mine=$MINE"; '
                   '[ -d "$FRUGAL_CHECKPOINT_DIR" ] && echo ckpt_exists',
                   "env": {"MINE": "yes"}})
    j = d.wait_state(ok, ["completed", "failed"])
    check(j["state"] == "completed" and j["exit_code"] == 0, f"hello: {j}")
    out = d.read_log(ok)
    check("restart=0" in out and "mine=yes" in out, f"hello's log: {out!r}")
    check("cvd=0" in out or "cvd=1" in out, f"hello saw no GPU: {out!r}")
    # The folder exists while the job runs; it ends empty, so it is removed (retention).
    check("ckpt_exists" in out, f"checkpoint dir not created: {out!r}")
    check(not os.path.exists(out.split("ckpt=")[1].split()[0]), "an empty checkpoint dir kept")
    # A failing job: failed, with its exit code; stderr captured.
    bad = d.submit({"command": "echo oops >&2; exit 3"})
    j = d.wait_state(bad, ["completed", "failed"])
    check(j["state"] == "failed" and j["exit_code"] == 3, f"exit 3: {j}")
    check("oops" in d.read_log(bad, "err"), "stderr not captured")
    # A fractional job gets its MPS share and memory cap; a CPU-only job no GPU.
    frac = d.submit({"command": 'echo "pct=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE '
                     'mem=$FRUGAL_GPU_MEMORY_LIMIT_MIB"', "gpus": 1, "gpu_milli": 250})
    cpu = d.submit({"command": 'echo "cvd=[$CUDA_VISIBLE_DEVICES]"', "gpus": 0})
    d.wait_state(frac, ["completed"])
    d.wait_state(cpu, ["completed"])
    check("pct=25 " in d.read_log(frac), f"fractional env: {d.read_log(frac)!r}")
    check("mem=" in d.read_log(frac) and "mem=\n" not in d.read_log(frac), "no memory cap")
    check("cvd=[]" in d.read_log(cpu), f"CPU-only job saw GPUs: {d.read_log(cpu)!r}")

    # Fill both GPUs, then queue a third job: cancel it while queued; hold/release another.
    long1 = d.submit({"command": "sleep 30", "gpus": 2})
    d.wait_state(long1, ["running"])
    q1 = d.submit({"command": "echo never"})
    q2 = d.submit({"command": "echo later"})
    check(d.job(q1)["state"] == "queued", "q1 should queue behind long1")
    s, r = d.request("POST", f"/v1/jobs/{q1}/cancel", token=ALPHA)
    check(s == 200 and r["state"] == "cancelled", f"cancel queued: {s} {r}")
    s, r = d.request("POST", f"/v1/jobs/{q2}/hold", token=ALPHA)
    check(s == 200 and r["held"], f"hold: {s} {r}")
    s, r = d.request("POST", f"/v1/jobs/{q2}/priority", {"tier": "core"}, token=ALPHA)
    check(s == 200 and r["tier"] == "core", f"priority: {s} {r}")
    s, r = d.request("POST", f"/v1/jobs/{q1}/cancel", token=ALPHA)
    check(s == 409, f"second cancel answered {s}")
    # Cancel the running job: it is stopped (SIGTERM) and ends cancelled; q2 stays held.
    s, r = d.request("POST", f"/v1/jobs/{long1}/cancel", token=ALPHA)
    check(s == 200, f"cancel running: {s} {r}")
    j = d.wait_state(long1, ["cancelled"], timeout_s=20)
    time.sleep(0.5)
    check(d.job(q2)["state"] == "queued" and d.job(q2)["held"], "held job started")
    s, r = d.request("POST", f"/v1/jobs/{q2}/release", token=ALPHA)
    check(s == 200, f"release: {s} {r}")
    d.wait_state(q2, ["completed"])
    check(d.read_log(q1) == "", "a cancelled queued job ran")

    # Auth and validation.
    s, r = d.request("GET", f"/v1/jobs/{ok}")
    check(s == 401, f"no token answered {s}")
    s, r = d.request("GET", f"/v1/jobs/{ok}", token="wrong")
    check(s == 401, f"bad token answered {s}")
    s, r = d.request("GET", f"/v1/jobs/{ok}", token=BETA)
    check(s == 404, f"other team's job answered {s}")
    s, r = d.request("POST", f"/v1/jobs/{ok}/cancel", token=BETA)
    check(s == 404, f"other team's cancel answered {s}")
    s, r = d.request("GET", f"/v1/jobs/{ok}", token=ADMIN)
    check(s == 200, f"admin answered {s}")
    s, r = d.request("GET", "/v1/jobs", token=BETA)
    check(s == 200 and r["jobs"] == [], f"beta sees alpha's jobs: {r}")
    s, r = d.request("POST", "/v1/jobs", raw='{"command": ', token=ALPHA)
    check(s == 400 and r.get("field") == "body", f"garbage JSON: {s} {r}")
    for body, field in [({"command": "true", "gpus": -3}, "gpus"),
                        ({"command": "true", "gpu_milli": 1001}, "gpu_milli"),
                        ({"command": "true", "tier": "platinum"}, "tier"),
                        ({"command": "true", "gpus": 3}, "gpus"),  # never fits 2 GPUs
                        ({"name": "x"}, "command")]:
        s, r = d.request("POST", "/v1/jobs", body, token=ALPHA)
        check(s == 400 and r.get("field") == field, f"{body}: {s} {r}")
    s, r = d.request("POST", "/v1/jobs", raw='{"command":"' + "x" * 70000 + '"}', token=ALPHA)
    check(s == 413, f"oversized body answered {s}")
    s, r = d.request("GET", "/v1/jobs/abc", token=ALPHA)
    check(s == 404, f"non-numeric id answered {s}")

    # Views.
    s, text = d.request("GET", "/metrics")
    check(s == 200 and "# TYPE frugal_decision_latency_seconds histogram" in text, "metrics")
    for name in ["frugal_queue_length", "frugal_gpus_allocated", "frugal_gpus_idle",
                 "frugal_decisions_per_second", "frugal_cost_usd"]:
        check(f"\n{name} " in text, f"/metrics lacks {name}")
    s, r = d.request("GET", "/v1/nodes", token=ALPHA)
    check(s == 200 and r["nodes"][0]["name"] == "testnode" and len(r["nodes"][0]["gpus"]) == 2,
          f"nodes: {r}")
    s, r = d.request("GET", "/v1/ledger", token=ADMIN)
    check(s == 200 and r["cost"]["total_usd"] > 0 and "alpha" in r["by_team"], f"ledger: {r}")
    check(any(x["id"] == ok for x in r["jobs"]), "ledger lacks the completed job")
    s, r = d.request("GET", "/v1/ledger", token=BETA)
    check(s == 200 and r["jobs"] == [] and "alpha" not in r["by_team"], f"beta's ledger: {r}")
    # ?jobs=ID,...: the per-job list of those jobs only (the dashboard's rows), totals kept.
    s, r = d.request("GET", f"/v1/ledger?jobs={ok}", token=ALPHA)
    check(s == 200 and [x["id"] for x in r["jobs"]] == [ok] and "alpha" in r["by_team"],
          f"ledger?jobs={ok}: {r}")
    s, r = d.request("GET", "/v1/ledger?jobs=", token=ADMIN)
    check(s == 200 and r["jobs"] == [] and r["cost"]["total_usd"] > 0, f"ledger?jobs=: {r}")
    s, r = d.request("GET", f"/v1/ledger?jobs={ok}", token=BETA)
    check(s == 200 and r["jobs"] == [], f"beta asking for alpha's job: {r}")
    s, r = d.request("GET", "/v1/ledger?jobs=1,x", token=ALPHA)
    check(s == 400 and r.get("field") == "jobs", f"ledger?jobs=1,x: {s} {r}")
    s, r = d.request("GET", "/v1/alerts", token=ALPHA)
    check(s == 200 and "active" in r, f"alerts: {r}")

    # The CLI client.
    env = dict(os.environ, FRUGAL_TOKEN=ALPHA)
    server = f"http://127.0.0.1:{d.port}"
    p = subprocess.run([a.frugal, "submit", "--server", server, "--name", "cli", "--gpus", "0",
                        "--", "echo", "from-cli"], capture_output=True, text=True, env=env)
    check(p.returncode == 0, f"frugal submit: {p.stderr}")
    import json
    cid = json.loads(p.stdout)["id"]
    d.wait_state(cid, ["completed"])
    p = subprocess.run([a.frugal, "jobs", "--server", server], capture_output=True, text=True,
                       env=env)
    check(p.returncode == 0 and "from-cli" in p.stdout, f"frugal jobs: {p.stdout} {p.stderr}")
    p = subprocess.run([a.frugal, "cancel", "--server", server, str(cid)], capture_output=True,
                       text=True, env=env)
    check(p.returncode == 1 and "409" in p.stderr, f"frugal cancel of a done job: {p.stderr}")
    # `frugal ledger`: the service's ledger, as a table (by team, total) or its JSON.
    s, led = d.request("GET", "/v1/ledger", token=ADMIN)
    p = subprocess.run([a.frugal, "ledger", "--server", server, "--json", "--token", ADMIN],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"frugal ledger --json: {p.stderr}")
    cli = json.loads(p.stdout)
    check(abs(cli["cost"]["total_usd"] - led["cost"]["total_usd"]) < 1e-6 * max(1, led["cost"]["total_usd"]) + 0.01
          and set(cli["by_team"]) == set(led["by_team"]), f"frugal ledger --json: {cli} vs {led}")
    p = subprocess.run([a.frugal, "ledger", "--server", server, "--token", ADMIN],
                       capture_output=True, text=True)
    rows = {l.split()[0]: l.split() for l in p.stdout.splitlines() if l.strip()}
    check(p.returncode == 0 and "alpha" in rows and "TOTAL" in rows
          and abs(float(rows["alpha"][-1]) - led["by_team"]["alpha"]["total_usd"]) < 0.01,
          f"frugal ledger: {p.stdout} {p.stderr}")
    p = subprocess.run([a.frugal, "ledger", "--server", server], capture_output=True, text=True,
                       env=env)  # a team sees its own account only
    check(p.returncode == 0 and "alpha" in p.stdout and "TOTAL" not in p.stdout,
          f"frugal ledger as alpha: {p.stdout} {p.stderr}")
    p = subprocess.run([a.frugal, "jobs", "--server", server, "--token", "nope"],
                       capture_output=True, text=True)
    check(p.returncode == 1 and "401" in p.stderr, "frugal jobs with a bad token")

    d.stop()
    states = d.db_check()
    check(states[ok] == "completed" and states[q1] == "cancelled", f"stored states {states}")
    print("ok: lifecycle")
finally:
    d.cleanup(a.keep)
