// Invokers of the nn group (lib/dispatch/schema/nn.toml): normalization, dropout,
// embedding, padding, resampling and losses, each run through a public
// function of include/ember/ops/nn.h so its checks guard nodes read from a
// model file. Optional tensor inputs left out are undefined tensors (None).
//
// The norms and dropout have several outputs (y plus saved statistics, or y
// and the mask): their invokers call the native_* functions, the lowest public
// level that both checks the arguments and returns every output in the
// OpCall's order (layer_norm's and group_norm's invokers are generated from
// their rows, function = "native_..."). batch_norm() and group_norm() return y
// only; their one extra check, "more than 1 value per channel / group", is F.*'s
// ValueError on the Python call and was passed when the node was traced. Also
// generated from their rows: one_hot, pad, lstm_cell_fused, gru_cell_fused.
#include "ember/ops/nn.h"
#include "ember/ops/rnn.h"
#include "jit/invokers/invoke_util.h"
#include "dispatch/op_ids/nn.h"

namespace ember::jit {

namespace {

// A `reduction` attr (an int: ember::Reduction) as the public functions' string.
std::string reduction_at(const InvokeArgs& a, size_t i) {
  switch (a.integer(i)) {
    case static_cast<int64_t>(Reduction::None): return "none";
    case static_cast<int64_t>(Reduction::Mean): return "mean";
    case static_cast<int64_t>(Reduction::Sum): return "sum";
  }
  a.fail(detail::str("attribute ", i, " (reduction) must be 0 (none), 1 (mean) or 2 (sum), got ",
                     a.integer(i)));
}

}  // namespace

// ---- normalization ------------------------------------------------------------------------------
// in: input, running_mean, running_var, weight, bias; attrs: training, momentum, eps.
// out: y, save_mean, save_invstd. Training updates the running stats in place,
// as the eager call does (they are the module's buffers).
EMBER_REGISTER_INVOKER(batch_norm, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return as_outputs(native_batch_norm(a.tensor(0), a.opt_tensor(3), a.opt_tensor(4),
                                      a.opt_tensor(1), a.opt_tensor(2), a.flag(0), a.real(1),
                                      a.real(2)));
});
// ---- dropout, embedding, resampling -------------------------------------------------------------
// in: input; attr: p. out: y, mask. Only training-mode dropout is recorded (in
// eval mode, or with p = 0, F.dropout returns its input and dispatches
// nothing). Each run draws a fresh mask from the default generator. The
// in-place form (F.dropout(x, inplace=True)) writes y into x.
EMBER_REGISTER_INVOKER(dropout, [](const InvokeArgs& a) -> std::vector<Tensor> {
  const bool in_place = !a.node().preset.empty();
  Tensor self = in_place ? inplace_self(a) : Tensor();
  auto [y, mask] = native_dropout(a.tensor(0), a.real(0), /*train=*/true);
  if (!in_place) return {y, mask};
  self.copy_(y);
  return {self, mask};
});
// in: weight [V, D], indices; attr: padding_idx (int or None, made non-negative).
EMBER_REGISTER_INVOKER(embedding, [](const InvokeArgs& a) -> std::vector<Tensor> {
  // scale_grad_by_freq (attr 1) is absent from model files written before it was recorded.
  return {embedding(a.tensor(1), a.tensor(0), a.opt_integer(0), a.num_attrs() > 1 && a.flag(1))};
});
// in: input [N, C, *spatial]; attrs: output sizes, mode ("nearest" | "linear"),
// align_corners, then one scale per spatial dim: all None when the call gave a
// size (or recompute_scale_factor=True), all doubles when it gave scale_factor.
EMBER_REGISTER_INVOKER(interpolate, [](const InvokeArgs& a) -> std::vector<Tensor> {
  const Tensor& input = a.tensor(0);
  const std::string& mode = a.string(1);
  if (mode != "nearest" && mode != "linear")
    a.fail("attribute 1 (mode) must be 'nearest' or 'linear', got '" + mode + "'");
  const size_t spatial = input.dim() >= 2 ? static_cast<size_t>(input.dim() - 2) : 0;
  if (a.num_attrs() != 3 + spatial)
    a.fail(detail::str("expected 3 attributes and one scale per spatial dim (", 3 + spatial,
                       " in all) for an input of ", input.dim(), " dims, got ", a.num_attrs()));
  size_t given = 0;
  std::vector<double> scales;
  for (size_t d = 0; d < spatial; ++d)
    if (!a.is_none(3 + d)) {
      ++given;
      scales.push_back(a.real(3 + d));
    }
  if (given != 0 && given != spatial)
    a.fail("the scales must be all None (a size was given) or all numbers (scale_factor)");
  // The public modes name the rank: "linear" is bilinear for 4-d, trilinear for 5-d.
  const bool nearest = mode == "nearest";
  const std::string public_mode = nearest              ? "nearest"
                                  : input.dim() == 4   ? "bilinear"
                                  : input.dim() == 5   ? "trilinear"
                                                       : "linear";
  // align_corners must stay None for nearest (interpolate rejects any value there).
  std::optional<bool> align = nearest ? std::nullopt : std::optional<bool>(a.flag(2));
  if (given == 0) {
    return {interpolate(input, as_list(a.ints(0)), std::nullopt, public_mode, align)};
  }
  return {interpolate(input, std::nullopt, scales, public_mode, align, /*recompute=*/false)};
});

// ---- losses -------------------------------------------------------------------------------------
// in: input (logits), target, weight?; attrs: ignore_index, reduction, label_smoothing.
EMBER_REGISTER_INVOKER(cross_entropy, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {cross_entropy(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.integer(0),
                        reduction_at(a, 1), a.real(2))};
});
// in: input (log-probs), target, weight?; attrs: ignore_index, reduction.
EMBER_REGISTER_INVOKER(nll_loss, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {nll_loss(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.integer(0), reduction_at(a, 1))};
});
// in: input, target (already cast to their common dtype); attr: reduction.
EMBER_REGISTER_INVOKER(mse_loss, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {mse_loss(a.tensor(0), a.tensor(1), reduction_at(a, 0))};
});
EMBER_REGISTER_INVOKER(l1_loss, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {l1_loss(a.tensor(0), a.tensor(1), reduction_at(a, 0))};
});
// attrs: reduction, beta.
EMBER_REGISTER_INVOKER(smooth_l1_loss, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {smooth_l1_loss(a.tensor(0), a.tensor(1), reduction_at(a, 0), a.real(1))};
});
// attrs: reduction, delta.
EMBER_REGISTER_INVOKER(huber_loss, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {huber_loss(a.tensor(0), a.tensor(1), reduction_at(a, 0), a.real(1))};
});
// in: input (probabilities), target, weight?; attr: reduction.
EMBER_REGISTER_INVOKER(binary_cross_entropy, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {binary_cross_entropy(a.tensor(0), a.tensor(1), a.opt_tensor(2), reduction_at(a, 0))};
});
// in: input (logits), target, weight?, pos_weight?; attr: reduction.
EMBER_REGISTER_INVOKER(binary_cross_entropy_with_logits, [](const InvokeArgs& a) -> std::vector<Tensor> {
  return {binary_cross_entropy_with_logits(a.tensor(0), a.tensor(1), a.opt_tensor(2),
                                           reduction_at(a, 0), a.opt_tensor(3))};
});

}  // namespace ember::jit
