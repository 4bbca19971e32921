// Python bindings of the linalg group: matrix products (module functions,
// Tensor methods, the @ operator) and the functional convolutions and pooling
// under PyTorch's torch.nn.functional names (ember.nn.functional imports them).
#include "bindings.h"
#include "cpu/blas.h"

namespace ember::python {

void check_adaptive_input_dims(const Tensor& x, const py::handle& output_size);  // nn_extra.cpp

namespace {

std::string type_name(const py::handle& v) {
  return py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>();
}

bool is_int(const py::handle& v) {
  return PyIndex_Check(v.ptr()) && !PyBool_Check(v.ptr()) && !is_tensor(v);
}

// An int or a sequence of ints (PyTorch's _size_2_t and friends).
IntList ints_arg(const py::handle& v, const char* op, const char* name) {
  if (is_int(v)) return {v.cast<int64_t>()};
  if (py::isinstance<py::sequence>(v) && !py::isinstance<py::str>(v)) {
    IntList out;
    for (const py::handle& x : v) {
      if (!is_int(x))
        throw TypeError(detail::str(op, "(): argument '", name,
                                    "' must be an int or a tuple of ints, but got an element of type ",
                                    type_name(x)));
      out.push_back(x.cast<int64_t>());
    }
    return out;
  }
  throw TypeError(detail::str(op, "(): argument '", name, "' must be an int or a tuple of ints, not ",
                              type_name(v)));
}

// None -> empty (the op's default, e.g. stride = kernel_size).
IntList optional_ints_arg(const py::handle& v, const char* op, const char* name) {
  return v.is_none() ? IntList{} : ints_arg(v, op, name);
}

ConvPadding padding_arg(const py::handle& v, const char* op) {
  if (py::isinstance<py::str>(v)) return ConvPadding(v.cast<std::string>());
  return ConvPadding(ints_arg(v, op, "padding"));
}

// An int, None, or a tuple of ints and Nones.
std::vector<std::optional<int64_t>> output_size_arg(const py::handle& v) {
  auto one = [](const py::handle& x) -> std::optional<int64_t> {
    if (x.is_none()) return std::nullopt;
    if (!is_int(x))
      throw TypeError("adaptive_avg_pool2d(): output_size must contain ints or None, got " +
                      type_name(x));
    return x.cast<int64_t>();
  };
  if (py::isinstance<py::sequence>(v) && !py::isinstance<py::str>(v)) {
    std::vector<std::optional<int64_t>> out;
    for (const py::handle& x : v) out.push_back(one(x));
    return out;
  }
  return {one(v)};
}

Tensor bias_arg(const std::optional<Tensor>& bias) { return bias ? *bias : Tensor(); }

void bind_products(py::module_& m, TensorClass& cls) {
  m.def("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, py::arg("input"),
        py::arg("other"));
  m.def("mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, py::arg("input"), py::arg("mat2"));
  m.def("bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, py::arg("input"), py::arg("mat2"));
  m.def("mv", [](const Tensor& a, const Tensor& v) { return mv(a, v); }, py::arg("input"), py::arg("vec"));
  m.def("dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); }, py::arg("input"), py::arg("tensor"));
  m.def("outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, py::arg("input"), py::arg("vec2"));
  m.def("ger", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, py::arg("input"), py::arg("vec2"));
  m.def("addmm", [](const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                    const Scalar& alpha) { return addmm(self, m1, m2, beta, alpha); },
        py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1,
        py::arg("alpha") = 1);
  m.def("linear", [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
    return linear(x, w, bias_arg(b));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());

  cls.def("__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, py::is_operator())
      .def("__rmatmul__", [](const Tensor& a, const Tensor& b) { return matmul(b, a); }, py::is_operator())
      .def("matmul", &Tensor::matmul, py::arg("other"))
      .def("mm", &Tensor::mm, py::arg("mat2"))
      .def("bmm", &Tensor::bmm, py::arg("mat2"))
      .def("mv", &Tensor::mv, py::arg("vec"))
      .def("dot", &Tensor::dot, py::arg("tensor"))
      .def("outer", &Tensor::outer, py::arg("vec2"))
      .def("ger", &Tensor::outer, py::arg("vec2"))
      .def("addmm", &Tensor::addmm, py::arg("mat1"), py::arg("mat2"), py::kw_only(),
           py::arg("beta") = 1, py::arg("alpha") = 1);
}

void bind_conv(py::module_& m) {
  auto conv = [](auto fn, const char* op) {
    return [fn, op](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b,
                    const py::object& stride, const py::object& padding, const py::object& dilation,
                    int64_t groups) {
      return fn(x, w, bias_arg(b), ints_arg(stride, op, "stride"), padding_arg(padding, op),
                ints_arg(dilation, op, "dilation"), groups);
    };
  };
  auto conv_args = [](py::module_& mod, const char* name, auto f) {
    mod.def(name, f, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(),
            py::arg("stride") = 1, py::arg("padding") = 0, py::arg("dilation") = 1,
            py::arg("groups") = 1);
  };
  conv_args(m, "conv1d", conv([](auto&&... a) { return conv1d(a...); }, "conv1d"));
  conv_args(m, "conv2d", conv([](auto&&... a) { return conv2d(a...); }, "conv2d"));
  m.def("conv_transpose2d", [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b,
                               const py::object& stride, const py::object& padding,
                               const py::object& output_padding, int64_t groups,
                               const py::object& dilation) {
    const char* op = "conv_transpose2d";
    return conv_transpose2d(x, w, bias_arg(b), ints_arg(stride, op, "stride"),
                            ints_arg(padding, op, "padding"),
                            ints_arg(output_padding, op, "output_padding"), groups,
                            ints_arg(dilation, op, "dilation"));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
     py::arg("padding") = 0, py::arg("output_padding") = 0, py::arg("groups") = 1,
     py::arg("dilation") = 1);
}

void bind_pool(py::module_& m) {
  m.def("max_pool2d", [](const Tensor& x, const py::object& k, const py::object& s,
                         const py::object& p, const py::object& d, bool ceil_mode,
                         bool return_indices) -> py::object {
    const char* op = "max_pool2d";
    IntList ks = ints_arg(k, op, "kernel_size"), st = optional_ints_arg(s, op, "stride"),
            pad = ints_arg(p, op, "padding"), dil = ints_arg(d, op, "dilation");
    if (return_indices) return py::cast(max_pool2d_with_indices(x, ks, st, pad, dil, ceil_mode));
    return py::cast(max_pool2d(x, ks, st, pad, dil, ceil_mode));
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
     py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false,
     py::arg("return_indices") = false);
  m.def("max_pool2d_with_indices", [](const Tensor& x, const py::object& k, const py::object& s,
                                      const py::object& p, const py::object& d, bool ceil_mode,
                                      bool /*return_indices*/) {
    const char* op = "max_pool2d_with_indices";
    return max_pool2d_with_indices(x, ints_arg(k, op, "kernel_size"),
                                   optional_ints_arg(s, op, "stride"), ints_arg(p, op, "padding"),
                                   ints_arg(d, op, "dilation"), ceil_mode);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
     py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false,
     py::arg("return_indices") = true);
  m.def("avg_pool2d", [](const Tensor& x, const py::object& k, const py::object& s,
                         const py::object& p, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
    const char* op = "avg_pool2d";
    return avg_pool2d(x, ints_arg(k, op, "kernel_size"), optional_ints_arg(s, op, "stride"),
                      ints_arg(p, op, "padding"), ceil_mode, count_include_pad, divisor_override);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
     py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
     py::arg("divisor_override") = py::none());
  m.def("adaptive_avg_pool2d", [](const Tensor& x, const py::object& output_size) {
    check_adaptive_input_dims(x, output_size);
    return adaptive_avg_pool2d(x, output_size_arg(output_size));
  }, py::arg("input"), py::arg("output_size"));
}

}  // namespace

void bind_linalg(py::module_& m, TensorClass& cls) {
  bind_products(m, cls);
  bind_conv(m);
  bind_pool(m);
  // Which BLAS libraries were loaded and which kernels they picked (see lib/cpu/blas.h).
  m.def("_blas_info", [] { return cpu::blas::describe(); });
}

}  // namespace ember::python
