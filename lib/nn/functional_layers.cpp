// Layer functionals that are composites of ember ops: channel / alpha dropout, pixel
// and channel shuffles, instance / local-response / RMS normalization, and
// unfold / fold (im2col / col2im as an index_select / index_add over the padded
// input, so both directions have gradients).
#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember::nn::functional {

namespace {

IntList to_ints(const DimVector& d) { return IntList(d.begin(), d.end()); }

void check_p(double p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
}

// ATen's _dropout_impl: plain or alpha dropout, elementwise or per feature map
// ([N, C, 1, ...] noise).
Tensor dropout_impl(const Tensor& input, double p, bool train, bool inplace, bool feature, bool alpha) {
  if (p == 0 || !train || input.numel() == 0) return input;
  if (feature) EMBER_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  Tensor self = input;
  if (p == 1) return inplace ? self.mul_(zeros({}, input.dtype())) : input * 0.0;
  IntList noise_shape = to_ints(input.sizes());
  if (feature)
    for (size_t i = 2; i < noise_shape.size(); ++i) noise_shape[i] = 1;
  Tensor noise = empty(noise_shape, TensorOptions().dtype(input.dtype()).device(input.device()));
  bernoulli_(noise, 1 - p);
  if (!alpha) {
    noise = noise / (1 - p);
    return inplace ? self.mul_(noise) : input * noise;
  }
  constexpr double kAlpha = 1.7580993408473766;  // SELU's alpha * scale
  double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor b = (noise - 1.0) * (kAlpha * a) + kAlpha * a * p;
  noise = noise * a;
  if (inplace) return self.mul_(noise).add_(b);
  return input * noise + b;
}

// dropout1d / dropout3d: an unbatched input gets a batch dim for the channel noise.
Tensor channel_dropout(const Tensor& input, double p, bool training, bool inplace, bool batched) {
  if (batched) return dropout_impl(input, p, training, inplace, true, false);
  return dropout_impl(input.unsqueeze(0), p, training, inplace, true, false).squeeze(0);
}

// A kernel/stride/... argument of one or two ints as two ints.
std::pair<int64_t, int64_t> pair_arg(const IntList& v, const char* op, const char* name) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, ": ", name, " must be an int or a pair of ints, got ",
              v.size(), " values");
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

struct Im2Col {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw, out_h, out_w, hp, wp;
};

// The flat positions in one padded [C, Hp, Wp] plane stack that im2col reads,
// in [C * kh * kw, L] order.
Tensor im2col_index(const Im2Col& g, int64_t channels, Device device) {
  std::vector<int64_t> idx;
  idx.reserve(static_cast<size_t>(channels * g.kh * g.kw * g.out_h * g.out_w));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j)
        for (int64_t oh = 0; oh < g.out_h; ++oh)
          for (int64_t ow = 0; ow < g.out_w; ++ow)
            idx.push_back(c * g.hp * g.wp + (oh * g.sh + i * g.dh) * g.wp + ow * g.sw + j * g.dw);
  return from_vector(idx, {static_cast<int64_t>(idx.size())}, TensorOptions().dtype(DType::Int64).device(device));
}

Im2Col im2col_geometry(const char* op, int64_t h, int64_t w, const IntList& kernel_size, const IntList& dilation,
                       const IntList& padding, const IntList& stride) {
  Im2Col g{};
  std::tie(g.kh, g.kw) = pair_arg(kernel_size, op, "kernel_size");
  std::tie(g.dh, g.dw) = pair_arg(dilation, op, "dilation");
  std::tie(g.ph, g.pw) = pair_arg(padding, op, "padding");
  std::tie(g.sh, g.sw) = pair_arg(stride, op, "stride");
  EMBER_CHECK(g.kh > 0 && g.kw > 0, "kernel size should be greater than zero, but got kernel_height: ", g.kh,
              " kernel_width: ", g.kw);
  EMBER_CHECK(g.dh > 0 && g.dw > 0, "dilation should be greater than zero, but got dilation_height: ", g.dh,
              " dilation_width: ", g.dw);
  EMBER_CHECK(g.ph >= 0 && g.pw >= 0, "padding should be non-negative, but got pad_height: ", g.ph,
              " pad_width: ", g.pw);
  EMBER_CHECK(g.sh > 0 && g.sw > 0, "stride should be greater than zero, but got stride_height: ", g.sh,
              " stride_width: ", g.sw);
  g.hp = h + 2 * g.ph;
  g.wp = w + 2 * g.pw;
  g.out_h = (g.hp - (g.dh * (g.kh - 1) + 1)) / g.sh + 1;
  g.out_w = (g.wp - (g.dw * (g.kw - 1) + 1)) / g.sw + 1;
  return g;
}

}  // namespace

Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  int64_t d = input.dim();
  EMBER_CHECK(d == 2 || d == 3, "dropout1d: Expected 2D or 3D input, but received a ", d,
              "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
              "spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  return channel_dropout(input, p, training, inplace, d == 3);
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  // torch treats a 3-d input as batched [N, C, L] (with a warning), so no unsqueeze here.
  return dropout_impl(input, p, training, inplace, true, false);
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return channel_dropout(input, p, training, inplace, input.dim() == 5);
}

Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return dropout_impl(input, p, training, inplace, false, true);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return dropout_impl(input, p, training, inplace, true, true);
}

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  int64_t d = input.dim();
  EMBER_CHECK(d >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ", d,
              " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  IntList batch(input.sizes().begin(), input.sizes().end() - 3);
  int64_t nb = static_cast<int64_t>(batch.size());
  IntList split = batch;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  IntList perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 3, nb + 1, nb + 4, nb + 2});
  IntList out = batch;
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return input.reshape(split).permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  int64_t d = input.dim();
  EMBER_CHECK(d >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ", d,
              " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=",
              h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=",
              w, " is not divisible by ", r);
  IntList batch(input.sizes().begin(), input.sizes().end() - 3);
  int64_t nb = static_cast<int64_t>(batch.size());
  IntList split = batch;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  IntList perm;
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 2, nb + 4, nb + 1, nb + 3});
  IntList out = batch;
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return input.reshape(split).permute(perm).reshape(out);
}

Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  EMBER_CHECK(input.dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with sizes ",
              shape_str(input.sizes()));
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  int64_t c = input.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ",
              groups, " groups.");
  IntList split = to_ints(input.sizes());
  split[1] = c / groups;
  split.insert(split.begin() + 1, groups);
  return input.reshape(split).transpose(1, 2).reshape(to_ints(input.sizes()));
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  EMBER_CHECK(input.dim() >= 2, "instance_norm: expected an input of at least 2 dims [N, C, *], got ",
              shape_str(input.sizes()));
  int64_t spatial = 1;
  IntList dims;
  for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d), dims.push_back(d);
  if (use_input_stats)
    EMBER_CHECK_VALUE(spatial != 1, "Expected more than 1 spatial element when training, got input size ",
                      shape_str(input.sizes()));
  IntList stat_shape(static_cast<size_t>(input.dim()), 1);
  stat_shape[1] = input.size(1);
  Tensor mean, var;
  if (use_input_stats) {
    mean = input.mean(dims, /*keepdim=*/true);
    var = (input - mean).square().mean(dims, /*keepdim=*/true);
    if (running_mean.defined() || running_var.defined()) {
      NoGradGuard no_grad;
      int64_t c = input.size(1);
      Tensor rm = running_mean, rv = running_var;
      if (rm.defined())
        rm.mul_(1 - momentum).add_(mean.reshape({-1, c}).mean(0).to(rm.dtype()) * momentum);
      if (rv.defined()) {
        Tensor unbiased = var.reshape({-1, c}) * (static_cast<double>(spatial) / std::max<int64_t>(spatial - 1, 1));
        rv.mul_(1 - momentum).add_(unbiased.mean(0).to(rv.dtype()) * momentum);
      }
    }
  } else {
    EMBER_CHECK(running_mean.defined() && running_var.defined(),
                "Expected running_mean and running_var to be defined when use_input_stats is false");
    mean = running_mean.reshape(stat_shape);
    var = running_var.reshape(stat_shape);
  }
  Tensor out = (input - mean) * (var + eps).rsqrt();
  if (weight.defined()) out = out * weight.reshape(stat_shape);
  if (bias.defined()) out = out + bias.reshape(stat_shape);
  return out;
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  int64_t d = input.dim();
  EMBER_CHECK_VALUE(d >= 3, "Expected 3D or higher dimensionality input (got ", d, " dimensions)");
  if (input.numel() == 0) return input;
  // The mean of squares over `size` neighbouring channels (zero-padded): avg_pool2d
  // over [N, 1, C, rest] with a (size, 1) window.
  int64_t n = input.size(0), c = input.size(1);
  Tensor div = input.square().reshape({n, 1, c, -1});
  div = pad(div, {0, 0, size / 2, (size - 1) / 2});
  div = avg_pool2d(div, {size, 1}, {1}).reshape(to_ints(input.sizes()));
  return input / (div * alpha + k).pow(beta);
}

Tensor rms_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight,
                std::optional<double> eps) {
  int64_t nd = static_cast<int64_t>(normalized_shape.size());
  bool ok = nd >= 1 && input.dim() >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.size(input.dim() - nd + i) == normalized_shape[i];
  auto shape_of = [](const IntList& s) { return shape_str(DimVector(s.begin(), s.end())); };
  EMBER_CHECK(nd >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
              "element, but got normalized_shape = ", shape_of(normalized_shape));
  if (weight.defined())
    EMBER_CHECK(to_ints(weight.sizes()) == normalized_shape, "Expected weight to be of same shape as "
                "normalized_shape, but got weight of shape ", shape_str(weight.sizes()),
                " and normalized_shape = ", shape_of(normalized_shape));
  if (!ok) {
    std::string s = shape_of(normalized_shape);
    throw Error(detail::str("Given normalized_shape=", s, ", expected input with shape [*", s.substr(1),
                            ", but got input of size", shape_str(input.sizes())));
  }
  double e = eps ? *eps
                 : input.dtype() == DType::Float64  ? std::numeric_limits<double>::epsilon()
                   : input.dtype() == DType::Float16  ? 0.0009765625
                   : input.dtype() == DType::BFloat16 ? 0.0078125
                                                      : static_cast<double>(std::numeric_limits<float>::epsilon());
  IntList dims;
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) dims.push_back(i);
  bool upcast = input.dtype() == DType::Float16 || input.dtype() == DType::BFloat16;
  Tensor x = upcast ? input.to(DType::Float32) : input;
  Tensor out = x * (x.square().mean(dims, /*keepdim=*/true) + e).rsqrt();
  if (upcast) out = out.to(input.dtype());
  if (weight.defined()) out = out * weight;
  return out;
}

Tensor unfold(const Tensor& input, const IntList& kernel_size, const IntList& dilation, const IntList& padding,
              const IntList& stride) {
  int64_t d = input.dim();
  // torch indexes dim 2 (of the unsqueezed input) first: IndexError for fewer dims.
  EMBER_CHECK_INDEX(d >= 3, "Dimension out of range (expected to be in range of [", -d, ", ", d - 1,
                    "], but got 2)");
  bool ok = (d == 3 || d == 4) && input.size(-3) != 0 && input.size(-2) != 0 && input.size(-1) != 0;
  EMBER_CHECK(ok, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: ", shape_str(input.sizes()));
  Tensor x = d == 3 ? input.unsqueeze(0) : input;
  int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  Im2Col g = im2col_geometry("unfold", h, w, kernel_size, dilation, padding, stride);
  EMBER_CHECK(g.out_h >= 1 && g.out_w >= 1, "Given input with spatial size (", h, ", ", w, "), kernel_size=(",
              g.kh, ", ", g.kw, "), dilation=(", g.dh, ", ", g.dw, "), padding=(", g.ph, ", ", g.pw,
              "), calculated shape of the array of sliding blocks as (", g.out_h, ", ", g.out_w,
              "), but its components must be at least one.");
  Tensor padded = (g.ph || g.pw) ? pad(x, {g.pw, g.pw, g.ph, g.ph}) : x;
  Tensor cols = index_select(padded.reshape({n, c * g.hp * g.wp}), 1, im2col_index(g, c, x.device()));
  Tensor out = cols.reshape({n, c * g.kh * g.kw, g.out_h * g.out_w});
  return d == 3 ? out.squeeze(0) : out;
}

Tensor fold(const Tensor& input, const IntList& output_size, const IntList& kernel_size, const IntList& dilation,
            const IntList& padding, const IntList& stride) {
  int64_t d = input.dim();
  bool ok = (d == 2 || d == 3) && input.size(-2) != 0 && input.size(-1) != 0;
  EMBER_CHECK(ok, "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: ", shape_str(input.sizes()));
  Tensor x = d == 2 ? input.unsqueeze(0) : input;
  auto [h, w] = pair_arg(output_size, "fold", "output_size");
  Im2Col g = im2col_geometry("fold", h, w, kernel_size, dilation, padding, stride);
  int64_t n = x.size(0), ck = x.size(1), l = x.size(2);
  EMBER_CHECK(ck % (g.kh * g.kw) == 0, "Expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size, but got input.size(1)=", ck, " and kernel_size=(", g.kh, ", ", g.kw, ").");
  EMBER_CHECK(g.out_h >= 1 && g.out_w >= 1 && l == g.out_h * g.out_w, "Given output_size=(", h, ", ", w,
              "), kernel_size=(", g.kh, ", ", g.kw, "), dilation=(", g.dh, ", ", g.dw, "), padding=(", g.ph,
              ", ", g.pw, "), stride=(", g.sh, ", ", g.sw, "), expected size of input's dimension 2 to match the "
              "calculated number of sliding blocks ", g.out_h, " * ", g.out_w, " = ", g.out_h * g.out_w,
              ", but got input.size(2)=", l, ".");
  int64_t c = ck / (g.kh * g.kw);
  Tensor planes = zeros({n, c * g.hp * g.wp}, TensorOptions().dtype(x.dtype()).device(x.device()));
  planes = index_add(planes, 1, im2col_index(g, c, x.device()), x.reshape({n, ck * l}));
  Tensor out = planes.reshape({n, c, g.hp, g.wp}).narrow(2, g.ph, h).narrow(3, g.pw, w);
  return d == 2 ? out.squeeze(0) : out;
}

}  // namespace ember::nn::functional
