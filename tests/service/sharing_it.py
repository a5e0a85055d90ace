"""Sharing measured idle on the local backend (`sharing:`, docs/TELEMETRY.md), on the real
NVML path against the fake libnvidia-ml.so.1 (tests/fake_nvml): the card's processes are the
jobs' real shells (mapped to their jobs by FRUGAL_JOB_ID in /proc), each with the SM share
the fake reports for it. A consenting whole-card job measured at 30 % lends its idle: a
waiting 0.5-GPU opportunistic job starts beside it with its MPS limit at the measured
headroom (70 %); when the host's own load rises to 90 % the guest is recalled and waits."""
import os
import sys
import time

from harness import ADMIN, ALPHA, Daemon, args, check, fail

a = args()
fake = os.environ.get("FRUGAL_FAKE_NVML_DIR")
if not fake or not os.path.exists(os.path.join(fake, "libnvidia-ml.so.1")):
    fail("FRUGAL_FAKE_NVML_DIR does not hold libnvidia-ml.so.1 (run through CTest)")
os.environ["LD_LIBRARY_PATH"] = fake + ":" + os.environ.get("LD_LIBRARY_PATH", "")

d = Daemon(a.frugal, gpus=1, nvml=True, policy=None, extra="""telemetry_period_s: 0.2
sharing: {window_minutes: 0.02}
""")
gpus_file = os.path.join(d.dir, "gpus.txt")


def card(util, procs=""):
    """The fake card's reading: utilisation % and its processes PID:MIB:SM%."""
    tmp = gpus_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"NVIDIA L4;GPU-fake-0;23034;6000;{util};40;50;{procs}\n")
    os.replace(tmp, gpus_file)  # the fake reads it at every query: never half-written


def pid_of(name, timeout_s=20):
    path = os.path.join(d.dir, name)
    end = time.time() + timeout_s
    while time.time() < end:
        if os.path.exists(path):
            text = open(path).read().strip()
            if text:
                return int(text)
        time.sleep(0.05)
    fail(f"{name} not written:\n{d.log_text()}")


def wait_for(cond, what, timeout_s=30):
    end = time.time() + timeout_s
    while time.time() < end:
        if cond():
            return
        time.sleep(0.1)
    fail(f"{what} within {timeout_s} s:\n{d.log_text()}")


card(0)
os.environ["FRUGAL_FAKE_NVML"] = gpus_file
try:
    d.start()
    host = d.submit({"command": f"echo $$ > {d.dir}/host.pid; sleep 600", "gpus": 1,
                     "lend_idle": True})
    d.wait_state(host, ["running"])
    hp = pid_of("host.pid")
    card(30, f"{hp}:4000:30")
    guest = d.submit({"command": f"echo $$ > {d.dir}/guest.pid; echo "
                      "mps=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE mem=$FRUGAL_GPU_MEMORY_LIMIT_MIB "
                      "host=$FRUGAL_GUEST_OF; sleep 600",
                      "gpus": 1, "gpu_milli": 500, "opportunistic": True})
    d.wait_state(guest, ["running"])
    job = d.job(guest)
    check(job.get("guest_of") == host, f"not a guest of {host}: {job}")
    gp = pid_of("guest.pid")
    out = d.read_log(guest)
    fields = dict(w.split("=", 1) for w in out.split())
    check(fields.get("mps") == "70", f"MPS limit not the measured headroom: {out!r}")
    check(fields.get("host") == str(host), f"FRUGAL_GUEST_OF: {out!r}")
    # What the host leaves under sharing.memory_below (80 %) of the card, at most the
    # guest's own half: 23,034 × 0.5.
    check(0 < int(fields.get("mem", "0")) <= 23034 // 2, f"memory limit: {out!r}")
    # Both on the card: each is measured by its own processes (the host 30 %, the guest
    # 35 % of the card = half of its 70 % share), not by the card's 65 %.
    card(65, f"{hp}:4000:30,{gp}:2000:35")
    wait_for(lambda: abs((d.job(guest).get("utilization") or 0) - 0.5) < 0.1,
             "the guest measured at about half of its share")
    h = d.job(host)
    check(abs(h["utilization"] - 0.30) < 1e-6, f"host measured {h['utilization']}, not 0.30")
    s, ledger = d.request("GET", "/v1/ledger", token=ADMIN)
    team = ledger["by_team"]["alpha"]
    check(s == 200 and team["waste"]["idle_allocated_usd"] >= 0, f"ledger: {team}")
    # The host needs its GPU back: the guest is stopped and waits.
    card(100, f"{hp}:4000:90,{gp}:2000:10")
    wait_for(lambda: d.job(guest)["state"] in ("preempted", "queued"), "guest recalled")
    reason = d.job(guest)["reason"]
    check("needs its GPU back" in reason, f"recall reason: {reason}")
    time.sleep(1.0)
    check(d.job(guest)["state"] != "running", "restarted beside a busy host")
    for j in (host, guest):
        d.request("DELETE", f"/v1/jobs/{j}", token=ALPHA)
    d.wait_state(host, ["cancelled"])
    d.db_check()
finally:
    d.cleanup(a.keep)
print("ok")
