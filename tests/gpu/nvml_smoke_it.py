#!/usr/bin/env python3
"""`frugal agent` against the REAL NVML (CTest label `gpu`): skipped, with the reason, on a
host without an NVIDIA driver; never run against the fake (LD_LIBRARY_PATH is cleared of it).

  nvml_smoke_it.py --frugal BIN

Checked on a GPU host: every reading in range (utilisation 0..1, memory used <= total,
power 0..5000 W, temperature 0..150 °C, a UUID-backed GPU count > 0); and, where a CUDA
process can be started here (PyTorch or CuPy in python3), that process — started with
FRUGAL_JOB_ID=4242 and holding GPU memory — appears among the GPU's processes mapped to job
4242 with its memory.
"""
import argparse, json, os, subprocess, sys, time


def agent_reports(frugal, env, seconds=2):
    r = subprocess.run([frugal, "agent", "--print", "--once", "--interval", str(seconds),
                        "--sample-interval", "0.5", "--node", "gpu-smoke"],
                       env=env, capture_output=True, text=True, timeout=60)
    return r.returncode, [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")], r.stderr


CUDA_HOLDER = r"""
import os, sys, time
try:
    import torch
    x = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
except Exception:
    import cupy
    x = cupy.empty(256 * 1024 * 1024, dtype=cupy.uint8)
print("ready", flush=True)
time.sleep(120)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", required=True)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("FRUGAL_FAKE_NVML",)}
    env["LD_LIBRARY_PATH"] = ":".join(p for p in env.get("LD_LIBRARY_PATH", "").split(":")
                                      if p and "fake-nvml" not in p)
    rc, reports, err = agent_reports(a.frugal, env)
    if rc == 2 and "NVML not" in err:
        print("[  SKIPPED ] no NVIDIA driver on this host:", err.strip().splitlines()[-1])
        return 0
    assert rc == 0 and reports, (rc, err)
    gpus = reports[0]["gpus"]
    assert gpus, reports
    for g in gpus:
        assert 0 <= g.get("utilization", 0) <= 1, g
        if "memory_total_mib" in g:
            assert 0 <= g.get("memory_used_mib", 0) <= g["memory_total_mib"], g
        assert 0 <= g.get("power_w", 0) <= 5000, g
        assert 0 <= g.get("temperature_c", 0) <= 150, g
    print(f"readings in range on {len(gpus)} GPU(s)")

    holder = subprocess.Popen([sys.executable, "-c", CUDA_HOLDER], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=dict(env, FRUGAL_JOB_ID="4242"))
    try:
        line = holder.stdout.readline()
        if line.strip() != "ready":
            print("ok (readings only): no CUDA runtime in python3 to start a GPU process "
                  "(PyTorch or CuPy): " + holder.stderr.read()[-300:].strip())
            return 0
        for _ in range(10):
            rc, reports, err = agent_reports(a.frugal, env)
            procs = [p for g in reports[0]["gpus"] for p in g.get("processes", [])
                     if p["pid"] == holder.pid]
            if procs:
                break
            time.sleep(1)
        assert procs, f"the CUDA process {holder.pid} was not among the GPU processes: {reports}"
        assert procs[0].get("job") == "4242", procs
        assert procs[0].get("memory_mib", 0) >= 200, procs
        print(f"ok: readings in range; CUDA process {holder.pid} mapped to job 4242 "
              f"with {procs[0]['memory_mib']} MiB")
    finally:
        holder.kill()
        holder.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
