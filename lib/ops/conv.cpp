// Convolutions: the op functions of conv2d and conv_transpose2d (argument
// checks with PyTorch's rules and messages, then dispatch) and the composite
// conv1d (a conv2d over a height of 1).
#include "autocast/autocast_policy.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/linalg.h"
#include "ember/ops/views.h"
#include "ops/conv_checks.h"

namespace ember {

namespace {

using namespace conv_checks;

// Checks shared by every convolution: ranks, dtypes, groups, channels, bias.
// nd is the number of spatial dims; a transposed weight is [C_in, C_out/groups, k...].
void check_conv(const char* op, int64_t nd, const Tensor& input, const Tensor& weight,
                const Tensor& bias, int64_t groups, bool transposed) {
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, op, ": Expected ", nd + 1,
              "D (unbatched) or ", nd + 2, "D (batched) input to ", op, ", but got input of size: ",
              shape_str(input.sizes()));
  EMBER_CHECK(weight.dim() == nd + 2, op, ": expected weight to be ", nd + 2,
              "-D, but got weight of size ", shape_str(weight.sizes()));
  // Inside an autocast region the dtypes that meet are the cast ones (lib/autocast).
  DType input_t = autocast::input_dtype(opid::conv2d, input);
  EMBER_CHECK(input_t == autocast::input_dtype(opid::conv2d, weight), op,
              ": expected input and weight to have the same dtype, but got ",
              dtype_name(input.dtype()), " and ", dtype_name(weight.dtype()));
  EMBER_CHECK(!bias.defined() || autocast::input_dtype(opid::conv2d, bias) == input_t, op,
              ": expected bias to have the dtype of input (", dtype_name(input.dtype()),
              "), but got ", dtype_name(bias.dtype()));
  EMBER_CHECK_AS(NotImplementedError, input.dtype() != kBool, op, ": not implemented for dtype bool");
  EMBER_CHECK(groups > 0, op, ": non-positive groups is not supported");
  EMBER_CHECK(weight.size(0) % groups == 0, op, ": Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", shape_str(weight.sizes()), " instead");
  int64_t channels = input.size(input.dim() - nd - 1);
  int64_t expected = transposed ? weight.size(0) : weight.size(1) * groups;
  EMBER_CHECK(channels == expected, op, ": Given ",
              transposed ? "transposed=1" : detail::str("groups=", groups), ", weight of size ",
              shape_str(weight.sizes()), ", expected input", shape_str(input.sizes()), " to have ",
              expected, " channels, but got ", channels, " channels instead");
  int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), op, ": Given ",
              transposed ? "transposed=1, " : "", "weight of size ", shape_str(weight.sizes()),
              ", expected bias to be 1-dimensional with ", out_channels,
              " elements, but got bias of size ", shape_str(bias.defined() ? bias.sizes() : DimVector{}),
              " instead");
}

// conv1d and conv2d: checks, padding modes, then one conv2d dispatch.
Tensor conv_nd(const char* op, int64_t nd, const Tensor& input, const Tensor& weight,
               const Tensor& bias, const IntList& stride, const ConvPadding& padding,
               const IntList& dilation, int64_t groups) {
  check_conv(op, nd, input, weight, bias, groups, false);
  DimVector st = per_dim(op, "stride", stride, nd), dil = per_dim(op, "dilation", dilation, nd);
  EMBER_CHECK(all_positive(st), op, ": non-positive stride is not supported");
  EMBER_CHECK(all_positive(dil), op, ": dilation should be greater than zero, but got ",
              shape_str(dil));
  bool batched = input.dim() == nd + 2;
  Tensor x = batched ? input : input.unsqueeze(0);
  DimVector pad(nd, 0), extra(nd, 0);
  if (padding.mode.empty()) {
    pad = per_dim(op, "padding", padding.sizes, nd);
    EMBER_CHECK(all_non_negative(pad), op, ": negative padding is not supported");
  } else if (padding.mode == "same") {
    for (int64_t s : st)
      EMBER_CHECK(s == 1, op, ": padding='same' is not supported for strided convolutions");
    // An odd total padding puts the extra zero at the end, as PyTorch does.
    for (int64_t d = 0; d < nd; ++d) {
      int64_t total = dil[d] * (weight.size(2 + d) - 1);
      pad[d] = total / 2;
      extra[d] = total - 2 * pad[d];
    }
  } else {
    EMBER_CHECK(padding.mode == "valid", op, ": Invalid padding string: '", padding.mode,
                "' (expected 'valid' or 'same')");
  }
  DimVector padded(nd), kernel(nd);
  bool fits = true;
  for (int64_t d = 0; d < nd; ++d) {
    padded[d] = x.size(2 + d) + 2 * pad[d] + extra[d];
    kernel[d] = dil[d] * (weight.size(2 + d) - 1) + 1;
    fits = fits && padded[d] >= kernel[d];
  }
  EMBER_CHECK(fits, op, ": Calculated padded input size per channel: (", sizes_x(padded),
              "). Kernel size: (", sizes_x(kernel),
              "). Kernel size can't be greater than actual input size");
  // The extra zero of an odd "same" padding: pad both ends by the larger half
  // and drop the first output (kept differentiable: the rest is a view).
  DimVector in_size(nd, 0);
  for (int64_t d = 0; d < nd; ++d) {
    in_size[d] = x.size(2 + d);
    pad[d] += extra[d];
  }
  Tensor w = weight;
  if (nd == 1) {  // a conv2d over a height of 1
    x = x.unsqueeze(2);
    w = weight.unsqueeze(2);
    st = {1, st[0]};
    pad = {0, pad[0]};
    dil = {1, dil[0]};
  }
  OpCall call(opid::conv2d, {x, w, bias},
              Conv2dArgs{.stride = st, .padding = pad, .dilation = dil, .groups = groups}.attrs());
  Tensor out = dispatch_one(call);
  bool trimmed = false;
  for (int64_t d = 0; d < nd; ++d)
    if (extra[d]) {
      out = out.narrow(4 - nd + d, extra[d], in_size[d]);
      trimmed = true;
    }
  if (trimmed) out = out.contiguous();
  if (nd == 1) out = out.squeeze(2);
  return batched ? out : out.squeeze(0);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const ConvPadding& padding, const IntList& dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const ConvPadding& padding, const IntList& dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const IntList& stride, const IntList& padding,
                        const IntList& output_padding, int64_t groups, const IntList& dilation) {
  const char* op = "conv_transpose2d";
  check_conv(op, 2, input, weight, bias, groups, true);
  DimVector st = per_dim(op, "stride", stride, 2), pad = per_dim(op, "padding", padding, 2),
            opad = per_dim(op, "output_padding", output_padding, 2),
            dil = per_dim(op, "dilation", dilation, 2);
  EMBER_CHECK(all_positive(st), op, ": non-positive stride is not supported");
  EMBER_CHECK(all_non_negative(pad), op, ": negative padding is not supported");
  EMBER_CHECK(all_positive(dil), op, ": dilation should be greater than zero, but got ",
              shape_str(dil));
  EMBER_CHECK(all_non_negative(opad), op, ": negative output_padding is not supported");
  EMBER_CHECK((opad[0] < st[0] || opad[0] < dil[0]) && (opad[1] < st[1] || opad[1] < dil[1]), op,
              ": output padding must be smaller than either stride or dilation, but got "
              "output_padding_height: ", opad[0], " output_padding_width: ", opad[1],
              " stride_height: ", st[0], " stride_width: ", st[1], " dilation_height: ", dil[0],
              " dilation_width: ", dil[1]);
  bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  DimVector in{x.size(2), x.size(3)}, out(2);
  for (int d = 0; d < 2; ++d)
    out[d] = (in[d] - 1) * st[d] - 2 * pad[d] + dil[d] * (weight.size(2 + d) - 1) + opad[d] + 1;
  EMBER_CHECK(out[0] > 0 && out[1] > 0, op, ": Given input size per channel: (", sizes_x(in),
              "). Calculated output size per channel: (", sizes_x(out), "). Output size is too small");
  OpCall call(opid::conv_transpose2d, {x, weight, bias},
              ConvTranspose2dArgs{
                  .stride = st, .padding = pad, .output_padding = opad, .groups = groups, .dilation = dil}
                  .attrs());
  Tensor y = dispatch_one(call);
  return batched ? y : y.squeeze(0);
}

}  // namespace ember
