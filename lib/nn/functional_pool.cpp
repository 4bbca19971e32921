// 1-d pooling as the 2-d kernels over an unsqueezed height of 1, adaptive max pooling
// (max_pool2d when the windows tile the input evenly, else a max per output window),
// and power-average (LP) pooling over avg_pool.
#include <vector>

#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember::nn::functional {

namespace {

void check_1d_input(const Tensor& input, const char* op) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, op, ": Expected 2D or 3D (batch mode) tensor with optional 0 "
              "dim batch size for input, but got:", shape_str(input.sizes()));
}

int64_t one_int(const IntList& v, const char* op, const char* name) {
  EMBER_CHECK(v.size() == 1, op, "() argument '", name, "' should contain one int (got ", v.size(), ")");
  return v[0];
}

void check_max_pool1d_args(const Tensor& input, const IntList& kernel_size, const IntList& stride,
                           const IntList& padding, const IntList& dilation) {
  check_1d_input(input, "max_pool1d");
  one_int(kernel_size, "max_pool1d", "kernel_size");
  if (!stride.empty()) one_int(stride, "max_pool1d", "stride");
  one_int(padding, "max_pool1d", "padding");
  one_int(dilation, "max_pool1d", "dilation");
}

// A 1-d size argument as the (1, k) pair of the 2-d op (h: the value for height).
IntList widen(const IntList& v, int64_t h) { return v.empty() ? IntList{} : IntList{h, v[0]}; }

}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const IntList& kernel_size,
                                                   const IntList& stride, const IntList& padding,
                                                   const IntList& dilation, bool ceil_mode) {
  check_max_pool1d_args(input, kernel_size, stride, padding, dilation);
  // Height 1: the flat h * W + w index of the 2-d op is the 1-d position.
  auto [out, idx] = max_pool2d_with_indices(input.unsqueeze(-2), widen(kernel_size, 1), widen(stride, 1),
                                            widen(padding, 0), widen(dilation, 1), ceil_mode);
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  const IntList& dilation, bool ceil_mode) {
  check_max_pool1d_args(input, kernel_size, stride, padding, dilation);
  return max_pool2d(input.unsqueeze(-2), widen(kernel_size, 1), widen(stride, 1), widen(padding, 0),
                    widen(dilation, 1), ceil_mode)
      .squeeze(-2);
}

Tensor avg_pool1d(const Tensor& input, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  bool ceil_mode, bool count_include_pad) {
  check_1d_input(input, "avg_pool1d");
  one_int(kernel_size, "avg_pool1d", "kernel_size");
  if (!stride.empty()) one_int(stride, "avg_pool1d", "stride");
  one_int(padding, "avg_pool1d", "padding");
  return avg_pool2d(input.unsqueeze(-2), widen(kernel_size, 1), widen(stride, 1), widen(padding, 0), ceil_mode,
                    count_include_pad)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const IntList& output_size) {
  int64_t out = one_int(output_size, "adaptive_avg_pool1d", "output_size");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got ",
              shape_str(input.sizes()));
  return adaptive_avg_pool2d(input.unsqueeze(-2), IntList{1, out}).squeeze(-2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const std::vector<std::optional<int64_t>>& output_size) {
  int64_t d = input.dim();
  bool ok = d == 3 || d == 4;
  for (int64_t i = 1; ok && i < d; ++i) ok = input.size(i) > 0;
  EMBER_CHECK(ok, "adaptive_max_pool2d(): Expected 3D or 4D tensor with non-zero sizes in its non-batch "
              "dimensions, but got: ", shape_str(input.sizes()));
  EMBER_CHECK(output_size.size() == 1 || output_size.size() == 2,
              "adaptive_max_pool2d(): internal error: output_size.size() must be 2");
  int64_t h = input.size(-2), w = input.size(-1);
  int64_t oh = output_size[0].value_or(h);
  int64_t ow = (output_size.size() == 2 ? output_size[1] : output_size[0]).value_or(w);
  EMBER_CHECK(oh >= 0 && ow >= 0, "adaptive_max_pool2d(): output_size must be non-negative, got (", oh, ", ", ow,
              ")");
  if (oh > 0 && ow > 0 && h % oh == 0 && w % ow == 0)  // even windows: one max_pool2d
    return max_pool2d_with_indices(input, {h / oh, w / ow});
  IntList lead(input.sizes().begin(), input.sizes().end() - 2);
  std::vector<Tensor> values, indices;
  for (int64_t i = 0; i < oh; ++i) {
    int64_t hs = i * h / oh, he = ((i + 1) * h + oh - 1) / oh;
    for (int64_t j = 0; j < ow; ++j) {
      int64_t ws = j * w / ow, we = ((j + 1) * w + ow - 1) / ow;
      IntList flat = lead;
      flat.push_back((he - hs) * (we - ws));
      Tensor win = input.narrow(-2, hs, he - hs).narrow(-1, ws, we - ws).reshape(flat);
      auto [v, k] = max(win, -1);
      values.push_back(v);
      // Window position -> flat h * W + w position in the input plane.
      indices.push_back((div(k, we - ws, "floor") + hs) * w + remainder(k, we - ws) + ws);
    }
  }
  IntList out_shape = lead;
  out_shape.insert(out_shape.end(), {oh, ow});
  if (values.empty()) {
    TensorOptions opts = TensorOptions().dtype(input.dtype()).device(input.device());
    return {empty(out_shape, opts), empty(out_shape, opts.dtype(DType::Int64))};
  }
  return {stack(values, -1).reshape(out_shape), stack(indices, -1).reshape(out_shape)};
}

Tensor adaptive_max_pool2d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, output_size));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, const IntList& output_size) {
  int64_t out = one_int(output_size, "adaptive_max_pool1d", "output_size");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "adaptive_max_pool1d(): Expected 2D or 3D tensor, but got ",
              shape_str(input.sizes()));
  auto [v, k] = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), {1, out});
  return {v.squeeze(-2), k.squeeze(-2)};
}

Tensor adaptive_max_pool1d(const Tensor& input, const IntList& output_size) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, output_size));
}

namespace {

// torch's: (sign(out) * relu(|out|)) * window size, to the power 1 / norm_type.
Tensor lp_finish(const Tensor& out, double norm_type, int64_t window) {
  return (out.sign() * relu(out.abs()) * static_cast<double>(window)).pow(1.0 / norm_type);
}

}  // namespace

Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size, std::optional<int64_t> stride,
                 bool ceil_mode) {
  IntList s = stride ? IntList{*stride} : IntList{};
  Tensor out = avg_pool1d(input.pow(norm_type), {kernel_size}, s, {0}, ceil_mode);
  return lp_finish(out, norm_type, kernel_size);
}

Tensor lp_pool2d(const Tensor& input, double norm_type, const IntList& kernel_size, const IntList& stride,
                 bool ceil_mode) {
  EMBER_CHECK(kernel_size.size() == 1 || kernel_size.size() == 2,
              "lp_pool2d: kernel_size must be an int or a pair of ints");
  int64_t kw = kernel_size[0], kh = kernel_size.size() == 2 ? kernel_size[1] : kernel_size[0];
  Tensor out = avg_pool2d(input.pow(norm_type), kernel_size, stride, {0}, ceil_mode);
  return lp_finish(out, norm_type, kw * kh);
}

}  // namespace ember::nn::functional
