// The losses of torch.nn.functional that are composites of ember ops (KL divergence,
// margin and embedding losses, Poisson / Gaussian NLL): each follows ATen's formula
// (or torch.nn.functional's Python where the loss is written there), so values,
// gradients and error types match PyTorch's.
#include <cmath>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/ops/factories.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember::nn::functional {

namespace {

Tensor reduce_loss(const Tensor& loss, const std::string& reduction) {
  switch (reduction_from_string(reduction)) {
    case Reduction::Mean: return loss.mean();
    case Reduction::Sum: return loss.sum();
    default: return loss;
  }
}

// torch.xlogy(x, x): 0 where x == 0 (with a zero gradient there), x * log(x) elsewhere.
Tensor xlogx(const Tensor& x) { return x * where(x.eq(0), 1.0, x).log(); }

}  // namespace

Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
  bool batchmean = reduction == "batchmean";
  if (!batchmean) reduction_from_string(reduction);  // ValueError for an unknown string
  Tensor loss = log_target ? target.exp() * (target - input) : xlogx(target) - target * input;
  if (batchmean) {
    Tensor total = loss.sum();
    return input.dim() == 0 ? total : total / static_cast<double>(input.size(0));
  }
  return reduce_loss(loss, reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  reduction_from_string(reduction);
  return reduce_loss((input.neg() * target).exp().log1p(), reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             const std::string& reduction) {
  reduction_from_string(reduction);
  int64_t td = target.dim();
  EMBER_CHECK(td == 0 || td == 1, "0D or 1D target tensor expected, multi-target not supported");
  if (td == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2,
                "1D target tensor expects 2D input tensors, but found inputs with sizes ", shape_str(input1.sizes()),
                " and ", shape_str(input2.sizes()), ".");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1,
                "0D target tensor expects 1D input tensors, but found inputs with sizes ", shape_str(input1.sizes()),
                " and ", shape_str(input2.sizes()), ".");
  }
  constexpr double kEps = 1e-12;  // ATen's EPSILON
  Tensor prod = (input1 * input2).sum(td);
  Tensor mag1 = (input1 * input1).sum(td) + kEps;
  Tensor mag2 = (input2 * input2).sum(td) + kEps;
  Tensor cos = prod / (mag1 * mag2).sqrt();
  Tensor zeros = zeros_like(cos);
  Tensor pos = where(target.eq(1), cos.neg() + 1.0, zeros);
  Tensor neg = where(target.eq(-1), clamp_min(cos - margin, 0.0), zeros);
  return reduce_loss(pos + neg, reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           const std::string& reduction) {
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: ",
              shape_str(input1.sizes()), ", input2: ", shape_str(input2.sizes()), ", target: ", shape_str(target.sizes()), " ");
  reduction_from_string(reduction);
  return reduce_loss(clamp_min(target.neg() * (input1 - input2) + margin, 0.0), reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin,
                            const std::string& reduction) {
  reduction_from_string(reduction);
  Tensor zeros = zeros_like(input);
  Tensor margin_part = where(target.ne(1), clamp_min(input.neg() + margin, 0.0), zeros);
  Tensor self_part = where(target.ne(-1), input, zeros);
  return reduce_loss(margin_part + self_part, reduction);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        const std::string& reduction) {
  reduction_from_string(reduction);
  Tensor loss = log_input ? input.exp() - target * input : input - target * (input + eps).log();
  if (full) {
    // Stirling's approximation of log(target!), only where target > 1.
    Tensor stirling = target * target.log() - target + (target * (2 * M_PI)).log() * 0.5;
    loss = loss + stirling.masked_fill(target.le(1), 0.0);
  }
  return reduce_loss(loss, reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full, double eps,
                         const std::string& reduction) {
  EMBER_CHECK_VALUE(!var.lt(0).any().item<bool>(), "var has negative entry/entries");
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const auto& in = input.sizes();
    const auto& vs = var.sizes();
    int64_t mismatched = 0;  // torch's rule: the sizes of var where they differ sum to 1
    if (in.size() == vs.size())
      for (size_t i = 0; i < in.size(); ++i) mismatched += in[i] != vs[i] ? vs[i] : 0;
    if (!in.empty() && DimVector(in.begin(), in.end() - 1) == vs) {
      v = var.unsqueeze(-1);  // homoscedastic: one variance per sample
    } else if (!(in.size() == vs.size() && mismatched == 1)) {
      throw ValueError("var is of incorrect size");
    }
  }
  EMBER_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction, " is not valid");
  // torch clamps a clone of var in place under no_grad: the gradient passes as if unclamped.
  Tensor clamped;
  {
    NoGradGuard no_grad;
    clamped = clamp_min(v, eps) - v;
  }
  v = v + clamped;
  Tensor loss = (v.log() + (input - target).square() / v) * 0.5;
  if (full) loss = loss + 0.5 * std::log(2 * M_PI);
  return reduce_loss(loss, reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, const std::string& reduction) {
  int64_t a = anchor.dim(), pd = positive.dim(), n = negative.dim();
  EMBER_CHECK(a == pd && pd == n,
              "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
              "but got: anchor ", a, "D, positive ", pd, "D, and negative ", n, "D inputs");
  reduction_from_string(reduction);
  EMBER_CHECK_VALUE(margin > 0, "margin must be greater than 0, got ", margin);
  Tensor dist_pos = pairwise_distance(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps));
  return reduce_loss(clamp_min(dist_pos - dist_neg + margin, 0.0), reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   const std::string& reduction) {
  // log(sigmoid(x)) = -softplus(-x), stable for large |x|.
  Tensor loss = target * softplus(input.neg()) + (target.neg() + 1.0) * softplus(input);
  if (weight.defined()) loss = loss * weight;
  int64_t class_dim = input.dim() - 1;
  loss = loss.sum(class_dim) / static_cast<double>(input.size(class_dim));
  EMBER_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction, " is not valid");
  return reduce_loss(loss, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin,
                         const Tensor& weight, const std::string& reduction) {
  EMBER_CHECK_VALUE(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  if (weight.defined()) EMBER_CHECK_VALUE(weight.dim() <= 1, "weight must be one-dimensional");
  reduction_from_string(reduction);
  int64_t nd = input.dim();
  EMBER_CHECK((nd == 2 && input.size(1) != 0) || (nd == 1 && input.size(0) != 0) || nd == 0,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", shape_str(input.sizes()));
  int64_t nframe = nd <= 1 ? 1 : input.size(0);
  int64_t dim = nd == 0 ? 1 : input.size(nd - 1);
  EMBER_CHECK(target.dim() <= 1 && target.numel() == nframe,
              "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
              "(batch size). Expected target size [", nframe, "], but got ", shape_str(target.sizes()), ".");
  EMBER_CHECK(target.dtype() == DType::Int64, "expected scalar type Long but found ",
              scalar_type_name(target.dtype()));
  Tensor x = input.reshape({nframe, dim});
  Tensor t = target.reshape({nframe, 1});
  EMBER_CHECK(!(t.lt(0).any().item<bool>() || t.ge(dim).any().item<bool>()), "target out of range");
  Tensor z = clamp_min(x - gather(x, 1, t) + margin, 0.0);
  if (p == 2) z = z * z;
  if (weight.defined()) z = z * index_select(weight.reshape({-1}), 0, t.reshape({-1})).unsqueeze(1);
  // The target's own class does not count.
  z = z.masked_fill(one_hot(t.reshape({-1}), dim).to(DType::Bool), 0.0);
  Tensor loss = z.sum(1) / static_cast<double>(dim);
  if (reduction_from_string(reduction) == Reduction::None) {
    return nd <= 1 ? loss.reshape(IntList(target.sizes().begin(), target.sizes().end())) : loss;
  }
  return reduce_loss(loss, reduction);
}

}  // namespace ember::nn::functional
