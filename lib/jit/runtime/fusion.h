// Pointwise fusion for the deployment runtime (issue 17, "elementwise fusion"): a
// chain (or small DAG) of pointwise nodes of a traced graph runs as one loop over
// the data, block by block, instead of one full pass over memory per node. The
// intermediate values used only inside the group are never materialized.
//
// The loop is one generic evaluator over a small per-group program: each
// instruction is a per-element formula (kernels/fused_pointwise.h; the CPU's table,
// lib/cpu/fused_pointwise_ops.cpp, is filled from the op table's structured formulas
// by the code generator and by registrations next to the formulas the eager kernels
// use) applied to operand registers. Nothing is written per chain. The evaluator is
// the device's (lib/cpu/fused_pointwise_run.cpp), reached through a registry, so this
// folder names no backend.
//
// Contract with the caller (the interpreter's run_graph):
//   - find_fusion_groups once per graph. Each group's `nodes` are ascending and the
//     group runs where its LAST node is (nodes.back()): the other members are
//     skipped when reached. The grouping guarantees that no node outside the group
//     placed between its first and last node reads a value the group defines or
//     writes into any tensor (preset), so running the members at the last node's
//     position is what running them in order would do.
//   - At nodes.back(): run_fused(...). When it returns true, the group's `outputs`
//     are in env (intermediates stay empty). When it returns false (nothing was
//     touched), run the member nodes one by one, in order, there.
//   - Releasing values: a value is released after its last reader, and what a
//     skipped member would release is released after nodes.back() instead. Under that
//     rule the grouping guarantees that every value a group reads is still there when
//     it runs (a group is cut short before any node outside it that releases one).
#pragma once
#include <cstdint>
#include <vector>

#include "jit/graph.h"
#include "kernels/fused_pointwise.h"

namespace ember::jit::runtime {

using kernels::fused::FusedInstr;

struct FusedGroup {
  std::vector<int32_t> nodes;  // ascending; the group runs at nodes.back()

  // The program. Registers 0 .. inputs.size()-1 hold the values read from outside
  // the group (inputs[i]); register inputs.size() + k is program[k]'s result.
  std::vector<ValueId> inputs;
  std::vector<FusedInstr> program;
  // The values the group defines that a node after it reads or that the graph
  // returns, and the registers holding them: run_fused stores these in env.
  std::vector<ValueId> outputs;
  std::vector<int32_t> output_registers;
};

// Groups of 2+ pointwise nodes that can run as one loop (see the contract above).
// Which nodes qualify: one output, no writes, an op with a registered formula and
// attributes it supports, traced as float32/float64 with one shape across the group.
std::vector<FusedGroup> find_fusion_groups(const Graph& g);

// Runs the group as one loop over the data: reads its inputs from env (indexed by
// ValueId), writes the values the group defines that are used after it (or are graph
// outputs) into env. Returns false, touching nothing, when the run-time tensors do not
// qualify, so that the caller runs the nodes one by one:
//   - a device other than the CPU, a dtype other than float32/float64 (one for the
//     whole group), or inputs in mixed floating dtypes that eager would promote;
//   - an input broadcast in any form but a same-shape contiguous tensor, a one-element
//     tensor, or a contiguous trailing-dims block (a row vector such as a bias);
//   - any input requiring grad while grad mode is on, an active trace or autocast.
// Results: bit-identical to running the nodes one by one on the same machine (the same
// formulas in the same opmath type, through the same per-ISA clones; see fusion.cpp).
bool run_fused(const FusedGroup& group, const Graph& g, std::vector<Tensor>& env, Device device);

}  // namespace ember::jit::runtime
