// Random sampling (torch's in-place samplers, torch.bernoulli, torch.normal).
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

}  // namespace ember
