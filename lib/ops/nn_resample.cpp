// pad and interpolate: argument checks (PyTorch's rules, messages and
// exception kinds), output sizes, then one dispatched op each (kernels:
// lib/cpu/pad.cpp, lib/cpu/interpolate.cpp).
#include <cmath>

#include "dispatch/args/nn.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn.h"
#include "dispatch/op_ids/reduce.h"
#include "ember/ops/nn.h"
#include "ops/nn_checks.h"

namespace ember {

using namespace nn_checks;

namespace {

// Non-constant modes pad the last 1, 2 or 3 dims of a (batched) tensor only.
void check_non_constant_pad(const Tensor& input, const IntList& pad, const std::string& mode) {
  const int64_t k = static_cast<int64_t>(pad.size()) / 2, nd = input.dim();
  if (!(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2)))
    throw NotImplementedError(detail::str(
        "pad: padding size ", pad.size(), " is not supported for ", nd, "D input tensor with mode '",
        mode, "'; supported: 2D or 3D input with padding size 2, 3D or 4D input with padding size "
        "4, 4D or 5D input with padding size 6"));
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, size = input.size(d), left = pad[2 * i], right = pad[2 * i + 1];
    const int64_t out = size + left + right;
    if (mode == "reflect")
      EMBER_CHECK(left < size && right < size, "pad: padding size should be less than the "
                  "corresponding input dimension for mode 'reflect', but got padding (", left, ", ",
                  right, ") at dimension ", d, " of input ", shape_str(input.sizes()));
    if (mode == "circular") {
      // Negative pads crop first; the positive ones then wrap around what is left, once.
      const int64_t kept = size + std::min<int64_t>(left, 0) + std::min<int64_t>(right, 0);
      EMBER_CHECK(out == 0 || (left <= kept && right <= kept), "pad: padding (", left, ", ", right,
                  ") at dimension ", d, " of input ", shape_str(input.sizes()),
                  " causes wrapping around more than once with mode 'circular'");
    } else {
      EMBER_CHECK(size > 0, "pad: mode '", mode, "' needs a non-empty dimension ", d, ", got input ",
                  shape_str(input.sizes()));
      EMBER_CHECK(out >= 1, "pad: the padding (", left, ", ", right, ") gives dimension ", d,
                  " of input ", shape_str(input.sizes()), " the size ", out, "; mode '", mode,
                  "' needs at least 1");
    }
  }
}

}  // namespace

Tensor pad(const Tensor& input, const IntList& pad, const std::string& mode,
           std::optional<Scalar> value) {
  check_defined(input, "pad", "input");
  EMBER_CHECK(pad.size() % 2 == 0, "pad: padding length must be divisible by 2, got ", pad.size());
  EMBER_CHECK(static_cast<int64_t>(pad.size()) / 2 <= input.dim(), "pad: padding length should be "
              "less than or equal to two times the input dimension but got padding length ",
              pad.size(), " and input of dimension ", input.dim());
  // Bounded so that size + left + right cannot overflow, whatever a caller or a model file passes.
  for (int64_t p : pad)
    EMBER_CHECK(p >= -(int64_t(1) << 48) && p <= (int64_t(1) << 48), "pad: padding values must be "
                "at most 2^48 in magnitude, got ", shape_str(DimVector(pad.begin(), pad.end())));
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    throw NotImplementedError("pad: unrecognised padding mode " + mode +
                              " (expected constant, reflect, replicate or circular)");
  if (mode != "constant") {
    EMBER_CHECK(!value || value->to_double() == 0.0, "pad: padding mode \"", mode,
                "\" doesn't take in value argument");
    check_non_constant_pad(input, pad, mode);
  }
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = input.dim() - 1 - static_cast<int64_t>(i);
    const int64_t out = input.size(d) + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(out >= 0, "pad: the padding (", pad[2 * i], ", ", pad[2 * i + 1],
                ") gives dimension ", d, " of input ", shape_str(input.sizes()),
                " the negative size ", out);
  }
  OpCall call(opid::pad, {input},
              PadArgs{.pad = DimVector(pad.begin(), pad.end()),
                      .mode = mode,
                      .value = value.value_or(Scalar(0))}
                  .attrs());
  return dispatch_one(call);
}

namespace {

const char* const kInterpModes = "nearest | linear | bilinear | trilinear";

// The linear mode that fits an input of rank `dim` (3: linear, 4: bilinear, 5: trilinear).
const char* linear_mode_for(int64_t dim) {
  return dim == 3 ? "linear" : dim == 4 ? "bilinear" : "trilinear";
}

}  // namespace

Tensor interpolate(const Tensor& input, const std::optional<IntList>& size,
                   const std::optional<std::vector<double>>& scale_factor, const std::string& mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
  const char* op = "interpolate";
  check_defined(input, op, "input");
  const bool nearest = mode == "nearest";
  const bool linear = mode == "linear" || mode == "bilinear" || mode == "trilinear";
  if (mode == "bicubic" || mode == "area" || mode == "nearest-exact")
    throw NotImplementedError(detail::str(op, ": mode '", mode, "' is not supported (supported: ",
                                          kInterpModes, ")"));
  if ((!nearest && !linear) || input.dim() < 3 || input.dim() > 5)
    throw NotImplementedError(detail::str(
        op, ": only 3D, 4D and 5D input tensors are supported (got ", input.dim(),
        "D) for the modes: ", kInterpModes, " (got ", mode, ")"));
  EMBER_CHECK_VALUE(!(align_corners && nearest), op, ": align_corners option can only be set with "
                    "the interpolating modes: linear | bilinear | bicubic | trilinear");
  EMBER_CHECK_VALUE(!(size && scale_factor), op, ": only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(size || scale_factor, op, ": either size or scale_factor should be defined");
  if (linear && mode != linear_mode_for(input.dim()))
    throw NotImplementedError(detail::str(op, ": got ", input.dim(), "D input, but ", mode,
                                          " mode needs ", mode == "linear" ? 3 : mode == "bilinear" ? 4 : 5,
                                          "D input"));
  const bool dtype_ok = input.is_floating_point() || (nearest && input.dtype() == kUInt8);
  if (!dtype_ok)
    throw NotImplementedError(detail::str(op, ": mode '", mode, "' is not implemented for dtype ",
                                          dtype_name(input.dtype())));
  const int64_t spatial = input.dim() - 2;
  DimVector in_sizes(input.sizes().begin() + 2, input.sizes().end());
  const size_t given = size ? size->size() : scale_factor->size();
  EMBER_CHECK_VALUE(given == 1 || static_cast<int64_t>(given) == spatial, op, ": input and ",
                    size ? "output size" : "scale_factor", " must have the same number of spatial "
                    "dimensions, but got input with spatial dimensions of ", shape_str(in_sizes),
                    " and ", size ? "output size" : "scale_factor", " with ", given,
                    " values. Please provide input tensor in (N, C, d1, d2, ...,dK) format");
  DimVector out_sizes;
  SmallVector<std::optional<double>, 3> scales;
  for (int64_t d = 0; d < spatial; ++d) {
    const size_t i = given == 1 ? 0 : static_cast<size_t>(d);
    if (size) {
      out_sizes.push_back((*size)[i]);
      scales.push_back(std::nullopt);
    } else {
      const double s = (*scale_factor)[i];
      const double out = std::floor(static_cast<double>(in_sizes[d]) * s);
      // A NaN, infinite or huge size would make the cast to int64 undefined.
      EMBER_CHECK(std::abs(out) < 0x1p62, op, ": scale_factor ", s, " gives no valid output size "
                  "for the input size ", in_sizes[d]);
      out_sizes.push_back(static_cast<int64_t>(out));
      scales.push_back(recompute_scale_factor.value_or(false) ? std::nullopt : std::optional<double>(s));
    }
  }
  bool positive = true;
  for (int64_t d = 0; d < spatial; ++d) positive = positive && in_sizes[d] > 0 && out_sizes[d] > 0;
  EMBER_CHECK(positive, op, ": input and output sizes should be greater than 0, but got input ",
              shape_str(in_sizes), " and output ", shape_str(out_sizes));
  OpCall call(opid::interpolate, SmallVector<Tensor, 4>{input},
              InterpolateArgs{.output_size = out_sizes,
                              .mode = nearest ? "nearest" : "linear",
                              .align_corners = align_corners.value_or(false),
                              .scales = std::move(scales)}
                  .attrs());
  return dispatch_one(call);
}

}  // namespace ember
