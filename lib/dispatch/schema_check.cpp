// Checks a call against its op's schema row (lib/dispatch/op_schema.h). The rows are
// the one statement of each op's argument layout; this is what keeps them true:
// the test suites run every call through it.
#include <cstdlib>

#include "dispatch/op_call.h"
#include "dispatch/op_schema.h"
#include "ember/error.h"

namespace ember {

extern const OpSchema kOpSchemas[kOpCapacity];

const OpSchema& op_schema(OpId op) { return kOpSchemas[static_cast<int>(op)]; }

const char* arg_kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::TensorList: return "Tensor[]";
    case ArgKind::OptTensorList: return "Tensor?[]";
    case ArgKind::Bool: return "bool";
    case ArgKind::Int: return "int";
    case ArgKind::Float: return "float";
    case ArgKind::Scalar: return "Scalar";
    case ArgKind::IntList: return "int[]";
    case ArgKind::DType: return "ScalarType";
    case ArgKind::Device: return "Device";
    case ArgKind::Str: return "str";
    case ArgKind::OptFloatList: return "float?[]";
  }
  return "?";
}

namespace {
bool env_flag() {
  const char* v = std::getenv("EMBER_CHECK_SCHEMA");
  return v && v[0] == '1';
}

const char* attr_value_kind(const Attr& a) {
  static const char* const names[] = {"None", "bool", "int", "float", "Scalar",
                                      "int[]", "ScalarType", "Device", "str"};
  return names[a.value().index()];
}

// Whether the accessor that reads this kind (Attr::to_*) accepts what the attr holds.
bool attr_fits(ArgKind kind, const Attr& a) {
  const auto& v = a.value();
  switch (kind) {
    case ArgKind::Bool: return std::holds_alternative<bool>(v);
    case ArgKind::Int: return std::holds_alternative<int64_t>(v);
    case ArgKind::Float:
      return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v) ||
             std::holds_alternative<Scalar>(v);
    case ArgKind::Scalar:
      return std::holds_alternative<Scalar>(v) || std::holds_alternative<int64_t>(v) ||
             std::holds_alternative<double>(v) || std::holds_alternative<bool>(v);
    case ArgKind::IntList: return std::holds_alternative<DimVector>(v);
    case ArgKind::DType: return std::holds_alternative<DType>(v);
    case ArgKind::Device: return std::holds_alternative<Device>(v);
    case ArgKind::Str: return std::holds_alternative<std::string>(v);
    default: return false;
  }
}

[[noreturn]] void mismatch(const OpSchema& s, const std::string& what) {
  throw Error(detail::str("schema check: ", s.name, ": ", what, " (row: ", s.func,
                          "; lib/dispatch/schema/", s.group, ".toml)"));
}
}  // namespace

bool g_schema_checks = env_flag();
void set_schema_checks(bool on) { g_schema_checks = on; }

void check_call_inputs(const OpCall& call) {
  const OpSchema& s = op_schema(call.op);
  size_t n = call.inputs.size();
  size_t fixed = s.num_inputs;
  bool variadic = s.num_inputs > 0 && s.inputs[s.num_inputs - 1].kind != ArgKind::Tensor;
  if (variadic) --fixed;
  if (variadic ? n < fixed : n != fixed)
    mismatch(s, detail::str("the call has ", n, " tensor inputs, the row ",
                            variadic ? "at least " : "", fixed));
  for (size_t i = 0; i < n; ++i) {
    const ArgSchema& a = s.inputs[i < fixed ? i : fixed];
    if (!call.inputs[i].defined() && !a.optional)
      mismatch(s, detail::str("input ", i, " (", a.name, ") is undefined but not optional"));
  }
  size_t fixed_attrs = s.num_attrs;
  bool attr_tail = s.num_attrs > 0 && s.attrs[s.num_attrs - 1].kind == ArgKind::OptFloatList;
  if (attr_tail) --fixed_attrs;
  if (attr_tail ? call.attrs.size() < fixed_attrs : call.attrs.size() != fixed_attrs)
    mismatch(s, detail::str("the call has ", call.attrs.size(), " attrs, the row ",
                            attr_tail ? "at least " : "", fixed_attrs));
  for (size_t i = 0; i < call.attrs.size(); ++i) {
    const ArgSchema& a = s.attrs[i < fixed_attrs ? i : fixed_attrs];
    const Attr& v = call.attrs[i];
    if (a.kind == ArgKind::OptFloatList) {
      if (!v.is_none() && !attr_fits(ArgKind::Float, v))
        mismatch(s, detail::str("attr ", i, " (", a.name, ") holds ", attr_value_kind(v),
                                ", the row says float or None"));
      continue;
    }
    if (v.is_none() ? !a.optional : !attr_fits(a.kind, v))
      mismatch(s, detail::str("attr ", i, " (", a.name, ") holds ", attr_value_kind(v), ", the row says ",
                              arg_kind_name(a.kind), a.optional ? "?" : ""));
  }
}

void check_call_outputs(const OpCall& call) {
  const OpSchema& s = op_schema(call.op);
  if (s.num_outputs >= 0 && call.outputs.size() != size_t(s.num_outputs))
    mismatch(s, detail::str("the kernel gave ", call.outputs.size(), " outputs, the row says ",
                            int(s.num_outputs)));
}

}  // namespace ember
