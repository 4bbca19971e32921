// Fitting a graph's symbolic sizes from traces at several sizes (jit/symbolic_fit.h).
#include "jit/symbolic_fit.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "ember/ember.h"

namespace ember::jit {

namespace {

// ---- exact rationals --------------------------------------------------------------

__int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) { __int128 r = a % b; a = b; b = r; }
  return a;
}

// n/d with d > 0, reduced. The fit's numbers are sizes of at most a few powers
// of ten times small steps, far inside 128 bits.
struct Q {
  __int128 n = 0, d = 1;
  Q() = default;
  Q(__int128 num, __int128 den = 1) : n(num), d(den) {
    if (d < 0) n = -n, d = -d;
    __int128 g = gcd128(n, d);
    if (g > 1) n /= g, d /= g;
  }
  Q operator+(const Q& o) const { return Q(n * o.d + o.n * d, d * o.d); }
  Q operator-(const Q& o) const { return Q(n * o.d - o.n * d, d * o.d); }
  Q operator*(const Q& o) const { return Q(n * o.n, d * o.d); }
  Q operator/(const Q& o) const { return Q(n * o.d, d * o.n); }
  bool zero() const { return n == 0; }
};

using Monomial = std::vector<int32_t>;  // sorted symbol indices
using Poly = std::map<Monomial, Q>;

void add_term(Poly& p, Monomial m, const Q& c) {
  std::sort(m.begin(), m.end());
  Q& slot = p[m];
  slot = slot + c;
  if (slot.zero()) p.erase(m);
}

// Higher degree first, then by symbol: "batch*seq + 2*batch + 1".
SymExpr to_expr(const Poly& p) {
  std::vector<std::pair<Monomial, Q>> terms(p.begin(), p.end());
  std::stable_sort(terms.begin(), terms.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  SymExpr e;
  for (const auto& [m, q] : terms) {
    constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
    if (q.n > kMax || q.n < -kMax || q.d > kMax) return SymExpr{{SymTerm{0, 0, {}}}};  // invalid
    e.terms.push_back(SymTerm{static_cast<int64_t>(q.n), static_cast<int64_t>(q.d), m});
  }
  return e;
}

// ---- the design -------------------------------------------------------------------

size_t num_design_points(size_t k) { return 1 + 2 * k + k * (k - 1) / 2; }

class Fitter {
 public:
  Fitter(const std::vector<std::shared_ptr<Graph>>& traces, const FitDesign& design)
      : traces_(traces), design_(design), points_(fit_points(design)) {
    EMBER_CHECK(traces.size() == points_.size(), "fit_symbolic: expected ", points_.size(),
                " traces, got ", traces.size());
  }

  std::shared_ptr<Graph> run() {
    const Graph& g0 = *traces_[0];
    out_ = std::make_shared<Graph>(g0);
    Graph& out = *out_;
    out.symbols = design_.symbols;
    for (size_t i = 0; i < out.symbols.size(); ++i) {
      int64_t step = std::abs(design_.steps[i]);
      out.symbols[i].modulus = step;
      out.symbols[i].remainder = step > 1 ? out.symbols[i].traced % step : 0;
    }
    check_structure();
    mark_data_dependent_sizes(out);
    for (size_t v = 0; v < out.values.size(); ++v) fit_value(static_cast<ValueId>(v));
    for (size_t n = 0; n < out.nodes.size(); ++n) fit_node(static_cast<int32_t>(n));
    check_inputs();
    return out_;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ValueError(detail::str(
        "ember.jit.trace: with dynamic_shapes the graph must be the same at every size, but ",
        what, ". The model's shape logic (or a Python branch on a size) does not generalize "
        "over the dynamic dims: make that dim static, or change the code"));
  }

  std::string point_str(size_t p) const {
    std::string s;
    for (size_t i = 0; i < design_.symbols.size(); ++i)
      s += (i ? ", " : "") + design_.symbols[i].name + "=" + std::to_string(points_[p][i]);
    return s;
  }

  void check_structure() const {
    const Graph& a = *traces_[0];
    for (size_t t = 1; t < traces_.size(); ++t) {
      const Graph& b = *traces_[t];
      std::string at = " when traced at " + point_str(t) + " instead of " + point_str(0);
      if (a.nodes.size() != b.nodes.size() || a.values.size() != b.values.size()) {
        // Where the two first differ says what repeats: a loop over a size (an RNN
        // unrolled over the sequence) or a branch.
        size_t n = 0;
        while (n < a.nodes.size() && n < b.nodes.size() && a.nodes[n].op == b.nodes[n].op) ++n;
        std::string where = n < a.nodes.size() && n < b.nodes.size()
                                ? detail::str("; node ", n, " is ", op_name(a.nodes[n].op), " at the example and ",
                                              op_name(b.nodes[n].op), " there")
                                : "";
        fail(detail::str("it has ", b.nodes.size(), " nodes", at, " (", a.nodes.size(),
                         " at the example", where, "): Python code loops or branches on the size "
                         "(recurrent layers unroll over the sequence, so only their batch can be dynamic)"));
      }
      if (a.inputs != b.inputs || a.outputs != b.outputs || a.output_structure != b.output_structure)
        fail("its inputs or outputs change" + at);
      for (size_t n = 0; n < a.nodes.size(); ++n) {
        const Node& x = a.nodes[n];
        const Node& y = b.nodes[n];
        if (x.op != y.op || x.inputs != y.inputs || x.preset != y.preset ||
            x.outputs != y.outputs || x.attrs.size() != y.attrs.size())
          fail(detail::str("node ", n, " (", op_name(x.op), ") becomes ", op_name(y.op), at));
        for (size_t i = 0; i < x.attrs.size(); ++i)
          if (x.attrs[i].value().index() != y.attrs[i].value().index())
            fail(detail::str("attribute ", i, " of node ", n, " (", op_name(x.op), ") changes kind", at));
      }
      for (size_t v = 0; v < a.values.size(); ++v) {
        const Value& x = a.values[v];
        const Value& y = b.values[v];
        if (x.kind != y.kind || x.name != y.name || x.dtype != y.dtype ||
            x.sizes.size() != y.sizes.size() || x.wrapped_number != y.wrapped_number)
          fail(detail::str("value ", a.value_name(static_cast<ValueId>(v)), " changes type", at));
      }
    }
  }

  // The fitted expression of a number observed as ys[p] at each point: -1 for a
  // number that never changes, else an index into out_->exprs.
  int32_t fit(const std::vector<int64_t>& ys, const std::string& what) {
    bool constant = std::all_of(ys.begin(), ys.end(), [&](int64_t y) { return y == ys[0]; });
    if (constant) return -1;
    const size_t k = design_.symbols.size();
    std::vector<Q> y(ys.begin(), ys.end());
    // In units of steps, t_i = (s_i - example_i) / step_i, the number is
    // c + sum a_i t_i + sum q_i t_i^2 + sum r_ij t_i t_j: read off the design.
    Q c = y[0];
    std::vector<Q> a(k), q(k);
    for (size_t i = 0; i < k; ++i) {
      Q y1 = y[1 + 2 * i], y2 = y[2 + 2 * i];
      q[i] = (y2 - y1 * Q(2) + c) / Q(2);
      a[i] = y1 - c - q[i];
    }
    Poly p;
    add_term(p, {}, c);
    auto shift = [&](size_t i) { return Q(design_.symbols[i].traced); };
    auto step = [&](size_t i) { return Q(design_.steps[i]); };
    for (size_t i = 0; i < k; ++i) {
      int32_t s = static_cast<int32_t>(i);
      // a t = a/g s - a b/g
      add_term(p, {s}, a[i] / step(i));
      add_term(p, {}, Q(0) - a[i] * shift(i) / step(i));
      // q t^2 = q/g^2 (s^2 - 2 b s + b^2)
      Q qq = q[i] / (step(i) * step(i));
      add_term(p, {s, s}, qq);
      add_term(p, {s}, Q(0) - qq * Q(2) * shift(i));
      add_term(p, {}, qq * shift(i) * shift(i));
    }
    size_t pair = 1 + 2 * k;
    for (size_t i = 0; i < k; ++i)
      for (size_t j = i + 1; j < k; ++j, ++pair) {
        Q r = y[pair] - c - a[i] - a[j] - q[i] - q[j];
        Q rr = r / (step(i) * step(j));
        int32_t si = static_cast<int32_t>(i), sj = static_cast<int32_t>(j);
        add_term(p, {si, sj}, rr);
        add_term(p, {si}, Q(0) - rr * shift(j));
        add_term(p, {sj}, Q(0) - rr * shift(i));
        add_term(p, {}, rr * shift(i) * shift(j));
      }
    SymExpr e = to_expr(p);
    for (size_t t = 0; t < points_.size(); ++t) {
      std::optional<int64_t> got = evaluate(e, points_[t]);
      if (!got || *got != ys[t]) {
        std::string seen;
        for (size_t u = 0; u < points_.size(); ++u)
          seen += detail::str(u ? "; " : "", point_str(u), ": ", ys[u]);
        fail(detail::str(what, " is no polynomial of the dynamic sizes (", seen, ")"));
      }
    }
    const std::string key = expr_str(e, out_->symbols);
    auto it = expr_index_.find(key);
    if (it != expr_index_.end()) return it->second;
    out_->exprs.push_back(std::move(e));
    int32_t id = static_cast<int32_t>(out_->exprs.size() - 1);
    expr_index_[key] = id;
    return id;
  }

  void fit_value(ValueId id) {
    Graph& g = *out_;
    Value& v = g.values[static_cast<size_t>(id)];
    const std::string name = g.value_name(id);
    if (v.kind == ValueKind::Constant) fit_constant(v, name);
    std::vector<int32_t> dims(v.sizes.size(), kStaticDim);
    bool symbolic = false;
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      if (size_expr(v, d) == kUnknownDim) {
        dims[d] = kUnknownDim;
        symbolic = true;
        continue;
      }
      std::vector<int64_t> ys;
      for (const auto& t : traces_) ys.push_back(t->values[static_cast<size_t>(id)].sizes[d]);
      int32_t e = fit(ys, detail::str("dim ", d, " of ", name));
      if (e >= 0) dims[d] = e, symbolic = true;
    }
    v.size_exprs = symbolic ? dims : std::vector<int32_t>{};
  }

  // A constant must be the same tensor in every trace, except a 0-dim integer
  // computed from sizes (x * x.shape[1]), which becomes an expression.
  void fit_constant(Value& v, const std::string& name) {
    std::vector<Tensor> ts;
    for (const auto& t : traces_) ts.push_back(t->tensors.at(v.name).detach().cpu().contiguous());
    bool same = true;
    for (size_t t = 1; t < ts.size() && same; ++t)
      same = ts[t].sizes() == ts[0].sizes() && ts[t].dtype() == ts[0].dtype() &&
             std::memcmp(ts[t].data_ptr(), ts[0].data_ptr(), static_cast<size_t>(ts[0].nbytes())) == 0;
    if (same) return;
    if (ts[0].dim() != 0 || !is_integral(ts[0].dtype()))
      fail(detail::str("the constant ", name, " (a ", dtype_name(ts[0].dtype()), shape_str(ts[0].sizes()),
                       " tensor made outside the traced ops, from Python values) changes; only "
                       "0-dim integer constants (x * x.shape[1]) may follow the sizes"));
    std::vector<int64_t> ys;
    for (const Tensor& t : ts) ys.push_back(t.item<int64_t>());
    v.value_expr = fit(ys, "the constant " + name);
  }

  void fit_node(int32_t n) {
    Node& node = out_->nodes[static_cast<size_t>(n)];
    const std::string where = detail::str(" of node ", n, " (", op_name(node.op), ")");
    for (size_t i = 0; i < node.attrs.size(); ++i) {
      const Attr::Value& a = node.attrs[i].value();
      auto attr_at = [&](size_t t) -> const Attr::Value& {
        return traces_[t]->nodes[static_cast<size_t>(n)].attrs[i].value();
      };
      const std::string what = detail::str("attribute ", i, where);
      if (std::holds_alternative<int64_t>(a) ||
          (std::holds_alternative<Scalar>(a) && std::get<Scalar>(a).is_int())) {
        std::vector<int64_t> ys;
        for (size_t t = 0; t < traces_.size(); ++t) {
          const Attr::Value& at = attr_at(t);
          if (const Scalar* s = std::get_if<Scalar>(&at); s && !s->is_int()) fail(what + " changes kind");
          ys.push_back(std::holds_alternative<int64_t>(at) ? std::get<int64_t>(at)
                                                           : std::get<Scalar>(at).to_int());
        }
        int32_t e = fit(ys, what);
        if (e >= 0) node.sym_attrs.push_back(SymAttr{static_cast<int32_t>(i), -1, e});
      } else if (const DimVector* ints = std::get_if<DimVector>(&a)) {
        for (size_t t = 1; t < traces_.size(); ++t)
          if (std::get<DimVector>(attr_at(t)).size() != ints->size())
            fail(what + " (an int list) changes length");
        for (size_t k = 0; k < ints->size(); ++k) {
          std::vector<int64_t> ys;
          for (size_t t = 0; t < traces_.size(); ++t) ys.push_back(std::get<DimVector>(attr_at(t))[k]);
          int32_t e = fit(ys, detail::str("entry ", k, " of ", what));
          if (e >= 0)
            node.sym_attrs.push_back(SymAttr{static_cast<int32_t>(i), static_cast<int32_t>(k), e});
        }
      } else {
        for (size_t t = 1; t < traces_.size(); ++t)
          if (attr_str(traces_[t]->nodes[static_cast<size_t>(n)].attrs[i]) != attr_str(node.attrs[i]))
            fail(detail::str(what, " (", attr_str(node.attrs[i]), " at the example, ",
                             attr_str(traces_[t]->nodes[static_cast<size_t>(n)].attrs[i]),
                             " at ", point_str(t), ") changes: only integer attributes may "
                             "follow the dynamic sizes"));
      }
    }
  }

  // Each input dim is its symbol or static, as dynamic_shapes said.
  void check_inputs() const {
    const Graph& g = *out_;
    for (size_t i = 0; i < g.inputs.size() && i < design_.input_dims.size(); ++i) {
      const Value& v = g.values[static_cast<size_t>(g.inputs[i])];
      for (size_t d = 0; d < v.sizes.size() && d < design_.input_dims[i].size(); ++d) {
        int32_t want = design_.input_dims[i][d];
        int32_t e = size_expr(v, d);
        int32_t got = e >= 0 ? bare_symbol(g.exprs[static_cast<size_t>(e)]) : -1;
        if (got != want)
          throw ValueError(detail::str("ember.jit.trace: input ", i, " dim ", d,
                                       " did not trace as its dynamic_shapes entry"));
      }
    }
  }

  const std::vector<std::shared_ptr<Graph>>& traces_;
  const FitDesign& design_;
  std::vector<std::vector<int64_t>> points_;
  std::shared_ptr<Graph> out_;
  std::map<std::string, int32_t> expr_index_;
};

}  // namespace

std::vector<std::vector<int64_t>> fit_points(const FitDesign& design) {
  const size_t k = design.symbols.size();
  EMBER_CHECK(design.steps.size() == k, "fit_points: one step per symbol");
  std::vector<int64_t> base;
  for (const Symbol& s : design.symbols) base.push_back(s.traced);
  std::vector<std::vector<int64_t>> points{base};
  auto moved = [&](std::vector<std::pair<size_t, int64_t>> by) {
    std::vector<int64_t> p = base;
    for (auto [i, times] : by) p[i] += times * design.steps[i];
    return p;
  };
  for (size_t i = 0; i < k; ++i) {
    points.push_back(moved({{i, 1}}));
    points.push_back(moved({{i, 2}}));
  }
  for (size_t i = 0; i < k; ++i)
    for (size_t j = i + 1; j < k; ++j) points.push_back(moved({{i, 1}, {j, 1}}));
  // The confirming points: off the design's lattice lines and pairs.
  std::vector<std::pair<size_t, int64_t>> all3, mixed;
  for (size_t i = 0; i < k; ++i) {
    all3.push_back({i, 3});
    mixed.push_back({i, i % 2 == 0 ? 5 : 4});
  }
  points.push_back(moved(all3));
  points.push_back(moved(mixed));
  EMBER_CHECK(points.size() == num_design_points(k) + 2, "fit_points: design size");
  return points;
}

std::shared_ptr<Graph> fit_symbolic(const std::vector<std::shared_ptr<Graph>>& traces,
                                    const FitDesign& design) {
  return Fitter(traces, design).run();
}

void mark_data_dependent_sizes(Graph& g) {
  std::vector<bool> tainted(g.values.size(), false);
  for (const Node& n : g.nodes) {
    bool t = has_data_dependent_shape(n.op);
    for (ValueId v : n.inputs) t = t || (v != kNoValue && tainted[static_cast<size_t>(v)]);
    for (ValueId v : n.preset) t = t || tainted[static_cast<size_t>(v)];
    if (!t) continue;
    for (ValueId v : n.outputs) {
      tainted[static_cast<size_t>(v)] = true;
      Value& val = g.values[static_cast<size_t>(v)];
      val.size_exprs.assign(val.sizes.size(), kUnknownDim);
    }
  }
}

}  // namespace ember::jit
