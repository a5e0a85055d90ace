"""The CI version of bench/kill9.py: 200 jobs, 5 random `kill -9`s of the daemon — no
accepted job lost, none duplicated, no job whose command ended started again."""
import os
import subprocess
import sys

from harness import args, check

a = args()
bench = os.path.join(a.source, "bench", "kill9.py")
p = subprocess.run([sys.executable, bench, "--frugal", a.frugal, "--jobs", "200", "--kills", "5",
                    "--seed", "7"], capture_output=True, text=True, timeout=170)
print(p.stdout + p.stderr)
check(p.returncode == 0, f"kill9 bench failed (exit {p.returncode})")
print("ok: 200 jobs over 5 kills: none lost, duplicated or rerun")
