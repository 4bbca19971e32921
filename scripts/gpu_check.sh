#!/usr/bin/env bash
# The one-command GPU check (docs/cuda.md, "Running the GPU check"). A lent GPU machine
# gives a task 15 device-minutes, 10 per command, and 64 MiB carried beside the tree,
# and it has nvcc, Python 3.12 with torch and pytest-xdist, compute-sanitizer, but no
# Debian -dev packages. So nothing is built there but the Python extension: libember
# and the C++ tests are built here and carried (gpu_pack/, ignored by git).
#
#   scripts/gpu_check.sh --stage     # here: build, pack gpu_pack/, check the 64 MiB limit
#   scripts/gpu_check.sh --dry-run   # here: --stage, then walk the device steps and
#                                    # their time budgets without running them
#   scripts/gpu_check.sh             # there, through the device tool:
#        command "bash scripts/gpu_check.sh", carry ["gpu_pack"], timeout_s 570
#
# On the device every step has a time budget and a minimum; the check knows its
# deadline (BUDGET seconds, default 540) and skips, saying so, a step that would not
# fit. $OUT/summary.txt grows after every step, so a killed run still returns what it
# found. At most 8 result files: summary.txt, cuda_cpp.log, cuda_cpp.xml,
# cuda_python.log, cuda_python.xml, sanitizer.log, reruns.log, bench.log.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=run
case "${1:-}" in
  --stage) MODE=stage ;;
  --dry-run) MODE=dry ;;
  "") ;;
  *) echo "usage: $0 [--stage|--dry-run]" >&2; exit 2 ;;
esac

BUDGET=${BUDGET:-540}
START=$(date +%s)
OUT=${OUT:-/tmp/gpu_out}
PY=${PY:-python3}
LIMIT_MIB=64

# ---- staging (on the CPU machine) ----------------------------------------------------

stage() {
  local build=${BUILD:-build}
  echo "== staging from $build/ into gpu_pack/"
  cmake --build "$build" -j "${JOBS:-2}" --target ember ember_tests ember_generated > /tmp/gpu_stage_build.log 2>&1 ||
    { echo "build failed: see /tmp/gpu_stage_build.log"; return 1; }
  [[ -d "$build/CMakeFiles/ember.dir/lib/cuda" ]] ||
    { echo "$build/ has no CUDA objects: configure it where nvcc is (EMBER_CUDA=ON)"; return 1; }
  rm -rf gpu_carry gpu_pack
  mkdir -p gpu_carry/fallback gpu_pack/py
  strip -o gpu_carry/ember_tests "$build/ember_tests"
  strip -o gpu_carry/libember.so.0 "$build"/libember.so.0.*
  # The device's system libraries may be older than the ones these were linked against.
  cp -L /lib/x86_64-linux-gnu/libgomp.so.1 /lib/x86_64-linux-gnu/libstdc++.so.6 gpu_carry/fallback/
  # Libraries the device has no Debian package for (Gloo and what it links: hiredis,
  # ibverbs, libnl): carried beside libember.
  ldd "$build"/libember.so.0 | awk '$3 ~ /^\// {print $3}' |
    grep -v -E '/(libc|libm|libgcc_s|libstdc\+\+|libgomp|libpthread|libdl|librt)\.so' |
    xargs -r -I{} cp -L {} gpu_carry/
  tar -czf gpu_pack/gpu_carry.tar.gz gpu_carry && rm -rf gpu_carry
  # What compiling the extension there needs besides the tree: the generated sources and
  # headers, and pybind11's headers (the device's Python may lack pybind11).
  cp -r "$build/generated" gpu_pack/py/generated
  rm -rf gpu_pack/py/generated/cuda gpu_pack/py/generated/*.stamp 2>/dev/null
  cp -r "$(${VENV_PY:-.venv/bin/python} -c 'import pybind11; print(pybind11.get_include())')" \
    gpu_pack/py/pybind11_include
  local tree_kib pack_kib
  tree_kib=$( (git ls-files -z; git ls-files -z --others --exclude-standard) |
              xargs -0 du -k --apparent-size 2>/dev/null | awk '{s += $1} END {print s}')
  pack_kib=$(du -sk --apparent-size gpu_pack | cut -f1)
  local total=$(( (tree_kib + pack_kib) / 1024 ))
  echo "tree $((tree_kib / 1024)) MiB + gpu_pack $((pack_kib / 1024)) MiB = $total MiB (limit $LIMIT_MIB MiB)"
  if [[ $total -ge $LIMIT_MIB ]]; then echo "too large to carry"; return 1; fi
}

# ---- the device steps ---------------------------------------------------------------

remaining() { echo $((BUDGET - ($(date +%s) - START))); }
log() { echo "[$(($(date +%s) - START)) s] $*" | tee -a "$OUT/summary.txt"; }

# run_step NAME BUDGET MINIMUM FUNCTION: runs FUNCTION with STEP_TIMEOUT set to the
# smaller of its budget and what is left (minus 15 s to write the summary), or skips it.
run_step() {
  local name=$1 budget=$2 minimum=$3 fn=$4 left
  left=$(( $(remaining) - 15 ))
  if [[ $MODE == dry ]]; then
    printf '  %-44s budget %4d s (runs if at least %3d s are left)\n' "$name" "$budget" "$minimum"
    return 0
  fi
  if [[ $left -lt $minimum ]]; then
    log "SKIPPED $name: $left s left, it needs $minimum s"
    return 0
  fi
  STEP_TIMEOUT=$(( budget < left ? budget : left ))
  log "== $name (up to $STEP_TIMEOUT s)"
  "$fn"
  log "   $name: exit $?"
}

probe() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 | tee -a "$OUT/summary.txt"
  log "python: $($PY --version 2>&1); torch: $($PY -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>&1 | tail -1)"
  log "compute-sanitizer: $(command -v compute-sanitizer || echo missing); xdist: $($PY -c 'import xdist; print("yes")' 2>/dev/null || echo no)"
}

unpack() {
  [[ -f gpu_pack/gpu_carry.tar.gz ]] || { log "gpu_pack/ was not carried (carry [\"gpu_pack\"])"; return 1; }
  tar -xzf gpu_pack/gpu_carry.tar.gz
  export LD_LIBRARY_PATH=$ROOT/gpu_carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if ldd gpu_carry/libember.so.0 gpu_carry/ember_tests 2>&1 | grep -q "not found"; then
    log "system libraries too old: using the carried libgomp/libstdc++"
    export LD_LIBRARY_PATH=$ROOT/gpu_carry:$ROOT/gpu_carry/fallback:$LD_LIBRARY_PATH
  fi
  # cuBLAS and cuDNN are opened at run time: the toolkit's, or the nvidia-* wheels
  # beside the device's PyTorch (lib/cuda/dynamic_library.h reads this path).
  EMBER_NVIDIA_WHEEL_PATH=$($PY -c "import site; print(':'.join(site.getsitepackages()))" 2>/dev/null)
  export EMBER_NVIDIA_WHEEL_PATH
}

cpp_tests() {
  timeout "$STEP_TIMEOUT" gpu_carry/ember_tests "[cuda]" -r junit -o "$OUT/cuda_cpp.xml" > /dev/null 2>&1
  local rc=$?
  # The readable log and the failing cases' names come from the JUnit report.
  $PY - "$OUT/cuda_cpp.xml" > "$OUT/cuda_cpp.log" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError) as e:  # killed at its timeout: no complete report
    print(f"no complete JUnit report ({e}): the run was cut short")
    sys.exit(0)
cases = list(root.iter("testcase"))
bad = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
print(f"{len(cases)} C++ [cuda] test cases, {len(bad)} failed")
for c in bad:
    node = c.find("failure") if c.find("failure") is not None else c.find("error")
    print("FAILED:", c.get("name"))
    print((node.text or node.get("message") or "")[:1500])
PY
  head -1 "$OUT/cuda_cpp.log" | tee -a "$OUT/summary.txt"
  grep "^FAILED:" "$OUT/cuda_cpp.log" | head -10 | tee -a "$OUT/summary.txt"
  return $rc
}

build_extension() {
  local pyinc suffix
  pyinc=$($PY -c "import sysconfig; print(sysconfig.get_paths()['include'])")
  suffix=$($PY -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
  local flags=(-D_C_EXPORTS -I"$ROOT/lib" -I"$ROOT/gpu_pack/py/generated" -I"$ROOT/csrc" -I"$ROOT/include"
               -I"$ROOT/gpu_pack/py/generated/include" -isystem "$pyinc"
               -isystem "$ROOT/gpu_pack/py/pybind11_include" -O1 -DNDEBUG -fPIC -fvisibility=hidden -std=gnu++20)
  mkdir -p /tmp/c_objs && rm -f /tmp/c_objs/*
  ls csrc/*.cpp gpu_pack/py/generated/python/*.cpp | timeout "$STEP_TIMEOUT" xargs -P "$(nproc)" -I{} sh -c \
    'g++ "$@" -c {} -o /tmp/c_objs/$(echo {} | tr / _).o 2>>/tmp/c_objs/errors.log' _ "${flags[@]}"
  g++ -shared -o "python/ember/_C$suffix" /tmp/c_objs/*.o -L"$ROOT/gpu_carry" -l:libember.so.0 \
    -Wl,-rpath,"$ROOT/gpu_carry" 2>>/tmp/c_objs/errors.log
  [[ -s /tmp/c_objs/errors.log ]] && head -40 /tmp/c_objs/errors.log | tee -a "$OUT/summary.txt"
  PYTHONPATH=python $PY -c "import ember; x = ember.ones(3, device='cuda'); print('ember sees', ember.cuda.device_count(), 'GPU(s);', (x + 1).cpu().tolist())" 2>&1 |
    tail -3 | tee -a "$OUT/summary.txt"
}

python_tests() {
  local xdist=()
  $PY -c "import xdist" 2>/dev/null && xdist=(-n "$(nproc)")
  PYTHONPATH=python timeout "$STEP_TIMEOUT" $PY -m pytest -q -p no:cacheprovider "${xdist[@]}" --maxfail=300 \
    --junitxml="$OUT/cuda_python.xml" -rf test/python/test_opdb.py -k "cuda or device" \
    test/python/test_cuda*.py > "$OUT/cuda_python.log" 2>&1
  local rc=$?
  tail -3 "$OUT/cuda_python.log" | tee -a "$OUT/summary.txt"
  grep "^FAILED" "$OUT/cuda_python.log" | head -15 | tee -a "$OUT/summary.txt"
  return $rc
}

# The first failures again, one at a time, each kernel waited for (CUDA_LAUNCH_BLOCKING):
# C++ cases under compute-sanitizer's memcheck, Python tests plain (their own error then
# names the op that failed).
reruns() {
  local per=$(( STEP_TIMEOUT / 6 ))
  : > "$OUT/sanitizer.log"
  : > "$OUT/reruns.log"
  grep "^FAILED:" "$OUT/cuda_cpp.log" 2>/dev/null | sed 's/^FAILED: //' | head -3 | while IFS= read -r name; do
    if command -v compute-sanitizer > /dev/null; then
      echo "==== $name" >> "$OUT/sanitizer.log"
      CUDA_LAUNCH_BLOCKING=1 timeout "$per" compute-sanitizer --tool memcheck --report-api-errors no \
        gpu_carry/ember_tests "$name" >> "$OUT/sanitizer.log" 2>&1
      log "   sanitizer, $name: $(grep -m1 "ERROR SUMMARY" "$OUT/sanitizer.log" | tail -1)"
    fi
  done
  grep "^FAILED" "$OUT/cuda_python.log" 2>/dev/null | awk '{print $2}' | head -3 | while IFS= read -r test; do
    echo "==== $test" >> "$OUT/reruns.log"
    CUDA_LAUNCH_BLOCKING=1 PYTHONPATH=python timeout "$per" $PY -m pytest -q -p no:cacheprovider -x "$test" \
      >> "$OUT/reruns.log" 2>&1
    log "   rerun, $test: $(tail -1 "$OUT/reruns.log")"
  done
}

benchmarks() {
  : > "$OUT/bench.log"
  for b in bench/cuda_*.py; do
    local left=$(( $(remaining) - 20 ))
    [[ $left -lt 30 ]] && { log "   benchmarks: no time left for $b and after"; break; }
    echo "==== $b" >> "$OUT/bench.log"
    PYTHONPATH=python timeout $(( left < 90 ? left : 90 )) $PY "$b" >> "$OUT/bench.log" 2>&1
    log "   $b: exit $?"
  done
}

steps() {
  run_step "probe (GPU, Python, torch, tools)" 15 5 probe
  run_step "unpack the carried build" 20 10 unpack
  run_step "C++ [cuda] tests" 150 40 cpp_tests
  run_step "compile the Python extension there" 90 40 build_extension
  run_step "Python CUDA tests (op database, test_cuda*)" 240 60 python_tests
  run_step "first failures again (sanitizer, blocking)" 90 30 reruns
  run_step "GPU benchmarks beside PyTorch" 200 30 benchmarks
}

case $MODE in
  stage)
    stage
    ;;
  dry)
    stage || exit 1
    echo "== the device run (BUDGET=$BUDGET s, 15 s kept to write the summary after each step):"
    steps
    echo "== through the device tool: command \"bash scripts/gpu_check.sh\", carry [\"gpu_pack\"], timeout_s $((BUDGET + 30))"
    ;;
  run)
    # The run compiles the extension into python/ember/: on a machine without a GPU that
    # would replace the local build's for nothing.
    command -v nvidia-smi > /dev/null || { echo "no GPU here (nvidia-smi not found): the device run is for a lent GPU machine; use --dry-run"; exit 2; }
    mkdir -p "$OUT"
    log "gpu_check: $(date -u), budget $BUDGET s"
    steps
    log "done in $(($(date +%s) - START)) s"
    ;;
esac
