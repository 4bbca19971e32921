// Python bindings of the elementwise group: module functions (ember.add), Tensor
// methods (x.add, x.add_) and the arithmetic, bitwise and comparison operators.
//
// The operators are the hot path of small-tensor code (`a + b` in a loop), so each
// is one typed overload (Tensor, TensorArg) with no keyword parsing; py::is_operator
// makes an unsupported operand type return NotImplemented, as Python expects.
#include <cstring>

#include "bindings.h"
#include "ember/ops/elementwise_special.h"

namespace ember::python {

namespace {

using Fn1 = Tensor (*)(const Tensor&);
using Fn1_ = Tensor& (*)(Tensor&);

// The Tensor behind a Python object known to be one (an in-place method's self).
Tensor& self_of(const py::object& self) { return tensor_ref(self); }

// In-place methods return self itself (x.add_(y) is x), as PyTorch's do:
// inplace(f), for f(Tensor& self, Args...), binds as (object self, Args...) -> self.
template <typename F, typename... Args>
auto inplace_impl(F f, void (F::*)(Tensor&, Args...) const) {
  return [f](const py::object& self, Args... args) -> py::object {
    f(self_of(self), args...);
    return self;
  };
}
template <typename F>
auto inplace(F f) {
  return inplace_impl(f, &F::operator());
}

// A module function taking two operands, either of which may be a Python number,
// but not both (as in PyTorch).
void check_one_tensor(const Tensor& a, const Tensor& b, const char* op) {
  if (a.impl()->is_wrapped_number && b.impl()->is_wrapped_number)
    throw TypeError(detail::str(op, "(): expected at least one argument to be a Tensor, got two numbers"));
}

// ember.name(input), x.name(), x.name_() for a unary op.
void def_unary(py::module_& m, TensorClass& cls, const char* name, Fn1 f, Fn1_ f_) {
  m.def(name, f, py::arg("input"));
  cls.def(name, f);
  add_fast_unary_method(name, f);
  if (f_) {
    std::string in_place = std::string(name) + "_";
    cls.def(in_place.c_str(), inplace([f_](Tensor& t) { f_(t); }));
    m.def(in_place.c_str(), [f_](const py::object& t) -> py::object {
      f_(self_of(t));
      return t;
    }, py::arg("input"));
  }
}

using Fn2 = Tensor (*)(const Tensor&, const Tensor&);
using Fn2_ = Tensor& (*)(Tensor&, const Tensor&);

// The ops whose PyTorch signature takes (Tensor input, Tensor other): a Python number
// in either place is a TypeError there (torch.maximum(x, 1)), not a wrapped scalar.
bool takes_tensors_only(const char* name) {
  static const char* const names[] = {"maximum", "minimum", "atan2", "arctan2",
                                      "logical_and", "logical_or", "logical_xor"};
  for (const char* n : names)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

void check_tensor_operand(const Tensor& t, const char* op, const char* arg, int position) {
  if (t.impl()->is_wrapped_number)
    throw TypeError(detail::str(op, "(): argument '", arg, "' (position ", position,
                                ") must be Tensor, not a number"));
}

// ember.name(input, other), x.name(other), x.name_(other) for a binary op.
void def_binary(py::module_& m, TensorClass& cls, const char* name, Fn2 f, Fn2_ f_) {
  bool tensors_only = takes_tensors_only(name);
  m.def(name, [f, name, tensors_only](const TensorArg& a, const TensorArg& b) {
    check_one_tensor(a, b, name);
    if (tensors_only) {
      check_tensor_operand(a, name, "input", 1);
      check_tensor_operand(b, name, "other", 2);
    }
    return f(a, b);
  }, py::arg("input"), py::arg("other"));
  cls.def(name, [f, name, tensors_only](const Tensor& a, const TensorArg& b) {
    if (tensors_only) check_tensor_operand(b, name, "other", 1);
    return f(a, b);
  }, py::arg("other"));
  if (f_) {
    std::string in_place = std::string(name) + "_";
    cls.def(in_place.c_str(), inplace([f_, name, tensors_only](Tensor& t, const TensorArg& b) {
      if (tensors_only) check_tensor_operand(b, name, "other", 1);
      f_(t, b);
    }), py::arg("other"));
  }
}

// The other operand of an operator that is neither a tensor nor a Python number
// (the slow path): a numpy scalar counts as a number; an array (anything with
// __array__) becomes a tensor through ember.as_tensor, when the interop group's
// conversion is there. Nothing otherwise: the operator returns NotImplemented.
std::optional<Tensor> other_operand(const py::object& obj) {
  py::detail::make_caster<Scalar> number_caster;
  if (number_caster.load(obj, true)) return wrap_number(py::detail::cast_op<Scalar>(number_caster));
  if (!py::hasattr(obj, "__array__")) return std::nullopt;
  py::object module = py::module_::import("ember");
  if (!py::hasattr(module, "as_tensor")) return std::nullopt;
  return module.attr("as_tensor")(obj).cast<Tensor>();
}

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// x op y, f(x, y): a typed overload for a tensor or number y (the hot path: no
// Python-level conversion), then a general one for the other operands.
template <typename F>
void def_operator(TensorClass& cls, const char* name, F f) {
  cls.def(name, [f](const Tensor& a, const TensorArg& b) { return f(a, b.tensor); }, py::is_operator());
  cls.def(name, [f](const Tensor& a, const py::object& b) -> py::object {
    std::optional<Tensor> other = other_operand(b);
    return other ? py::cast(f(a, *other)) : not_implemented();
  }, py::is_operator());
}

// x op= y: computes in place and gives back x itself.
template <typename F>
void def_inplace_operator(TensorClass& cls, const char* name, F f) {
  cls.def(name, [f](const py::object& self, const TensorArg& b) -> py::object {
    f(self_of(self), b.tensor);
    return self;
  }, py::is_operator());
  cls.def(name, [f](const py::object& self, const py::object& b) -> py::object {
    std::optional<Tensor> other = other_operand(b);
    if (!other) return not_implemented();
    f(self_of(self), *other);
    return self;
  }, py::is_operator());
}

void bind_unary_ops(py::module_& m, TensorClass& cls) {
  def_unary(m, cls, "neg", &neg, &neg_);
  def_unary(m, cls, "negative", &neg, &neg_);
  def_unary(m, cls, "abs", &abs, &abs_);
  def_unary(m, cls, "absolute", &abs, &abs_);
  def_unary(m, cls, "sign", &sign, &sign_);
  def_unary(m, cls, "exp", &exp, &exp_);
  def_unary(m, cls, "expm1", &expm1, &expm1_);
  def_unary(m, cls, "log", &log, &log_);
  def_unary(m, cls, "log1p", &log1p, &log1p_);
  def_unary(m, cls, "log2", &log2, &log2_);
  def_unary(m, cls, "sqrt", &sqrt, &sqrt_);
  def_unary(m, cls, "rsqrt", &rsqrt, &rsqrt_);
  def_unary(m, cls, "reciprocal", &reciprocal, &reciprocal_);
  def_unary(m, cls, "square", &square, &square_);
  def_unary(m, cls, "sin", &sin, &sin_);
  def_unary(m, cls, "cos", &cos, &cos_);
  def_unary(m, cls, "tan", &tan, &tan_);
  def_unary(m, cls, "tanh", &tanh, &tanh_);
  def_unary(m, cls, "sigmoid", &sigmoid, &sigmoid_);
  def_unary(m, cls, "erf", &erf, &erf_);
  def_unary(m, cls, "floor", &floor, &floor_);
  def_unary(m, cls, "ceil", &ceil, &ceil_);
  def_unary(m, cls, "trunc", &trunc, &trunc_);
  def_unary(m, cls, "fix", &trunc, &trunc_);
  def_unary(m, cls, "relu", &relu, &relu_);
  def_unary(m, cls, "silu", &silu, &silu_);
  // isnan, isinf, isfinite, logical_not: structured (python/structured_bindings.cpp).
  def_unary(m, cls, "bitwise_not", &bitwise_not, &bitwise_not_);

  auto round_fn = [](const Tensor& t, int64_t decimals) { return round(t, decimals); };
  m.def("round", round_fn, py::arg("input"), py::kw_only(), py::arg("decimals") = 0);
  cls.def("round", round_fn, py::kw_only(), py::arg("decimals") = 0);
  cls.def("round_", inplace([](Tensor& t, int64_t d) { round_(t, d); }), py::kw_only(),
          py::arg("decimals") = 0);

  auto gelu_fn = [](const Tensor& t, const std::string& a) { return gelu(t, a); };
  m.def("gelu", gelu_fn, py::arg("input"), py::arg("approximate") = "none");
  m.def("gelu_", [](const py::object& t, const std::string& a) -> py::object {
    gelu_(self_of(t), a);
    return t;
  }, py::arg("input"), py::arg("approximate") = "none");
  m.def("softplus", &softplus, py::arg("input"), py::arg("beta") = 1, py::arg("threshold") = 20);
  m.def("leaky_relu", &leaky_relu, py::arg("input"), py::arg("negative_slope") = 0.01);
  m.def("leaky_relu_", [](const py::object& t, const Scalar& s) -> py::object {
    leaky_relu_(self_of(t), s);
    return t;
  }, py::arg("input"), py::arg("negative_slope") = 0.01);
  // As methods too, for ember.nn.functional's inplace=True (x.leaky_relu_(slope)).
  cls.def("leaky_relu", &leaky_relu, py::arg("negative_slope") = 0.01);
  cls.def("leaky_relu_", inplace([](Tensor& t, const Scalar& s) { leaky_relu_(t, s); }),
          py::arg("negative_slope") = 0.01);

  // clamp: min and max are numbers or tensors (either may be None).
  auto bound = [](const std::optional<TensorArg>& b) { return b ? b->tensor : Tensor(); };
  auto clamp_fn = [bound](const Tensor& t, const std::optional<TensorArg>& lo,
                          const std::optional<TensorArg>& hi) { return clamp(t, bound(lo), bound(hi)); };
  auto clamp_inplace = inplace([bound](Tensor& t, const std::optional<TensorArg>& lo,
                                       const std::optional<TensorArg>& hi) {
    clamp_(t, bound(lo), bound(hi));
  });
  for (const char* name : {"clamp", "clip"}) {
    m.def(name, clamp_fn, py::arg("input"), py::arg("min") = py::none(), py::arg("max") = py::none());
    cls.def(name, clamp_fn, py::arg("min") = py::none(), py::arg("max") = py::none());
    cls.def((std::string(name) + "_").c_str(), clamp_inplace, py::arg("min") = py::none(),
            py::arg("max") = py::none());
  }
  auto clamp_min_fn = [](const Tensor& t, const TensorArg& lo) { return clamp(t, lo.tensor, Tensor()); };
  auto clamp_max_fn = [](const Tensor& t, const TensorArg& hi) { return clamp(t, Tensor(), hi.tensor); };
  m.def("clamp_min", clamp_min_fn, py::arg("input"), py::arg("min"));
  m.def("clamp_max", clamp_max_fn, py::arg("input"), py::arg("max"));
  cls.def("clamp_min", clamp_min_fn, py::arg("min"));
  cls.def("clamp_max", clamp_max_fn, py::arg("max"));
  cls.def("clamp_min_", inplace([](Tensor& t, const TensorArg& lo) { clamp_(t, lo.tensor, Tensor()); }),
          py::arg("min"));
  cls.def("clamp_max_", inplace([](Tensor& t, const TensorArg& hi) { clamp_(t, Tensor(), hi.tensor); }),
          py::arg("max"));

  auto nan_to_num_fn = [](const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) { return nan_to_num(t, nan, posinf, neginf); };
  m.def("nan_to_num", nan_to_num_fn, py::arg("input"), py::arg("nan") = 0.0,
        py::arg("posinf") = py::none(), py::arg("neginf") = py::none());
  cls.def("nan_to_num", nan_to_num_fn, py::arg("nan") = 0.0, py::arg("posinf") = py::none(),
          py::arg("neginf") = py::none());
  cls.def("nan_to_num_", inplace([](Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                                    std::optional<double> neginf) { nan_to_num_(t, nan, posinf, neginf); }),
          py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none());
}

// Adapters from the Scalar-defaulted C++ signatures to Fn2 / Fn2_.
Tensor add2(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor& add2_(Tensor& a, const Tensor& b) { return add_(a, b); }
Tensor sub2(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor& sub2_(Tensor& a, const Tensor& b) { return sub_(a, b); }
Tensor div2(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor& div2_(Tensor& a, const Tensor& b) { return div_(a, b); }
Tensor floor_div2(const Tensor& a, const Tensor& b) { return div(a, b, "floor"); }
Tensor& floor_div2_(Tensor& a, const Tensor& b) { return div_(a, b, "floor"); }
Tensor remainder2(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor& remainder2_(Tensor& a, const Tensor& b) { return remainder_(a, b); }
Tensor fmod2(const Tensor& a, const Tensor& b) { return fmod(a, b); }
Tensor& fmod2_(Tensor& a, const Tensor& b) { return fmod_(a, b); }
Tensor pow2(const Tensor& a, const Tensor& b) { return pow(a, b); }
Tensor& pow2_(Tensor& a, const Tensor& b) { return pow_(a, b); }
Tensor mul2(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor& mul2_(Tensor& a, const Tensor& b) { return mul_(a, b); }

void bind_binary_ops(py::module_& m, TensorClass& cls) {
  // add / sub with alpha
  for (const char* name : {"add", "sub", "subtract"}) {
    bool is_add = name[0] == 'a';
    auto f = [is_add](const Tensor& a, const Tensor& b, const Scalar& alpha) {
      return is_add ? add(a, b, alpha) : sub(a, b, alpha);
    };
    m.def(name, [f, name](const TensorArg& a, const TensorArg& b, const Scalar& alpha) {
      check_one_tensor(a, b, name);
      return f(a, b, alpha);
    }, py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    cls.def(name, [f](const Tensor& a, const TensorArg& b, const Scalar& alpha) { return f(a, b, alpha); },
            py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    cls.def((std::string(name) + "_").c_str(),
            inplace([is_add](Tensor& a, const TensorArg& b, const Scalar& alpha) {
              is_add ? add_(a, b, alpha) : sub_(a, b, alpha);
            }),
            py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  }
  m.def("rsub", [](const Tensor& a, const TensorArg& b, const Scalar& alpha) { return sub(b, a, alpha); },
        py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1);

  // div with rounding_mode
  for (const char* name : {"div", "divide"}) {
    auto f = [](const Tensor& a, const Tensor& b, const std::optional<std::string>& mode) {
      return div(a, b, mode);
    };
    m.def(name, [f, name](const TensorArg& a, const TensorArg& b, const std::optional<std::string>& mode) {
      check_one_tensor(a, b, name);
      return f(a, b, mode);
    }, py::arg("input"), py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
    cls.def(name, [f](const Tensor& a, const TensorArg& b, const std::optional<std::string>& mode) {
      return f(a, b, mode);
    }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
    cls.def((std::string(name) + "_").c_str(),
            inplace([](Tensor& a, const TensorArg& b, const std::optional<std::string>& mode) {
              div_(a, b, mode);
            }),
            py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  }
  def_binary(m, cls, "true_divide", &div2, &div2_);
  def_binary(m, cls, "floor_divide", &floor_div2, &floor_div2_);
  def_binary(m, cls, "mul", &mul2, &mul2_);
  def_binary(m, cls, "multiply", &mul2, &mul2_);
  def_binary(m, cls, "remainder", &remainder2, &remainder2_);
  def_binary(m, cls, "fmod", &fmod2, &fmod2_);
  def_binary(m, cls, "maximum", &maximum, &maximum_);
  def_binary(m, cls, "minimum", &minimum, &minimum_);
  def_binary(m, cls, "atan2", &atan2, &atan2_);
  def_binary(m, cls, "arctan2", &atan2, &atan2_);
  m.def("pow", [](const TensorArg& a, const TensorArg& e) {
    check_one_tensor(a, e, "pow");
    return pow(a, e);
  }, py::arg("input"), py::arg("exponent"));
  cls.def("pow", [](const Tensor& a, const TensorArg& e) { return pow(a, e); }, py::arg("exponent"));
  cls.def("pow_", inplace([](Tensor& a, const TensorArg& e) { pow_(a, e); }), py::arg("exponent"));

  auto lerp_fn = [](const Tensor& a, const Tensor& end, const TensorArg& w) { return lerp(a, end, w); };
  m.def("lerp", lerp_fn, py::arg("input"), py::arg("end"), py::arg("weight"));
  cls.def("lerp", lerp_fn, py::arg("end"), py::arg("weight"));
  cls.def("lerp_", inplace([](Tensor& a, const Tensor& end, const TensorArg& w) { lerp_(a, end, w); }),
          py::arg("end"), py::arg("weight"));

  auto where_fn = [](const Tensor& cond, const TensorArg& a, const TensorArg& b) { return where(cond, a, b); };
  m.def("where", where_fn, py::arg("condition"), py::arg("input"), py::arg("other"));
  cls.def("where", [](const Tensor& self, const Tensor& cond, const TensorArg& other) {
    return where(cond, self, other);
  }, py::arg("condition"), py::arg("other"));
}

void bind_compare_ops(py::module_& m, TensorClass& cls) {
  def_binary(m, cls, "eq", &eq, &eq_);
  def_binary(m, cls, "ne", &ne, &ne_);
  def_binary(m, cls, "not_equal", &ne, &ne_);
  def_binary(m, cls, "lt", &lt, &lt_);
  def_binary(m, cls, "less", &lt, &lt_);
  def_binary(m, cls, "le", &le, &le_);
  def_binary(m, cls, "less_equal", &le, &le_);
  def_binary(m, cls, "gt", &gt, &gt_);
  def_binary(m, cls, "greater", &gt, &gt_);
  def_binary(m, cls, "ge", &ge, &ge_);
  def_binary(m, cls, "greater_equal", &ge, &ge_);
  def_binary(m, cls, "logical_and", &logical_and, &logical_and_);
  def_binary(m, cls, "logical_or", &logical_or, &logical_or_);
  def_binary(m, cls, "logical_xor", &logical_xor, &logical_xor_);
  def_binary(m, cls, "bitwise_and", &bitwise_and, &bitwise_and_);
  def_binary(m, cls, "bitwise_or", &bitwise_or, &bitwise_or_);
  def_binary(m, cls, "bitwise_xor", &bitwise_xor, &bitwise_xor_);
  def_binary(m, cls, "bitwise_left_shift", &bitwise_left_shift, &bitwise_left_shift_);
  def_binary(m, cls, "bitwise_right_shift", &bitwise_right_shift, &bitwise_right_shift_);
}

void bind_operators(TensorClass& cls) {
  using T = const Tensor&;
  // Reflected forms (2 - x calls x.__rsub__(2)): f(x, y) computes y op x.
  def_operator(cls, "__add__", [](T a, T b) { return add(a, b); });
  def_operator(cls, "__radd__", [](T a, T b) { return add(b, a); });
  def_operator(cls, "__sub__", [](T a, T b) { return sub(a, b); });
  def_operator(cls, "__rsub__", [](T a, T b) { return sub(b, a); });
  def_operator(cls, "__mul__", [](T a, T b) { return mul(a, b); });
  def_operator(cls, "__rmul__", [](T a, T b) { return mul(b, a); });
  def_operator(cls, "__truediv__", [](T a, T b) { return div(a, b); });
  def_operator(cls, "__rtruediv__", [](T a, T b) { return div(b, a); });
  def_operator(cls, "__floordiv__", [](T a, T b) { return div(a, b, "floor"); });
  def_operator(cls, "__rfloordiv__", [](T a, T b) { return div(b, a, "floor"); });
  def_operator(cls, "__mod__", [](T a, T b) { return remainder(a, b); });
  def_operator(cls, "__rmod__", [](T a, T b) { return remainder(b, a); });
  def_operator(cls, "__pow__", [](T a, T b) { return pow(a, b); });
  def_operator(cls, "__rpow__", [](T a, T b) { return pow(b, a); });
  def_operator(cls, "__and__", [](T a, T b) { return bitwise_and(a, b); });
  def_operator(cls, "__rand__", [](T a, T b) { return bitwise_and(b, a); });
  def_operator(cls, "__or__", [](T a, T b) { return bitwise_or(a, b); });
  def_operator(cls, "__ror__", [](T a, T b) { return bitwise_or(b, a); });
  def_operator(cls, "__xor__", [](T a, T b) { return bitwise_xor(a, b); });
  def_operator(cls, "__rxor__", [](T a, T b) { return bitwise_xor(b, a); });
  def_operator(cls, "__lshift__", [](T a, T b) { return bitwise_left_shift(a, b); });
  def_operator(cls, "__rlshift__", [](T a, T b) { return bitwise_left_shift(b, a); });
  def_operator(cls, "__rshift__", [](T a, T b) { return bitwise_right_shift(a, b); });
  def_operator(cls, "__rrshift__", [](T a, T b) { return bitwise_right_shift(b, a); });

  def_inplace_operator(cls, "__iadd__", [](Tensor& a, T b) { add_(a, b); });
  def_inplace_operator(cls, "__isub__", [](Tensor& a, T b) { sub_(a, b); });
  def_inplace_operator(cls, "__imul__", [](Tensor& a, T b) { mul_(a, b); });
  def_inplace_operator(cls, "__itruediv__", [](Tensor& a, T b) { div_(a, b); });
  def_inplace_operator(cls, "__ifloordiv__", [](Tensor& a, T b) { div_(a, b, "floor"); });
  def_inplace_operator(cls, "__imod__", [](Tensor& a, T b) { remainder_(a, b); });
  def_inplace_operator(cls, "__ipow__", [](Tensor& a, T b) { pow_(a, b); });
  def_inplace_operator(cls, "__iand__", [](Tensor& a, T b) { bitwise_and_(a, b); });
  def_inplace_operator(cls, "__ior__", [](Tensor& a, T b) { bitwise_or_(a, b); });
  def_inplace_operator(cls, "__ixor__", [](Tensor& a, T b) { bitwise_xor_(a, b); });
  def_inplace_operator(cls, "__ilshift__", [](Tensor& a, T b) { bitwise_left_shift_(a, b); });
  def_inplace_operator(cls, "__irshift__", [](Tensor& a, T b) { bitwise_right_shift_(a, b); });

  def_operator(cls, "__eq__", [](T a, T b) { return eq(a, b); });
  def_operator(cls, "__ne__", [](T a, T b) { return ne(a, b); });
  def_operator(cls, "__lt__", [](T a, T b) { return lt(a, b); });
  def_operator(cls, "__le__", [](T a, T b) { return le(a, b); });
  def_operator(cls, "__gt__", [](T a, T b) { return gt(a, b); });
  def_operator(cls, "__ge__", [](T a, T b) { return ge(a, b); });
  // __eq__ returns a tensor, so hashing goes by identity, as PyTorch's Tensor.__hash__ (id(self)).
  cls.def("__hash__", [](const py::object& self) { return reinterpret_cast<intptr_t>(self.ptr()); });

  cls.def("__neg__", [](T a) { return neg(a); });
  cls.def("__pos__", [](T a) { return a; });
  cls.def("__abs__", [](T a) { return abs(a); });
  // PyTorch's ~ checks the dtype in Python before the op: TypeError for a float tensor,
  // where bitwise_not(x) itself raises NotImplementedError.
  cls.def("__invert__", [](T a) {
    if (a.is_floating_point())
      throw TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors");
    return bitwise_not(a);
  });
}

// The special functions (ember/ops/elementwise_special.h); acos ... i0 are structured
// (python/structured_bindings.cpp, generated).
void bind_special_ops(py::module_& m, TensorClass& cls) {
  struct Unary { const char* name; Fn1 f; Fn1_ f_; };
  for (const Unary& u : std::initializer_list<Unary>{
           {"frac", &frac, &frac_},
           {"deg2rad", &deg2rad, &deg2rad_}, {"rad2deg", &rad2deg, &rad2deg_},
           {"sgn", &sgn, &sgn_}, {"positive", &positive, nullptr}, {"isneginf", &isneginf, nullptr},
           {"isposinf", &isposinf, nullptr}, {"isreal", &isreal, nullptr}})
    def_unary(m, cls, u.name, u.f, u.f_);
  m.def("_special_i1", &special_i1, py::arg("input"));

  m.def("polygamma", [](int64_t n, const Tensor& t) { return polygamma(n, t); }, py::arg("n"),
        py::arg("input"));
  cls.def("polygamma", [](const Tensor& t, int64_t n) { return polygamma(n, t); }, py::arg("n"));
  cls.def("polygamma_", inplace([](Tensor& t, int64_t n) { polygamma_(t, n); }), py::arg("n"));

  auto logit_fn = [](const Tensor& t, std::optional<double> eps) { return logit(t, eps); };
  m.def("logit", logit_fn, py::arg("input"), py::arg("eps") = py::none());
  cls.def("logit", logit_fn, py::arg("eps") = py::none());
  auto logit_inplace = [](const py::object& t, std::optional<double> eps) -> py::object {
    logit_(self_of(t), eps);
    return t;
  };
  m.def("logit_", logit_inplace, py::arg("input"), py::arg("eps") = py::none());
  cls.def("logit_", logit_inplace, py::arg("eps") = py::none());

  // Tensor operands only (PyTorch refuses Python numbers for these with a TypeError).
  auto tensors_only = [&](const char* name, Fn2 f, Fn2_ f_, const char* other) {
    m.def(name, f, py::arg("input"), py::arg(other));
    cls.def(name, f, py::arg(other));
    if (f_)
      cls.def((std::string(name) + "_").c_str(), inplace([f_](Tensor& a, const Tensor& b) { f_(a, b); }),
              py::arg(other));
  };
  tensors_only("hypot", &hypot, &hypot_, "other");
  tensors_only("logaddexp", &logaddexp, nullptr, "other");
  tensors_only("logaddexp2", &logaddexp2, nullptr, "other");
  tensors_only("fmax", &fmax, nullptr, "other");
  tensors_only("fmin", &fmin, nullptr, "other");
  tensors_only("heaviside", &heaviside, &heaviside_, "values");
  tensors_only("gcd", &gcd, &gcd_, "other");
  tensors_only("lcm", &lcm, &lcm_, "other");
  tensors_only("nextafter", &nextafter, &nextafter_, "other");
  tensors_only("ldexp", &ldexp, &ldexp_, "other");

  // copysign: other may be a number (self may not); xlogy, float_power: either may be.
  auto copysign_fn = [](const Tensor& a, const TensorArg& b) { return copysign(a, b.tensor); };
  m.def("copysign", copysign_fn, py::arg("input"), py::arg("other"));
  cls.def("copysign", copysign_fn, py::arg("other"));
  cls.def("copysign_", inplace([](Tensor& a, const TensorArg& b) { copysign_(a, b.tensor); }),
          py::arg("other"));
  def_binary(m, cls, "xlogy", static_cast<Fn2>(&xlogy), static_cast<Fn2_>(&xlogy_));
  m.def("float_power", [](const TensorArg& a, const TensorArg& e) {
    check_one_tensor(a, e, "float_power");
    return float_power(a.tensor, e.tensor);
  }, py::arg("input"), py::arg("exponent"));
  cls.def("float_power", [](const Tensor& a, const TensorArg& e) { return float_power(a, e.tensor); },
          py::arg("exponent"));
  cls.def("float_power_", inplace([](Tensor& a, const TensorArg& e) { float_power_(a, e.tensor); }),
          py::arg("exponent"));

  // addcmul / addcdiv(input, tensor1, tensor2, *, value=1)
  using Fn3 = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&);
  using Fn3_ = Tensor& (*)(Tensor&, const Tensor&, const Tensor&, const Scalar&);
  auto addc = [&](const char* name, Fn3 f, Fn3_ f_) {
    m.def(name, f, py::arg("input"), py::arg("tensor1"), py::arg("tensor2"), py::kw_only(),
          py::arg("value") = 1);
    cls.def(name, f, py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
    cls.def((std::string(name) + "_").c_str(),
            inplace([f_](Tensor& a, const Tensor& t1, const Tensor& t2, const Scalar& v) { f_(a, t1, t2, v); }),
            py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1);
  };
  addc("addcmul", &addcmul, &addcmul_);
  addc("addcdiv", &addcdiv, &addcdiv_);
}

}  // namespace

void bind_elementwise(py::module_& m, TensorClass& cls) {
  bind_unary_ops(m, cls);
  bind_binary_ops(m, cls);
  bind_compare_ops(m, cls);
  bind_operators(cls);
  bind_special_ops(m, cls);
}

}  // namespace ember::python
