#!/usr/bin/env python3
"""`frugal serve` on the local backend against the REAL NVML and real CUDA work (CTest label
`gpu`): skipped, with the reason, without an NVIDIA driver or without PyTorch in python3.

  serve_sharing_it.py --frugal BIN --source DIR

The fake-NVML twin is tests/service/sharing_it.py; this one checks that what it scripts holds
on a card: each job runs a PyTorch loop busy a set fraction of every 100 ms (read from a file
the test rewrites), so NVML measures it.

1. A consenting whole-card job (`lend_idle`) busy 30 % is measured by the service from the
   card (its GPU process is mapped to it by FRUGAL_JOB_ID): its utilisation in range, its
   memory mapped, the card's gauges in /metrics.
2. A waiting 0.5-GPU `opportunistic` job starts on that card as its guest, with
   CUDA_MPS_ACTIVE_THREAD_PERCENTAGE near the host's measured headroom (100 − its busy %).
3. The host's loop goes to 100 % busy: the guest is recalled ("needs its GPU back").
Prints what NVML measured at each step (per-process utilisation where the driver gives it).
"""
import ctypes
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "service"))
from harness import ADMIN, ALPHA, Daemon, check, fail  # noqa: E402

LOOP = r"""
import sys, time, torch
duty_file = sys.argv[1]
x = torch.randn(4096, 4096, device="cuda")
torch.cuda.synchronize()
print("ready", flush=True)
while True:
    try:
        duty = float(open(duty_file).read().strip() or 0)
    except (OSError, ValueError):
        duty = 0.0
    t0 = time.monotonic()
    while time.monotonic() - t0 < 0.1 * duty:
        y = x @ x
        torch.cuda.synchronize()
    rest = 0.1 - (time.monotonic() - t0)
    if rest > 0:
        time.sleep(rest)
"""


def skip(why):
    print("[  SKIPPED ]", why)
    sys.exit(0)


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    os.environ.pop("FRUGAL_FAKE_NVML", None)
    os.environ["LD_LIBRARY_PATH"] = ":".join(
        p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p and "fake-nvml" not in p)
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as e:
        skip(f"no NVIDIA driver on this host: {e}")
    probe = subprocess.run([sys.executable, "-c", "import torch; assert torch.cuda.is_available()"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        skip("no PyTorch with CUDA in " + sys.executable + ": " + probe.stderr.strip()[-200:])

    d = Daemon(a.frugal, gpus=1, nvml=True, policy=None, extra="""telemetry_period_s: 0.5
sharing: {window_minutes: 0.05}
""")
    loop = os.path.join(d.dir, "loop.py")
    with open(loop, "w") as f:
        f.write(LOOP)

    def duty(name, value):
        tmp = os.path.join(d.dir, name + ".tmp")
        with open(tmp, "w") as f:
            f.write(str(value))
        os.replace(tmp, os.path.join(d.dir, name))

    def wait_for(cond, what, timeout_s=90):
        end = time.time() + timeout_s
        while time.time() < end:
            v = cond()
            if v:
                return v
            time.sleep(0.25)
        fail(f"{what} within {timeout_s} s:\n{d.log_text()}")

    def card():
        s, nodes = d.request("GET", "/v1/nodes", token=ADMIN)
        check(s == 200, f"/v1/nodes: {s} {nodes}")
        return nodes

    duty("host.duty", 0.3)
    duty("guest.duty", 0.2)
    try:
        d.start()
        host = d.submit({"command": f"exec {sys.executable} {loop} {d.dir}/host.duty",
                         "gpus": 1, "lend_idle": True})
        d.wait_state(host, ["running"])
        wait_for(lambda: "ready" in d.read_log(host), "the host's CUDA loop ready")
        # Measured by the service (the job's running mean starts at the first sample, while
        # the loop was still starting: a range, not 0.30).
        wait_for(lambda: (d.job(host).get("utilization") or 0) > 0.1, "the host measured busy")
        time.sleep(3)
        h = d.job(host)
        print(f"host (loop at 30 %): job utilization {h['utilization']:.3f}; nodes {card()}")
        check(0.1 <= h["utilization"] <= 0.6, f"host measured {h['utilization']}, not about 0.3")
        s, text = d.request("GET", "/metrics")
        check(s == 200 and isinstance(text, str), f"/metrics: {s}")
        gauges = [l for l in text.splitlines() if l.startswith("frugal_gpu_utilization_ratio")
                  or (l.startswith("frugal_job_gpu_memory_used_bytes{")
                      and f'job_id="{host}"' in l)]
        print("metrics:", gauges)
        check(any(l.startswith("frugal_gpu_utilization_ratio") for l in gauges),
              "no frugal_gpu_utilization_ratio in /metrics")
        check(any(l.startswith("frugal_job_gpu_memory_used_bytes") and float(l.split()[-1]) > 1e8
                  for l in gauges), "the host's CUDA memory not mapped to it in /metrics")

        guest = d.submit({"command": "echo mps=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "
                          "mem=$FRUGAL_GPU_MEMORY_LIMIT_MIB host=$FRUGAL_GUEST_OF; "
                          f"exec {sys.executable} {loop} {d.dir}/guest.duty",
                          "gpus": 1, "gpu_milli": 500, "opportunistic": True})
        d.wait_state(guest, ["running"], timeout_s=90)
        g = d.job(guest)
        check(g.get("guest_of") == host, f"not a guest of {host}: {g}")
        wait_for(lambda: "mps=" in d.read_log(guest), "the guest's first line")
        out = d.read_log(guest)
        fields = dict(w.split("=", 1) for w in out.splitlines()[0].split())
        mps = int(fields["mps"])
        print(f"guest started: {fields}; host measured {d.job(host)['utilization']:.3f}")
        check(40 <= mps <= 90, f"MPS limit {mps} is not the headroom beside a host at ~30 %")
        wait_for(lambda: "ready" in d.read_log(guest), "the guest's CUDA loop ready")
        time.sleep(3)
        print(f"both on the card: host {d.job(host)['utilization']:.3f}, "
              f"guest {d.job(guest).get('utilization')}; nodes {card()}")

        duty("host.duty", 1.0)
        wait_for(lambda: d.job(guest)["state"] in ("preempted", "queued"),
                 "the guest recalled when its host went to 100 %")
        reason = d.job(guest)["reason"]
        print("recalled:", reason)
        check("needs its GPU back" in reason, f"recall reason: {reason}")
        for j in (host, guest):
            d.request("DELETE", f"/v1/jobs/{j}", token=ALPHA)
        d.wait_state(host, ["cancelled"])
        d.db_check()
    finally:
        try:
            d.cleanup(a.keep)
        except OSError as e:  # no `ps` on this host: the jobs end with the daemon
            print("cleanup:", e)
    print("ok: real NVML drove lending and recall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
