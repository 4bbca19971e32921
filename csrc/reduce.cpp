// Python bindings of the reduce group: module functions (ember.sum) and Tensor
// methods (x.sum) with PyTorch's argument names and defaults. max/min over a dim
// and aminmax return named tuples (ember.return_types.max, ...) like PyTorch's.
#include <cmath>
#include <concepts>
#include <cstring>

#include "bindings.h"
#include "reduce_bindings.h"

namespace ember::python {

namespace {

using OptDType = std::optional<DType>;

// var(dim, unbiased, keepdim) or var(dim, *, correction, keepdim), as in PyTorch.
double correction_of(std::optional<bool> unbiased, const std::optional<Scalar>& correction,
                     const char* op) {
  if (unbiased && correction)
    throw TypeError(detail::str(op, "(): pass either unbiased or correction, not both"));
  if (correction) return correction->to_double();
  return unbiased.value_or(true) ? 1.0 : 0.0;
}

// Tensor.max(other) / min(other) are the elementwise maximum / minimum.
void bind_binary_max_min(py::module_& m, TensorClass& cls) {
  def_op(m, cls, "max", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, py::arg("other"));
  def_op(m, cls, "min", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, py::arg("other"));
}

void bind_sums(py::module_& m, TensorClass& cls) {
  auto dim = py::arg("dim") = py::none();
  auto keepdim = py::arg("keepdim") = false;
  auto dtype = py::arg("dtype") = py::none();
  def_op(m, cls, "sum", [](const Tensor& x, const Dims& d, bool k, OptDType t) {
    return sum(x, d.dims, k, t);
  }, dim, keepdim, py::kw_only(), dtype);
  def_op(m, cls, "mean", [](const Tensor& x, const Dims& d, bool k, OptDType t) {
    return mean(x, d.dims, k, t);
  }, dim, keepdim, py::kw_only(), dtype);
  // prod reduces one dim or all of them: PyTorch's signature takes `int dim`, so a
  // tuple of dims is a TypeError there, as here.
  def_op(m, cls, "prod", [](const Tensor& x, std::optional<int64_t> d, bool k, OptDType t) {
    return prod(x, d ? IntList{*d} : IntList{}, k, t);
  }, dim, keepdim, py::kw_only(), dtype);
  // numpy's np.sum(t) / np.mean(t) call t.sum(axis=..., out=None, keepdims=...).
  auto numpy_style = [](auto op) {
    return [op](const Tensor& x, py::kwargs kw) {
      Dims d;
      bool keep = false;
      OptDType t;
      for (auto [k, v] : kw) {
        std::string key = py::str(k);
        if (key == "axis" || key == "dim") d = py::cast<Dims>(v);
        else if (key == "keepdims" || key == "keepdim") keep = py::cast<bool>(v);
        else if (key == "dtype") t = py::cast<OptDType>(v);
        else if (key == "out") {
          if (!v.is_none()) throw NotImplementedError("out= is not supported");
        } else throw TypeError("got an unexpected keyword argument '" + key + "'");
      }
      return op(x, d.dims, keep, t);
    };
  };
  cls.def("sum", numpy_style([](const Tensor& x, const auto& d, bool k, OptDType t) { return sum(x, d, k, t); }));
  cls.def("mean", numpy_style([](const Tensor& x, const auto& d, bool k, OptDType t) { return mean(x, d, k, t); }));
  def_op(m, cls, "count_nonzero", [](const Tensor& x, const Dims& d) { return count_nonzero(x, d.dims); },
         dim);
  def_op(m, cls, "any", [](const Tensor& x, const Dims& d, bool k) { return any(x, d.dims, k); }, dim,
         keepdim);
  def_op(m, cls, "all", [](const Tensor& x, const Dims& d, bool k) { return all(x, d.dims, k); }, dim,
         keepdim);
  def_op(m, cls, "logsumexp", [](const Tensor& x, const Dims& d, bool k) {
    if (!d.given) throw TypeError("logsumexp(): argument 'dim' must be an int or a tuple of ints, not None");
    return logsumexp(x, d.dims, k);
  }, py::arg("dim"), keepdim);
}

void bind_extrema(py::module_& m, TensorClass& cls) {
  py::module_ types = m.def_submodule("return_types", "Named tuples returned by reductions");
  // Importable (and so picklable) under the name their types carry.
  py::module_::import("sys").attr("modules")["ember.return_types"] = types;
  static ReturnType max_t(types, "max", "values", "indices");
  static ReturnType min_t(types, "min", "values", "indices");
  static ReturnType aminmax_t(types, "aminmax", "min", "max");
  auto keepdim = py::arg("keepdim") = false;
  def_op(m, cls, "max", [](const Tensor& x) { return max(x); });
  def_op(m, cls, "max", [](const Tensor& x, int64_t d, bool k) { return max_t(max(x, d, k)); },
         py::arg("dim"), keepdim);
  def_op(m, cls, "min", [](const Tensor& x) { return min(x); });
  def_op(m, cls, "min", [](const Tensor& x, int64_t d, bool k) { return min_t(min(x, d, k)); },
         py::arg("dim"), keepdim);
  bind_binary_max_min(m, cls);
  def_op(m, cls, "amax", [](const Tensor& x, const Dims& d, bool k) { return amax(x, d.dims, k); },
         py::arg("dim") = py::tuple(), keepdim);
  def_op(m, cls, "amin", [](const Tensor& x, const Dims& d, bool k) { return amin(x, d.dims, k); },
         py::arg("dim") = py::tuple(), keepdim);
  def_op(m, cls, "aminmax", [](const Tensor& x, std::optional<int64_t> d, bool k) {
    return aminmax_t(aminmax(x, d, k));
  }, py::kw_only(), py::arg("dim") = py::none(), keepdim);
  def_op(m, cls, "argmax", [](const Tensor& x, std::optional<int64_t> d, bool k) { return argmax(x, d, k); },
         py::arg("dim") = py::none(), keepdim);
  def_op(m, cls, "argmin", [](const Tensor& x, std::optional<int64_t> d, bool k) { return argmin(x, d, k); },
         py::arg("dim") = py::none(), keepdim);
}

void bind_moments(py::module_& m, TensorClass& cls) {
  auto keepdim = py::arg("keepdim") = false;
  using OptBool = std::optional<bool>;
  using OptScalar = std::optional<Scalar>;
  // Legacy positional form: var(unbiased).
  def_op(m, cls, "var", [](const Tensor& x, bool unbiased) { return var(x, IntList{}, unbiased ? 1 : 0); },
         py::arg("unbiased"));
  def_op(m, cls, "std", [](const Tensor& x, bool unbiased) { return ember::std(x, IntList{}, unbiased ? 1 : 0); },
         py::arg("unbiased"));
  auto args = std::make_tuple(py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), keepdim,
                              py::kw_only(), py::arg("correction") = py::none());
  auto def_moment = [&](const char* name, auto fn, bool method) {
    auto f = [fn, name](const Tensor& x, const Dims& d, OptBool u, bool k, const OptScalar& c) {
      return fn(x, d.dims, correction_of(u, c, name), k);
    };
    std::apply([&](const auto&... a) {
      if (method) def_op(m, cls, name, f, a...);
      else m.def(name, f, py::arg("input"), a...);
    }, args);
  };
  def_moment("var", [](const Tensor& x, const IntList& d, double c, bool k) { return var(x, d, c, k); }, true);
  def_moment("std", [](const Tensor& x, const IntList& d, double c, bool k) { return ember::std(x, d, c, k); }, true);
  def_moment("var_mean", [](const Tensor& x, const IntList& d, double c, bool k) {
    return var_mean(x, d, c, k);
  }, false);
  def_moment("std_mean", [](const Tensor& x, const IntList& d, double c, bool k) {
    return std_mean(x, d, c, k);
  }, false);

  // norm(p='fro', dim=None, keepdim=False, dtype=None): p a number or 'fro' / 'nuc'.
  def_op(m, cls, "norm", [](const Tensor& x, const py::object& p, const Dims& d, bool k, OptDType t) {
    if (p.is_none()) return norm(x, "fro", d.dims, k, t);
    if (py::isinstance<py::str>(p)) return norm(x, p.cast<std::string>(), d.dims, k, t);
    return norm(x, p.cast<Scalar>().to_double(), d.dims, k, t);
  }, py::arg("p") = "fro", py::arg("dim") = py::none(), keepdim, py::arg("dtype") = py::none());
}

void bind_along_dim(py::module_& m, TensorClass& cls) {
  auto dtype = py::arg("dtype") = py::none();
  def_op(m, cls, "cumsum", [](const Tensor& x, int64_t d, OptDType t) { return cumsum(x, d, t); },
         py::arg("dim"), py::kw_only(), dtype);
  def_op(m, cls, "cumprod", [](const Tensor& x, int64_t d, OptDType t) { return cumprod(x, d, t); },
         py::arg("dim"), py::kw_only(), dtype);
  def_op(m, cls, "softmax", [](const Tensor& x, int64_t d, OptDType t) { return softmax(x, d, t); },
         py::arg("dim"), dtype);
  def_op(m, cls, "log_softmax", [](const Tensor& x, int64_t d, OptDType t) { return log_softmax(x, d, t); },
         py::arg("dim"), dtype);
}

}  // namespace

void bind_reduce(py::module_& m, TensorClass& cls) {
  bind_sums(m, cls);
  bind_extrema(m, cls);
  bind_moments(m, cls);
  bind_along_dim(m, cls);
}

}  // namespace ember::python
