"""Hostile HTTP clients against a real daemon (issue: the service under hostile clients):
bodies over max_request_bytes however framed, RFC 9112 framing errors, idle and slow
connections beside a working client, a client that half-closes after its request, and a
read deadline that ends a dripping request. Every wait is bounded; nothing is timed."""
import json
import socket
import threading
import time

from harness import ALPHA, Daemon, args, check

a = args()
# The harness sets a 64 KiB body limit; a 2 s read deadline keeps the test quick.
d = Daemon(a.frugal, gpus=2, extra="http_read_timeout_s: 2\n")


def connect(timeout=10):
    return socket.create_connection(("127.0.0.1", d.port), timeout=timeout)


def read_answer(s):
    """One HTTP answer read off s: (status, headers dict (lower-case), body bytes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    check(lines and lines[0].startswith(b"HTTP/1.1 "), f"not an HTTP answer: {data[:200]!r}")
    status = int(lines[0].split(b" ")[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        headers[k.strip().lower().decode()] = v.strip().decode()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def exchange(raw, then_shutdown=False):
    """Sends raw bytes (headers and body as given), returns the answer (status, body JSON)."""
    s = connect()
    try:
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the whole body was sent
        if then_shutdown:
            s.shutdown(socket.SHUT_WR)
        st, _, body = read_answer(s)
        return st, json.loads(body or b"null")
    finally:
        s.close()


def post_head(extra):
    return (f"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ALPHA}\r\n"
            f"Content-Type: application/json\r\n{extra}\r\n").encode()


job = json.dumps({"name": "h", "command": "true", "gpus": 0}).encode()
big = json.dumps({"name": "h", "command": "true", "env": {"PAD": "a" * 200000}}).encode()


def chunked(body, size=4096):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return out + b"0\r\n\r\n"


try:
    d.start()
    # 1. Bodies over the limit: 413 with Content-Length (before the body is read) and chunked.
    st, r = exchange(post_head(f"Content-Length: {len(big)}\r\n") + big)
    check(st == 413, f"200 KB body with Content-Length: {st} {r}")
    st, r = exchange(post_head("Transfer-Encoding: chunked\r\n") + chunked(big))
    check(st == 413, f"200 KB chunked body: {st} {r}")
    # A chunked body under the limit is still a job.
    st, r = exchange(post_head("Transfer-Encoding: chunked\r\n") + chunked(job, 7))
    check(st == 201, f"small chunked body: {st} {r}")
    # Expect: 100-continue gets an interim answer, then the final one.
    s = connect()
    s.sendall(post_head(f"Content-Length: {len(job)}\r\nExpect: 100-continue\r\n"))
    st, _, _ = read_answer(s)
    check(st == 100, f"Expect: 100-continue answered {st}")
    s.sendall(job)
    st, _, body = read_answer(s)
    check(st == 201, f"body after 100 Continue: {st} {body!r}")
    s.close()

    # 2. Framing errors (RFC 9112 §6): 400, never a job.
    cases = {
        "two differing Content-Lengths":
            f"Content-Length: {len(job)}\r\nContent-Length: {len(job) + 1}\r\n",
        "Content-Length with Transfer-Encoding":
            f"Content-Length: {len(job)}\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding with Content-Length":
            f"Transfer-Encoding: chunked\r\nContent-Length: {len(job)}\r\n",
        "a Transfer-Encoding not ending in chunked": "Transfer-Encoding: gzip\r\n",
        "a malformed Content-Length": "Content-Length: 12x\r\n",
    }
    for what, head in cases.items():
        st, r = exchange(post_head(head) + job)
        check(st == 400, f"{what}: {st} {r}")
    st, r = exchange(post_head("Transfer-Encoding: chunked\r\n") + b"zz\r\nxx\r\n0\r\n\r\n")
    check(st == 400, f"a malformed chunk size: {st} {r}")
    st, jobs = d.request("GET", "/v1/jobs", token=ALPHA)
    check(st == 200 and len(jobs["jobs"]) == 2, f"jobs after the refusals: {st} {jobs}")

    # 3. A client that half-closes after its request still gets its answer.
    st, r = exchange(post_head(f"Content-Length: {len(job)}\r\n") + job, then_shutdown=True)
    check(st == 201 and "id" in r, f"half-closed client: {st} {r}")

    # 4. 300 idle connections and 40 dripping ones do not starve a working client.
    idle = [connect() for _ in range(300)]
    stop = threading.Event()

    def drip(sock):
        msg = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"y" * 1000
        for byte in msg:
            if stop.is_set():
                return
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return
            time.sleep(0.2)

    dripping = [connect() for _ in range(40)]
    threads = [threading.Thread(target=drip, args=(s,), daemon=True) for s in dripping]
    for t in threads:
        t.start()
    for i in range(5):
        st, h = d.request("GET", "/healthz", timeout=10)
        check(st == 200, f"/healthz beside 340 idle or slow connections: {st} {h}")
        st, r = d.request("POST", "/v1/jobs", body={"command": "true", "gpus": 0}, token=ALPHA,
                          timeout=10)
        check(st == 201, f"a submission beside 340 idle or slow connections: {st} {r}")

    # 5. The read deadline (2 s here) closes a dripping request: the server ends it, not the
    # client (bounded: 30 s for the deadline to pass).
    s = dripping[0]
    s.settimeout(30)
    try:
        closed = s.recv(1) == b""
    except ConnectionResetError:
        closed = True
    except socket.timeout:
        closed = False
    check(closed, "a request dripping past the read deadline was not closed")
    stop.set()
    for sock in idle + dripping:
        sock.close()
    for t in threads:
        t.join(timeout=10)
    st, _ = d.request("GET", "/healthz")
    check(st == 200, "the daemon answers after the hostile clients")
    d.stop()
    print("ok: bounded bodies, framing errors 400, half-close answered, idle and slow clients "
          "starve nobody, read deadline")
finally:
    d.cleanup(a.keep)
