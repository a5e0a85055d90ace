"""The CLI covers the job API. Every field of POST /v1/jobs (`frugal submit --fields`, made
from the table in src/service/job_request.h) has a `frugal submit` flag, and each flag
round-trips through a dry-run `frugal serve` into the stored request; a field added without
an example here fails this test. Simulation-only fields are refused with a 400 that names
the backend. `frugal priority`; `frugal logs` (local backend): stdout, --err, --tail,
--follow, another team's job, bad parameters."""
import json
import os
import subprocess
import time

from harness import ADMIN, ALPHA, BETA, Daemon, args, check, fail

a = args()
NOW = time.time()
# field -> (the flag's text, the stored value or a predicate on it). gpu_milli goes in a
# second, fractional job (a fraction needs gpus 1 and no elasticity; so does a guest).
EXAMPLES = {
    "name": ("rt-job", "rt-job"),
    "workdir": ("/tmp", "/tmp"),
    "env": (["A=1", "B=two=2"], {"A": "1", "B": "two=2"}),
    "gpus": ("2", 2),
    "gpu_model": ("L4", "L4"),
    "class": ("finetune", "finetune"),
    "tier": ("important", "important"),
    "deadline": ("+6h", lambda v: abs(v - (NOW + 6 * 3600)) < 300),
    "deferrable": (True, True),
    "min_gpus": ("1", 1),
    "max_gpus": ("4", 4),
    "checkpoint_signal": ("USR2", 12),
    "grace_s": ("2s", 2.0),
    "estimate_s": ("90m", 5400.0),
    "lend_idle": (True, True),
    "datasets": (["corpus@v1", "extra@v2"], ["corpus@v1", "extra@v2"]),
}
FRACTIONAL = {"gpu_milli": ("250", 250), "opportunistic": (True, True)}


def cli(*words, token=ALPHA, timeout=60):
    env = dict(os.environ, FRUGAL_TOKEN=token)
    return subprocess.run([a.frugal, *words], capture_output=True, text=True, env=env,
                          timeout=timeout)


p = cli("submit", "--fields")
check(p.returncode == 0, f"submit --fields: {p.stderr}")
fields = json.loads(p.stdout)
names = {f["field"] for f in fields}
check("command" in names and len(names) == len(fields), f"fields: {fields}")
for f in fields:
    if f["field"] == "command":
        continue
    check(f["flag"].startswith("--"), f"field {f['field']} has no flag: {f}")
    if f["field"] not in EXAMPLES and f["field"] not in FRACTIONAL:
        fail(f"field {f['field']} ({f['flag']}) has no example in cli_fields_it.py: add one")

# Storage on (datasets are declared only with it), two datasets registered below.
store = "storage:\n  tiers:\n" + "".join(
    f"    {t}: {{path: {{root}}/{t}}}\n" for t in ("hot", "warm", "cold"))
d = Daemon(a.frugal, backend="dry-run", policy=None, extra="cluster: cluster.yaml\n")
with open(d.config, "a") as f:
    f.write(store.replace("{root}", d.dir))
for t in ("hot", "warm", "cold", "data"):
    os.makedirs(os.path.join(d.dir, t))
with open(os.path.join(d.dir, "data", "x"), "w") as f:
    f.write("x\n")
with open(os.path.join(d.dir, "cluster.yaml"), "w") as c:
    c.write("""regions:
  - name: here
    pools:
      - name: l4
        capacity: owned
        node_groups:
          - {name: n, count: 2, gpu_model: L4, gpus_per_node: 4}
""")
try:
    d.start()
    server = f"http://127.0.0.1:{d.port}"
    for name in ("corpus@v1", "extra@v2"):
        s, r = d.request("POST", "/v1/datasets",
                         {"name": name, "path": os.path.join(d.dir, "data")}, ADMIN)
        check(s == 201, f"register {name}: {s} {r}")

    def submit(examples):
        words = ["submit", "--server", server]
        for f in fields:
            if f["field"] not in examples:
                continue
            value = examples[f["field"]][0]
            if value is True:
                words.append(f["flag"])
            elif isinstance(value, list):
                for v in value:
                    words += [f["flag"], v]
            else:
                words += [f["flag"], value]
        p = cli(*words, "--", "sleep", "5")
        check(p.returncode == 0, f"{' '.join(words)}: {p.stderr}")
        return d.job(json.loads(p.stdout)["id"])

    for examples, extra in ((EXAMPLES, {}), (FRACTIONAL, {"gpus": 1})):
        j = submit(examples)
        check(j["command"] == "sleep 5", f"command: {j}")
        for field, (_, want) in examples.items():
            check(field in j, f"GET /v1/jobs/{j['id']} has no {field}: {j}")
            ok = want(j[field]) if callable(want) else j[field] == want
            check(ok, f"{field}: flag text {examples[field][0]!r} stored as {j[field]!r}, "
                      f"wanted {want if not callable(want) else 'the predicate'}")
        for field, want in extra.items():
            check(j[field] == want, f"{field}: {j[field]} != {want}")

    # Bad flag text: a clear error naming the flag, nothing submitted.
    for flag, text in (("--estimate", "2x"), ("--gpus", "two"), ("--deadline", "tomorrow"),
                       ("--env", "NOVALUE"), ("--dataset", "corpus"),
                       ("--dataset", "a/b@v1")):
        p = cli("submit", "--server", server, flag, text, "--", "true")
        check(p.returncode == 1 and flag in p.stderr, f"{flag} {text}: {p.returncode} {p.stderr}")
    p = cli("submit", "--server", server, "--dataset", "corpus@v1", "--dataset", "corpus@v1",
            "--", "true")
    check(p.returncode == 1 and "--dataset corpus@v1" in p.stderr and "twice" in p.stderr,
          f"--dataset twice: {p.stderr}")
    # Well-formed but not registered: the service's 400 names the field.
    p = cli("submit", "--server", server, "--dataset", "nope@v1", "--", "true")
    check(p.returncode == 1 and "nope@v1" in p.stderr, f"--dataset nope@v1: {p.stderr}")
    p = cli("submit", "--server", server)
    check(p.returncode == 1 and "command is required" in p.stderr, f"no command: {p.stderr}")

    # Simulation-only fields: 400, the field named, the reason names the backend.
    for field, value in (("movable", True), ("data_region", "us-west")):
        s, r = d.request("POST", "/v1/jobs", {"command": "true", field: value}, ALPHA)
        check(s == 400 and r.get("field") == field and "dry-run backend" in r.get("error", ""),
              f"{field}: {s} {r}")

    # frugal priority.
    jid = submit({"name": ("prio", "prio")})["id"]
    p = cli("priority", "--server", server, str(jid), "core")
    check(p.returncode == 0 and d.job(jid)["tier"] == "core", f"priority: {p.stderr}")
    p = cli("priority", "--server", server, str(jid), "urgent")
    check(p.returncode == 1 and "tier" in p.stderr, f"priority urgent: {p.stderr}")
finally:
    d.cleanup(a.keep)

# frugal logs, with jobs that really run (local backend).
d = Daemon(a.frugal, gpus=2)
try:
    d.start()
    server = f"http://127.0.0.1:{d.port}"
    jid = d.submit({"command": "for i in 1 2 3 4 5; do echo line$i; done; echo e1 >&2",
                    "gpus": 0})
    d.wait_state(jid, ["completed"])
    p = cli("logs", "--server", server, str(jid))
    check(p.returncode == 0 and p.stdout == "".join(f"line{i}\n" for i in range(1, 6)),
          f"logs: {p.returncode} {p.stdout!r} {p.stderr}")
    p = cli("logs", "--server", server, "--tail", "2", str(jid))
    check(p.returncode == 0 and p.stdout == "line4\nline5\n", f"--tail 2: {p.stdout!r}")
    p = cli("logs", "--server", server, "--err", str(jid))
    check(p.returncode == 0 and p.stdout == "e1\n", f"--err: {p.stdout!r}")
    # Another team's job is not there for it.
    p = cli("logs", "--server", server, str(jid), token=BETA)
    check(p.returncode == 1 and "404" in p.stderr, f"beta's logs of alpha's job: {p.stderr}")
    s, r = d.request("GET", f"/v1/jobs/{jid}/logs?stream=both", token=ALPHA)
    check(s == 400 and r.get("field") == "stream", f"stream=both: {s} {r}")
    s, r = d.request("GET", f"/v1/jobs/{jid}/logs?tail=-1", token=ALPHA)
    check(s == 400 and r.get("field") == "tail", f"tail=-1: {s} {r}")
    s, r = d.request("GET", f"/v1/jobs/{jid}/logs?offset=3", token=ALPHA)
    check(s == 200 and r["text"] == "e1\nline2\nline3\nline4\nline5\n"
          and r["from"] == 3 and r["to"] == r["size"] == 30, f"offset=3: {r}")
    # --follow: prints what a running job writes and returns once it has ended.
    fid = d.submit({"command": "for i in 1 2 3; do echo f$i; sleep 0.5; done", "gpus": 0})
    d.wait_state(fid, ["running", "completed"])
    p = cli("logs", "--server", server, "--follow", "--poll", "0.1", str(fid), timeout=60)
    check(p.returncode == 0 and p.stdout == "f1\nf2\nf3\n", f"--follow: {p.stdout!r} {p.stderr}")
    check(d.job(fid)["state"] == "completed", "follow returned before the job ended")
finally:
    d.cleanup(a.keep)
print("ok")
