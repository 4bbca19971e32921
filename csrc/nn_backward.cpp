// Private Python bindings of the nn backward primitives (ember._C._<name>),
// with aten's argument names: for the autograd layer's tests and for checking
// the kernels against PyTorch. reduction is an int (0 none, 1 mean, 2 sum);
// output_mask a sequence of three bools.
#include "bindings.h"

namespace ember::python {

namespace {

using OptTensor = std::optional<Tensor>;

Tensor opt(const OptTensor& t) { return t.value_or(Tensor()); }

// A tuple of three gradients, None for one that was not asked for.
py::tuple grads3(const std::tuple<Tensor, Tensor, Tensor>& g) {
  auto one = [](const Tensor& t) -> py::object { return t.defined() ? py::cast(t) : py::none(); };
  return py::make_tuple(one(std::get<0>(g)), one(std::get<1>(g)), one(std::get<2>(g)));
}

void bind_norm_backward(py::module_& m) {
  m.def("_native_batch_norm_backward",
        [](const Tensor& grad_out, const Tensor& input, const OptTensor& weight, const OptTensor& running_mean,
           const OptTensor& running_var, const OptTensor& save_mean, const OptTensor& save_invstd, bool train,
           double eps, GradMask output_mask) {
          return grads3(native_batch_norm_backward(grad_out, input, opt(weight), opt(running_mean),
                                                   opt(running_var), opt(save_mean), opt(save_invstd), train,
                                                   eps, output_mask));
        },
        py::arg("grad_out"), py::arg("input"), py::arg("weight"), py::arg("running_mean"),
        py::arg("running_var"), py::arg("save_mean"), py::arg("save_invstd"), py::arg("train"), py::arg("eps"),
        py::arg("output_mask"));
  m.def("_native_layer_norm_backward",
        [](const Tensor& grad_out, const Tensor& input, const IntList& normalized_shape, const Tensor& mean,
           const Tensor& rstd, const OptTensor& weight, const OptTensor& bias, GradMask output_mask) {
          return grads3(native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, opt(weight),
                                                   opt(bias), output_mask));
        },
        py::arg("grad_out"), py::arg("input"), py::arg("normalized_shape"), py::arg("mean"), py::arg("rstd"),
        py::arg("weight"), py::arg("bias"), py::arg("output_mask"));
  m.def("_native_group_norm_backward",
        [](const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
           const OptTensor& weight, int64_t N, int64_t C, int64_t HxW, int64_t group, GradMask output_mask) {
          return grads3(native_group_norm_backward(grad_out, input, mean, rstd, opt(weight), N, C, HxW, group,
                                                   output_mask));
        },
        py::arg("grad_out"), py::arg("input"), py::arg("mean"), py::arg("rstd"), py::arg("weight"),
        py::arg("N"), py::arg("C"), py::arg("HxW"), py::arg("group"), py::arg("output_mask"));
}

void bind_misc_backward(py::module_& m) {
  m.def("_embedding_dense_backward", &embedding_dense_backward, py::arg("grad_output"), py::arg("indices"),
        py::arg("num_weights"), py::arg("padding_idx") = -1, py::arg("scale_grad_by_freq") = false);
  m.def("_native_dropout_backward", &native_dropout_backward, py::arg("grad_output"), py::arg("mask"),
        py::arg("scale"));
  m.def("_pad_backward", &pad_backward, py::arg("grad_output"), py::arg("input_size"), py::arg("pad"),
        py::arg("mode") = "constant");
  m.def("_interpolate_backward", &interpolate_backward, py::arg("grad_output"), py::arg("input_size"),
        py::arg("mode"), py::arg("align_corners") = false,
        py::arg("scales") = std::vector<std::optional<double>>{});
}

void bind_loss_backward(py::module_& m) {
  m.def("_nll_loss_backward",
        [](const Tensor& grad_output, const Tensor& self, const Tensor& target, const OptTensor& weight,
           int64_t reduction, int64_t ignore_index, const OptTensor& total_weight) {
          return nll_loss_backward(grad_output, self, target, opt(weight), reduction, ignore_index,
                                   opt(total_weight));
        },
        py::arg("grad_output"), py::arg("self"), py::arg("target"), py::arg("weight"), py::arg("reduction"),
        py::arg("ignore_index"), py::arg("total_weight") = py::none());
  m.def("_cross_entropy_backward",
        [](const Tensor& grad_output, const Tensor& self, const Tensor& target, const OptTensor& weight,
           int64_t reduction, int64_t ignore_index, double label_smoothing) {
          return cross_entropy_backward(grad_output, self, target, opt(weight), reduction, ignore_index,
                                        label_smoothing);
        },
        py::arg("grad_output"), py::arg("self"), py::arg("target"), py::arg("weight") = py::none(),
        py::arg("reduction") = 1, py::arg("ignore_index") = -100, py::arg("label_smoothing") = 0.0);
  m.def("_mse_loss_backward", &mse_loss_backward, py::arg("grad_output"), py::arg("self"), py::arg("target"),
        py::arg("reduction"));
  m.def("_l1_loss_backward", &l1_loss_backward, py::arg("grad_output"), py::arg("self"), py::arg("target"),
        py::arg("reduction"));
  m.def("_smooth_l1_loss_backward", &smooth_l1_loss_backward, py::arg("grad_output"), py::arg("self"),
        py::arg("target"), py::arg("reduction"), py::arg("beta"));
  m.def("_huber_loss_backward", &huber_loss_backward, py::arg("grad_output"), py::arg("self"),
        py::arg("target"), py::arg("reduction"), py::arg("delta"));
  m.def("_binary_cross_entropy_backward",
        [](const Tensor& grad_output, const Tensor& self, const Tensor& target, const OptTensor& weight,
           int64_t reduction) {
          return binary_cross_entropy_backward(grad_output, self, target, opt(weight), reduction);
        },
        py::arg("grad_output"), py::arg("self"), py::arg("target"), py::arg("weight") = py::none(),
        py::arg("reduction") = 1);
  m.def("_binary_cross_entropy_with_logits_backward",
        [](const Tensor& grad_output, const Tensor& self, const Tensor& target, const OptTensor& weight,
           const OptTensor& pos_weight, int64_t reduction) {
          return binary_cross_entropy_with_logits_backward(grad_output, self, target, opt(weight),
                                                           opt(pos_weight), reduction);
        },
        py::arg("grad_output"), py::arg("self"), py::arg("target"), py::arg("weight") = py::none(),
        py::arg("pos_weight") = py::none(), py::arg("reduction") = 1);
}

void bind_conv_pool_backward(py::module_& m) {
  m.def("_conv2d_backward_input", &conv2d_backward_input, py::arg("grad_output"), py::arg("weight"),
        py::arg("input_size"), py::arg("stride") = IntList{1}, py::arg("padding") = IntList{0},
        py::arg("dilation") = IntList{1}, py::arg("groups") = 1);
  m.def("_conv2d_backward_weight", &conv2d_backward_weight, py::arg("grad_output"), py::arg("input"),
        py::arg("weight_size"), py::arg("stride") = IntList{1}, py::arg("padding") = IntList{0},
        py::arg("dilation") = IntList{1}, py::arg("groups") = 1);
  m.def("_max_pool2d_backward", &max_pool2d_backward, py::arg("grad_output"), py::arg("indices"),
        py::arg("input_size"));
  m.def("_avg_pool2d_backward", &avg_pool2d_backward, py::arg("grad_output"), py::arg("input_size"),
        py::arg("kernel_size"), py::arg("stride") = IntList{}, py::arg("padding") = IntList{0},
        py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
        py::arg("divisor_override") = py::none());
  m.def("_adaptive_avg_pool2d_backward", &adaptive_avg_pool2d_backward, py::arg("grad_output"),
        py::arg("input_size"));
}

}  // namespace

void bind_nn_backward(py::module_& m) {
  bind_norm_backward(m);
  bind_misc_backward(m);
  bind_loss_backward(m);
  bind_conv_pool_backward(m);
}

}  // namespace ember::python
