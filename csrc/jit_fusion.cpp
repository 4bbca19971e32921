// ember._C._jit's hooks into pointwise fusion (lib/jit/runtime/fusion.h), for
// test/python/test_jit_fusion.py and bench/fusion.py: the groups a graph has, and a
// run (or a timed loop of runs, in C++) with and without them.
#include <algorithm>
#include <chrono>

#include "bindings.h"
#include "jit/graph.h"
#include "jit/runtime/fusion.h"
#include "jit/runtime/fusion_run.h"

namespace ember::python {

namespace {

Device device_of(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined()) return t.device();
  return kCPU;
}

}  // namespace

void bind_jit_fusion(py::module_& jm) {
  using jit::Graph;
  namespace rt = jit::runtime;
  jm.def("_fusion_groups", [](const Graph& g) {
        std::vector<std::vector<int32_t>> out;
        for (const rt::FusedGroup& group : rt::find_fusion_groups(g)) out.push_back(group.nodes);
        return out;
      }, py::arg("graph"));
  // (outputs, groups run fused, groups run node by node).
  jm.def("_fusion_run", [](const Graph& g, const std::vector<Tensor>& inputs, bool fuse) {
        std::vector<rt::FusedGroup> groups;
        if (fuse) groups = rt::find_fusion_groups(g);
        rt::FusionRunStats stats;
        std::vector<Tensor> outs = rt::run_graph_with_fusion(g, inputs, device_of(inputs), groups, &stats);
        return py::make_tuple(outs, stats.groups_fused, stats.groups_unfused);
      }, py::arg("graph"), py::arg("inputs"), py::arg("fuse") = true);
  // Seconds per run, the best of `repeats` blocks of `iters` runs, gradients off.
  jm.def("_fusion_time", [](const Graph& g, const std::vector<Tensor>& inputs, bool fuse,
                            int64_t iters, int64_t repeats) {
        std::vector<rt::FusedGroup> groups;
        if (fuse) groups = rt::find_fusion_groups(g);
        Device device = device_of(inputs);
        py::gil_scoped_release release;
        NoGradGuard no_grad;
        double best = 1e30;
        for (int64_t r = 0; r < repeats; ++r) {
          auto start = std::chrono::steady_clock::now();
          for (int64_t i = 0; i < iters; ++i) rt::run_graph_with_fusion(g, inputs, device, groups);
          std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
          best = std::min(best, took.count() / static_cast<double>(std::max<int64_t>(iters, 1)));
        }
        return best;
      }, py::arg("graph"), py::arg("inputs"), py::arg("fuse"), py::arg("iters"), py::arg("repeats") = 5);
}

}  // namespace ember::python
