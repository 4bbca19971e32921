// Backward primitives of embedding, dropout, pad and interpolate: argument
// checks, then one dispatched op each (kernels: lib/cpu/embedding_backward.cpp,
// dropout_backward.cpp, pad_backward.cpp, interpolate_backward.cpp).
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/nn.h"
#include "ember/ops/nn_backward.h"
#include "ops/nn_backward_checks.h"

namespace ember {

using namespace nn_checks;

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  check_defined(grad_output, op, "grad_output");
  check_defined(indices, op, "indices");
  check_floating(grad_output, op, "grad_output");
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, op, ": expected indices of dtype "
              "int64 or int32, got ", describe(indices));
  EMBER_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, got ", num_weights);
  DimVector expected = indices.sizes();
  expected.push_back(grad_output.dim() > 0 ? grad_output.size(-1) : 0);
  EMBER_CHECK(grad_output.dim() == indices.dim() + 1 && grad_output.sizes() == expected, op,
              ": expected grad_output of shape indices.shape + [embedding_dim], got ", describe(grad_output),
              " for indices ", describe(indices));
  OpCall call(opid::embedding_backward, {grad_output, indices},
              EmbeddingBackwardArgs{.num_weights = num_weights,
                                    .padding_idx = padding_idx,
                                    .scale_grad_by_freq = scale_grad_by_freq}
                  .attrs());
  return dispatch_one(call);
}

Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  const char* op = "native_dropout_backward";
  check_defined(grad_output, op, "grad_output");
  check_defined(mask, op, "mask");
  check_floating(grad_output, op, "grad_output");
  EMBER_CHECK(mask.dtype() == kBool, op, ": mask should be a bool tensor, got ", describe(mask));
  EMBER_CHECK(mask.sizes() == grad_output.sizes(), op, ": mask of shape ", shape_str(mask.sizes()),
              " does not match grad_output ", describe(grad_output));
  OpCall call(opid::dropout_backward, {grad_output, mask}, DropoutBackwardArgs{.scale = scale}.attrs());
  return dispatch_one(call);
}

namespace {

// A padded dim's sizes must fit the mode: reflect needs pads smaller than the
// dim, circular wraps at most once (the forward's rules; the kernel indexes by them).
void check_pad_dim(int64_t size, int64_t left, int64_t right, int64_t d, const std::string& mode,
                   const char* op) {
  if (mode == "reflect")
    EMBER_CHECK(size > 0 && left < size && right < size, op, ": padding (", left, ", ", right,
                ") at dimension ", d, " should be less than the input size ", size, " for mode 'reflect'");
  if (mode == "replicate") EMBER_CHECK(size > 0, op, ": mode 'replicate' needs a non-empty dimension ", d);
  if (mode == "circular") {
    const int64_t kept = size + std::min<int64_t>(left, 0) + std::min<int64_t>(right, 0);
    EMBER_CHECK(size + left + right == 0 || (kept > 0 && left <= kept && right <= kept), op, ": padding (",
                left, ", ", right, ") at dimension ", d, " wraps around more than once in mode 'circular'");
  }
}

}  // namespace

Tensor pad_backward(const Tensor& grad_output, const IntList& input_size, const IntList& pad,
                    const std::string& mode) {
  const char* op = "pad_backward";
  check_defined(grad_output, op, "grad_output");
  check_floating(grad_output, op, "grad_output");
  const int64_t nd = static_cast<int64_t>(input_size.size()), k = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(pad.size() % 2 == 0 && k <= nd, op, ": expected an even number of pads, at most 2 per dim "
              "of input_size ", shape_str(DimVector(input_size.begin(), input_size.end())), ", got ", pad.size());
  EMBER_CHECK(grad_output.dim() == nd, op, ": grad_output ", describe(grad_output), " and input_size ",
              shape_str(DimVector(input_size.begin(), input_size.end())), " differ in rank");
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    throw NotImplementedError(detail::str(op, ": unrecognised padding mode ", mode,
                                          " (expected constant, reflect, replicate or circular)"));
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t i = nd - 1 - d;
    const int64_t left = i < k ? pad[2 * i] : 0, right = i < k ? pad[2 * i + 1] : 0;
    EMBER_CHECK(input_size[d] >= 0 && grad_output.size(d) == input_size[d] + left + right, op,
                ": grad_output ", describe(grad_output), " is not input_size ",
                shape_str(DimVector(input_size.begin(), input_size.end())), " padded by ", shape_str(DimVector(pad.begin(), pad.end())));
    if (i < k && mode != "constant") check_pad_dim(input_size[d], left, right, d, mode, op);
  }
  if (mode == "constant") {  // the gradient of a constant pad is the opposite pad (crop) of the gradient
    IntList neg(pad.begin(), pad.end());
    for (int64_t& p : neg) p = -p;
    return ember::pad(grad_output, neg, "constant", Scalar(0));
  }
  OpCall call(opid::pad_backward, {grad_output},
              PadBackwardArgs{.input_size = DimVector(input_size.begin(), input_size.end()),
                              .pad = DimVector(pad.begin(), pad.end()),
                              .mode = mode}
                  .attrs());
  return dispatch_one(call);
}

Tensor interpolate_backward(const Tensor& grad_output, const IntList& input_size, const std::string& mode,
                            bool align_corners, const std::vector<std::optional<double>>& scales) {
  const char* op = "interpolate_backward";
  check_defined(grad_output, op, "grad_output");
  check_floating(grad_output, op, "grad_output");
  const int64_t nd = static_cast<int64_t>(input_size.size()), k = nd - 2;
  const DimVector in(input_size.begin(), input_size.end());
  EMBER_CHECK(nd >= 3 && nd <= 5 && grad_output.dim() == nd, op, ": expected grad_output and input_size "
              "of 3 to 5 dims [N, C, *spatial], got ", describe(grad_output), " and ", shape_str(in));
  EMBER_CHECK(grad_output.size(0) == in[0] && grad_output.size(1) == in[1], op, ": grad_output ",
              describe(grad_output), " and input_size ", shape_str(in), " differ in N or C");
  for (int64_t d = 2; d < nd; ++d)
    EMBER_CHECK(in[d] > 0 && grad_output.size(d) > 0, op, ": spatial sizes must be positive, got input_size ",
                shape_str(in), " and grad_output ", describe(grad_output));
  const bool nearest = mode == "nearest";
  const bool linear = mode == "linear" || mode == "bilinear" || mode == "trilinear";
  if (!nearest && !linear)
    throw NotImplementedError(detail::str(op, ": mode '", mode, "' is not supported (supported: nearest, "
                                          "linear, bilinear, trilinear)"));
  EMBER_CHECK_VALUE(!(nearest && align_corners), op, ": align_corners option can only be set with the "
                    "interpolating modes: linear | bilinear | bicubic | trilinear");
  EMBER_CHECK(scales.empty() || static_cast<int64_t>(scales.size()) == k, op, ": expected ", k,
              " scales (one per spatial dim), got ", scales.size());
  // No scales given: one None per spatial dim.
  SmallVector<std::optional<double>, 3> per_dim(scales.begin(), scales.end());
  if (per_dim.empty()) per_dim.resize(static_cast<size_t>(k));
  OpCall call(opid::interpolate_backward, SmallVector<Tensor, 4>{grad_output},
              InterpolateBackwardArgs{.input_size = in,
                                      .mode = nearest ? "nearest" : "linear",
                                      .align_corners = align_corners,
                                      .scales = std::move(per_dim)}
                  .attrs());
  return dispatch_one(call);
}

}  // namespace ember
