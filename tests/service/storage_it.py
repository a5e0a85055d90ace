"""Storage in `frugal serve` (docs/API.md, "Storage"): a tier folder that does not exist stops
the service at start naming the field; without `storage:` a job declaring datasets is a 400;
a dataset registered through the API (POST /v1/datasets) and declared by jobs of two teams is
stored once (GET /v1/storage) and both jobs' processes read its exact bytes through
FRUGAL_DATASET_DIR; an unregistered name@version is a 400 naming it; the simulator's
`dataset` field stays refused; a preempted job whose checkpoint the lifecycle moved to the
cold tier resumes from it (restore_s in its JSON), its staging stored and charged (staging_s,
staging_usd in its JSON, its ledger row and its team's) across a restart of the service; the
ledger's `storage` block (the real-bytes bill) shows every team and the total to the admin,
its own team only to a team, the teams summing to the total and the cold restore priced at the
cold tier's transfer_usd_per_gb."""
import hashlib
import os
import subprocess
import time

from harness import ADMIN, ALPHA, BETA, Daemon, args, check, fail

a = args()


def storage_yaml(root, hot=None, lifecycle="{keep_hot: 2}", roots=()):
    tiers = {name: os.path.join(root, name) for name in ("hot", "warm", "cold")}
    for p in tiers.values():
        os.makedirs(p, exist_ok=True)
    if hot:
        tiers["hot"] = hot
    return f"""storage:
  tiers:
    hot: {{path: {tiers['hot']}, usd_per_gb_month: 0.10}}
    warm: {{path: {tiers['warm']}, usd_per_gb_month: 0.03}}
    cold: {{path: {tiers['cold']}, usd_per_gb_month: 0.004, transfer_usd_per_gb: 0.5}}
  lifecycle: {lifecycle}
  lifecycle_interval_s: 1
  dataset_roots: [{", ".join(roots)}]
"""


def logs(d, jid, token):
    s, r = d.request("GET", f"/v1/jobs/{jid}/logs?stream=out", token=token)
    check(s == 200, f"logs of {jid}: {s} {r}")
    return r["text"]


# 1. A tier folder that does not exist: the service refuses to start, naming the field.
d = Daemon(a.frugal, gpus=1)
try:
    with open(d.config, "a") as f:
        f.write(storage_yaml(d.dir, hot=os.path.join(d.dir, "no-such-folder")))
    p = subprocess.run([a.frugal, "serve", "--config", d.config, "--db", d.db],
                       capture_output=True, text=True, timeout=30, cwd=d.dir)
    check(p.returncode != 0 and "storage.tiers.hot" in p.stderr and "no-such-folder" in p.stderr,
          f"a missing hot tier: rc {p.returncode}, stderr {p.stderr[-2000:]}")
finally:
    d.cleanup(a.keep)

# 2. Storage off: datasets are refused, the simulator's dataset field too; no storage view.
d = Daemon(a.frugal, gpus=1)
try:
    d.start()
    s, r = d.request("POST", "/v1/jobs", {"command": "true", "datasets": ["corpus@v1"]}, ALPHA)
    check(s == 400 and r.get("field") == "datasets" and "not configured" in r.get("error", ""),
          f"datasets without storage: {s} {r}")
    s, r = d.request("POST", "/v1/jobs", {"command": "true", "dataset": "corpus"}, ALPHA)
    check(s == 400 and r.get("field") == "dataset" and "datasets" in r.get("error", ""),
          f"the simulator's dataset field: {s} {r}")
    s, r = d.request("GET", "/v1/storage", token=ADMIN)
    check(s == 404, f"GET /v1/storage without storage: {s} {r}")
finally:
    d.cleanup(a.keep)

# 3. Storage on: one dataset, two teams, stored once, read by both jobs.
d = Daemon(a.frugal, gpus=1, grace_s=5,
           extra="")
try:
    with open(d.config, "a") as f:
        f.write(storage_yaml(d.dir, lifecycle="{keep_hot: 0, warm_after_s: 0, cold_after_s: 0}",
                             roots=[os.path.join(d.dir, "shared")]))
    src = os.path.join(d.dir, "shared", "corpus")
    os.makedirs(os.path.join(src, "sub"))
    files = {"a.bin": os.urandom(200_000), "sub/b.txt": b"hello frugal\n" * 100}
    for rel, data in files.items():
        with open(os.path.join(src, rel), "wb") as f:
            f.write(data)
    total = sum(len(v) for v in files.values())
    d.start()

    s, r = d.request("POST", "/v1/datasets", {"name": "corpus@v1", "path": src}, ALPHA)
    check(s == 201 and r.get("bytes") == total and r.get("files") == 2, f"register: {s} {r}")
    s, r = d.request("POST", "/v1/datasets", {"name": "corpus@v1", "path": src}, BETA)
    check(s == 201, f"beta registers the same content: {s} {r}")
    # A team registers only inside storage.dataset_roots (symbolic links resolved), the admin
    # anywhere; a symbolic link inside a dataset is refused, not followed.
    outside = os.path.join(d.dir, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "secret"), "w") as f:
        f.write("not yours")
    s, r = d.request("POST", "/v1/datasets", {"name": "o@v1", "path": outside}, ALPHA)
    check(s == 403 and r.get("field") == "path", f"a team outside dataset_roots: {s} {r}")
    os.symlink(outside, os.path.join(d.dir, "shared", "escape"))
    s, r = d.request("POST", "/v1/datasets",
                     {"name": "o@v1", "path": os.path.join(d.dir, "shared", "escape")}, ALPHA)
    check(s == 403 and r.get("field") == "path", f"a link out of dataset_roots: {s} {r}")
    linked = os.path.join(d.dir, "shared", "linked")
    os.makedirs(linked)
    os.symlink(os.path.join(outside, "secret"), os.path.join(linked, "secret"))
    s, r = d.request("POST", "/v1/datasets", {"name": "l@v1", "path": linked}, ALPHA)
    check(s == 400 and "symbolic link" in r.get("error", ""), f"a link inside a dataset: {s} {r}")
    s, r = d.request("POST", "/v1/datasets", {"name": "o@v1", "path": outside}, ADMIN)
    check(s == 201, f"the admin registers anywhere: {s} {r}")
    s, r = d.request("POST", "/v1/datasets", {"name": "bad", "path": src}, ALPHA)
    check(s == 400 and r.get("field") == "name", f"a name without @version: {s} {r}")
    s, r = d.request("POST", "/v1/datasets", {"name": "x@v1", "path": "relative"}, ALPHA)
    check(s == 400 and r.get("field") == "path", f"a relative path: {s} {r}")
    s, r = d.request("GET", "/v1/datasets", token=BETA)
    check(s == 200 and [x["name"] for x in r["datasets"]] == ["corpus@v1", "o@v1"]
          and r["datasets"][0]["teams"] == ["beta"], f"GET /v1/datasets as beta: {s} {r}")

    s, r = d.request("POST", "/v1/jobs", {"command": "true", "datasets": ["nope@v1"]}, ALPHA)
    check(s == 400 and r.get("field") == "datasets" and "nope@v1" in r.get("error", ""),
          f"an unregistered dataset: {s} {r}")
    s, r = d.request("POST", "/v1/jobs", {"command": "true", "storage_tier": "warm"}, ALPHA)
    check(s == 400 and r.get("field") == "storage_tier", f"storage_tier: {s} {r}")

    cmd = ("cd \"$FRUGAL_DATASET_DIR\" && find . -type f | sort | xargs sha256sum && "
           "echo shard $FRUGAL_SHARD_INDEX/$FRUGAL_SHARD_COUNT")
    jobs = [(d.submit({"command": cmd, "gpus": 0, "datasets": ["corpus@v1"]}, token=t), t)
            for t in (ALPHA, BETA)]
    want = "".join(f"{hashlib.sha256(files[rel]).hexdigest()}  ./{rel}\n"
                   for rel in sorted(files)) + "shard 0/1\n"
    for jid, token in jobs:
        j = d.wait_state(jid, ["completed", "failed"], token=token)
        out = logs(d, jid, token)
        check(j["state"] == "completed" and out == want,
              f"job {jid}: {j['state']} {j['reason']}: read {out!r}, wanted {want!r}\n"
              + d.log_text())
        check(j["datasets"] == ["corpus@v1"] and j["stage_s"] is not None, f"job JSON: {j}")
    s, v = d.request("GET", "/v1/storage", token=ADMIN)
    secret = len("not yours")  # the admin's o@v1
    check(s == 200 and v["dedup"]["logical_bytes"] == total + secret
          and v["dedup"]["stored_bytes"] == total + secret, f"stored once: {s} {v}")
    check({t["name"] for t in v["tiers"]} == {"hot", "warm", "cold"}, f"tiers: {v}")
    s, v = d.request("GET", "/v1/storage", token=ALPHA)
    check(s == 200 and set(v["team_bytes"]) <= {"alpha"}, f"alpha's view: {s} {v}")

    # 4. A preempted job resumes from its checkpoint, moved to the cold tier meanwhile.
    train = ("if [ \"$FRUGAL_RESTART_COUNT\" -gt 0 ]; then "
             "cat \"$FRUGAL_CHECKPOINT_DIR\"/step-000001/state; exit 0; fi; "
             "trap 'c=\"$FRUGAL_CHECKPOINT_DIR\"/step-000001; mkdir -p \"$c\"; "
             "echo saved-42 > \"$c\"/state; touch \"$c\"/FRUGAL_COMPLETE; exit 0' USR1; "
             "while true; do sleep 0.1; done")
    gen = d.submit({"command": train, "gpus": 1, "tier": "general"})
    d.wait_state(gen, ["running"])
    time.sleep(1)
    core = d.submit({"command": "sleep 6", "gpus": 1, "tier": "core"})
    d.wait_state(gen, ["preempted", "queued"], timeout_s=20)
    deadline = time.time() + 15
    while "-> cold" not in d.log_text() and time.time() < deadline:
        time.sleep(0.2)
    check("-> cold" in d.log_text(), "the lifecycle did not move the checkpoint to cold:\n"
          + d.log_text())
    d.wait_state(core, ["completed"], timeout_s=30)
    j = d.wait_state(gen, ["completed", "failed"], timeout_s=30)
    out = logs(d, gen, ALPHA)
    check(j["state"] == "completed" and "saved-42" in out and j["restart_count"] >= 1
          and j["restore_s"] is not None,
          f"resumed job: {j['state']} {j['reason']} restore_s {j.get('restore_s')}: {out!r}\n"
          + d.log_text())

    # 5. The restart's staging is stored and charged: staging_s (datasets + restores over its
    # runs) and staging_usd, what its GPU cost meanwhile at the price its run time is charged
    # (a part of its compute_usd), in its JSON and its ledger row; the teams' staging_usd sum
    # to the cluster's. All of it survives a restart of the service.
    def staging_figures():
        s, led = d.request("GET", "/v1/ledger", token=ADMIN)
        check(s == 200, f"ledger: {s} {led}")
        rows = {r["id"]: r for r in led["jobs"]}
        return d.job(gen), rows[gen], led

    before, row, led = staging_figures()
    check(before["staging_s"] > 0 and before["staging_s"] >= before["restore_s"] > 0
          and before["staging_usd"] > 0, f"staging of the resumed job: {before}")
    check(row["staging_s"] == before["staging_s"] and row["staging_usd"] == before["staging_usd"],
          f"ledger row {row} vs job {before}")
    rate = row["compute_usd"] / row["run_s"]  # its GPU's price per second, as charged
    check(abs(row["staging_usd"] / row["staging_s"] - rate) <= 0.02 * rate,
          f"staging_usd {row['staging_usd']} over {row['staging_s']} s vs {rate} USD/s: {row}")
    check(row["staging_usd"] <= row["compute_usd"], f"staging inside compute: {row}")
    # The storage bill: admin sees every team and the total, the teams sum to it.
    bill = led.get("storage")
    check(bill and {"alpha", "beta"} <= set(bill["teams"]) and bill["last_tick"] > 0,
          f"ledger storage block: {bill}")
    check(abs(sum(t["total_usd"] for t in bill["teams"].values()) - bill["total"]["total_usd"])
          <= 1e-12 * max(1.0, bill["total"]["total_usd"])
          and bill["total"]["tiers"]["warm"]["gb_hours"] > 0
          and bill["teams"]["alpha"]["transfer_usd"] > 0
          and bill["jobs"][str(gen)]["team"] == "alpha"
          and bill["jobs"][str(gen)]["total_usd"] > 0, f"storage bill: {bill}")
    s, text = d.request("GET", "/metrics", token=ADMIN)
    check(s == 200 and 'frugal_storage_usd{team="alpha",tier="hot"}' in str(text),
          f"storage metrics: {s} {str(text)[:2000]}")
    s, mine = d.request("GET", "/v1/ledger", token=ALPHA)
    check(s == 200 and set(mine["storage"]["teams"]) == {"alpha"}
          and all(j["team"] == "alpha" for j in mine["storage"]["jobs"].values())
          and mine["storage"]["total"]["total_usd"] > 0, f"alpha's storage bill: {s} {mine}")
    teams = led["by_team"]
    check(teams["alpha"]["staging_usd"] >= row["staging_usd"]
          and abs(sum(t["staging_usd"] for t in teams.values())
                  - led["cost"]["staging_usd"]) < 1e-12
          and teams["alpha"]["staging_usd"]
          <= teams["alpha"]["rental_usd"] + teams["alpha"]["energy_usd"],
          f"teams' staging: {teams} cost {led['cost']}")
    d.stop()
    d.start()
    after, row2, led2 = staging_figures()
    for k in ("stage_s", "restore_s", "staging_s", "staging_usd"):
        check(after[k] == before[k], f"{k} after a restart: {after[k]} != {before[k]}")
    check(row2["staging_usd"] == row["staging_usd"]
          and abs(led2["by_team"]["alpha"]["staging_usd"] - teams["alpha"]["staging_usd"]) < 1e-12,
          f"ledger after a restart: {row2} {led2['by_team']}")
    d.stop()
finally:
    d.cleanup(a.keep)
print("ok")
