// The deployment runtime's switches, read by every run as it starts (runs under
// way keep what they started with). Both on by default; the environment turns
// them off at start-up (0), the benchmarks and tests switch them at run time.
//   memory planning (EMBER_JIT_MEMORY_PLAN): per-shape arenas and in-place reuse
//     of dying inputs (run_memory.h, inplace_reuse.h);
//   fusion (EMBER_JIT_FUSION): pointwise groups run as one loop (fusion.h).
#pragma once

namespace ember::jit::runtime {

bool memory_planning_enabled();
void set_memory_planning(bool enabled);
bool fusion_enabled();
void set_fusion(bool enabled);

}  // namespace ember::jit::runtime
