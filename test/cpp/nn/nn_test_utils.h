// Helpers shared by the nn tests.
#pragma once
#include <catch2/catch.hpp>

#include <vector>

#include "ember/ember.h"

namespace nn_test {

// The elements of t as doubles, in row-major order.
inline std::vector<double> values(const ember::Tensor& t) {
  ember::Tensor c = t.detach().to(ember::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

inline ember::Tensor tensor_of(std::vector<double> v, const ember::IntList& shape) {
  return ember::from_vector<double>(v, shape);
}

// Element-wise closeness of a tensor to expected values.
inline void check_close(const ember::Tensor& t, const std::vector<double>& expected, double tol = 1e-9) {
  std::vector<double> got = values(t);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).margin(tol));
}

}  // namespace nn_test
