#!/usr/bin/env bash
# Sanitizer builds and the tests they run (CI runs both; see .ci/run):
#   scripts/sanitize.sh asan   ASan+UBSan at -O0 (build-asan): CTest labels unit, service, storage
#                              (the Python service tests drive the instrumented daemon)
#   scripts/sanitize.sh tsan   TSan at -O1 (build-tsan): label service and the slurm_serve
#                              cases (HTTP threads, the decision loop and the Slurm worker)
# Extra arguments go to ctest. ASan, LSan and TSan write every report (from the test binaries
# and from each daemon the tests start, whatever its exit status) to build-*/sanitizer/; the
# script fails when ctest fails or when any report is there, and prints them. UBSan prints
# to stderr only (GCC 12 ignores log_path for it) and halts: a test binary then fails, and
# the Python harnesses fail a test whose daemon log holds a report (tests/service/harness.py).
# Debug info is -g1 (functions and lines, enough for the reports' stacks): the CI budget.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
shift || true
case "$kind" in
  asan) flags="address,undefined"; type=Debug; dir=build-asan; opt="-O0" ;;
  tsan) flags="thread"; type=RelWithDebInfo; dir=build-tsan; opt="-O1" ;;
  *) sed -n '2,6p' "$0" >&2; exit 2 ;;
esac
bash scripts/setup.sh
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DFRUGAL_SANITIZE="$flags" \
  -DCMAKE_CXX_FLAGS_DEBUG="-g1 $opt" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-g1 $opt" \
  -DFRUGAL_BUILD_BENCH=OFF >/dev/null
reports="$PWD/$dir/sanitizer"
rm -rf "$reports"
mkdir -p "$reports"
common="log_path=$reports/report:print_stacktrace=1"
export ASAN_OPTIONS="$common:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="$common:halt_on_error=1"
export TSAN_OPTIONS="$common:halt_on_error=0:second_deadlock_stack=1"
rc=0
# Left out under ASan (-O0, so 10-30x slower): the full-trace scale runs, whose code paths the
# shorter unit tests cover under ASan and which run in the normal build (scripts/test.sh), and
# bench/evaluate's runs (every policy on both bundled traces: 7 of the phase's 40 CPU minutes;
# the simulate, compare and report tests run the same code under ASan).
asan_skip='^(RealTrace\.ItpCluster04UnderEveryBaseline|PackBound\.AboveEveryPolicyAtEveryLevelOfEveryRun|PackMigration\.StaysWithinTheBudgetAndLosesNoPod|PackFrugal\.NeverBelowFgdOnGpuspec20|CliEvaluate\.QuickRunsEveryPolicyOnBothTraces|CliEvaluate\.HtmlReportsEveryTraceInItsOwnSection|bench\.evaluate_owned_it)$'
if [ "$kind" = asan ]; then
  cmake --build "$dir" -j"${FRUGAL_JOBS:-2}" --target frugal frugal_tests
  ctest --test-dir "$dir" --output-on-failure -j"${FRUGAL_JOBS:-2}" -L 'unit|service|storage' \
    -E "$asan_skip" "$@" || rc=$?
else
  cmake --build "$dir" -j"${FRUGAL_JOBS:-2}" --target frugal fake_nvml
  ctest --test-dir "$dir" --output-on-failure -j"${FRUGAL_JOBS:-2}" -L service "$@" || rc=$?
  ctest --test-dir "$dir" --output-on-failure -R '^slurm_serve\.' "$@" || rc=$?
fi
shopt -s nullglob
found=("$reports"/report*)
if [ ${#found[@]} -gt 0 ]; then
  echo "sanitize $kind: ${#found[@]} sanitizer report(s) in $reports:" >&2
  for f in "${found[@]}"; do echo "--- $f" >&2; head -n 60 "$f" >&2; done
  rc=1
fi
echo "sanitize $kind: $([ $rc -eq 0 ] && echo clean || echo FAILED)"
exit $rc
