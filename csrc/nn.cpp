// Python bindings of the nn group: ember._C.<name> with torch.nn.functional's
// names, argument names and defaults (python/ember/nn/functional.py
// re-exports them). None for an optional tensor is an undefined Tensor.
#include "bindings.h"

namespace ember::python {

namespace {

using OptTensor = std::optional<Tensor>;

Tensor opt(const OptTensor& t) { return t.value_or(Tensor()); }

// The deprecated size_average / reduce arguments, as torch's _Reduction.legacy_get_string.
std::string reduction_arg(const py::object& size_average, const py::object& reduce,
                          const std::string& reduction) {
  if (size_average.is_none() && reduce.is_none()) return reduction;
  bool avg = size_average.is_none() || size_average.cast<bool>();
  bool red = reduce.is_none() || reduce.cast<bool>();
  std::string legacy = avg && red ? "mean" : red ? "sum" : "none";
  // torch warns that the flags are deprecated, at the caller's line (with warnings made
  // errors, the error propagates).
  const std::string message = "size_average and reduce args will be deprecated, please use reduction='" +
                              legacy + "' instead.";
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();
  return legacy;
}

void reject(const py::object& arg, const char* op, const char* name) {
  if (!arg.is_none())
    throw NotImplementedError(detail::str(op, ": argument '", name, "' is not supported"));
}

// An int or a sequence of ints (interpolate's size); TypeError otherwise.
std::optional<IntList> ints_or_none(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  try {
    if (PyLong_Check(o.ptr())) return IntList{o.cast<int64_t>()};
    if (!py::isinstance<py::str>(o)) return o.cast<IntList>();
  } catch (const py::cast_error&) {
  }
  throw TypeError("interpolate: size must be an int or a sequence of ints, got " +
                  std::string(py::str(py::type::handle_of(o).attr("__name__"))));
}

// A number or a sequence of numbers (interpolate's scale_factor); TypeError otherwise.
std::optional<std::vector<double>> doubles_or_none(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  try {
    if (PyFloat_Check(o.ptr()) || PyLong_Check(o.ptr())) return std::vector<double>{o.cast<double>()};
    if (!py::isinstance<py::str>(o)) return o.cast<std::vector<double>>();
  } catch (const py::cast_error&) {
  }
  throw TypeError("interpolate: scale_factor must be a number or a sequence of numbers, got " +
                  std::string(py::str(py::type::handle_of(o).attr("__name__"))));
}

void bind_norms(py::module_& m) {
  m.def("batch_norm", [](const Tensor& input, const OptTensor& running_mean, const OptTensor& running_var,
                         const OptTensor& weight, const OptTensor& bias, bool training, double momentum,
                         double eps) {
    return batch_norm(input, opt(running_mean), opt(running_var), opt(weight), opt(bias), training,
                      momentum, eps);
  }, py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight") = py::none(),
     py::arg("bias") = py::none(), py::arg("training") = false, py::arg("momentum") = 0.1,
     py::arg("eps") = 1e-5);
  m.def("native_batch_norm", [](const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                                const OptTensor& running_mean, const OptTensor& running_var,
                                bool training, double momentum, double eps) {
    return native_batch_norm(input, opt(weight), opt(bias), opt(running_mean), opt(running_var),
                             training, momentum, eps);
  }, py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("running_mean"),
     py::arg("running_var"), py::arg("training"), py::arg("momentum"), py::arg("eps"));
  m.def("layer_norm", [](const Tensor& input, const IntList& normalized_shape, const OptTensor& weight,
                         const OptTensor& bias, double eps) {
    return layer_norm(input, normalized_shape, opt(weight), opt(bias), eps);
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
     py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def("native_layer_norm", [](const Tensor& input, const IntList& normalized_shape,
                                const OptTensor& weight, const OptTensor& bias, double eps) {
    return native_layer_norm(input, normalized_shape, opt(weight), opt(bias), eps);
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight"), py::arg("bias"), py::arg("eps"));
  m.def("group_norm", [](const Tensor& input, int64_t num_groups, const OptTensor& weight,
                         const OptTensor& bias, double eps) {
    return group_norm(input, num_groups, opt(weight), opt(bias), eps);
  }, py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(),
     py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  // torch.native_group_norm's signature: the sizes are given, and checked against the input.
  m.def("native_group_norm", [](const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                                int64_t N, int64_t C, int64_t HxW, int64_t group, double eps) {
    EMBER_CHECK(input.dim() >= 2 && input.size(0) == N && input.size(1) == C &&
                    N * C * HxW == input.numel(),
                "native_group_norm: N=", N, ", C=", C, ", HxW=", HxW, " do not describe ", describe(input));
    return native_group_norm(input, group, opt(weight), opt(bias), eps);
  }, py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("N"), py::arg("C"),
     py::arg("HxW"), py::arg("group"), py::arg("eps"));
}

void bind_dropout_embedding(py::module_& m) {
  m.def("dropout", &dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true,
        py::arg("inplace") = false);
  m.def("native_dropout", &native_dropout, py::arg("input"), py::arg("p"), py::arg("train"));
  m.def("embedding", [](const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                        const py::object& max_norm, double norm_type, bool scale_grad_by_freq,
                        bool sparse) {
    reject(max_norm, "embedding", "max_norm");
    if (sparse) throw NotImplementedError("embedding: sparse=True is not supported");
    return embedding(input, weight, padding_idx, scale_grad_by_freq);
  }, py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none(),
     py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
     py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  m.def("one_hot", &one_hot, py::arg("tensor"), py::arg("num_classes") = -1);
}

void bind_resample(py::module_& m) {
  m.def("pad", &pad, py::arg("input"), py::arg("pad"), py::arg("mode") = "constant",
        py::arg("value") = py::none());
  m.def("interpolate", [](const Tensor& input, const py::object& size, const py::object& scale_factor,
                          const std::string& mode, std::optional<bool> align_corners,
                          std::optional<bool> recompute_scale_factor, bool antialias) {
    if (antialias) throw NotImplementedError("interpolate: antialias=True is not supported");
    // A sequence (even of length 1) gives one entry per spatial dim, as in torch: only a
    // bare number is broadcast to all of them.
    for (const py::object* arg : {&size, &scale_factor}) {
      if (!py::isinstance<py::sequence>(*arg) || py::isinstance<py::str>(*arg)) continue;
      const int64_t n = static_cast<int64_t>(py::len(*arg));
      if (input.dim() >= 2 && n != input.dim() - 2)
        throw ValueError(detail::str("interpolate: input and ", arg == &size ? "output size" : "scale_factor",
                                     " must have the same number of spatial dimensions, but got input "
                                     "with spatial dimensions of ",
                                     shape_str(DimVector(input.sizes().begin() + 2, input.sizes().end())),
                                     " and ", arg == &size ? "output size" : "scale_factor", " of ",
                                     std::string(py::str(*arg)), "."));
    }
    return interpolate(input, ints_or_none(size), doubles_or_none(scale_factor), mode, align_corners,
                       recompute_scale_factor);
  }, py::arg("input"), py::arg("size") = py::none(), py::arg("scale_factor") = py::none(),
     py::arg("mode") = "nearest", py::arg("align_corners") = py::none(),
     py::arg("recompute_scale_factor") = py::none(), py::arg("antialias") = false);
}

void bind_losses(py::module_& m) {
  m.def("cross_entropy", [](const Tensor& input, const Tensor& target, const OptTensor& weight,
                            const py::object& size_average, int64_t ignore_index,
                            const py::object& reduce, const std::string& reduction,
                            double label_smoothing) {
    return cross_entropy(input, target, opt(weight), ignore_index,
                         reduction_arg(size_average, reduce, reduction), label_smoothing);
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
     py::arg("size_average") = py::none(), py::arg("ignore_index") = -100,
     py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0);
  m.def("nll_loss", [](const Tensor& input, const Tensor& target, const OptTensor& weight,
                       const py::object& size_average, int64_t ignore_index, const py::object& reduce,
                       const std::string& reduction) {
    return nll_loss(input, target, opt(weight), ignore_index,
                    reduction_arg(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
     py::arg("size_average") = py::none(), py::arg("ignore_index") = -100,
     py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
  m.def("mse_loss", [](const Tensor& input, const Tensor& target, const py::object& size_average,
                       const py::object& reduce, const std::string& reduction, const py::object& weight) {
    reject(weight, "mse_loss", "weight");
    return mse_loss(input, target, reduction_arg(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("size_average") = py::none(),
     py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("weight") = py::none());
  m.def("l1_loss", [](const Tensor& input, const Tensor& target, const py::object& size_average,
                      const py::object& reduce, const std::string& reduction, const py::object& weight) {
    reject(weight, "l1_loss", "weight");
    return l1_loss(input, target, reduction_arg(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("size_average") = py::none(),
     py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("weight") = py::none());
  m.def("smooth_l1_loss", [](const Tensor& input, const Tensor& target, const py::object& size_average,
                             const py::object& reduce, const std::string& reduction, double beta) {
    return smooth_l1_loss(input, target, reduction_arg(size_average, reduce, reduction), beta);
  }, py::arg("input"), py::arg("target"), py::arg("size_average") = py::none(),
     py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  m.def("huber_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction,
                         double delta, const py::object& weight) {
    reject(weight, "huber_loss", "weight");
    return huber_loss(input, target, reduction, delta);
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0,
     py::arg("weight") = py::none());
  m.def("binary_cross_entropy", [](const Tensor& input, const Tensor& target, const OptTensor& weight,
                                   const py::object& size_average, const py::object& reduce,
                                   const std::string& reduction) {
    return binary_cross_entropy(input, target, opt(weight),
                                reduction_arg(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
     py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
     py::arg("reduction") = "mean");
  m.def("binary_cross_entropy_with_logits",
        [](const Tensor& input, const Tensor& target, const OptTensor& weight,
           const py::object& size_average, const py::object& reduce, const std::string& reduction,
           const OptTensor& pos_weight) {
    return binary_cross_entropy_with_logits(input, target, opt(weight),
                                            reduction_arg(size_average, reduce, reduction),
                                            opt(pos_weight));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
     py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
     py::arg("reduction") = "mean", py::arg("pos_weight") = py::none());
}

}  // namespace

void bind_nn_extra(py::module_& m);  // csrc/nn_extra.cpp

void bind_nn(py::module_& m, TensorClass& cls) {
  bind_norms(m);
  bind_dropout_embedding(m);
  bind_resample(m);
  bind_losses(m);
  bind_nn_extra(m);
}

}  // namespace ember::python
