#!/usr/bin/env bash
# The Python CUDA tests on a lent GPU machine whose Python differs from this one's: builds
# only the extension there (csrc/ against the carried libember.so.0), then runs the CUDA
# tests with pytest-xdist. Carry gpu_pack/ as scripts/gpu_prebuilt_check.sh describes,
# plus gpu_pack/py/{generated,pybind11_include} (build/generated and pybind11's headers).
set -u
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
START=$(date +%s)
log() { echo "[$(($(date +%s) - START)) s] $*" | tee -a "$SUMMARY"; }
ROOT=$PWD
[[ -d gpu_carry ]] || tar -xzf gpu_pack/gpu_carry.tar.gz
PY=${PY:-python3}
PYINC=$($PY -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUFFIX=$($PY -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
log "python $($PY --version 2>&1), headers $PYINC ($(ls "$PYINC"/Python.h 2>/dev/null || echo missing))"
mkdir -p /tmp/c_objs
FLAGS=(-D_C_EXPORTS -I"$ROOT/lib" -I"$ROOT/gpu_pack/py/generated" -I"$ROOT/csrc" -I"$ROOT/include"
       -I"$ROOT/gpu_pack/py/generated/include" -isystem "$PYINC" -isystem "$ROOT/gpu_pack/py/pybind11_include"
       -O1 -DNDEBUG -fPIC -fvisibility=hidden -std=gnu++20)
log "compiling the extension"
ls csrc/*.cpp gpu_pack/py/generated/python/*.cpp | xargs -P 16 -I{} sh -c \
  'g++ "$@" -c {} -o /tmp/c_objs/$(echo {} | tr / _).o 2>>/tmp/c_objs/errors.log' _ "${FLAGS[@]}"
if [[ -s /tmp/c_objs/errors.log ]]; then cp /tmp/c_objs/errors.log "$OUT/compile_errors.log"; fi
g++ -shared -o "python/ember/_C$SUFFIX" /tmp/c_objs/*.o -L"$ROOT/gpu_carry" -l:libember.so.0 \
  -Wl,-rpath,"$ROOT/gpu_carry" 2>>"$OUT/compile_errors.log"
log "extension: $(ls python/ember/_C$SUFFIX 2>&1)"
export LD_LIBRARY_PATH=$ROOT/gpu_carry
EMBER_NVIDIA_WHEEL_PATH=$($PY -c "import site; print(':'.join(site.getsitepackages()))")
export EMBER_NVIDIA_WHEEL_PATH
PYTHONPATH=python $PY -c "import ember; print('ember cuda available:', ember.cuda.is_available()); x = ember.ones(3, device='cuda'); print((x + 1).cpu())" 2>&1 | tail -3 | tee -a "$SUMMARY"
if [[ -n "${GPU_PROBE:-}" ]]; then  # a script of one's own instead of the tests
  log "probe: $GPU_PROBE"
  PYTHONPATH=python timeout 120 $PY "$GPU_PROBE" 2>&1 | tee -a "$SUMMARY"
  exit 0
fi
log "pytest: CUDA op database and test_cuda*.py"
PYTHONPATH=python timeout "${PYTEST_TIMEOUT:-300}" $PY -m pytest -q -n 16 --maxfail=300 -p no:cacheprovider \
  --junitxml="$OUT/cuda_python.xml" test/python/test_opdb.py -k "cuda or device" \
  test/python/test_cuda*.py > "$OUT/cuda_python.log" 2>&1
log "pytest exit $?"
tail -25 "$OUT/cuda_python.log" | tee -a "$SUMMARY"
log "done"
