#!/bin/bash
# SuspendProgram of the local test cluster (slurm.conf): "destroys" each cloud node of the
# hostlist $1 by stopping the slurmd power-resume.sh started, and appends
# "<unix time> suspend <node>" to the power log. Absolute paths: Slurm runs it with no PATH.
LOG=/var/log/frugal-slurm/power.log
RUN=/run/frugal-slurm/launch
for node in $(/usr/bin/scontrol show hostnames "$1"); do
  echo "$(/bin/date +%s.%N) suspend $node" >>"$LOG"
  pidf="$RUN/slurmd-$node.pid"
  if [ -f "$pidf" ]; then
    /bin/kill -TERM "$(/bin/cat "$pidf")" 2>/dev/null
    /bin/rm -f "$pidf"
  fi
done
exit 0
