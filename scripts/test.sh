#!/usr/bin/env bash
# Set-up, build, and run every test (CTest: unit tests, real-trace tests, CLI tests).
# Tests that read ../shared/data skip themselves when that folder is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"${FRUGAL_JOBS:-2}" "$@"
