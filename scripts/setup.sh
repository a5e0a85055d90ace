#!/usr/bin/env bash
# Installs every Debian 12 package frugal needs to build, test and benchmark.
# Idempotent: installs only what is missing (checked package by package with dpkg-query) and
# prints nothing when all is present. The local Slurm cluster's packages are installed by
# scripts/slurm-local.sh, the fresh-machine check's by scripts/fresh-check.sh.
# git: scripts/format.sh lists the sources with it; curl: bench/serve_load.sh; procps: pgrep
# in tests/service/stopped_runs_it.py (a minimal Debian root has none of them);
# clang-tidy-19: scripts/tidy.sh (Debian's default clang-tidy 14 cannot parse this code).
# prometheus: its prometheus and promtool binaries, for tests/service/prometheus_it.py (the
# package's own daemon is not wanted: see below).
set -euo pipefail
PKGS=(build-essential cmake ninja-build g++ pkg-config clang-format clang-tidy-19 python3
      libgtest-dev libgmock-dev googletest libbenchmark-dev
      nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libfmt-dev libspdlog-dev
      libsqlite3-dev libhowardhinnant-date-dev tzdata coinor-libclp-dev coinor-libcbc-dev
      libcpp-httplib-dev libboost-dev libssl-dev time git curl procps prometheus)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# prometheus's postinst starts its daemon (port 9090) through invoke-rc.d where there is no
# systemd, and fails the install when that start fails (e.g. in a chroot). A policy-rc.d that
# denies every start (as Debian's container images ship) keeps it from starting during this
# install; one the machine has already is left as it is. The tests start their own.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
