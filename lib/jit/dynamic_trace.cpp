// ember::jit::trace with dynamic shapes, from C++ (include/ember/jit.h).
//
// The same procedure as Python's ember.jit.trace(..., dynamic_shapes=...)
// (python/ember/jit/_dynamic_shapes.py): the Dims become the graph's symbols; fn is
// traced at the example and at fit_points' design around it, the inputs' data tiled
// or cut to each point's sizes (tiling repeats the data, so values a model expects,
// such as token ids, stay valid); fit_symbolic turns the traces into one graph.
// Steps of 1, 2, 4, 8 and 16 are tried in turn: shape logic that divides a size
// (view(seq / 2, 2)) only fits at a step it divides. Extra traces must not change
// the caller's state: the named tensors (a module's buffers, which batch norm
// updates in training mode) and the default generator are restored afterwards.
#include <exception>
#include <optional>
#include <utility>

#include "ember/ember.h"
#include "ember/jit.h"
#include "ember/nn/module.h"
#include "jit/symbolic_fit.h"

namespace ember::jit {

Dim::Dim(std::string name_, int64_t min_, int64_t max_) : name(std::move(name_)), min(min_), max(max_) {
  bool identifier = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name)
    identifier = identifier && (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9'));
  EMBER_CHECK_VALUE(identifier, "jit::Dim: the name must be an identifier, got '", name, "'");
  EMBER_CHECK_VALUE(min >= 0 && max >= min, "jit::Dim '", name, "': the range [", min, ", ", max,
                    "] is empty or negative");
}

namespace {

constexpr int64_t kSteps[] = {1, 2, 4, 8, 16};

// The design's symbols and, per input per dim, the symbol it is (-1: static), with
// the checks of Python's symbols_of.
FitDesign design_of(const DynamicShapes& shapes, const std::vector<Tensor>& inputs) {
  EMBER_CHECK_VALUE(shapes.size() == inputs.size(), "jit::trace: dynamic_shapes has ", shapes.size(),
                    " entries for ", inputs.size(), " example inputs (one per input; {} for a static one)");
  FitDesign d;
  std::vector<std::string> first_seen;  // per symbol: "input i dim d"
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    std::vector<int32_t> row(static_cast<size_t>(x.dim()), -1);
    for (const auto& [dim, spec] : shapes[i]) {
      EMBER_CHECK_VALUE(dim >= 0 && dim < x.dim(), "jit::trace: dynamic_shapes for input ", i,
                        " names dim ", dim, ", but the input has ", x.dim(), " dims");
      const int64_t size = x.size(dim);
      const std::string where = detail::str("input ", i, " dim ", dim);
      int32_t k = -1;
      for (size_t s = 0; s < d.symbols.size(); ++s)
        if (d.symbols[s].name == spec.name) k = static_cast<int32_t>(s);
      if (k >= 0) {
        const Symbol& s = d.symbols[static_cast<size_t>(k)];
        EMBER_CHECK_VALUE(s.min == spec.min && s.max == spec.max, "jit::trace: two Dims named '",
                          spec.name, "' have different ranges");
        EMBER_CHECK_VALUE(s.traced == size, "jit::trace: ", first_seen[static_cast<size_t>(k)], " and ",
                          where, " are both the dynamic size ", spec.name,
                          ", but the example inputs have ", s.traced, " and ", size, " there");
      } else {
        EMBER_CHECK_VALUE(size >= 2, "jit::trace: ", where, " is the dynamic size ", spec.name,
                          ", but the example input has size ", size,
                          " there: trace with a size of 2 or more (a size of 0 or 1 is special to "
                          "broadcasting, so a trace at it cannot tell how the model treats other "
                          "sizes; the graph still accepts ", spec.name, " down to min=", spec.min, ")");
        EMBER_CHECK_VALUE(spec.min <= size && size <= spec.max, "jit::trace: ", where, " has size ",
                          size, ", outside the range [", spec.min, ", ", spec.max, "] of Dim '",
                          spec.name, "'");
        Symbol s;
        s.name = spec.name;
        s.min = spec.min;
        s.max = spec.max;
        s.traced = size;
        k = static_cast<int32_t>(d.symbols.size());
        d.symbols.push_back(s);
        first_seen.push_back(where);
      }
      row[static_cast<size_t>(dim)] = k;
    }
    d.input_dims.push_back(std::move(row));
  }
  return d;
}

// Each symbol's step at size h: upwards within its range, else downwards within it,
// else upwards past its max (the extra traces only show the shape logic; the graph
// still accepts only the range).
std::vector<int64_t> steps_for(const std::vector<Symbol>& symbols, int64_t h) {
  std::vector<int64_t> steps;
  for (const Symbol& s : symbols) {
    const bool up = s.traced <= s.max - 5 * h || s.traced - 5 * h < std::max<int64_t>(s.min, 2);
    steps.push_back(up ? h : -h);
  }
  return steps;
}

// x with each dynamic dim cut or tiled to the point's size.
Tensor resized(const Tensor& x, const std::vector<int32_t>& row, const std::vector<int64_t>& point) {
  NoGradGuard no_grad;
  Tensor y = x;
  bool changed = false;
  for (size_t dim = 0; dim < row.size(); ++dim) {
    if (row[dim] < 0) continue;
    const auto d = static_cast<int64_t>(dim);
    const int64_t n = point[static_cast<size_t>(row[dim])], have = y.size(d);
    if (n == have) continue;
    if (n > have) y = cat(std::vector<Tensor>(static_cast<size_t>((n + have - 1) / have), y), d);
    y = y.narrow(d, 0, n);
    changed = true;
  }
  return changed ? y.clone() : x;
}

// Where the fit at one step size failed: the point whose trace threw (empty when the
// fit itself refused the traces) and why.
struct Failure {
  std::vector<int64_t> point;
  std::exception_ptr error;
};

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return ex.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

// The named tensors and the generator, as they were before the extra traces.
class SavedState {
 public:
  explicit SavedState(const NamedTensorList& params) : rng_(get_rng_state()) {
    NoGradGuard no_grad;
    for (const auto& [name, t] : params)
      if (t.defined()) saved_.emplace_back(t, t.clone());
  }
  ~SavedState() {
    try {
      NoGradGuard no_grad;
      for (auto& [t, copy] : saved_) t.copy_(copy);
      set_rng_state(rng_);
    } catch (...) {  // a destructor must not throw; the state was restorable when saved
    }
  }

 private:
  Tensor rng_;
  std::vector<std::pair<Tensor, Tensor>> saved_;
};

}  // namespace

Module trace_function(const TraceFn& fn, const std::vector<Tensor>& example_inputs,
                      const DynamicShapes& dynamic_shapes, const NamedTensorList& params) {
  const FitDesign base_design = design_of(dynamic_shapes, example_inputs);
  Module base = trace_function(fn, example_inputs, params);
  if (base_design.symbols.empty()) return base;
  std::optional<Failure> first;
  SavedState state(params);
  for (int64_t h : kSteps) {
    FitDesign design = base_design;
    design.steps = steps_for(design.symbols, h);
    const std::vector<std::vector<int64_t>> points = fit_points(design);
    std::vector<std::shared_ptr<Graph>> traces{std::make_shared<Graph>(base.graph())};
    std::optional<Failure> failed;
    for (size_t p = 1; p < points.size() && !failed; ++p) {
      std::vector<Tensor> at;
      for (size_t i = 0; i < example_inputs.size(); ++i)
        at.push_back(resized(example_inputs[i], design.input_dims[i], points[p]));
      try {
        traces.push_back(std::make_shared<Graph>(trace_function(fn, at, params).graph()));
      } catch (...) {
        failed = Failure{points[p], std::current_exception()};
      }
    }
    if (!failed) {
      try {
        return Module(fit_symbolic(traces, design));
      } catch (const ValueError&) {
        failed = Failure{{}, std::current_exception()};
      }
    }
    if (!first) first = std::move(failed);
  }
  if (first->point.empty()) std::rethrow_exception(first->error);
  std::string moved;
  for (size_t s = 0; s < base_design.symbols.size(); ++s) {
    const Symbol& sym = base_design.symbols[s];
    if (first->point[s] == sym.traced) continue;
    moved += detail::str(moved.empty() ? "" : ", ", sym.name, "=", first->point[s], " (instead of ",
                         sym.traced, ")");
  }
  EMBER_CHECK_VALUE(false, "jit::trace: the model specializes a dynamic size: tracing with ", moved,
                    " failed: ", message_of(first->error),
                    ". That code needs the traced size: make the dim static (remove it from "
                    "dynamic_shapes) or change the code");
  return base;  // not reached
}

Module trace_module(nn::Module& module, const TraceFn& forward,
                    const std::vector<Tensor>& example_inputs, const DynamicShapes& dynamic_shapes) {
  NamedTensorList params;
  for (const auto& item : module.named_parameters()) params.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) params.emplace_back(item.key(), item.value());
  if (dynamic_shapes.empty()) return trace_function(forward, example_inputs, params);
  return trace_function(forward, example_inputs, dynamic_shapes, params);
}

}  // namespace ember::jit
