// Samplers built from uniform draws: torch.multinomial and the in-place samplers of the
// continuous and discrete distributions (exponential_, cauchy_, log_normal_,
// geometric_). Each checks its arguments first, draws into a new tensor, transforms it
// with ordinary ops and writes self last, so a bad call leaves self as it was. Being
// compositions of the uniform/normal kernels, they run on every device that has those.
#include <cmath>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/statistics.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

// Uniform draws in [0, 1) shaped like self, in self's dtype when it is floating and
// float64 otherwise (an integer self receives the rounded result of a float64 draw).
Tensor uniform_like(const Tensor& self, Generator* generator) {
  DType dt = is_floating(self.dtype()) ? self.dtype() : kFloat64;
  Tensor u = empty(self.sizes(), TensorOptions(dt).device(self.device()));
  return uniform_(u, 0, 1, generator);
}

// The continuous samplers' dtype rule, worded as PyTorch words it.
void check_continuous(const Tensor& self, const char* distribution) {
  EMBER_CHECK(self.defined(), distribution, ": undefined tensor");
  EMBER_CHECK(is_floating(self.dtype()), distribution,
              " distribution is a continuous probability distribution. dtype must be a "
              "floating point but you specified ", dtype_name(self.dtype()));
}

}  // namespace

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement,
                   Generator* generator) {
  EMBER_CHECK(input.defined(), "multinomial: undefined tensor");
  EMBER_CHECK(is_floating(input.dtype()),
              "multinomial only supports floating-point dtypes for input, got: ",
              dtype_name(input.dtype()));
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t categories = input.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(categories <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  // Rows of weights, in float64 so that cumulative sums of many small weights stay exact
  // enough; weights are not probabilities (each row is normalized by its sum).
  Tensor weights = (input.dim() == 1 ? input.unsqueeze(0) : input).detach().to(kFloat64);
  const int64_t rows = weights.size(0);
  auto shaped = [&](Tensor samples) { return input.dim() == 1 ? samples.squeeze(0) : samples; };
  if (rows == 0) return shaped(empty(IntList{0, num_samples}, TensorOptions(kInt64).device(input.device())));
  EMBER_CHECK(all(logical_and(isfinite(weights), ge(weights, 0))).item<bool>(),
              "probability tensor contains either `inf`, `nan` or element < 0");
  EMBER_CHECK(all(gt(sum(weights, IntList{-1}), 0)).item<bool>(),
              "invalid multinomial distribution (sum of probabilities <= 0)");
  if (!replacement) {
    // The exponential race: with E ~ Exp(1) per category, the categories ordered by
    // weight / E descending are distributed as draws without replacement in draw order;
    // zero weights come last, as in PyTorch.
    Tensor e = empty(weights.sizes(), TensorOptions(kFloat64).device(input.device()));
    exponential_(e, 1, generator);
    return shaped(std::get<1>(topk(div(weights, e), num_samples, -1, true, true)));
  }
  // Inverse transform: u * total falls into category j where cdf[j-1] <= u * total <
  // cdf[j]; a zero weight spans an empty interval and is never drawn. Rounding can put
  // u * total at the end of the row, which is clamped to the last positive category.
  Tensor cdf = cumsum(weights, -1);
  Tensor total = narrow(cdf, -1, categories - 1, 1);
  Tensor u = mul(rand(IntList{rows, num_samples}, generator, TensorOptions(kFloat64).device(input.device())), total);
  Tensor drawn = searchsorted(cdf, u, false, true);
  Tensor last_positive = rsub(argmax(flip(gt(weights, 0), IntList{-1}).to(kInt8), -1, true), categories - 1);
  return shaped(minimum(drawn, last_positive));
}

Tensor& exponential_(Tensor& self, double lambd, Generator* generator) {
  check_continuous(self, "Exponential");
  EMBER_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  // -log(1 - u) / lambda with u in [0, 1): finite, and 0 only when u is.
  Tensor u = uniform_like(self, generator);
  return self.copy_(div(neg(log1p(neg(u))), lambd));
}

Tensor& cauchy_(Tensor& self, double median, double sigma, Generator* generator) {
  check_continuous(self, "Cauchy");
  EMBER_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  Tensor u = uniform_like(self, generator);
  return self.copy_(add(mul(tan(mul(sub(u, 0.5), M_PI)), sigma), median));
}

Tensor& log_normal_(Tensor& self, double mean, double std, Generator* generator) {
  EMBER_CHECK(self.defined(), "log_normal_: undefined tensor");
  // PyTorch has no integer kernel here (where the others explain the dtype rule).
  if (!is_floating(self.dtype()))
    throw NotImplementedError(detail::str("\"log_normal_\" not implemented for '",
                                          dtype_name(self.dtype()), "'"));
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  Tensor z = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  normal_(z, mean, std, generator);
  return self.copy_(exp(z));
}

Tensor& geometric_(Tensor& self, double p, Generator* generator) {
  EMBER_CHECK(self.defined(), "geometric_: undefined tensor");
  EMBER_CHECK_TYPE(self.dtype() != kBool, "geometric_: not implemented for 'Bool'");
  EMBER_CHECK(p > 0.0 && p < 1.0, "geometric_ expects p to be in (0, 1), but got p=", p);
  // The number of Bernoulli(p) trials up to the first success: ceil(log(v) / log(1 - p))
  // with v = 1 - u in (0, 1]; at least 1.
  Tensor v = rsub(uniform_like(self, generator), 1);
  return self.copy_(clamp_min(ceil(div(log(v), std::log1p(-p))), 1));
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement, Generator* g) const {
  return ember::multinomial(*this, num_samples, replacement, g);
}
Tensor& Tensor::exponential_(double lambd, Generator* g) { return ember::exponential_(*this, lambd, g); }
Tensor& Tensor::cauchy_(double median, double sigma, Generator* g) {
  return ember::cauchy_(*this, median, sigma, g);
}
Tensor& Tensor::log_normal_(double mean, double std, Generator* g) {
  return ember::log_normal_(*this, mean, std, g);
}
Tensor& Tensor::geometric_(double p, Generator* g) { return ember::geometric_(*this, p, g); }

}  // namespace ember
