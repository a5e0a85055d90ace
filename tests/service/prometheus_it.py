"""/metrics read by real Prometheus clients (issue 22, metrics): Debian's `promtool check
metrics` finds nothing to say about it, and a real `prometheus` scraping `frugal serve`
every second (local backend, the fake NVML of tests/fake_nvml with two L4 cards at 30 % and
70 %) answers frugal_gpu_utilization_ratio through its query API with those readings, then
with the new one after the fake's file changes. A running job's gauges arrive too, and every
metric family served is documented in docs/METRICS.md.

Without prometheus or promtool (Debian package `prometheus`) the test prints "[  SKIPPED ]"
after the documentation check and passes, unless CI or FRUGAL_PROMETHEUS_REQUIRED is set:
then it fails."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from harness import ALPHA, Daemon, args, check, fail, free_port

a = args()
prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
missing = None
if not prometheus or not promtool:
    missing = "prometheus/promtool not found (Debian package prometheus; scripts/setup.sh " \
              "installs it)"
    if os.environ.get("CI") or os.environ.get("FRUGAL_PROMETHEUS_REQUIRED"):
        fail(missing + ", and CI or FRUGAL_PROMETHEUS_REQUIRED is set")
fake = os.environ.get("FRUGAL_FAKE_NVML_DIR")
if not fake or not os.path.exists(os.path.join(fake, "libnvidia-ml.so.1")):
    fail("FRUGAL_FAKE_NVML_DIR does not hold libnvidia-ml.so.1 (run through CTest)")

FAKE_LINE = "NVIDIA L4;GPU-fake-{};23034;{};{};{}\n"  # name;uuid;total;used MiB;util %;power W


def write_gpus(path, utils):
    with open(path + ".new", "w") as f:
        f.write("# name;uuid;total MiB;used MiB;util %;power W\n")
        for i, u in enumerate(utils):
            f.write(FAKE_LINE.format(i, 1000 * (i + 1), u, 40 + i))
    os.replace(path + ".new", path)  # the fake rereads it at each query: never half written


def until(what, fn, timeout_s=15):
    """Polls fn() every 0.2 s until it returns something truthy; fails after timeout_s."""
    deadline = time.time() + timeout_s
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    fail(f"{what}: not within {timeout_s} s (last: {last})")


d = Daemon(a.frugal, gpus=2, nvml=True, extra="telemetry_period_s: 0.2")
prom = None
prom_log = None
try:
    gpus_file = os.path.join(d.dir, "gpus.txt")
    write_gpus(gpus_file, [30, 70])
    os.environ["LD_LIBRARY_PATH"] = fake + ":" + os.environ.get("LD_LIBRARY_PATH", "")
    os.environ["FRUGAL_FAKE_NVML"] = gpus_file
    d.start()
    check("inventory from nvml" in d.log_text(), f"not from NVML:\n{d.log_text()}")
    job = d.submit({"command": "sleep 60", "gpus": 1, "name": "held"})
    d.wait_state(job, ["running"])

    def metrics_text():
        status, text = d.request("GET", "/metrics")
        check(status == 200 and isinstance(text, str), f"/metrics answered {status}")
        return text

    def with_gauges():
        t = metrics_text()
        ok = "frugal_gpu_utilization_ratio{" in t and "frugal_job_gpu_utilization_ratio{" in t
        return t if ok else None

    text = until("GPU and job gauges in /metrics", with_gauges)
    with open(os.path.join(a.source, "docs", "METRICS.md")) as f:
        doc = f.read()
    families = re.findall(r"^# TYPE (\S+) ", text, re.M)
    undocumented = [n for n in families if f"`{n}`" not in doc and f"`{n}{{" not in doc]
    check(len(families) > 20 and not undocumented,
          f"served but not in docs/METRICS.md: {undocumented}")
    if missing:
        print("[  SKIPPED ]", missing, "(the rest: every metric served is documented)")
        sys.exit(0)
    lint = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=30)
    check(lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(),
          f"promtool check metrics (exit {lint.returncode}):\n{lint.stdout}{lint.stderr}\n"
          f"--- /metrics:\n{text}")

    pport = free_port()
    pdir = os.path.join(d.dir, "prometheus")
    os.makedirs(pdir)
    with open(os.path.join(pdir, "prometheus.yml"), "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: frugal
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ['127.0.0.1:{d.port}']
""")
    prom_log = open(os.path.join(pdir, "prometheus.log"), "w")
    prom = subprocess.Popen(
        [prometheus, "--config.file=" + os.path.join(pdir, "prometheus.yml"),
         "--storage.tsdb.path=" + os.path.join(pdir, "data"),
         f"--web.listen-address=127.0.0.1:{pport}", "--log.level=warn"],
        stdout=prom_log, stderr=subprocess.STDOUT, cwd=pdir)

    def prom_log_text():
        prom_log.flush()
        with open(os.path.join(pdir, "prometheus.log"), errors="replace") as f:
            return f.read()[-3000:]

    def query(expr):
        """The instant vector `expr` as {gpu or job_id: (value, labels)}; None on no answer."""
        if prom.poll() is not None:
            fail(f"prometheus exited with {prom.returncode}:\n{prom_log_text()}")
        url = f"http://127.0.0.1:{pport}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                body = json.load(r)
        except OSError:
            return None
        check(body.get("status") == "success", f"query {expr}: {body}")
        out = {}
        for s in body["data"]["result"]:
            m = s["metric"]
            out[m.get("gpu", m.get("job_id"))] = (float(s["value"][1]), m)
        return out

    got = until("prometheus scraped both GPUs' utilisation",
                lambda: (q := query("frugal_gpu_utilization_ratio")) and len(q) == 2 and q,
                timeout_s=20)
    for gpu, want in (("0", 0.3), ("1", 0.7)):
        value, labels = got[gpu]
        check(abs(value - want) < 1e-9, f"gpu {gpu}: {value}, want {want} ({got})")
        check(labels.get("node") == "testnode" and labels.get("model") == "L4" and
              labels.get("job") == "frugal" and labels.get("instance") == f"127.0.0.1:{d.port}",
              f"gpu {gpu} labels: {labels}")
    used = query("frugal_gpu_memory_used_bytes")
    check(used and used["1"][0] == 2000 * 1024 * 1024, f"memory used: {used}")
    up = query(f'up{{instance="127.0.0.1:{d.port}"}}')
    check(up and list(up.values())[0][0] == 1, f"up: {up}")

    jobs = until("the job's gauges through prometheus",
                 lambda: (q := query('frugal_job_gpu_utilization_ratio{team="alpha"}')) and q)
    value, labels = jobs[str(job)]
    check(labels.get("tier") == "general" and labels.get("model") == "L4" and
          0 <= value <= 1, f"job gauge: {jobs}")

    write_gpus(gpus_file, [90, 70])
    until("the new reading (0.9) through prometheus",
          lambda: (q := query('frugal_gpu_utilization_ratio{gpu="0"}')) and
          abs(q["0"][0] - 0.9) < 1e-9)
    print("ok")
finally:
    if prom is not None:
        prom.terminate()
        try:
            prom.wait(timeout=10)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
    if prom_log is not None:
        prom_log.close()
    d.cleanup(a.keep)
