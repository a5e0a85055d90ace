"""Shared by the `frugal serve` integration tests (CTest label `service`).

Starts a real daemon on a free loopback port with a temporary database and config, and
talks to it over HTTP with the standard library only. Every wait is bounded.
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

ALPHA = "alpha-dev-token"
BETA = "beta-dev-token"
ADMIN = "admin-dev-token"
HASHES = {
    ALPHA: "96b19de18b9c05f8b1befddab64f030fe3203ba6f76814ce9b690eec08f5f8ce",
    BETA: "d29026ad4ad16686374492f805df401d41a97843377c047a6e268094fb8e2128",
    ADMIN: "78abf365bb5655ddc086c68b35f02e42b589a9afabb58684be7af259d96b492a",
}


def args():
    p = argparse.ArgumentParser()
    p.add_argument("--frugal", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    return p.parse_args()


# What the sanitizers print (scripts/sanitize.sh). ASan and TSan also write their reports to
# files the script checks, but UBSan prints to the daemon's stderr only: so every daemon log
# is read for them, whatever the daemon's exit status.
# A job state change the lifecycle table does not allow is a bug too (the service logs it).
SANITIZER_MARKERS = ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                     "WARNING: ThreadSanitizer", "is not a transition of the job lifecycle")


def sanitizer_reports(log_path):
    """Fails the test when the daemon log at `log_path` holds a sanitizer report."""
    try:
        with open(log_path, errors="replace") as f:
            text = f.read()
    except OSError:
        return
    for m in SANITIZER_MARKERS:
        at = text.find(m)
        if at >= 0:
            fail(f"sanitizer report in {log_path}:\n{text[max(0, at - 300):at + 3000]}")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


class Daemon:
    def __init__(self, frugal, gpus=2, grace_s=3, term_grace_s=2, policy="tiers", extra="",
                 backend="local", nvml=False, read_snapshot_s=0):
        """policy None: no `policy` key (the service's default, the frugal profile).
        backend "dry-run" needs a `cluster:` file in `extra` (write it into self.dir)."""
        self.frugal = frugal
        self.dir = tempfile.mkdtemp(prefix="frugal-it-")
        self.db = os.path.join(self.dir, "f.db")
        self.config = os.path.join(self.dir, "serve.yaml")
        self.port = free_port()
        self.proc = None
        with open(self.config, "w") as f:
            f.write(f"""listen: 127.0.0.1:{self.port}
backend: {backend}
{"policy: " + policy if policy else ""}
checkpoint_grace_s: {grace_s}
term_grace_s: {term_grace_s}
max_request_bytes: 65536
read_snapshot_s: {read_snapshot_s}
node:
  name: testnode
  nvml: {"true" if nvml else "false"}
  gpu_model: L4
  gpus: {gpus}
teams:
  alpha: {{token_sha256: {HASHES[ALPHA]}}}
  beta: {{token_sha256: {HASHES[BETA]}}}
admin: {{token_sha256: {HASHES[ADMIN]}}}
{extra}
""")

    def start(self):
        self.log = open(os.path.join(self.dir, "serve.log"), "a")
        self.proc = subprocess.Popen(
            [self.frugal, "serve", "--config", self.config, "--db", self.db],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)
        for _ in range(150):
            if self.proc.poll() is not None:
                fail(f"serve exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        fail("serve did not answer /healthz in 15 s:\n" + self.log_text())

    def log_text(self):
        with open(os.path.join(self.dir, "serve.log")) as f:
            return f.read()[-4000:]

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self):
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                fail("serve did not stop within 15 s of SIGTERM")
            self.proc = None

    def cleanup(self, keep=False):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        sanitizer_reports(os.path.join(self.dir, "serve.log"))
        # Jobs still running belong to their own process groups: end them.
        for line in subprocess.run(["ps", "-eo", "pgid,args"], capture_output=True,
                                   text=True).stdout.splitlines():
            if self.dir in line:
                try:
                    os.killpg(int(line.split()[0]), signal.SIGKILL)
                except (ProcessLookupError, ValueError, PermissionError):
                    pass
        if keep:
            print("kept", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def request(self, method, path, body=None, token=None, raw=None, timeout=30):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {}
        if token:
            headers["Authorization"] = "Bearer " + token
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        if data is not None:
            headers["Content-Type"] = "application/json"
        c.request(method, path, body=data, headers=headers)
        r = c.getresponse()
        text = r.read()
        c.close()
        try:
            return r.status, json.loads(text)
        except ValueError:
            return r.status, text.decode("utf-8", "replace")

    def submit(self, body, token=ALPHA):
        status, reply = self.request("POST", "/v1/jobs", body, token)
        check(status == 201, f"submit {body} answered {status} {reply}")
        return reply["id"]

    def job(self, jid, token=ALPHA):
        status, reply = self.request("GET", f"/v1/jobs/{jid}", token=token)
        check(status == 200, f"GET job {jid} answered {status} {reply}")
        return reply

    def wait_state(self, jid, states, timeout_s=30, token=ALPHA):
        deadline = time.time() + timeout_s
        j = None
        while time.time() < deadline:
            j = self.job(jid, token)
            if j["state"] in states:
                return j
            time.sleep(0.1)
        fail(f"job {jid} still {j and j['state']} after {timeout_s} s, wanted {states}\n"
             + self.log_text())

    def db_check(self):
        """The store's own invariants, read with Python's sqlite3 (WAL-aware)."""
        con = sqlite3.connect(self.db)
        try:
            check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
            bad = con.execute("SELECT count(*) FROM jobs WHERE state IN "
                              "('completed','failed','cancelled') AND finished_at < 0").fetchone()[0]
            check(bad == 0, f"{bad} final jobs without finished_at")
            bad = con.execute("SELECT count(*) FROM segments WHERE t1 < t0").fetchone()[0]
            check(bad == 0, f"{bad} segments ending before they start")
            ids = [r[0] for r in con.execute("SELECT id FROM jobs")]
            check(len(ids) == len(set(ids)), "duplicate job ids")
            return {r[0]: r[1] for r in con.execute("SELECT id, state FROM jobs")}
        finally:
            con.close()

    def read_log(self, jid, stream="out"):
        p = os.path.join(self.dir, "frugal-logs", f"{jid}.{stream}")
        return open(p).read() if os.path.exists(p) else ""
