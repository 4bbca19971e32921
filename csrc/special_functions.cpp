// Bindings of torch.special's functions of two tensors (ember/ops/special_functions.h)
// and mvlgamma: ember.igamma / igammac / mvlgamma with their Tensor methods, as torch
// has them, and the special_* functions python/ember/special.py names as
// torch.special does. The one-argument special functions are structured
// (python/structured_bindings.cpp, generated).
#include "bindings.h"
#include "ember/ops/special_functions.h"

namespace ember::python {
namespace {

using Fn2 = Tensor (*)(const Tensor&, const Tensor&);
using Fn2_ = Tensor& (*)(Tensor&, const Tensor&);

// Either operand may be a Python number, not both (a TypeError, as PyTorch's).
Tensor call_with_one_tensor(Fn2 f, const char* op, const TensorArg& a, const TensorArg& b) {
  if (a.tensor.impl()->is_wrapped_number && b.tensor.impl()->is_wrapped_number)
    throw TypeError(detail::str(op, "(): expected at least one argument to be a Tensor, got two numbers"));
  return f(a, b);
}

// igamma, igammac: tensors only (PyTorch refuses Python numbers for them); the
// in-place method returns self itself.
void def_incomplete_gamma(py::module_& m, TensorClass& cls, const char* name, Fn2 f, Fn2_ f_) {
  m.def(name, f, py::arg("input"), py::arg("other"));
  cls.def(name, f, py::arg("other"));
  cls.def((std::string(name) + "_").c_str(), [f_](const py::object& self, const Tensor& other) -> py::object {
    f_(tensor_ref(self), other);
    return self;
  }, py::arg("other"));
}

void def_either_number(py::module_& m, const char* name, Fn2 f, const char* a, const char* b) {
  m.def(name, [f, name](const TensorArg& x, const TensorArg& y) { return call_with_one_tensor(f, name, x, y); },
        py::arg(a), py::arg(b));
}

}  // namespace

void bind_special_functions(py::module_& m, TensorClass& cls) {
  def_incomplete_gamma(m, cls, "igamma", &igamma, &igamma_);
  def_incomplete_gamma(m, cls, "igammac", &igammac, &igammac_);
  def_either_number(m, "special_zeta", &special_zeta, "input", "other");
  def_either_number(m, "special_xlog1py", &special_xlog1py, "input", "other");
  struct Polynomial { const char* name; Fn2 f; };
  for (const Polynomial& p : std::initializer_list<Polynomial>{
           {"special_chebyshev_polynomial_t", &special_chebyshev_polynomial_t},
           {"special_chebyshev_polynomial_u", &special_chebyshev_polynomial_u},
           {"special_chebyshev_polynomial_v", &special_chebyshev_polynomial_v},
           {"special_chebyshev_polynomial_w", &special_chebyshev_polynomial_w},
           {"special_shifted_chebyshev_polynomial_t", &special_shifted_chebyshev_polynomial_t},
           {"special_shifted_chebyshev_polynomial_u", &special_shifted_chebyshev_polynomial_u},
           {"special_shifted_chebyshev_polynomial_v", &special_shifted_chebyshev_polynomial_v},
           {"special_shifted_chebyshev_polynomial_w", &special_shifted_chebyshev_polynomial_w},
           {"special_hermite_polynomial_h", &special_hermite_polynomial_h},
           {"special_hermite_polynomial_he", &special_hermite_polynomial_he},
           {"special_laguerre_polynomial_l", &special_laguerre_polynomial_l},
           {"special_legendre_polynomial_p", &special_legendre_polynomial_p}})
    def_either_number(m, p.name, p.f, "x", "n");

  m.def("mvlgamma", [](const Tensor& t, int64_t p) { return mvlgamma(t, p); }, py::arg("input"), py::arg("p"));
  cls.def("mvlgamma", [](const Tensor& t, int64_t p) { return mvlgamma(t, p); }, py::arg("p"));
  cls.def("mvlgamma_", [](const py::object& self, int64_t p) -> py::object {
    mvlgamma_(tensor_ref(self), p);
    return self;
  }, py::arg("p"));
}

}  // namespace ember::python
