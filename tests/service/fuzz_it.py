"""Bounded fuzzing of the API: random bytes, random JSON and mutated valid bodies from
several threads for a few seconds (seeded). The daemon must never crash or answer 5xx, every
201 must name a stored job, and the database must stay consistent."""
import json
import random
import socket
import threading
import time

from harness import ALPHA, BETA, Daemon, args, check, fail

a = args()
d = Daemon(a.frugal, gpus=2)
SECONDS = 4.0
accepted = []
errors = []
lock = threading.Lock()

FIELDS = ["name", "command", "workdir", "env", "gpus", "gpu_milli", "gpu_model", "class",
          "tier", "deadline", "deferrable", "min_gpus", "max_gpus", "checkpoint_signal",
          "grace_s", "estimate_s", "bogus"]


def rand_value(rng, depth=0):
    k = rng.randrange(9 if depth < 2 else 6)
    return [lambda: None, lambda: rng.choice([True, False]),
            lambda: rng.randint(-10**12, 10**12), lambda: rng.uniform(-1e9, 1e9),
            lambda: rng.choice([0, 1, -1, 1000, 1001, 64, 65, 2**31, 1.5]),
            lambda: "".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(12))),
            lambda: [rand_value(rng, depth + 1) for _ in range(rng.randrange(4))],
            lambda: {rng.choice(FIELDS): rand_value(rng, depth + 1) for _ in range(3)},
            lambda: rng.choice(["core", "general", "SIGUSR1", "L4", "eval", "/tmp"])][k]()


def raw_request(method, path, data, token):
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(data)}\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    s.sendall(head.encode() + b"\r\n" + data)
    resp = b""
    try:
        while b"\r\n\r\n" not in resp:
            chunk = s.recv(65536)
            if not chunk:
                break
            resp += chunk
    finally:
        s.close()
    return resp


def worker(seed):
    rng = random.Random(seed)
    end = time.time() + SECONDS
    while time.time() < end:
        kind = rng.randrange(5)
        token = rng.choice([ALPHA, BETA, None, "x"])
        try:
            if kind == 0:  # random bytes as a body
                data = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
                raw_request("POST", "/v1/jobs", data, token)
                continue
            if kind == 1:  # random bytes as a whole request
                s = socket.create_connection(("127.0.0.1", d.port), timeout=5)
                s.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(300))))
                s.close()
                continue
            if kind == 2:  # random JSON
                body = {rng.choice(FIELDS): rand_value(rng) for _ in range(rng.randrange(6))}
                if rng.random() < 0.5:
                    body["command"] = rng.choice(["true", "", 3, None, "exit 1"])
            elif kind == 3:  # a valid body with one field mutated
                body = {"command": "true", "gpus": rng.choice([0, 1])}
                body[rng.choice(FIELDS)] = rand_value(rng)
            else:  # other endpoints with odd ids
                path = rng.choice(["/v1/jobs/", "/v1/jobs/1", "/v1/jobs/-1", "/v1/jobs/99999999",
                                   "/v1/jobs/1/cancel", "/v1/jobs/2/hold", "/v1/jobs/2/release",
                                   "/v1/jobs/3/priority", "/v1/nodes", "/v1/ledger",
                                   "/v1/alerts", "/metrics", "/nope", "/v1/jobs?limit=0"])
                method = rng.choice(["GET", "POST", "DELETE", "PUT"])
                st, _ = d.request(method, path, rand_value(rng) if method == "POST" else None,
                                  token, timeout=10)
                if st >= 500:
                    with lock:
                        errors.append(f"{method} {path} answered {st}")
                continue
            st, r = d.request("POST", "/v1/jobs", raw=json.dumps(body), token=token, timeout=10)
            if st == 201:
                with lock:
                    accepted.append((r["id"], token))
            elif st >= 500 or st not in (400, 401):
                with lock:
                    errors.append(f"POST {body} answered {st} {r}")
        except (OSError, ValueError) as e:
            if d.proc.poll() is not None:
                with lock:
                    errors.append(f"daemon died: {e}")
                return


try:
    d.start()
    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    check(d.proc.poll() is None, "the daemon crashed:\n" + d.log_text())
    if errors:
        fail("; ".join(errors[:5]))
    check(d.request("GET", "/healthz")[0] == 200, "healthz after fuzzing")
    for jid, token in accepted:
        check(d.request("GET", f"/v1/jobs/{jid}", token=token)[0] == 200, f"job {jid} lost")
    d.stop()
    states = d.db_check()
    check(all(jid in states for jid, _ in accepted), "an accepted job is not stored")
    print(f"ok: fuzzing for {SECONDS} s, {len(accepted)} jobs accepted, no crash")
finally:
    d.cleanup(a.keep)
