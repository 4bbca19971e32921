// Finding a graph's symbolic sizes by tracing at several sizes (jit/symbolic.h).
//
// The same function traced with the dynamic dims at other sizes records the same
// nodes, with different numbers where a size or an integer attribute follows
// them. Every such number is fitted as a polynomial of the symbols of degree at
// most two (sizes, products such as batch*seq, squares such as seq*seq), exactly
// from a fixed design of points, and then confirmed at two more points that the
// fit did not use. A number that does not fit (a size logic with min(), %, or //
// by a step the design did not use), a node that changes, or a constant that
// changes is an error that names it: the graph would not generalize.
#pragma once
#include <memory>
#include <vector>

#include "jit/graph.h"

namespace ember::jit {

struct FitDesign {
  // name, min, max and traced (the example's size) of each symbol; the fit sets
  // modulus and remainder from the steps.
  std::vector<Symbol> symbols;
  // The step of each symbol between the design's points (negative: downwards,
  // where the example sits at the top of the range). A step above 1 makes the
  // graph accept only sizes of the example's remainder modulo it.
  std::vector<int64_t> steps;
  // For each graph input, for each dim: the symbol it is, or -1 (static).
  std::vector<std::vector<int32_t>> input_dims;
};

// The symbols' values to trace at, in the order fit_symbolic expects its traces:
// the example; each symbol one and two steps away; each pair one step away
// together; then the two confirming points.
std::vector<std::vector<int64_t>> fit_points(const FitDesign& design);

// traces[p] was traced at fit_points(design)[p]. Returns a copy of traces[0] with
// the symbols, the expressions, every value's size_exprs, the nodes' sym_attrs and
// symbolic constants. Throws ValueError naming what does not generalize.
std::shared_ptr<Graph> fit_symbolic(const std::vector<std::shared_ptr<Graph>>& traces,
                                    const FitDesign& design);

// The values whose sizes depend on tensor data (after nonzero or unique): marks
// their dims kUnknownDim. Every trace runs it (static graphs too).
void mark_data_dependent_sizes(Graph& g);

}  // namespace ember::jit
