#!/usr/bin/env bash
# Runs `.ci/run` as CI would on a fresh Debian 12 machine: builds a minimal Debian 12 root
# with debootstrap, copies this working tree (tracked and untracked-but-not-ignored files,
# committed there as a clean clone would be) to /work/main in it and ../shared (read-only)
# to /work/shared, and runs `CI=true bash .ci/run` inside it with chroot. Needs root and
# Debian's archive. Not part of .ci/run (it takes 20–40 minutes on 2 cores).
#
#   scripts/fresh-check.sh [--root DIR] [--keep] [--log FILE] [--no-ci] [--rev REV]
#     --root DIR  where to build the root (default /var/tmp/frugal-fresh; wiped first)
#     --keep      leave the root in place afterwards (default: removed on success)
#     --log FILE  the full log (default /var/tmp/frugal-fresh.log); its tail is printed
#     --no-ci     build the root and copy the tree, then stop (kept; to look around in it:
#                 mount as below and `chroot DIR bash`)
#     --rev REV   check commit REV (git archive) instead of the working tree
# The tree is taken when the script starts (before debootstrap): later edits do not leak in.
#
# What a fresh root needs and gets here, and nothing more:
#   - `debootstrap --variant=minbase` plus git and ca-certificates: CI's machine has cloned the
#     repository, so it has git; every other package is left for .ci/run to install.
#   - /proc, /sys, /dev, /dev/pts and /dev/shm mounted from the host, /run and /tmp as fresh
#     tmpfs (munged and the Slurm daemons keep sockets and pid files in /run).
#   - /usr/sbin/policy-rc.d answering 101, so that package installs inside the root do not
#     start munged or the Slurm daemons themselves (there is no init in a chroot); the
#     project's scripts/slurm-local.sh starts exactly the daemons it needs, as on a machine.
#   - the host's /etc/hosts and /etc/resolv.conf (names for localhost and the archive).
# The chroot shares the host's network: the local Slurm cluster inside binds 6817, 6820 and
# 17001–17004, so a cluster running on the host must be stopped first (checked).
# Downloaded .deb files are cached in /var/cache/frugal-fresh-check (only the download
# cache: nothing is installed in the root before .ci/run installs it).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$HERE/.." && pwd)"
SHARED="$(cd "$SRC/.." && pwd)/shared"
ROOT=/var/tmp/frugal-fresh
LOGF=/var/tmp/frugal-fresh.log
KEEP=0
CI_RUN=1
REV=""
CACHE=/var/cache/frugal-fresh-check
MIRROR=${FRUGAL_FRESH_MIRROR:-http://deb.debian.org/debian}
SEC_MIRROR=${FRUGAL_FRESH_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --log) LOGF=$2; shift 2 ;;
    --no-ci) CI_RUN=0; KEEP=1; shift ;;
    --rev) REV=$2; shift 2 ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
  esac
done

die() { echo "fresh-check: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot and mounts)"
[ -d "$SHARED" ] || die "no $SHARED beside the project (CI has a copy of shared/ there)"
case "$ROOT" in /|/usr|/var|/tmp|/work|"") die "refusing --root $ROOT" ;; esac
for port in 6817 6820 17001; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    die "port $port is in use (a local Slurm cluster? scripts/slurm-local.sh stop)"
  fi
done

# Host packages this script itself uses, checked one by one.
missing=()
for p in debootstrap debian-archive-keyring git rsync; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fresh-check: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tree to check, taken now: the working tree's tracked and untracked-but-not-ignored
# files, or commit $REV.
SNAP=$(mktemp -d /var/tmp/frugal-fresh-tree.XXXXXX)
if [ -n "$REV" ]; then
  git -C "$SRC" archive --format=tar "$REV" | tar -x -C "$SNAP"
else
  (cd "$SRC" && git ls-files -z -c -o --exclude-standard | rsync -a --from0 --files-from=- ./ "$SNAP/")
fi
echo "fresh-check: checking $([ -n "$REV" ] && git -C "$SRC" rev-parse --short "$REV" || echo "the working tree of $(git -C "$SRC" rev-parse --short HEAD)")"

MOUNTS=(proc sys dev dev/pts dev/shm run tmp var/cache/apt/archives)
# Kills every process whose root is inside $ROOT, then unmounts what was mounted.
cleanup() {
  local pid r
  for _ in 1 2; do
    for pid in /proc/[0-9]*; do
      r=$(readlink "$pid/root" 2>/dev/null) || continue
      [ "$r" = "$ROOT" ] && kill -KILL "${pid#/proc/}" 2>/dev/null
    done
    sleep 0.5
  done
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    mountpoint -q "$ROOT/${MOUNTS[$i]}" 2>/dev/null && umount -l "$ROOT/${MOUNTS[$i]}"
  done
  return 0
}
trap 'cleanup; rm -rf "$SNAP"' EXIT

T0=$(date +%s)
phase_names=()
phase_secs=()
phase() {  # phase NAME CMD...: runs CMD, records its wall time
  local name=$1 t
  shift
  t=$(date +%s)
  echo "=== fresh-check: $name ($(date -u +%H:%M:%S))"
  "$@"
  phase_names+=("$name")
  phase_secs+=($(($(date +%s) - t)))
}

make_root() {
  cleanup
  rm -rf --one-file-system "$ROOT"
  mkdir -p "$ROOT" "$CACHE"
  debootstrap --variant=minbase --cache-dir="$CACHE" bookworm "$ROOT" "$MIRROR"
  cat >"$ROOT/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SEC_MIRROR bookworm-security main
EOF
  printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
  chmod 0755 "$ROOT/usr/sbin/policy-rc.d"
  cp /etc/hosts /etc/resolv.conf "$ROOT/etc/"
  mount_all
  chroot "$ROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c \
    'apt-get update -qq && apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null'
}

mount_all() {
  mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
  mountpoint -q "$ROOT/sys" || mount --rbind /sys "$ROOT/sys"
  mountpoint -q "$ROOT/dev" || mount --rbind /dev "$ROOT/dev"
  mkdir -p "$ROOT/dev/pts" "$ROOT/dev/shm"
  mountpoint -q "$ROOT/dev/pts" || mount --bind /dev/pts "$ROOT/dev/pts" 2>/dev/null || true
  mountpoint -q "$ROOT/dev/shm" || mount -t tmpfs shm "$ROOT/dev/shm"
  mountpoint -q "$ROOT/run" || mount -t tmpfs run "$ROOT/run"
  mountpoint -q "$ROOT/tmp" || { mount -t tmpfs tmp "$ROOT/tmp"; chmod 1777 "$ROOT/tmp"; }
  mkdir -p "$ROOT/var/cache/apt/archives"
  mountpoint -q "$ROOT/var/cache/apt/archives" || mount --bind "$CACHE" "$ROOT/var/cache/apt/archives"
}

copy_tree() {
  mkdir -p "$ROOT/work/main"
  rsync -a "$SNAP/" "$ROOT/work/main/"
  rsync -a "$SHARED/" "$ROOT/work/shared/"
  chmod -R a-w "$ROOT/work/shared"
  chroot "$ROOT" bash -c 'cd /work/main && git init -q -b main && git add -A &&
    git -c user.name=fresh-check -c user.email=fresh-check@localhost commit -q -m "working tree"'
}

run_ci() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 CI=true bash -c 'cd /work/main && bash .ci/run </dev/null'
}

set +e
(
  set -e
  phase "debootstrap a minimal Debian 12 root" make_root
  phase "copy the working tree and shared/" copy_tree
  [ $CI_RUN = 1 ] && phase "CI=true bash .ci/run" run_ci
  echo "=== fresh-check phases (seconds):"
  for i in "${!phase_names[@]}"; do printf '  %6d  %s\n' "${phase_secs[$i]}" "${phase_names[$i]}"; done
) >"$LOGF" 2>&1
rc=$?
set -e
tail -n 60 "$LOGF"
echo "fresh-check: rc=$rc after $(($(date +%s) - T0)) s; full log $LOGF; root $ROOT"
if [ $rc -eq 0 ] && [ $KEEP = 0 ]; then
  cleanup
  rm -rf --one-file-system "$ROOT"
fi
exit $rc
