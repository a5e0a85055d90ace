#!/bin/bash
# ResumeProgram of the local test cluster (slurm.conf): "boots" each cloud node of the
# hostlist $1 by starting its slurmd after a boot delay, the way a site's program would
# create a cloud instance. Slurm runs it as SlurmUser with no PATH and with slurmctld's
# descriptors open: absolute paths, and every descriptor above 2 closed (an inherited one
# kept the new slurmd from registering). Appends "<unix time> resume <node>" to the power
# log for each node; a node with a file fail-<node> beside this program does not boot
# ("resume-failed <node>"): Slurm marks it down~ after ResumeTimeout.
#   boot_delay_s beside this program: seconds before slurmd starts (default 2).
for fd in "/proc/$$/fd"/*; do
  n=${fd##*/}
  [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-"
done
HERE=/var/lib/frugal-slurm/power
LOG=/var/log/frugal-slurm/power.log
RUN=/run/frugal-slurm/launch
delay=$(/bin/cat "$HERE/boot_delay_s" 2>/dev/null || echo 2)
UNMASK='import os, signal, sys
for s in (signal.SIGPIPE, signal.SIGQUIT):
    signal.signal(s, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_SETMASK, set())
os.execv(sys.argv[1], sys.argv[1:])'

for node in $(/usr/bin/scontrol show hostnames "$1"); do
  if [ -e "$HERE/fail-$node" ]; then
    echo "$(/bin/date +%s.%N) resume-failed $node" >>"$LOG"
    continue
  fi
  echo "$(/bin/date +%s.%N) resume $node" >>"$LOG"
  # -b: report the node as rebooted (all fake nodes share the host's uptime, so slurmctld
  # would otherwise keep waiting for a boot). slurmctld runs this program with most signals
  # blocked (and SIGPIPE, SIGQUIT ignored), and a slurmd inheriting that mask ignores its
  # SIGTERM: Python restores the defaults before the exec. The pid is the slurmd's (setsid,
  # python and bash all exec).
  /usr/bin/setsid /usr/bin/python3 -c "$UNMASK" /bin/bash -c \
    "/bin/sleep $delay; exec /usr/sbin/slurmd -b -D -N $node" \
    >"/var/log/frugal-slurm/slurmd-$node.stdout" 2>&1 </dev/null &
  echo $! >"$RUN/slurmd-$node.pid"
done
exit 0
