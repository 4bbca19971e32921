// Random sampling (torch's in-place samplers, torch.bernoulli, torch.normal,
// torch.multinomial).
// Every function takes an optional generator; nullptr draws from the default
// generator (see ember/generator.h). The factories rand, randn, randint and
// randperm are in ember/ops/factories.h.
#pragma once
#include <optional>

#include "ember/generator.h"
#include "ember/options.h"
#include "ember/tensor.h"

namespace ember {

// Uniform in [from, to).
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, Generator* generator = nullptr);
// Normal with the given mean and standard deviation (std >= 0).
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, Generator* generator = nullptr);
// Integers, uniformly: random_(): in [0, 2^mantissa] for a floating dtype and [0, max]
// for an integer one; random_(to): in [0, to); random_(from, to): in [from, to), where
// to = nullopt means up to the dtype's bound (as above). The bounds must fit the dtype.
Tensor& random_(Tensor& self, Generator* generator = nullptr);
Tensor& random_(Tensor& self, int64_t to, Generator* generator = nullptr);
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* generator = nullptr);
// (A literal 0 as the third argument is a null generator: random_(t, -5, 0) is
// random_(t, -5), which fails; write random_(t, -5, int64_t{0}).)
// 1 with probability p, else 0 (p in [0, 1]); a tensor p (broadcast to self) gives each
// element its own probability.
Tensor& bernoulli_(Tensor& self, double p = 0.5, Generator* generator = nullptr);
Tensor& bernoulli_(Tensor& self, const Tensor& p, Generator* generator = nullptr);

// A tensor like input with 1 where a uniform draw falls below input's element (or p), else 0.
Tensor bernoulli(const Tensor& input, Generator* generator = nullptr);
Tensor bernoulli(const Tensor& input, double p, Generator* generator = nullptr);
// Normal samples with elementwise means and standard deviations (broadcast together),
// or with scalar ones and the given size.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* generator = nullptr);
Tensor normal(const Tensor& mean, double std = 1, Generator* generator = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* generator = nullptr);
Tensor normal(double mean, double std, const IntList& size, Generator* generator = nullptr,
              TensorOptions options = {});

// ---- samplers built from uniform draws (lib/ops/random_distributions.cpp) ---------------
// torch.multinomial: num_samples category indices (int64) per row of input (1-d or 2-d
// non-negative weights, each row with a positive sum), drawn with or without replacement;
// without replacement, num_samples <= the number of categories.
Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement = false,
                   Generator* generator = nullptr);
// In place, from the distribution named (floating self, except geometric_):
// Exponential(lambd > 0); Cauchy(median, sigma > 0); exp of Normal(mean, std > 0);
// Geometric(0 < p < 1), the number of trials up to the first success (>= 1).
Tensor& exponential_(Tensor& self, double lambd = 1, Generator* generator = nullptr);
Tensor& cauchy_(Tensor& self, double median = 0, double sigma = 1, Generator* generator = nullptr);
Tensor& log_normal_(Tensor& self, double mean = 1, double std = 2, Generator* generator = nullptr);
Tensor& geometric_(Tensor& self, double p, Generator* generator = nullptr);

}  // namespace ember
