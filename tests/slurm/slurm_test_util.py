"""Helpers shared by the local-Slurm integration tests (tests/slurm/*_it.py): a `frugal serve`
daemon on a free loopback port, node states as `sinfo` shows them, and the local cluster's
power log (deploy/slurm-local/power-*.sh). Standard library only."""
import json, os, re, socket, subprocess, time, urllib.request

TOKEN = "alpha-dev-token"
TOKEN_SHA = "96b19de18b9c05f8b1befddab64f030fe3203ba6f76814ce9b690eec08f5f8ce"
ADMIN = "admin-dev-token"
POWER = "/var/lib/frugal-slurm/power"
POWER_LOG = "/var/log/frugal-slurm/power.log"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def cancel_and_wait(ids, timeout=30):
    """scancel the Slurm jobs `ids` and wait until squeue (pending, running and completing
    jobs) lists none of them, so that no slurmstepd still writes a job's output into a test's
    directory while it is being removed."""
    ids = [str(i) for i in ids]
    if not ids:
        return
    run("scancel", *ids)
    end = time.time() + timeout
    while time.time() < end:
        if not set(run("squeue", "-h", "-o", "%i").stdout.split()) & set(ids):
            return
        time.sleep(0.2)
    print(f"warning: Slurm jobs {ids} still listed {timeout} s after scancel")


def state(node):
    """`sinfo %t` of one node ("idle~", "down~", ...); "" when Slurm does not show it."""
    out = run("sinfo", "-h", "-N", "-n", node, "-o", "%t").stdout.split()
    return out[0] if out else ""


def power_log(since=0.0):
    """(unix time, kind, node) of each power-log line at or after `since`."""
    out = []
    if os.path.exists(POWER_LOG):
        for line in open(POWER_LOG):
            m = re.fullmatch(r"([0-9.]+) (\S+) (\S+)\n", line)
            if m and float(m.group(1)) >= since:
                out.append((float(m.group(1)), m.group(2), m.group(3)))
    return out


class Serve:
    """`frugal serve --config <workdir>/frugal.yaml` with `config` as that file; up on return."""

    def __init__(self, frugal, workdir, config, port):
        self.port, self.frugal, self.dir = port, frugal, workdir
        cfg = os.path.join(workdir, "frugal.yaml")
        with open(cfg, "w") as f:
            f.write(config)
        self.log = open(os.path.join(workdir, "serve.log"), "w")
        self.proc = subprocess.Popen([frugal, "serve", "--config", cfg], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise SystemExit("frugal serve did not come up:\n" + open(self.log.name).read())

    def call(self, method, path, body=None, token=TOKEN, raw=False):
        """(HTTP status, JSON answer — or the text with raw=True)."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                data = r.read()
                return r.status, data.decode() if raw else json.loads(data or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def get(self, path, token=TOKEN):
        return self.call("GET", path, token=token)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()
