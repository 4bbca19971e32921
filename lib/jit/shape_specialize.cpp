// Specializing a graph to one call's input sizes (jit/shape_specialize.h).
#include "jit/shape_specialize.h"

#include "ember/ember.h"

namespace ember::jit {

namespace {

std::string input_name(const Graph& g, size_t i) {
  return detail::str("input ", i, " (", g.value_name(g.inputs[i]), ")");
}

std::string range_str(const Symbol& s) {
  std::string hi = s.max == std::numeric_limits<int64_t>::max() ? "inf" : std::to_string(s.max);
  return detail::str("[", s.min, ", ", hi, "]");
}

int64_t eval_or_throw(const Graph& g, int32_t e, const std::vector<int64_t>& symbols,
                      const std::string& what) {
  std::optional<int64_t> v = evaluate(g.exprs[static_cast<size_t>(e)], symbols);
  if (!v || *v < 0)
    throw Error(detail::str("traced module: ", what, " = ", expr_str(g.exprs[static_cast<size_t>(e)], g.symbols),
                            v ? " is negative" : " is not an integer", " at these input sizes"));
  return *v;
}

}  // namespace

std::vector<int64_t> bind_symbols(const Graph& g, const std::vector<Tensor>& inputs) {
  EMBER_CHECK(inputs.size() == g.inputs.size(), "traced module: forward expected ",
              g.inputs.size(), " input tensor(s), but got ", inputs.size());
  const size_t k = g.symbols.size();
  std::vector<int64_t> values(k, -1);
  // A static graph runs on other sizes as PyTorch's trace does, its sizes baked
  // in (docs/jit.md): only a graph traced with dynamic_shapes has guards.
  if (k == 0) {
    for (size_t i = 0; i < inputs.size(); ++i)
      EMBER_CHECK_TYPE(inputs[i].defined(), "traced module: ", input_name(g, i), " is not a tensor");
    return values;
  }
  std::vector<std::string> bound_at(k);
  // Bind from the dims that are a symbol; check the static dims.
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK_TYPE(inputs[i].defined(), "traced module: ", input_name(g, i), " is not a tensor");
    const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    const Tensor& t = inputs[i];
    if (static_cast<size_t>(t.dim()) != v.sizes.size())
      throw Error(detail::str("traced module: ", input_name(g, i), " must have ", v.sizes.size(),
                              " dims (it was traced as ", shape_str(v.sizes), "), got ",
                              shape_str(t.sizes())));
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      int32_t e = size_expr(v, d);
      int64_t got = t.size(static_cast<int64_t>(d));
      if (e == kStaticDim) {
        if (got != v.sizes[d])
          throw Error(detail::str(
              "traced module: ", input_name(g, i), " has size ", got, " in dim ", d,
              ", but the graph was traced with ", v.sizes[d], " there and that dim is static",
              " (mark it in dynamic_shapes to make it dynamic); got shape ", shape_str(t.sizes()), ", traced ", shape_str(v.sizes)));
        continue;
      }
      if (e < 0) continue;
      int32_t s = bare_symbol(g.exprs[static_cast<size_t>(e)]);
      if (s < 0) continue;  // checked below, once every symbol is bound
      std::string here = detail::str(input_name(g, i), " dim ", d);
      if (values[static_cast<size_t>(s)] >= 0 && values[static_cast<size_t>(s)] != got)
        throw Error(detail::str("traced module: ", here, " is ", got, " but ",
                                bound_at[static_cast<size_t>(s)], " is ", values[static_cast<size_t>(s)],
                                ": both are the dynamic size ", g.symbols[static_cast<size_t>(s)].name,
                                " and must be equal"));
      values[static_cast<size_t>(s)] = got;
      bound_at[static_cast<size_t>(s)] = here;
    }
  }
  for (size_t s = 0; s < k; ++s) {
    const Symbol& sym = g.symbols[s];
    if (values[s] < 0)
      throw Error(detail::str("traced module: the dynamic size ", sym.name, " is no input dim"));
    if (values[s] < sym.min || values[s] > sym.max)
      throw Error(detail::str("traced module: ", bound_at[s], " is ", values[s],
                              ", but the dynamic size ", sym.name, " must be in ", range_str(sym)));
    if (sym.modulus > 1 && values[s] % sym.modulus != sym.remainder)
      throw Error(detail::str("traced module: ", bound_at[s], " is ", values[s],
                              ", but the dynamic size ", sym.name, " must be ", sym.remainder,
                              " modulo ", sym.modulus, " (the traced shape logic divides it by ",
                              sym.modulus, ")"));
  }
  // Dims that are expressions of the symbols (an input of size 2*batch).
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      int32_t e = size_expr(v, d);
      if (e < 0 || bare_symbol(g.exprs[static_cast<size_t>(e)]) >= 0) continue;
      std::string here = detail::str(input_name(g, i), " dim ", d);
      int64_t want = eval_or_throw(g, e, values, here);
      if (want != inputs[i].size(static_cast<int64_t>(d)))
        throw Error(detail::str("traced module: ", here, " is ", inputs[i].size(static_cast<int64_t>(d)),
                                ", but must be ", expr_str(g.exprs[static_cast<size_t>(e)], g.symbols),
                                " = ", want));
    }
  }
  return values;
}

std::shared_ptr<const Specialization> specialize(const Graph& g, const std::vector<int64_t>& symbols,
                                                 Device device) {
  auto spec = std::make_shared<Specialization>();
  spec->symbols = symbols;
  spec->device = device;
  spec->checked = !g.symbols.empty();
  spec->sizes.resize(g.values.size());
  spec->constants.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    DimVector& sizes = spec->sizes[v];
    sizes = val.sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      int32_t e = size_expr(val, d);
      if (e == kUnknownDim) sizes[d] = -1;
      else if (e >= 0) sizes[d] = eval_or_throw(g, e, symbols, detail::str("dim ", d, " of ", g.value_name(static_cast<ValueId>(v))));
    }
    if (val.value_expr >= 0) {
      int64_t n = eval_or_throw(g, val.value_expr, symbols, g.value_name(static_cast<ValueId>(v)));
      NoGradGuard no_grad;
      Tensor t = full({}, Scalar(n), TensorOptions(val.dtype).device(device));
      t.impl()->is_wrapped_number = val.wrapped_number;
      spec->constants[v] = t;
    }
  }
  spec->attrs.resize(g.nodes.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.sym_attrs.empty()) continue;
    std::vector<Attr> attrs = node.attrs;
    for (const SymAttr& s : node.sym_attrs) {
      std::string what = detail::str("attribute ", s.attr, " of node ", n, " (", op_name(node.op), ")");
      int64_t value = eval_or_throw(g, s.expr, symbols, what);
      Attr& a = attrs[static_cast<size_t>(s.attr)];
      if (s.element >= 0) {
        DimVector ints = a.to_ints();
        ints[static_cast<size_t>(s.element)] = value;
        a = Attr(std::move(ints));
      } else if (std::holds_alternative<Scalar>(a.value())) {
        a = Attr(Scalar(value));
      } else {
        a = Attr(value);
      }
    }
    spec->attrs[n] = std::move(attrs);
  }
  return spec;
}

std::shared_ptr<const Specialization> SpecializationCache::get(const Graph& g,
                                                               const std::vector<Tensor>& inputs,
                                                               Device device) {
  std::vector<int64_t> symbols = bind_symbols(g, inputs);
  auto same = [&](const std::shared_ptr<const Specialization>& e) {
    return e->symbols == symbols && e->device == device;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
      if (same(*it)) return *it;
  }
  // Worked out outside the lock: another thread may do the same meanwhile, and
  // the first to insert wins; both results are equal.
  std::shared_ptr<const Specialization> spec = specialize(g, symbols, device);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& e : entries_)
    if (same(e)) return e;
  if (entries_.size() >= kMaxEntries) entries_.erase(entries_.begin());
  entries_.push_back(spec);
  return spec;
}

void check_output_sizes(const Graph& g, const Specialization& spec, int32_t n,
                        const std::vector<Tensor>& outputs) {
  if (!spec.checked) return;
  const Node& node = g.nodes[static_cast<size_t>(n)];
  for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i) {
    if (!outputs[i].defined()) continue;
    const DimVector& want = spec.sizes[static_cast<size_t>(node.outputs[i])];
    const DimVector& got = outputs[i].sizes();
    bool same = want.size() == got.size();
    for (size_t d = 0; same && d < want.size(); ++d) same = want[d] < 0 || want[d] == got[d];
    if (!same)
      throw Error(detail::str(
          "traced module: node ", n, " (", op_name(node.op), ") made a tensor of shape ",
          shape_str(got), ", but the traced graph's shape logic says ", shape_str(want),
          " at these input sizes: the graph does not generalize to them (the traced code took "
          "a path that depends on the sizes; trace at these sizes or mark the dims with "
          "dynamic_shapes)"));
  }
}

}  // namespace ember::jit
