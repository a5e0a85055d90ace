#!/usr/bin/env bash
# Sanitizer builds and the tests they run (CI runs both; see .ci/run):
#   scripts/sanitize.sh asan   ASan+UBSan at -O0 (build-asan): CTest labels unit, service, storage
#                              (the Python service tests drive the instrumented daemon);
#                              frugal_tests' cases in gtest shards (FRUGAL_GTEST_FILTER narrows them)
#   scripts/sanitize.sh tsan   TSan at -O1 (build-tsan): label service and the slurm_serve
#                              cases (HTTP threads, the decision loop and the Slurm worker)
# Extra arguments go to ctest (under asan, to its run of the tests that are not gtest cases). ASan, LSan and TSan write every report (from the test binaries
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
asan_skip_gtest="RealTrace.ItpCluster04UnderEveryBaseline:PackBound.AboveEveryPolicyAtEveryLevelOfEveryRun"
asan_skip_gtest+=":PackMigration.StaysWithinTheBudgetAndLosesNoPod:PackFrugal.NeverBelowFgdOnGpuspec20"
asan_skip_gtest+=":CliEvaluate.QuickRunsEveryPolicyOnBothTraces:CliEvaluate.HtmlReportsEveryTraceInItsOwnSection"
asan_skip_ctest='^bench\.evaluate_owned_it$'
if [ "$kind" = asan ]; then
  cmake --build "$dir" -j"${FRUGAL_JOBS:-2}" --target frugal frugal_tests
  # frugal_tests' cases (labels unit and storage) run in FRUGAL_JOBS processes, split by gtest's
  # sharding, not one process per case as ctest runs them: an ASan+UBSan process spends ~1 s
  # starting and exiting (registering its globals, LSan's scan at exit), ~700 cases' worth.
  # Each shard has its own TMPDIR; its output is in $dir/gtest-shard*.log.
  shards=${FRUGAL_JOBS:-2}
  pids=()
  for ((s = 0; s < shards; ++s)); do
    rm -rf "$dir/test-tmp/shard$s"
    mkdir -p "$dir/test-tmp/shard$s"
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$s TMPDIR="$PWD/$dir/test-tmp/shard$s" \
      timeout 3600 "$dir/frugal_tests" --gtest_filter="${FRUGAL_GTEST_FILTER:-*}-$asan_skip_gtest" \
      >"$dir/gtest-shard$s.log" 2>&1 &
    pids+=($!)
  done
  for s in "${!pids[@]}"; do
    if wait "${pids[$s]}"; then
      echo "gtest shard $s: $(grep -E '^\[  PASSED  \]' "$dir/gtest-shard$s.log")"
    else
      rc=1
      echo "gtest shard $s FAILED ($dir/gtest-shard$s.log):" >&2
      grep -E '^\[  (FAILED|SKIPPED) +\]|Failure$' "$dir/gtest-shard$s.log" >&2 || true
      tail -n 60 "$dir/gtest-shard$s.log" >&2
    fi
  done
  # The rest of those labels through ctest: the Python harnesses (names begin lower-case; the
  # gtest cases' begin with their suite's upper-case name, or storage. and one).
  ctest --test-dir "$dir" --output-on-failure -j"${FRUGAL_JOBS:-2}" -L 'unit|service|storage' \
    -E "$asan_skip_ctest|^(storage\.)?[A-Z]" "$@" || rc=$?
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
