#!/usr/bin/env bash
# Builds ember with the CUDA backend and runs its test suites where a GPU is present:
# the C++ suite (Catch2, the [cuda] tests included), the Python suite (pytest, the
# tests marked `cuda` and the CPU-vs-CUDA comparisons test_cuda_*.py included),
# compute-sanitizer's memcheck over the CUDA C++ tests and the core ops' Python tests,
# and the GPU benchmarks (bench/cuda_*.py, ember and PyTorch side by side). Prints a
# summary; exits non-zero if a step failed.
#
#   scripts/gpu_check.sh                  # build in build-cuda/, then test
#   BUILD=dir PYTHON=path JOBS=n CUDA_ARCHS="80;90" scripts/gpu_check.sh
#
# Needs no network: cmake, a C++ compiler, nvcc, Catch2 and nlohmann-json, plus a
# Python with numpy, pybind11 and pytest (.venv/bin/python when there is one).
set -uo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build-cuda}
JOBS=${JOBS:-$(nproc)}
CUDA_ARCHS=${CUDA_ARCHS:-90}
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)

declare -a SUMMARY
FAILED=0
record() {  # record NAME STATUS
  SUMMARY+=("$(printf '%-34s %s' "$1" "$2")")
  [[ "$2" == FAIL* ]] && FAILED=1
}
step() {  # step NAME COMMAND...: runs it, records PASS or FAIL (exit code)
  local name=$1
  shift
  echo
  echo "==== $name: $*"
  "$@"
  local rc=$?
  if [[ $rc -eq 0 ]]; then record "$name" PASS; else record "$name" "FAIL (exit $rc)"; fi
  return $rc
}

echo "==== machine"
date -u
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
else
  echo "nvidia-smi not found"
fi
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc_bin" --version | tail -1

if ! step "configure (EMBER_CUDA=ON)" cmake -S . -B "$BUILD" "${GENERATOR[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" \
    -DPython3_EXECUTABLE="$(command -v "$PYTHON")"; then
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi
if ! step "build" cmake --build "$BUILD" -j "$JOBS"; then
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi

gpus=$(PYTHONPATH=python "$PYTHON" -c "import ember; print(ember.cuda.device_count())" 2>/dev/null)
echo "ember sees ${gpus:-?} CUDA device(s)"
[[ "${gpus:-0}" -gt 0 ]] || record "GPU visible to ember" "FAIL (device_count is ${gpus:-?})"

step "C++ CUDA tests [cuda]" "$BUILD/ember_tests" "[cuda]"
step "C++ suite (all)" "$BUILD/ember_tests"
# Every test_cuda_*.py compares the CUDA kernels with the CPU ones on the same inputs
# (test/python/cuda_compare.py); the device-parameterized tests of the other files run
# once per device.
step "Python CUDA tests" env PYTHONPATH=python "$PYTHON" -m pytest test/python/test_cuda*.py -q -rs
step "Python suite (all)" env PYTHONPATH=python "$PYTHON" -m pytest test/python -q -rs

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [[ -x "$sanitizer" ]]; then
  # API errors are not counted: the tests provoke some on purpose (cudaMalloc out of
  # memory; "not ready" from queries), and ember raises on the others anyway.
  step "compute-sanitizer memcheck [cuda]" "$sanitizer" --tool memcheck --error-exitcode 1 \
    --report-api-errors no "$BUILD/ember_tests" "[cuda]"
  # The core ops' kernels, driven by their Python tests.
  core_tests=()
  for f in elementwise reduce loss index sort nn nn_misc random optim linalg; do
    [[ -f test/python/test_cuda_$f.py ]] && core_tests+=("test/python/test_cuda_$f.py")
  done
  step "compute-sanitizer memcheck (core ops)" env PYTHONPATH=python "$sanitizer" --tool memcheck \
    --error-exitcode 1 --report-api-errors no "$PYTHON" -m pytest "${core_tests[@]}" -q -x
else
  record "compute-sanitizer" "SKIPPED (not found)"
fi

# The GPU benchmarks, side by side with PyTorch (each prints its table).
for b in bench/cuda_*.py; do
  step "benchmark $(basename "$b" .py)" env PYTHONPATH=python "$PYTHON" "$b"
done

echo
echo "==== summary ($(date -u +%Y-%m-%dT%H:%MZ))"
printf '%s\n' "${SUMMARY[@]}"
exit $FAILED
