"""`frugal serve` alerts: a pending job that can no longer meet its deadline fires a
deadline_risk alert (log, GET /v1/alerts, webhook POST) and resolves when it is cancelled."""
import http.server
import json
import threading
import time

from harness import ALPHA, Daemon, args, check, fail, free_port

a = args()
received = []


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        received.append((self.path, json.loads(body)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


hook_port = free_port()
server = http.server.HTTPServer(("127.0.0.1", hook_port), Hook)
threading.Thread(target=server.serve_forever, daemon=True).start()
d = Daemon(a.frugal, gpus=1, extra=f"""alerts:
  deadline_risk: true
  webhook: http://127.0.0.1:{hook_port}/hook
""")


def wait_for(pred, what, timeout_s=20):
    end = time.time() + timeout_s
    while time.time() < end:
        if pred():
            return
        time.sleep(0.2)
    fail(f"{what} within {timeout_s} s\n" + d.log_text())


try:
    d.start()
    blocker = d.submit({"command": "sleep 60"})
    d.wait_state(blocker, ["running"])
    late = d.submit({"command": "true", "deadline": time.time() + 30, "estimate_s": 3600})
    check(d.job(late)["state"] == "queued", "the deadline job should wait")

    def active():
        return d.request("GET", "/v1/alerts", token=ALPHA)[1]["active"]

    wait_for(lambda: any(x["rule"] == "deadline_risk" for x in active()), "no deadline_risk alert")
    alert = [x for x in active() if x["rule"] == "deadline_risk"][0]
    check(alert["subject"] == f"job {late}", f"alert subject: {alert}")
    wait_for(lambda: any(p == "/hook" and b["event"] == "firing" for p, b in received),
             "no webhook POST for the firing alert")
    check("alert firing: [deadline_risk]" in d.log_text(), "alert not logged")
    d.request("POST", f"/v1/jobs/{late}/cancel", token=ALPHA)
    wait_for(lambda: not active(), "the alert did not resolve")
    wait_for(lambda: any(b["event"] == "resolved" for _, b in received),
             "no webhook POST for the resolution")
    s, r = d.request("GET", "/v1/alerts", token=ALPHA)
    check(r["recent"] and r["recent"][-1]["resolved_at"] >= r["recent"][-1]["fired_at"],
          f"recent alerts: {r}")
    d.stop()
    print("ok: deadline_risk alert fired and resolved (log, API, webhook)")
finally:
    server.shutdown()
    d.cleanup(a.keep)
