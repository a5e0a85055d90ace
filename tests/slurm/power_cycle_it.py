#!/usr/bin/env python3
"""The local cluster's cloud nodes through Slurm's power saving (CTest label slurm).

  power_cycle_it.py --unavailable MARKER

Against scripts/slurm-local.sh's cluster, with Slurm's own commands only (frugal's use of
them is the live-capacity issue's): gpu5 starts powered down (`idle~`); `scontrol update
State=POWER_UP` runs the ResumeProgram (a "resume gpu5" line in the power log), the node
registers and runs a job of the `cloud` partition; `State=POWER_DOWN` runs the
SuspendProgram ("suspend gpu5") and the node is `idle~` again with its slurmd gone. A
node whose ResumeProgram fails (deploy/slurm-local/power-resume.sh's fail-<node> file)
is `down~` once ResumeTimeout passes, and `State=RESUME` brings it back to powered down.
Standard library only.
"""
import argparse, os, re, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurm_test_util import POWER, POWER_LOG, run, state  # noqa: E402

RUN = "/run/frugal-slurm/launch"


def wait_state(node, want, timeout_s):
    """Waits until sinfo's %t for `node` is one of `want`; fails naming what it saw."""
    deadline, seen = time.time() + timeout_s, []
    while time.time() < deadline:
        s = state(node)
        if not seen or seen[-1] != s:
            seen.append(s)
        if s in want:
            return s
        time.sleep(0.5)
    sys.exit(f"FAIL: {node} never reached {want} in {timeout_s} s; states seen: {seen}")


def log_lines(kind, node):
    if not os.path.exists(POWER_LOG):
        return []
    return [l for l in open(POWER_LOG) if re.fullmatch(rf"[0-9.]+ {kind} {node}\n", l)]


def scontrol_update(node, st):
    r = run("scontrol", "update", f"NodeName={node}", f"State={st}")
    if r.returncode != 0:
        sys.exit(f"FAIL: scontrol update {node} State={st}: {r.stderr.strip()}")


def cycle(node):
    assert state(node) == "idle~", f"{node} should start powered down, is {state(node)!r}"
    resumes = len(log_lines("resume", node))
    t0 = time.time()
    scontrol_update(node, "POWER_UP")
    wait_state(node, {"idle"}, 60)
    up_s = time.time() - t0
    assert len(log_lines("resume", node)) == resumes + 1, "the ResumeProgram did not log"
    pidf = os.path.join(RUN, f"slurmd-{node}.pid")
    pid = int(open(pidf).read())
    os.kill(pid, 0)  # its slurmd runs
    # The node runs work: a job of the cloud partition pinned to it.
    job = run("sbatch", "--wait", "-p", "cloud", "-w", node, "-t", "1", "-o", "/dev/null",
              "--wrap", "true")
    assert job.returncode == 0, f"job on {node}: {job.stdout} {job.stderr}"
    suspends = len(log_lines("suspend", node))
    t1 = time.time()
    scontrol_update(node, "POWER_DOWN")
    wait_state(node, {"idle~"}, 60)
    down_s = time.time() - t1
    assert len(log_lines("suspend", node)) == suspends + 1, "the SuspendProgram did not log"
    assert not os.path.exists(pidf), "the SuspendProgram left the pid file"
    try:
        os.kill(pid, 0)
        for _ in range(50):  # SIGTERM sent: slurmd takes a moment to exit
            time.sleep(0.1)
            os.kill(pid, 0)
        sys.exit(f"FAIL: {node}'s slurmd {pid} still runs after the power-down")
    except ProcessLookupError:
        pass
    print(f"ok: {node} powered up in {up_s:.1f} s, ran a job, powered down in {down_s:.1f} s")


def failed_resume(node):
    assert state(node) == "idle~", f"{node} should start powered down, is {state(node)!r}"
    marker = os.path.join(POWER, f"fail-{node}")
    open(marker, "w").close()
    try:
        t0 = time.time()
        scontrol_update(node, "POWER_UP")
        wait_state(node, {"down~", "down#", "down"}, 90)
        print(f"ok: {node}'s failed resume seen as down after {time.time() - t0:.1f} s")
        assert log_lines("resume-failed", node), "the ResumeProgram did not log its failure"
    finally:
        os.remove(marker)
    scontrol_update(node, "RESUME")
    s = wait_state(node, {"idle~", "idle%"}, 60)
    wait_state(node, {"idle~"}, 60)
    print(f"ok: {node} back to powered down (via {s})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unavailable", required=True)
    a = ap.parse_args()
    if os.path.exists(a.unavailable) and open(a.unavailable).read().strip():
        print("[  SKIPPED ] local Slurm unavailable:", open(a.unavailable).read().strip())
        return 0
    cycle("gpu5")
    failed_resume("gpu6")
    return 0


if __name__ == "__main__":
    sys.exit(main())
