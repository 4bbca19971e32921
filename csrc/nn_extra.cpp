// Python bindings of the composite nn functionals (ember::nn::functional, declared in
// ember/nn/functional.h) under torch.nn.functional's names, arguments and defaults.
// They live in ember._C._nn (python/ember/nn/functional.py imports them); the few
// that torch also has at top level (torch.cosine_similarity, torch.pdist, ...) are
// ember._C.<name> too.
#include "bindings.h"
#include "ember/nn/functional.h"

namespace ember::python {

// torch.nn.functional's adaptive 2-d poolings fill a tuple output_size's Nones from the
// input's trailing sizes first, and raise ValueError when the input has too few dims for
// that (an int output_size goes straight to the op, which raises RuntimeError).
// Shared with adaptive_avg_pool2d's binding (linalg.cpp).
void check_adaptive_input_dims(const Tensor& x, const py::handle& output_size) {
  if (!py::isinstance<py::sequence>(output_size) || py::isinstance<py::str>(output_size)) return;
  const int64_t n = static_cast<int64_t>(py::len(output_size));
  if (x.dim() <= n) throw ValueError(detail::str("Input dimension should be at least ", n + 1));
}

namespace {

namespace F = ember::nn::functional;
using OptTensor = std::optional<Tensor>;

Tensor opt(const OptTensor& t) { return t.value_or(Tensor()); }

// torch's _Reduction.legacy_get_string for the deprecated size_average / reduce flags.
std::string legacy_reduction(const py::object& size_average, const py::object& reduce,
                             const std::string& reduction) {
  if (size_average.is_none() && reduce.is_none()) return reduction;
  bool avg = size_average.is_none() || size_average.cast<bool>();
  bool red = reduce.is_none() || reduce.cast<bool>();
  return avg && red ? "mean" : red ? "sum" : "none";
}

// An int or a sequence of ints (torch's _size_any_t); TypeError otherwise.
IntList size_arg(const py::handle& v, const char* op, const char* name) {
  auto is_int = [](const py::handle& x) { return PyIndex_Check(x.ptr()) && !PyBool_Check(x.ptr()); };
  if (is_int(v)) return {v.cast<int64_t>()};
  if (py::isinstance<py::sequence>(v) && !py::isinstance<py::str>(v)) {
    IntList out;
    for (const py::handle& x : v) {
      if (!is_int(x)) break;
      out.push_back(x.cast<int64_t>());
    }
    if (static_cast<size_t>(py::len(v)) == out.size()) return out;
  }
  throw TypeError(detail::str(op, "(): argument '", name, "' must be an int or a tuple of ints, not ",
                              std::string(py::str(py::type::handle_of(v).attr("__name__")))));
}

IntList optional_size_arg(const py::handle& v, const char* op, const char* name) {
  return v.is_none() ? IntList{} : size_arg(v, op, name);
}

// An int, None, or a sequence of ints and Nones (adaptive pooling's output_size).
std::vector<std::optional<int64_t>> adaptive_size_arg(const py::handle& v) {
  std::vector<std::optional<int64_t>> out;
  auto one = [&](const py::handle& x) {
    out.push_back(x.is_none() ? std::nullopt : std::optional<int64_t>(x.cast<int64_t>()));
  };
  if (py::isinstance<py::sequence>(v)) {
    for (const py::handle& x : v) one(x);
  } else {
    one(v);
  }
  return out;
}

// A (values, indices) result as torch returns it: the pair when return_indices.
py::object with_indices(std::tuple<Tensor, Tensor> r, bool return_indices) {
  if (return_indices) return py::cast(r);
  return py::cast(std::get<0>(r));
}

void bind_extra_losses(py::module_& m) {
  const auto none = py::none();
  m.def("kl_div", [](const Tensor& input, const Tensor& target, const py::object& size_average,
                     const py::object& reduce, const std::string& reduction, bool log_target) {
    return F::kl_div(input, target, legacy_reduction(size_average, reduce, reduction), log_target);
  }, py::arg("input"), py::arg("target"), py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean", py::arg("log_target") = false);
  m.def("soft_margin_loss", [](const Tensor& input, const Tensor& target, const py::object& size_average,
                               const py::object& reduce, const std::string& reduction) {
    return F::soft_margin_loss(input, target, legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  m.def("cosine_embedding_loss", [](const Tensor& input1, const Tensor& input2, const Tensor& target,
                                    double margin, const py::object& size_average, const py::object& reduce,
                                    const std::string& reduction) {
    return F::cosine_embedding_loss(input1, input2, target, margin,
                                    legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input1"), py::arg("input2"), py::arg("target"), py::arg("margin") = 0.0,
     py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def("margin_ranking_loss", [](const Tensor& input1, const Tensor& input2, const Tensor& target,
                                  double margin, const py::object& size_average, const py::object& reduce,
                                  const std::string& reduction) {
    return F::margin_ranking_loss(input1, input2, target, margin,
                                  legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input1"), py::arg("input2"), py::arg("target"), py::arg("margin") = 0.0,
     py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def("hinge_embedding_loss", [](const Tensor& input, const Tensor& target, double margin,
                                   const py::object& size_average, const py::object& reduce,
                                   const std::string& reduction) {
    return F::hinge_embedding_loss(input, target, margin, legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("margin") = 1.0, py::arg("size_average") = none,
     py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def("poisson_nll_loss", [](const Tensor& input, const Tensor& target, bool log_input, bool full,
                               const py::object& size_average, double eps, const py::object& reduce,
                               const std::string& reduction) {
    return F::poisson_nll_loss(input, target, log_input, full, eps,
                               legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("log_input") = true, py::arg("full") = false,
     py::arg("size_average") = none, py::arg("eps") = 1e-8, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  m.def("gaussian_nll_loss", [](const Tensor& input, const Tensor& target, const py::object& var, bool full,
                                double eps, const std::string& reduction) {
    Tensor v;
    if (PyFloat_Check(var.ptr())) {  // torch: a float variance is var * ones_like(input)
      double value = var.cast<double>();
      EMBER_CHECK_VALUE(value >= 0, "var has negative entry/entries");
      v = full_like(input, value);
    } else {
      v = var.cast<Tensor>();
    }
    return F::gaussian_nll_loss(input, target, v, full, eps, reduction);
  }, py::arg("input"), py::arg("target"), py::arg("var"), py::arg("full") = false, py::arg("eps") = 1e-6,
     py::arg("reduction") = "mean");
  m.def("triplet_margin_loss", [](const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                  double margin, double p, double eps, bool swap, const py::object& size_average,
                                  const py::object& reduce, const std::string& reduction) {
    return F::triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  legacy_reduction(size_average, reduce, reduction));
  }, py::arg("anchor"), py::arg("positive"), py::arg("negative"), py::arg("margin") = 1.0, py::arg("p") = 2.0,
     py::arg("eps") = 1e-6, py::arg("swap") = false, py::arg("size_average") = none, py::arg("reduce") = none,
     py::arg("reduction") = "mean");
  m.def("multilabel_soft_margin_loss", [](const Tensor& input, const Tensor& target, const OptTensor& weight,
                                          const py::object& size_average, const py::object& reduce,
                                          const std::string& reduction) {
    return F::multilabel_soft_margin_loss(input, target, opt(weight),
                                          legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = none, py::arg("size_average") = none,
     py::arg("reduce") = none, py::arg("reduction") = "mean");
  m.def("multi_margin_loss", [](const Tensor& input, const Tensor& target, int64_t p, double margin,
                                const OptTensor& weight, const py::object& size_average, const py::object& reduce,
                                const std::string& reduction) {
    return F::multi_margin_loss(input, target, p, margin, opt(weight),
                                legacy_reduction(size_average, reduce, reduction));
  }, py::arg("input"), py::arg("target"), py::arg("p") = 1, py::arg("margin") = 1.0, py::arg("weight") = none,
     py::arg("size_average") = none, py::arg("reduce") = none, py::arg("reduction") = "mean");
}

void bind_distances(py::module_& m) {
  m.def("normalize", [](const Tensor& input, double p, int64_t dim, double eps, const py::object& out) {
    if (!out.is_none()) throw NotImplementedError("normalize: argument 'out' is not supported");
    return F::normalize(input, p, dim, eps);
  }, py::arg("input"), py::arg("p") = 2.0, py::arg("dim") = 1, py::arg("eps") = 1e-12,
     py::arg("out") = py::none());
  m.def("cosine_similarity", &F::cosine_similarity, py::arg("x1"), py::arg("x2"), py::arg("dim") = 1,
        py::arg("eps") = 1e-8);
  m.def("pairwise_distance", &F::pairwise_distance, py::arg("x1"), py::arg("x2"), py::arg("p") = 2.0,
        py::arg("eps") = 1e-6, py::arg("keepdim") = false);
  m.def("pdist", &F::pdist, py::arg("input"), py::arg("p") = 2.0);
}

void bind_extra_layers(py::module_& m) {
  for (auto [name, fn] : {std::pair{"dropout1d", &F::dropout1d}, std::pair{"dropout2d", &F::dropout2d},
                          std::pair{"dropout3d", &F::dropout3d}})
    m.def(name, fn, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true, py::arg("inplace") = false);
  m.def("alpha_dropout", &F::alpha_dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = false,
        py::arg("inplace") = false);
  m.def("feature_alpha_dropout", &F::feature_alpha_dropout, py::arg("input"), py::arg("p") = 0.5,
        py::arg("training") = false, py::arg("inplace") = false);
  m.def("pixel_shuffle", &F::pixel_shuffle, py::arg("input"), py::arg("upscale_factor"));
  m.def("pixel_unshuffle", &F::pixel_unshuffle, py::arg("input"), py::arg("downscale_factor"));
  m.def("channel_shuffle", &F::channel_shuffle, py::arg("input"), py::arg("groups"));
  m.def("instance_norm", [](const Tensor& input, const OptTensor& running_mean, const OptTensor& running_var,
                            const OptTensor& weight, const OptTensor& bias, bool use_input_stats, double momentum,
                            double eps) {
    return F::instance_norm(input, opt(running_mean), opt(running_var), opt(weight), opt(bias), use_input_stats,
                            momentum, eps);
  }, py::arg("input"), py::arg("running_mean") = py::none(), py::arg("running_var") = py::none(),
     py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("use_input_stats") = true,
     py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def("local_response_norm", &F::local_response_norm, py::arg("input"), py::arg("size"),
        py::arg("alpha") = 1e-4, py::arg("beta") = 0.75, py::arg("k") = 1.0);
  m.def("rms_norm", [](const Tensor& input, const py::object& normalized_shape, const OptTensor& weight,
                       std::optional<double> eps) {
    return F::rms_norm(input, size_arg(normalized_shape, "rms_norm", "normalized_shape"), opt(weight), eps);
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("eps") = py::none());
  m.def("unfold", [](const Tensor& input, const py::object& kernel_size, const py::object& dilation,
                     const py::object& padding, const py::object& stride) {
    const char* op = "unfold";
    return F::unfold(input, size_arg(kernel_size, op, "kernel_size"), size_arg(dilation, op, "dilation"),
                     size_arg(padding, op, "padding"), size_arg(stride, op, "stride"));
  }, py::arg("input"), py::arg("kernel_size"), py::arg("dilation") = 1, py::arg("padding") = 0,
     py::arg("stride") = 1);
  m.def("fold", [](const Tensor& input, const py::object& output_size, const py::object& kernel_size,
                   const py::object& dilation, const py::object& padding, const py::object& stride) {
    const char* op = "fold";
    return F::fold(input, size_arg(output_size, op, "output_size"), size_arg(kernel_size, op, "kernel_size"),
                   size_arg(dilation, op, "dilation"), size_arg(padding, op, "padding"),
                   size_arg(stride, op, "stride"));
  }, py::arg("input"), py::arg("output_size"), py::arg("kernel_size"), py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("stride") = 1);
}

void bind_extra_pooling(py::module_& m) {
  auto max1d = [](const Tensor& x, const py::object& k, const py::object& s, const py::object& p,
                  const py::object& d, bool ceil_mode) {
    const char* op = "max_pool1d";
    return F::max_pool1d_with_indices(x, size_arg(k, op, "kernel_size"), optional_size_arg(s, op, "stride"),
                                      size_arg(p, op, "padding"), size_arg(d, op, "dilation"), ceil_mode);
  };
  m.def("max_pool1d", [max1d](const Tensor& x, const py::object& k, const py::object& s, const py::object& p,
                              const py::object& d, bool ceil_mode, bool return_indices) {
    return with_indices(max1d(x, k, s, p, d, ceil_mode), return_indices);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
     py::arg("dilation") = 1, py::arg("ceil_mode") = false, py::arg("return_indices") = false);
  m.def("max_pool1d_with_indices", [max1d](const Tensor& x, const py::object& k, const py::object& s,
                                           const py::object& p, const py::object& d, bool ceil_mode,
                                           bool /*return_indices*/) {
    return max1d(x, k, s, p, d, ceil_mode);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
     py::arg("dilation") = 1, py::arg("ceil_mode") = false, py::arg("return_indices") = true);
  m.def("avg_pool1d", [](const Tensor& x, const py::object& k, const py::object& s, const py::object& p,
                         bool ceil_mode, bool count_include_pad) {
    const char* op = "avg_pool1d";
    return F::avg_pool1d(x, size_arg(k, op, "kernel_size"), optional_size_arg(s, op, "stride"),
                         size_arg(p, op, "padding"), ceil_mode, count_include_pad);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
     py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  m.def("adaptive_avg_pool1d", [](const Tensor& x, const py::object& output_size) {
    return F::adaptive_avg_pool1d(x, size_arg(output_size, "adaptive_avg_pool1d", "output_size"));
  }, py::arg("input"), py::arg("output_size"));
  m.def("adaptive_max_pool1d", [](const Tensor& x, const py::object& output_size, bool return_indices) {
    IntList size = size_arg(output_size, "adaptive_max_pool1d", "output_size");
    return with_indices(F::adaptive_max_pool1d_with_indices(x, size), return_indices);
  }, py::arg("input"), py::arg("output_size"), py::arg("return_indices") = false);
  m.def("adaptive_max_pool2d", [](const Tensor& x, const py::object& output_size, bool return_indices) {
    check_adaptive_input_dims(x, output_size);
    return with_indices(F::adaptive_max_pool2d_with_indices(x, adaptive_size_arg(output_size)), return_indices);
  }, py::arg("input"), py::arg("output_size"), py::arg("return_indices") = false);
  m.def("lp_pool1d", [](const Tensor& x, double norm_type, const py::object& kernel_size, const py::object& stride,
                        bool ceil_mode) {
    const char* op = "lp_pool1d";
    IntList k = size_arg(kernel_size, op, "kernel_size");
    IntList s = optional_size_arg(stride, op, "stride");
    EMBER_CHECK_TYPE(k.size() == 1 && s.size() <= 1, "lp_pool1d(): kernel_size and stride must be ints");
    return F::lp_pool1d(x, norm_type, k[0], s.empty() ? std::nullopt : std::optional<int64_t>(s[0]), ceil_mode);
  }, py::arg("input"), py::arg("norm_type"), py::arg("kernel_size"), py::arg("stride") = py::none(),
     py::arg("ceil_mode") = false);
  m.def("lp_pool2d", [](const Tensor& x, double norm_type, const py::object& kernel_size, const py::object& stride,
                        bool ceil_mode) {
    const char* op = "lp_pool2d";
    return F::lp_pool2d(x, norm_type, size_arg(kernel_size, op, "kernel_size"),
                        optional_size_arg(stride, op, "stride"), ceil_mode);
  }, py::arg("input"), py::arg("norm_type"), py::arg("kernel_size"), py::arg("stride") = py::none(),
     py::arg("ceil_mode") = false);
}

}  // namespace

void bind_nn_extra(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn", "composite torch.nn.functional ops (ember::nn::functional)");
  bind_extra_losses(nn);
  bind_distances(nn);
  bind_extra_layers(nn);
  bind_extra_pooling(nn);
  // torch has these at top level too, with the same arguments.
  for (const char* name : {"cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
                           "channel_shuffle", "alpha_dropout", "feature_alpha_dropout"})
    m.attr(name) = nn.attr(name);
}

}  // namespace ember::python
