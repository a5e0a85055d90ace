#!/usr/bin/env bash
# frugal's local Slurm 22.05 test cluster on one host (Debian 12): munged, slurmctld, four
# slurmd (gpu1, gpu2: 8 fake A100; gpu3, gpu4: 4 fake H100; gres/shard for fractions) and
# slurmrestd with JWT on 127.0.0.1:6820; two cloud nodes (gpu5, gpu6: 8 fake A100,
# partition `cloud`) start powered down: `scontrol update NodeName=gpu5 State=POWER_UP` runs
# the ResumeProgram, which starts their slurmd after FRUGAL_SLURM_BOOT_DELAY seconds (2), and
# every power call is a line in /var/log/frugal-slurm/power.log. Config: deploy/slurm-local/.
# Needs root.
#
#   scripts/slurm-local.sh install           apt-get each Slurm package that is missing
#   scripts/slurm-local.sh check-plugins [CONF]  exit 1 naming each plugin CONF (default:
#       deploy/slurm-local/slurm.conf) or slurmrestd needs that is not installed
#   scripts/slurm-local.sh start [--clean]   install if needed, start (--clean: no old jobs)
#   scripts/slurm-local.sh stop              cancel jobs, stop exactly the daemons started here
#   scripts/slurm-local.sh status            exit 0 when controller, 4 nodes and REST answer
#   scripts/slurm-local.sh restart-ctld [TERM|KILL] [down_s]   restart slurmctld, keep state
#   scripts/slurm-local.sh reclaim NODE [notice_s]   a spot reclaim as a provider's notice
#       handler would do it: drain NODE with reason "spot reclaim" (frugal's reclaim notice),
#       wait notice_s (default 5), then POWER_DOWN_FORCE (jobs still there are killed); both
#       steps are lines in the power log ("reclaim-notice", "reclaim")
#   scripts/slurm-local.sh ctest-start MARKER  the CTest fixture: stop, start --clean; where
#       Slurm cannot be installed or started, write why to MARKER and exit 0 so the tests
#       skip (with FRUGAL_SLURM_REQUIRED=1, as in CI, that is a failure instead)
#
# State /var/lib/frugal-slurm, logs /var/log/frugal-slurm (jobcomp.log: one line per finished
# run), launch pid files /run/frugal-slurm/launch. Config is installed into /etc/slurm.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONF_SRC="$HERE/../deploy/slurm-local"
LIB=/var/lib/frugal-slurm
LOG=/var/log/frugal-slurm
RUN=/run/frugal-slurm/launch
NODES="gpu1 gpu2 gpu3 gpu4"
CLOUD_NODES="gpu5 gpu6"
REST_ADDR=${FRUGAL_SLURM_REST_ADDR:-127.0.0.1:6820}
# Every package used here, checked one by one (dpkg-query): slurm-wlm-jwt-plugin provides the
# auth/jwt that slurm.conf's AuthAltTypes and slurmrestd's rest_auth/jwt load.
PKGS="slurm-wlm slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin munge curl"
PLUGIN_DIR=${FRUGAL_SLURM_PLUGIN_DIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}

T0=$(date +%s.%N)
log() { echo "[slurm-local +$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2fs", b-a}')] $*"; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# wait_for <tries of 0.1 s> <cmd...>: gives up early when a daemon started here has died
wait_for() {
  local n=$1; shift
  for _ in $(seq 1 "$n"); do
    "$@" >/dev/null 2>&1 && return 0
    for f in "$RUN"/*.pid; do
      [ -e "$f" ] && ! alive "$f" && { echo "$(basename "$f" .pid) exited" >&2; return 1; }
    done
    sleep 0.1
  done
  return 1
}

# Prints the packages of $PKGS that dpkg does not have installed (none: all present).
missing_pkgs() {
  local p
  for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

cmd_install() {
  local missing
  missing=$(missing_pkgs | tr '\n' ' ')
  [ -z "${missing// }" ] && return 0
  [ "$(id -u)" -eq 0 ] || { echo "slurm-local: root needed to install $missing" >&2; return 1; }
  log "installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# The plugins a config names, as "file:key=value" lines: every *Type/*Types key of
# slurm.conf (auth/munge → auth_munge.so) and each GresTypes entry (gres_gpu.so), plus the
# ones slurmrestd is started with below.
named_plugins() {
  local conf=$1
  sed -e 's/#.*//' "$conf" | awk -F= '
    { key=$1; gsub(/[ \t]/, "", key); val=substr($0, index($0, "=")+1); gsub(/[ \t]/, "", val) }
    key ~ /Types?$/ && key != "GresTypes" && val != "" {
      n=split(val, v, ","); for (i=1; i<=n; i++) if (v[i] ~ /\//) print v[i] ":" key "=" val }
    key == "GresTypes" { n=split(val, v, ","); for (i=1; i<=n; i++) print "gres/" v[i] ":" key "=" val }'
  echo "rest_auth/jwt:slurmrestd -a rest_auth/jwt"
  echo "openapi/v0.0.38:slurmrestd -s openapi/v0.0.38"
}

# Fails, naming each one, when a plugin the config names has no .so in $PLUGIN_DIR.
cmd_check_plugins() {
  local conf=${1:-$CONF_SRC/slurm.conf} line plugin file bad=0
  [ -d "$PLUGIN_DIR" ] || { echo "slurm-local: no Slurm plugin directory $PLUGIN_DIR (is slurm-wlm installed?)" >&2; return 1; }
  while IFS= read -r line; do
    plugin=${line%%:*}
    file="$PLUGIN_DIR/$(echo "$plugin" | tr '/.' '__').so"
    if [ ! -e "$file" ]; then
      echo "slurm-local: plugin $plugin (named by ${line#*:} in $conf) is missing: no $file" >&2
      bad=1
    fi
  done < <(named_plugins "$conf")
  return $bad
}

start_ctld() {  # $1: extra slurmctld options
  setsid slurmctld -D -i $1 >>"$LOG/slurmctld.stdout" 2>&1 </dev/null &
  echo $! >"$RUN/slurmctld.pid"
  wait_for 150 bash -c 'scontrol ping | grep -q UP' \
    || { echo "slurmctld not UP; see $LOG/slurmctld.log" >&2; return 1; }
}

nodes_up() { [ "$(sinfo -h -N -o '%t' | grep -c -E '^(idle|mix|alloc)$')" -ge 4 ]; }

cmd_start() {
  local clean=0
  [ "${1:-}" = "--clean" ] && clean=1
  [ "$(id -u)" -eq 0 ] || { echo "slurm-local: must run as root" >&2; return 1; }
  cmd_install || return 1
  cmd_check_plugins "$CONF_SRC/slurm.conf" || return 1
  mkdir -p "$RUN" "$LOG" "$LIB"
  for f in "$RUN"/*.pid; do
    [ -e "$f" ] || continue
    alive "$f" && { echo "slurm-local: already running ($f); stop it first" >&2; return 1; }
    rm -f "$f"
  done
  trap 'rc=$?; [ $rc -ne 0 ] && { echo "slurm-local: start failed, stopping" >&2; cmd_stop >&2; }' EXIT

  # munge (reused when one already answers)
  [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge /var/lib/munge /var/log/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge; chmod 0755 /run/munge
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
    setsid setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F \
      >"$LOG/munged.stdout" 2>&1 </dev/null &
    echo $! >"$RUN/munged.pid"
    wait_for 50 bash -c 'munge -n | unmunge' || { echo "munged failed" >&2; return 1; }
  fi
  log "munge up"

  [ $clean = 1 ] && rm -rf "$LIB/ctld" "$LIB/d" "$LOG"/slurm*.log "$LOG"/*.stdout "$LOG/jobcomp.log" \
    "$LOG/power.log"
  mkdir -p "$LIB/ctld"
  local n i
  for n in $NODES $CLOUD_NODES; do mkdir -p "$LIB/d/$n" "$LIB/fakedev/$n"; done
  for i in 0 1 2 3 4 5 6 7; do for n in gpu1 gpu2 $CLOUD_NODES; do ln -sfn /dev/null "$LIB/fakedev/$n/nvidia$i"; done; done
  for i in 0 1 2 3; do for n in gpu3 gpu4; do ln -sfn /dev/null "$LIB/fakedev/$n/nvidia$i"; done; done
  [ -s "$LIB/jwt_hs256.key" ] || dd if=/dev/urandom of="$LIB/jwt_hs256.key" bs=32 count=1 status=none
  chmod 0600 "$LIB/jwt_hs256.key"
  mkdir -p /etc/slurm
  install -m 0644 "$CONF_SRC/slurm.conf" /etc/slurm/slurm.conf
  install -m 0644 "$CONF_SRC/gres.conf" /etc/slurm/gres.conf
  # The cloud nodes' power programs (slurm.conf names these absolute paths).
  mkdir -p "$LIB/power"
  install -m 0755 "$CONF_SRC/power-resume.sh" "$LIB/power/resume"
  install -m 0755 "$CONF_SRC/power-suspend.sh" "$LIB/power/suspend"
  echo "${FRUGAL_SLURM_BOOT_DELAY:-2}" >"$LIB/power/boot_delay_s"
  rm -f "$LIB/power"/fail-*

  if [ $clean = 1 ]; then start_ctld "-c"; else start_ctld ""; fi
  log "slurmctld UP"
  for n in $NODES; do
    setsid slurmd -D -N "$n" >"$LOG/slurmd-$n.stdout" 2>&1 </dev/null &
    echo $! >"$RUN/slurmd-$n.pid"
  done
  wait_for 300 nodes_up || { sinfo -N >&2; echo "nodes not up; see $LOG/slurmd-*.log" >&2; return 1; }
  log "4 slurmd up"
  # slurmrestd refuses to run as root or SlurmUser: it runs as nobody
  SLURM_JWT=daemon setsid slurmrestd -a rest_auth/jwt -s openapi/v0.0.38 -u nobody "$REST_ADDR" \
    >"$LOG/slurmrestd.log" 2>&1 </dev/null &
  echo $! >"$RUN/slurmrestd.pid"
  wait_for 100 curl -s -o /dev/null "http://$REST_ADDR/" \
    || { echo "slurmrestd not answering; see $LOG/slurmrestd.log" >&2; return 1; }
  log "slurmrestd on http://$REST_ADDR; cluster ready"
  trap - EXIT
}

# Stops the daemons in the given pid files together (each takes ~2 s to exit on SIGTERM):
# TERM all, wait up to 5 s, then KILL what is left. Only these recorded pids are signalled.
stop_pidfiles() {
  local f pids=()
  for f in "$@"; do
    [ -f "$f" ] || continue
    kill -0 "$(cat "$f")" 2>/dev/null && { kill -TERM "$(cat "$f")"; pids+=("$(cat "$f")"); }
    rm -f "$f"
  done
  local p left
  for _ in $(seq 1 50); do
    left=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left=1; done
    [ $left = 0 ] && return 0
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null; done
  return 0
}

cmd_stop() {
  if alive "$RUN/slurmctld.pid"; then
    local jobs
    jobs=$(squeue -h -o %i 2>/dev/null | tr '\n' ' ')
    if [ -n "${jobs// }" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for _ in $(seq 1 50); do [ -z "$(squeue -h -t R,CG -o %i 2>/dev/null)" ] && break; sleep 0.1; done
    fi
  fi
  stop_pidfiles "$RUN/slurmrestd.pid" "$RUN"/slurmd-*.pid "$RUN/slurmctld.pid"
  stop_pidfiles "$RUN/munged.pid"
  log "stopped"
}

cmd_status() {
  scontrol ping 2>/dev/null | grep -q UP || { echo "slurmctld down"; return 1; }
  nodes_up || { echo "nodes not all up"; sinfo -N; return 1; }
  curl -s -o /dev/null "http://$REST_ADDR/" || { echo "slurmrestd down"; return 1; }
  sinfo -N -o '%N %t %G %f'
}

# Stops slurmctld with SIG (TERM|KILL), stays down DOWN seconds, starts it on the same state.
cmd_reclaim() {
  local node=${1:?node} notice=${2:-5}
  echo "$(date +%s.%N) reclaim-notice $node" >>"$LOG/power.log"
  scontrol update NodeName="$node" State=DRAIN Reason="spot reclaim"
  sleep "$notice"
  echo "$(date +%s.%N) reclaim $node" >>"$LOG/power.log"
  scontrol update NodeName="$node" State=POWER_DOWN_FORCE
}

cmd_restart_ctld() {
  local sig=${1:-TERM} down=${2:-0} pid
  pid=$(cat "$RUN/slurmctld.pid")
  kill "-$sig" "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  sleep "$down"
  start_ctld ""
  log "slurmctld restarted (was pid $pid, now $(cat "$RUN/slurmctld.pid"))"
  # Nodes read "unknown" until each slurmd registers again; wait so callers find them usable.
  wait_for 300 nodes_up || { sinfo -N >&2; echo "nodes did not come back" >&2; return 1; }
  log "4 slurmd registered again"
}

cmd_ctest_start() {
  local marker=$1 why=""
  rm -f "$marker"
  if [ "$(id -u)" -ne 0 ]; then
    why="not root (slurmctld, slurmd and munged are started as root)"
  elif ! cmd_install; then
    why="could not install $(missing_pkgs | tr '\n' ' ')"
  else
    cmd_stop >/dev/null 2>&1 || true
    if ! (cmd_start --clean); then
      why="scripts/slurm-local.sh start failed; see /var/log/frugal-slurm/"
    fi
  fi
  [ -z "$why" ] && return 0
  if [ -n "${FRUGAL_SLURM_REQUIRED:-}" ]; then
    echo "slurm-local: $why (FRUGAL_SLURM_REQUIRED is set)" >&2
    return 1
  fi
  echo "$why" >"$marker"
  echo "slurm-local: $why; the slurm tests will skip"
}

case "${1:-}" in
  install) cmd_install ;;
  check-plugins) shift; cmd_check_plugins "$@" ;;
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart-ctld) shift; cmd_restart_ctld "$@" ;;
  reclaim) shift; cmd_reclaim "$@" ;;
  ctest-start) shift; cmd_ctest_start "${1:?marker file}" ;;
  *) sed -n '2,26p' "$0" >&2; exit 2 ;;
esac
