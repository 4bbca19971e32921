// ember._C._jit: the tracer, traced modules and their graphs.
// python/ember/jit/__init__.py builds ember.jit.trace / TracedModule / load on these.
#include <algorithm>
#include <chrono>

#include "bindings.h"
#include "jit/graph.h"
#include "jit/passes.h"
#include "jit/runtime/switches.h"
#include "jit/symbolic_fit.h"
#include "jit/tracer.h"

namespace ember::python {

namespace {

using jit::Graph;
using jit::Node;
using jit::Value;

PyObject* g_tracer_warning = nullptr;  // ember.jit.TracerWarning

// A TracerWarning at the Python line that read the value (stack level 1: the
// frame that called into ember). With warnings turned into errors, the error
// propagates as a Python exception.
void warn_from_python(const std::string& message) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(g_tracer_warning, message.c_str(), 1) < 0) throw py::error_already_set();
}

// An attr as the Python value it stands for (a device as its string).
py::object attr_to_python(const Attr& a) {
  return std::visit(
      [](const auto& v) -> py::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) return py::none();
        else if constexpr (std::is_same_v<T, DimVector>)
          return py::cast(std::vector<int64_t>(v.begin(), v.end()));
        else if constexpr (std::is_same_v<T, Device>) return py::str(v.str());
        else return py::cast(v);
      },
      a.value());
}

const char* kind_name(jit::ValueKind k) {
  switch (k) {
    case jit::ValueKind::Input: return "input";
    case jit::ValueKind::Parameter: return "parameter";
    case jit::ValueKind::Constant: return "constant";
    case jit::ValueKind::NodeOutput: return "node";
  }
  return "?";
}

py::tuple sizes_tuple(const DimVector& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = s[i];
  return t;
}

void bind_graph(py::module_& jm) {
  py::class_<Value>(jm, "Value")
      .def_property_readonly("kind", [](const Value& v) { return kind_name(v.kind); })
      .def_readonly("name", &Value::name)
      .def_readonly("dtype", &Value::dtype)
      .def_property_readonly("sizes", [](const Value& v) { return sizes_tuple(v.sizes); })
      .def_readonly("node", &Value::node)
      .def_readonly("index", &Value::index)
      // Per dim: an index into graph.exprs(), -1 static, -2 data-dependent (empty: all static).
      .def_readonly("size_exprs", &Value::size_exprs)
      .def_readonly("value_expr", &Value::value_expr)
      .def("__repr__", [](const Value& v) {
        return "<Value " + std::string(kind_name(v.kind)) + " " + v.name + " : " +
               jit::type_str(v) + ">";
      });
  py::class_<Node>(jm, "Node")
      .def_property_readonly("op", [](const Node& n) { return op_name(n.op); })
      .def_readonly("inputs", &Node::inputs)
      .def_property_readonly("attrs",
                             [](const Node& n) {
                               py::list l;
                               for (const Attr& a : n.attrs) l.append(attr_to_python(a));
                               return l;
                             })
      .def_readonly("preset", &Node::preset)
      .def_readonly("outputs", &Node::outputs)
      // (attribute, element or -1, expression index) of each symbolic int.
      .def_property_readonly("sym_attrs",
                             [](const Node& n) {
                               py::list l;
                               for (const jit::SymAttr& a : n.sym_attrs)
                                 l.append(py::make_tuple(a.attr, a.element, a.expr));
                               return l;
                             })
      .def("__repr__", [](const Node& n) { return "<Node " + std::string(op_name(n.op)) + ">"; });
  py::class_<Graph, std::shared_ptr<Graph>>(jm, "Graph")
      .def("nodes", [](const Graph& g) { return py::cast(g.nodes, py::return_value_policy::copy); })
      .def("values", [](const Graph& g) { return py::cast(g.values, py::return_value_policy::copy); })
      .def("inputs", [](const Graph& g) { return g.inputs; })
      .def("outputs", [](const Graph& g) { return g.outputs; })
      .def_readonly("output_structure", &Graph::output_structure)
      .def("has_random_nodes",
           [](const Graph& g) {
             for (const Node& n : g.nodes)
               if (jit::draws_random_numbers(n.op)) return true;
             return false;
           })
      .def("tensors", [](const Graph& g) { return g.tensors; })
      .def("symbols",
           [](const Graph& g) {
             py::list l;
             for (const jit::Symbol& s : g.symbols) {
               py::dict d;
               d["name"] = s.name;
               d["min"] = s.min;
               d["max"] = s.max;
               d["modulus"] = s.modulus;
               d["remainder"] = s.remainder;
               d["traced"] = s.traced;
               l.append(d);
             }
             return l;
           })
      // Each expression as its terms: (num, den, [symbol indices]).
      .def("exprs",
           [](const Graph& g) {
             py::list l;
             for (const jit::SymExpr& e : g.exprs) {
               py::list terms;
               for (const jit::SymTerm& t : e.terms) terms.append(py::make_tuple(t.num, t.den, t.symbols));
               l.append(terms);
             }
             return l;
           })
      .def("expr_str",
           [](const Graph& g, int32_t e) {
             if (e < 0 || static_cast<size_t>(e) >= g.exprs.size())
               throw IndexError(detail::str("graph.expr_str: no expression ", e));
             return jit::expr_str(g.exprs[static_cast<size_t>(e)], g.symbols);
           }, py::arg("index"))
      .def("guards", &Graph::guards_str)
      .def("__str__", &Graph::str)
      .def("__repr__", &Graph::str);
}

}  // namespace

void bind_jit_fusion(py::module_& jm);  // csrc/jit_fusion.cpp

void bind_jit(py::module_& m) {
  py::module_ jm = m.def_submodule("_jit", "ember.jit's C++ half: tracer, traced modules, graphs");
  g_tracer_warning = PyErr_NewExceptionWithDoc(
      "ember.jit.TracerWarning",
      "A trace may not generalize: a tensor's value was read on the host while tracing.",
      PyExc_Warning, nullptr);
  jm.attr("TracerWarning") = py::handle(g_tracer_warning);
  jit::set_tracer_warning_handler(warn_from_python);

  bind_graph(jm);

  py::class_<jit::Module>(jm, "Module")
      // Without the GIL, so Python threads sharing one loaded module run at once.
      .def("forward", &jit::Module::forward, py::arg("inputs"),
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly(
          "graph", [](jit::Module& mod) -> Graph& { return mod.graph(); },
          py::return_value_policy::reference_internal)
      .def("named_parameters", &jit::Module::named_parameters)
      .def("to", [](jit::Module& mod, py::handle device) { mod.to(device_from(device)); },
           py::arg("device"))
      .def_property_readonly("device", &jit::Module::device)
      .def("save", &jit::Module::save, py::arg("path"), py::call_guard<py::gil_scoped_release>())
      // A module of its own over a copy of the graph (sharing the tensors): what
      // freeze edits.
      .def("_copy", [](const jit::Module& mod) {
             jit::Module copy(std::make_shared<Graph>(mod.graph()));
             copy.to(mod.device());
             return copy;
           })
      .def("run_pass", [](jit::Module& mod, const std::string& name) {
             return jit::run_pass(mod.graph(), name);
           }, py::arg("name"));

  jm.def("load", [](const std::string& path, py::handle map_location) {
        std::optional<Device> device;
        if (!map_location.is_none()) device = device_from(map_location);
        py::gil_scoped_release release;
        return jit::load(path, device);
      }, py::arg("path"), py::arg("map_location") = py::none());
  jm.def("_begin_trace", &jit::begin_trace, py::arg("inputs"), py::arg("params"));
  jm.def("_end_trace",
         [](const std::vector<Tensor>& outputs, const std::string& structure) {
           return jit::Module(jit::end_trace(outputs, structure));
         },
         py::arg("outputs"), py::arg("output_structure"));
  jm.def("_abort_trace", &jit::abort_trace);
  // Dynamic shapes (python/ember/jit/_dynamic_shapes.py): where to trace, and the fit.
  auto design = [](const std::vector<std::tuple<std::string, int64_t, int64_t, int64_t>>& symbols,
                   const std::vector<int64_t>& steps,
                   const std::vector<std::vector<int32_t>>& input_dims) {
    jit::FitDesign d;
    for (const auto& [name, min, max, traced] : symbols) {
      jit::Symbol s;
      s.name = name;
      s.min = min;
      s.max = max;
      s.traced = traced;
      d.symbols.push_back(s);
    }
    d.steps = steps;
    d.input_dims = input_dims;
    return d;
  };
  jm.def("_fit_points",
         [design](const std::vector<std::tuple<std::string, int64_t, int64_t, int64_t>>& symbols,
                  const std::vector<int64_t>& steps) {
           return jit::fit_points(design(symbols, steps, {}));
         },
         py::arg("symbols"), py::arg("steps"));
  jm.def("_fit_symbolic",
         [design](const std::vector<jit::Module>& traces,
                  const std::vector<std::tuple<std::string, int64_t, int64_t, int64_t>>& symbols,
                  const std::vector<int64_t>& steps,
                  const std::vector<std::vector<int32_t>>& input_dims) {
           std::vector<std::shared_ptr<Graph>> graphs;
           for (const jit::Module& m : traces) graphs.push_back(std::make_shared<Graph>(m.graph()));
           return jit::Module(jit::fit_symbolic(graphs, design(symbols, steps, input_dims)));
         },
         py::arg("traces"), py::arg("symbols"), py::arg("steps"), py::arg("input_dims"));
  // For bench/deploy_latency.py: the per-call time of forward in a C++ loop (no
  // Python in between), as a deployed C++ program calls it: seconds, the best
  // of `repeats` blocks of `iters` calls, with gradients off.
  jm.def("_time_forward", [](const jit::Module& mod, const std::vector<Tensor>& inputs,
                             int64_t iters, int64_t repeats) {
        py::gil_scoped_release release;
        NoGradGuard no_grad;
        double best = 1e30;
        for (int64_t r = 0; r < repeats; ++r) {
          auto start = std::chrono::steady_clock::now();
          for (int64_t i = 0; i < iters; ++i) mod.forward(inputs);
          std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
          best = std::min(best, took.count() / static_cast<double>(iters));
        }
        return best;
      }, py::arg("module"), py::arg("inputs"), py::arg("iters"), py::arg("repeats") = 5);
  jm.def("is_tracing", &jit::is_tracing);
  // The deployment runtime's memory planning and in-place reuse (docs/jit.md).
  jm.def("_set_memory_planning", &jit::runtime::set_memory_planning, py::arg("enabled"));
  jm.def("_memory_planning_enabled", &jit::runtime::memory_planning_enabled);
  jm.def("_set_fusion", &jit::runtime::set_fusion, py::arg("enabled"));
  jm.def("_fusion_enabled", &jit::runtime::fusion_enabled);
  bind_jit_fusion(jm);  // pointwise fusion's test and bench hooks: csrc/jit_fusion.cpp
}

}  // namespace ember::python
