// ember._C._op_schemas(): every op row of the schema (lib/dispatch/schema/*.toml)
// with what is registered for it at run time (kernels per device, the derivative
// row, the trace invoker). The op database (test/python/opdb/) walks it, and
// tools/op_coverage.py writes the coverage table of docs/ops.md from it.
#include "autograd/derivatives.h"
#include "bindings.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_schema.h"
#include "jit/op_invoker.h"

namespace ember::python {
namespace {

py::list arg_list(const ArgSchema* args, int n) {
  py::list out;
  for (int i = 0; i < n; ++i)
    out.append(py::dict(py::arg("name") = args[i].name, py::arg("type") = arg_kind_name(args[i].kind),
                        py::arg("optional") = args[i].optional, py::arg("mutated") = args[i].mutated));
  return out;
}

py::list bits(unsigned value, std::initializer_list<std::pair<unsigned, const char*>> names) {
  py::list out;
  for (auto& [bit, name] : names)
    if (value & bit) out.append(name);
  return out;
}

const char* derivative_name(DerivativeKind k) {
  switch (k) {
    case DerivativeKind::Formula: return "formula";
    case DerivativeKind::View: return "view";
    case DerivativeKind::NonDifferentiable: return "non_differentiable";
    case DerivativeKind::None: return "none";
  }
  return "?";
}

// What the derivative table holds for the op, in the schema's words.
const char* registered_derivative(OpId op) {
  const autograd::Derivative* d = autograd::find_derivative(op);
  if (!d) return "none";
  if (d->is_view) return "view";
  if (d->non_differentiable) return "non_differentiable";
  return "formula";
}

py::object opt_str(const char* s) { return s ? py::object(py::str(s)) : py::object(py::none()); }

py::list op_schemas() {
  py::list out;
  for (int i = 0; i < kOpCapacity; ++i) {
    OpId op = static_cast<OpId>(i);
    if (!is_op(op)) continue;
    const OpSchema& s = op_schema(op);
    py::dict row;
    row["name"] = s.name;
    row["group"] = s.group;
    row["func"] = s.func;
    row["doc"] = s.doc;
    row["tags"] = bits(s.tags, {{kTagPointwise, "pointwise"}, {kTagReduction, "reduction"},
                                {kTagView, "view"}, {kTagRandom, "random"},
                                {kTagNondeterministic, "nondeterministic"}, {kTagInplace, "inplace"},
                                {kTagFactory, "factory"}, {kTagBackward, "backward"},
                                {kTagOptimizer, "optimizer"}});
    row["variants"] = bits(s.variants, {{kVariantFunction, "function"}, {kVariantMethod, "method"},
                                        {kVariantInplace, "inplace"}, {kVariantOut, "out"}});
    row["derivative"] = derivative_name(s.derivative);
    row["invoker"] = s.invoker == InvokerKind::Generated ? "generated"
                     : s.invoker == InvokerKind::Manual  ? "manual"
                                                         : "none";
    row["onnx"] = opt_str(s.onnx);
    row["autocast"] = opt_str(s.autocast);
    row["autocast_cpu"] = opt_str(s.autocast_cpu);
    row["inputs"] = arg_list(s.inputs, s.num_inputs);
    row["attrs"] = arg_list(s.attrs, s.num_attrs);
    row["num_outputs"] = s.num_outputs >= 0 ? py::object(py::int_(s.num_outputs)) : py::object(py::none());
    // What is registered, to hold against the row.
    py::list devices;
    for (int d = 0; d < kNumDeviceTypes; ++d)
      if (has_kernel(op, static_cast<DeviceType>(d)))
        devices.append(Device(static_cast<DeviceType>(d)).str());
    row["kernels"] = devices;
    row["registered_derivative"] = registered_derivative(op);
    row["traceable"] = jit::invoker_for(op) != nullptr;
    out.append(row);
  }
  return out;
}

}  // namespace

void bind_op_schema(py::module_& m) {
  m.def("_op_schemas", &op_schemas,
        "Every op row of the schema, with the kernels, derivative and invoker registered for it.");
  m.def("_set_schema_checks", &set_schema_checks, py::arg("on"),
        "Check every dispatched call against its op's schema row (for tests).");
  m.def("_schema_checks_enabled", &schema_checks_enabled);
}

}  // namespace ember::python
