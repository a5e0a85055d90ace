"""`frugal serve` on the real NVML path, against the fake libnvidia-ml.so.1
(tests/fake_nvml; FRUGAL_FAKE_NVML_DIR from CTest): the GPUs come from NVML, and a
fractional job's memory cap is its share of the card's memory as NVML reports it (23,034
MiB for an L4), not of the catalog's 24 GiB: four quarter jobs on one card together stay
within it (they got 6,144 MiB each before)."""
import os
import sys

from harness import ADMIN, ALPHA, Daemon, args, check

a = args()
fake = os.environ.get("FRUGAL_FAKE_NVML_DIR")
if not fake or not os.path.exists(os.path.join(fake, "libnvidia-ml.so.1")):
    print("FAIL: FRUGAL_FAKE_NVML_DIR does not hold libnvidia-ml.so.1 (run through CTest)")
    sys.exit(1)

d = Daemon(a.frugal, gpus=2, nvml=True)
try:
    gpus_file = os.path.join(d.dir, "gpus.txt")
    with open(gpus_file, "w") as f:
        f.write("# name;uuid;total MiB;used MiB;util %;power W\n"
                "NVIDIA L4;GPU-fake-0;23034;0;30;40\n"
                "NVIDIA L4;GPU-fake-1;23034;0;30;40\n")
    os.environ["LD_LIBRARY_PATH"] = fake + ":" + os.environ.get("LD_LIBRARY_PATH", "")
    os.environ["FRUGAL_FAKE_NVML"] = gpus_file
    d.start()
    check("inventory from nvml" in d.log_text(), f"not from NVML:\n{d.log_text()}")
    s, nodes = d.request("GET", "/v1/nodes", token=ALPHA)
    gpus = [g for n in nodes["nodes"] for g in n["gpus"]]
    check(s == 200 and len(gpus) == 2, f"nodes: {nodes}")
    jobs = [d.submit({"command": 'echo "gpu=$CUDA_VISIBLE_DEVICES mem=$FRUGAL_GPU_MEMORY_LIMIT_MIB";'
                                 " sleep 2", "gpus": 1, "gpu_milli": 250}) for _ in range(4)]
    per_card = {}
    for j in jobs:
        d.wait_state(j, ["completed"])
        out = d.read_log(j)
        fields = dict(w.split("=", 1) for w in out.split())
        check(fields.get("mem") == str(23034 * 250 // 1000), f"job {j}: {out!r}")
        per_card[fields["gpu"]] = per_card.get(fields["gpu"], 0) + int(fields["mem"])
    check(all(v <= 23034 for v in per_card.values()), f"caps per card {per_card}")
finally:
    d.cleanup(a.keep)

# The ledger's idle-allocated figure from measured use: a whole-card job on cards NVML
# reports 30 % busy pays 70 % of its rental as idle_allocated waste (within 1 %).
d = Daemon(a.frugal, gpus=2, nvml=True, extra="telemetry_period_s: 0.2")
try:
    gpus_file = os.path.join(d.dir, "gpus.txt")
    with open(gpus_file, "w") as f:
        f.write("NVIDIA L4;GPU-fake-0;23034;0;30;40\nNVIDIA L4;GPU-fake-1;23034;0;30;40\n")
    os.environ["FRUGAL_FAKE_NVML"] = gpus_file
    d.start()
    j = d.submit({"command": "sleep 3", "gpus": 1})
    d.wait_state(j, ["completed"])
    s, job = d.request("GET", f"/v1/jobs/{j}", token=ALPHA)
    check(s == 200 and abs(job["utilization"] - 0.30) < 1e-9, f"job: {job}")
    s, ledger = d.request("GET", "/v1/ledger", token=ADMIN)
    team = ledger["by_team"]["alpha"]
    share = team["waste"]["idle_allocated_usd"] / team["rental_usd"]
    check(abs(share - 0.70) <= 0.007, f"idle-allocated share {share:.4f}, not 0.70: {team}")
finally:
    d.cleanup(a.keep)
print("ok")
