"""HTTP edges a review found broken, against a real daemon: an action POSTed without a body
(no Content-Length: `curl -X POST .../cancel`), a JSON body sent with curl's default form
Content-Type above 8 KiB, and what one team's token shows of another team's jobs in
/v1/nodes."""
import json
import socket
import subprocess

from harness import ADMIN, ALPHA, BETA, Daemon, args, check

a = args()
d = Daemon(a.frugal, gpus=2)


def raw(method, path, token=None, body=None, content_type=None):
    """One request written by hand (http.client always sends a Content-Length)."""
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    if body is not None:
        head += f"Content-Length: {len(body)}\r\n"
    s.sendall(head.encode() + b"\r\n" + (body or b""))
    resp = b""
    try:
        while True:
            chunk = s.recv(65536)
            resp += chunk
            if not chunk:
                break
            head_end = resp.find(b"\r\n\r\n")
            if head_end >= 0:
                length = 0
                for line in resp[:head_end].split(b"\r\n")[1:]:
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v)
                if len(resp) >= head_end + 4 + length:
                    break
    finally:
        s.close()
    status = int(resp.split(b" ", 2)[1])
    return status, json.loads(resp[resp.find(b"\r\n\r\n") + 4:] or b"null")


try:
    d.start()
    # Two jobs: one runs (alpha's), one waits (beta's) behind it on both GPUs.
    running = d.submit({"command": "sleep 60", "gpus": 2})
    d.wait_state(running, ["running"])
    waiting = d.submit({"command": "sleep 60", "gpus": 2}, token=BETA)

    # No body, no Content-Length: authentication and routing answer, not a bare 400.
    st, r = raw("POST", f"/v1/jobs/{waiting}/hold", token="wrong")
    check(st == 401 and r["field"] == "Authorization", f"wrong token: {st} {r}")
    st, r = raw("POST", "/v1/jobs/99999/cancel", token=ALPHA)
    check(st == 404, f"unknown job: {st} {r}")
    st, r = raw("POST", f"/v1/jobs/{waiting}/hold", token=BETA)
    check(st == 200 and r["held"] is True, f"hold without a body: {st} {r}")
    st, r = raw("POST", f"/v1/jobs/{waiting}/release", token=BETA)
    check(st == 200 and r["held"] is False, f"release without a body: {st} {r}")

    # JSON sent as a form (curl -d's default type) is read as JSON past 8 KiB too.
    body = json.dumps({"command": "true # " + "x" * 9000, "gpus": 0}).encode()
    st, r = raw("POST", "/v1/jobs", token=ALPHA, body=body,
                content_type="application/x-www-form-urlencoded")
    check(st == 201, f"9 KB JSON as a form: {st} {r}")
    too_long = json.dumps({"command": "x" * 20000}).encode()
    st, r = raw("POST", "/v1/jobs", token=ALPHA, body=too_long,
                content_type="application/x-www-form-urlencoded")
    check(st == 400 and r["field"] == "command", f"20 KB command as a form: {st} {r}")

    # /v1/nodes: beta sees alpha's GPUs allocated, not alpha's job id; alpha and admin do.
    def ids_and_allocated(token):
        st, r = d.request("GET", "/v1/nodes", token=token)
        check(st == 200, f"nodes: {st} {r}")
        gpus = [g for n in r["nodes"] for g in n["gpus"]]
        return sorted(j for g in gpus for j in g["jobs"]), sum(g["allocated_milli"] for g in gpus)

    check(ids_and_allocated(ALPHA) == ([running, running], 2000), str(ids_and_allocated(ALPHA)))
    check(ids_and_allocated(ADMIN) == ([running, running], 2000), str(ids_and_allocated(ADMIN)))
    check(ids_and_allocated(BETA) == ([], 2000), str(ids_and_allocated(BETA)))

    st, r = raw("POST", f"/v1/jobs/{running}/cancel", token=ALPHA)
    check(st == 200, f"cancel without a body: {st} {r}")
    d.wait_state(running, ["cancelled"])

    # A second daemon on the same port refuses to start (no SO_REUSEPORT sharing: requests
    # would alternate between two databases).
    other = Daemon(a.frugal, gpus=2)
    try:
        with open(other.config) as f:
            text = f.read().replace(f"127.0.0.1:{other.port}", f"127.0.0.1:{d.port}")
        with open(other.config, "w") as f:
            f.write(text)
        p = subprocess.run([a.frugal, "serve", "--config", other.config, "--db", other.db],
                           capture_output=True, text=True, timeout=30, cwd=other.dir)
        check(p.returncode != 0 and f"cannot listen on 127.0.0.1:{d.port}" in p.stdout + p.stderr,
              f"second daemon on a taken port: exit {p.returncode}: {p.stdout} {p.stderr}")
    finally:
        other.cleanup(a.keep)
    st, _ = d.request("GET", "/healthz")
    check(st == 200, "the first daemon still answers")
    d.stop()
    print("ok: bodiless actions, form-typed JSON, per-team node view, one daemon per port")
finally:
    d.cleanup(a.keep)
