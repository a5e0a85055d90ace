#!/usr/bin/env bash
# Set-up, build, and run every test (CTest: unit tests, real-trace tests, CLI tests, browser
# tests).
# Tests that read ../shared/data skip themselves when that folder is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
# Chromium, Node.js and tests/ui/node_modules for the browser tests (label ui); idempotent.
# Before the build: CMake registers the ui tests with the Node.js it finds.
bash scripts/ui-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"${FRUGAL_JOBS:-2}" "$@"
