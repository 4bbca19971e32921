// Python bindings of ops/activation.h: ember._C.<name> with torch's argument
// names and defaults (torch.selu, torch.celu, torch.threshold, ... and the
// torch._C._nn forms that torch.nn.functional calls: elu, hardtanh, ...).
// python/ember/nn/_activation_functional.py adds torch.nn.functional's inplace=
// flags on top; Tensor.hardshrink and Tensor.prelu are methods, as in torch.
#include "bindings.h"

namespace ember::python {

namespace {

// An in-place module function returns its input object itself (ember.relu_(x) is x).
template <typename... Args>
auto returns_self(Tensor& (*f)(Tensor&, Args...)) {
  return [f](const py::object& self, Args... args) -> py::object {
    f(tensor_ref(self), args...);
    return self;
  };
}

}  // namespace

void bind_activation(py::module_& m, TensorClass& cls) {
  auto input = py::arg("input");
  auto one = py::arg("alpha") = 1.0;
  m.def("elu", &elu, input, one, py::arg("scale") = 1, py::arg("input_scale") = 1);
  m.def("elu_", returns_self(&elu_), input, one, py::arg("scale") = 1, py::arg("input_scale") = 1);
  m.def("selu", &selu, input);
  m.def("selu_", returns_self(&selu_), input);
  m.def("celu", &celu, input, one);
  m.def("celu_", returns_self(&celu_), input, one);

  auto min_val = py::arg("min_val") = -1.0, max_val = py::arg("max_val") = 1.0;
  m.def("hardtanh", &hardtanh, input, min_val, max_val);
  m.def("hardtanh_", returns_self(&hardtanh_), input, min_val, max_val);
  m.def("relu6", &relu6, input);
  m.def("relu6_", returns_self(&relu6_), input);
  m.def("threshold", &threshold, input, py::arg("threshold"), py::arg("value"));
  m.def("threshold_", returns_self(&threshold_), input, py::arg("threshold"), py::arg("value"));

  // hardsigmoid, hardswish, mish, logsigmoid: generated (python/structured_bindings.cpp).
  m.def("softsign", &softsign, input);
  m.def("tanhshrink", &tanhshrink, input);
  auto lambd = py::arg("lambd") = 0.5;
  m.def("softshrink", &softshrink, input, lambd);
  m.def("hardshrink", &hardshrink, input, lambd);
  cls.def("hardshrink", &hardshrink, lambd);

  m.def("glu", &glu, input, py::arg("dim") = -1);
  m.def("prelu", &prelu, input, py::arg("weight"));
  cls.def("prelu", &prelu, py::arg("weight"));

  auto lower = py::arg("lower") = 1.0 / 8, upper = py::arg("upper") = 1.0 / 3;
  auto training = py::arg("training") = false, generator = py::arg("generator") = py::none();
  m.def("rrelu", [](const Tensor& x, const Scalar& lo, const Scalar& hi, bool train, const py::object& gen) {
    return rrelu(x, lo, hi, train, generator_from(gen));
  }, input, lower, upper, training, generator);
  m.def("rrelu_", [](const py::object& self, const Scalar& lo, const Scalar& hi, bool train,
                     const py::object& gen) -> py::object {
    rrelu_(tensor_ref(self), lo, hi, train, generator_from(gen));
    return self;
  }, input, lower, upper, training, generator);

  m.def("softmin", [](const Tensor& x, int64_t dim, std::optional<DType> dtype) { return softmin(x, dim, dtype); },
        input, py::arg("dim"), py::arg("dtype") = py::none());
}

}  // namespace ember::python
