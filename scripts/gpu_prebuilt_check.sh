#!/usr/bin/env bash
# The C++ CUDA tests of a build made on the CPU machine, run on a lent GPU machine in a
# few device-minutes: no build there. Stage on the CPU machine (gpu_carry/ is ignored
# by git; the stripped library and tests are ~59 MiB of the 64 MiB a run may carry):
#
#   mkdir -p gpu_carry/fallback && cp build/ember_tests gpu_carry/ && strip gpu_carry/ember_tests
#   strip -o gpu_carry/libember.so.0 build/libember.so.0.1.0
#   cp -L /lib/x86_64-linux-gnu/{libgomp.so.1,libstdc++.so.6} gpu_carry/fallback/
#   mkdir -p gpu_pack && tar -czf gpu_pack/gpu_carry.tar.gz gpu_carry   # 18 MiB: fits beside the tree
#
# then through the device tool: command `bash scripts/gpu_prebuilt_check.sh`,
# carry ["gpu_pack"], timeout_s 420. Results go to $OUT (summary.txt after every step,
# so a kill still returns them): the test log, and compute-sanitizer's report on the
# first failing tests. docs/cuda.md records what each run found.
set -u
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
START=$(date +%s)
log() { echo "[$(($(date +%s) - START)) s] $*" | tee -a "$SUMMARY"; }

log "probe: $(date -u)"
[[ -d gpu_carry ]] || tar -xzf gpu_pack/gpu_carry.tar.gz
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 | tee -a "$SUMMARY"
cd gpu_carry || { log "no gpu_carry/ (carry it)"; exit 1; }
export LD_LIBRARY_PATH=$PWD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ldd ./libember.so.0 ./ember_tests 2>&1 | grep -q "not found\|version .* not found"; then
  log "system libraries missing or too old; using the carried libgomp/libstdc++"
  export LD_LIBRARY_PATH=$PWD:$PWD/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
ldd ./ember_tests 2>&1 | grep -i "not found" | tee -a "$SUMMARY"
# cuBLAS and cuDNN are opened at run time: the toolkit's, or the nvidia-* wheels beside
# the device's PyTorch (lib/cuda/dynamic_library.h reads this path).
EMBER_NVIDIA_WHEEL_PATH=$(python3 -c "import site; print(':'.join(site.getsitepackages()))" 2>/dev/null)
export EMBER_NVIDIA_WHEEL_PATH
log "wheel path: $EMBER_NVIDIA_WHEEL_PATH"

log "C++ [cuda] tests"
timeout 200 ./ember_tests "[cuda]" --durations yes > "$OUT/cuda_cpp.log" 2>&1
rc=$?
log "ember_tests [cuda]: exit $rc"
grep -E "^(test cases|assertions|All tests passed)" "$OUT/cuda_cpp.log" | tee -a "$SUMMARY"
# The failing test cases' names, from a second run's JUnit report (the tests take seconds).
timeout 200 ./ember_tests "[cuda]" -r junit -o "$OUT/cuda_cpp.xml" > /dev/null 2>&1
python3 - "$OUT/cuda_cpp.xml" > "$OUT/failing.txt" <<'PY'
import sys
import xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        print(case.get("name").split("/")[0])
PY
sort -u -o "$OUT/failing.txt" "$OUT/failing.txt"
log "failing test cases: $(wc -l < "$OUT/failing.txt")"
head -20 "$OUT/failing.txt" | tee -a "$SUMMARY"

if command -v compute-sanitizer >/dev/null; then
  n=0
  while IFS= read -r name && [[ $n -lt 3 ]]; do
    n=$((n + 1))
    log "compute-sanitizer memcheck: $name"
    CUDA_LAUNCH_BLOCKING=1 timeout 60 compute-sanitizer --tool memcheck ./ember_tests "$name" \
      > "$OUT/sanitizer_$n.log" 2>&1
    log "  exit $? ($(grep -c "Invalid\|ERROR SUMMARY" "$OUT/sanitizer_$n.log") report lines)"
    grep -m3 "ERROR SUMMARY\|Invalid" "$OUT/sanitizer_$n.log" | tee -a "$SUMMARY"
  done < "$OUT/failing.txt"
  if [[ ! -s "$OUT/failing.txt" ]]; then
    log "compute-sanitizer memcheck over all [cuda] tests"
    timeout 150 compute-sanitizer --tool memcheck ./ember_tests "[cuda]" > "$OUT/sanitizer_all.log" 2>&1
    log "  exit $?"
    grep -m5 "ERROR SUMMARY\|Invalid" "$OUT/sanitizer_all.log" | tee -a "$SUMMARY"
  fi
else
  log "compute-sanitizer not found"
fi
log "done"
