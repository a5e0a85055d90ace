#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh) and builds frugal into ./build (Release with
# debug info, warnings as errors). Idempotent; rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${FRUGAL_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build build -j"${FRUGAL_JOBS:-2}"
