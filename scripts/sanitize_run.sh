#!/usr/bin/env bash
# Runs the C++ suite and the Python suite against the AddressSanitizer +
# UndefinedBehaviorSanitizer build (make sanitize builds it; docs/RELIABILITY.md).
# Any sanitizer report fails the run: both sanitizers halt on their first report,
# and the logs are searched for reports a test harness might have swallowed.
#
#   bash scripts/sanitize_run.sh [build-san] [pytest args...]
set -uo pipefail
cd "$(dirname "$0")/.."
SAN_BUILD=${1:-build-san}
shift || true
PY=${PY:-.venv/bin/python}
LOGS="$SAN_BUILD/sanitize-logs"
mkdir -p "$LOGS"
rm -f "$LOGS"/*

export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1"
status=0

echo "== C++ suite (ctest) under ASan + UBSan, leak check on"
# ctest runs each Catch2 case as its own process; the leak check runs at each exit.
cpp_ok=1
if ! (cd "$SAN_BUILD" && ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:allocator_may_return_null=1:log_path=$PWD/sanitize-logs/asan-cpp" \
      ctest --output-on-failure -j "$(nproc)" > sanitize-logs/ctest.log 2>&1); then
  cpp_ok=0
fi
# LeakSanitizer stops the world through ptrace; where the machine forbids that (some
# containers), its tracer dies ("Tracer caught signal") and the test fails without any
# finding. Such reports are set aside, and the tests they failed are run again with the
# leak check off: a failure then is a real one. The run says how many could not be
# leak-checked.
unchecked=0
for f in "$LOGS"/asan-cpp.*; do
  [ -e "$f" ] || continue
  # allocator_may_return_null leaves a warning per refused huge request (the tests that
  # expect bad_alloc make them): a log with nothing else is no report.
  if ! grep -v "WARNING: AddressSanitizer failed to allocate" "$f" | grep -q .; then
    rm -f "$f"
    continue
  fi
  if grep -q "LeakSanitizer has encountered a fatal error" "$f" &&
     ! grep -q "ERROR: AddressSanitizer\|detected memory leaks\|runtime error:" "$f"; then
    mv "$f" "$LOGS/lsan-unavailable.${f##*.}"
    unchecked=$((unchecked + 1))
  fi
done
if [ $cpp_ok -eq 0 ]; then
  if [ -z "$(ls "$LOGS"/asan-cpp.* 2>/dev/null)" ]; then
    # Every report was the tracer's: rerun what failed with the leak check off.
    if (cd "$SAN_BUILD" && ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:allocator_may_return_null=1:log_path=$PWD/sanitize-logs/asan-cpp-rerun" \
        ctest --rerun-failed --output-on-failure -j "$(nproc)" > sanitize-logs/ctest-rerun.log 2>&1); then
      cpp_ok=1
    fi
    tail -3 "$LOGS/ctest-rerun.log"
  fi
fi
[ $cpp_ok -eq 1 ] || { status=1; grep -E "tests passed|Failed|\*\*\*" "$LOGS/ctest.log" | tail -30; }
tail -3 "$LOGS/ctest.log"
[ $unchecked -gt 0 ] && echo "note: $unchecked test process(es) could not be leak-checked (LeakSanitizer's tracer failed: ptrace not permitted here)"

echo "== Python suite under ASan + UBSan (sanitizer runtime preloaded, leak check off)"
# The extension was built with the sanitizers, so the ASan runtime must be loaded
# before anything else in the interpreter. CPython itself is not instrumented and
# keeps objects alive until exit by design, so the leak check stays off here; the
# C++ suite above covers leaks. The package copy next to the sanitized extension
# gets the current Python sources.
# libstdc++ is preloaded too: ASan's __cxa_throw interceptor finds the real function
# only if libstdc++ is loaded when the runtime starts, and the interpreter does not
# link it (without it, the first C++ exception of any extension module, ember's or
# another package's, stops the process in an ASan CHECK).
ASAN_RUNTIME="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libstdc++.so)"
mkdir -p "$SAN_BUILD/python"
tar --exclude='*.so' --exclude=__pycache__ -C python -cf - ember | tar -C "$SAN_BUILD/python" -xf -
# pytest-xdist, where installed, spreads the suite over the cores (each worker preloads too).
PARALLEL=()
"$PY" -c "import xdist" 2>/dev/null && PARALLEL=(-n "$(nproc)")
if ! LD_PRELOAD="$ASAN_RUNTIME" \
     ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:allocator_may_return_null=1:log_path=$PWD/$LOGS/asan-python" \
     PYTHONPATH="$SAN_BUILD/python" EMBER_SANITIZED=1 \
     "$PY" -m pytest test/python -q -p no:cacheprovider "${PARALLEL[@]}" "$@" > "$LOGS/pytest.log" 2>&1; then
  status=1
fi
tail -3 "$LOGS/pytest.log"

# Reports: ASan writes its own files (log_path); UBSan prints "runtime error:".
for f in "$LOGS"/asan-python.*; do  # the same benign warnings as above
  [ -e "$f" ] || continue
  grep -v "WARNING: AddressSanitizer failed to allocate" "$f" | grep -q . || rm -f "$f"
done
reports=$(ls "$LOGS"/asan-* 2>/dev/null)
if [ -n "$reports" ] || grep -q "runtime error:" "$LOGS"/*.log; then
  status=1
  echo "== sanitizer reports:"
  for f in $reports; do head -40 "$f"; done
  grep -h -A12 "runtime error:" "$LOGS"/*.log | head -80
fi
[ $status -eq 0 ] && echo "sanitize: no sanitizer report; both suites passed" || echo "sanitize: FAILED (logs in $LOGS)"
exit $status
