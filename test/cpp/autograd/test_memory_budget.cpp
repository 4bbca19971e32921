// The memory budget from C++ (ember/memory_budget.h): the same gradients in less
// memory, evicting and recomputing activations; a clear error when it cannot fit.
#include <catch2/catch.hpp>

#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

// A deep tanh MLP's gradients and the peak of allocated bytes above the start.
struct Step {
  std::vector<Tensor> grads;
  int64_t peak = 0;
};

Step run(const std::vector<Tensor>& weights, const Tensor& x) {
  reset_peak_memory_stats();
  Tensor h = x;
  for (const Tensor& w : weights) h = tanh(matmul(h, w));
  Tensor loss = h.square().sum();
  std::vector<Tensor> grads = autograd::grad({loss}, weights);
  Step s;
  for (const Tensor& g : grads) s.grads.push_back(g.clone());
  s.peak = memory_stats().peak_allocated_bytes;
  return s;
}

}  // namespace

TEST_CASE("memory budget: same gradients, evictions, recomputations, peak within the budget") {
  manual_seed(0);
  std::vector<Tensor> weights;
  for (int i = 0; i < 16; ++i) weights.push_back((randn({128, 128}) * 0.1).requires_grad_());
  Tensor x = randn({1024, 128});
  Step plain = run(weights, x);
  const int64_t held = memory_stats().allocated_bytes;
  const int64_t budget = held + (plain.peak - held) / 2;
  memory::reset_remat_stats();
  Step budgeted;
  {
    memory::BudgetGuard guard(budget);
    REQUIRE(memory::get_budget() == budget);
    budgeted = run(weights, x);
  }
  CHECK_FALSE(memory::get_budget().has_value());
  memory::RematStats stats = memory::remat_stats();
  CHECK(stats.evictions > 0);
  CHECK(stats.recomputations > 0);
  CHECK(budgeted.peak <= budget + 16 * 128 * 128 * 4);  // the clones of the gradients
  for (size_t i = 0; i < weights.size(); ++i) CHECK(equal(plain.grads[i], budgeted.grads[i]));
}

TEST_CASE("memory budget: bad budgets and a budget that cannot fit") {
  CHECK_THROWS_AS(memory::set_budget(0), ValueError);
  CHECK_THROWS_AS(memory::set_budget(-1), ValueError);
  Tensor w = randn({64, 64}).requires_grad_();
  {
    memory::BudgetGuard guard(1024);
    CHECK_THROWS_AS(tanh(matmul(randn({64, 64}), w)), OutOfMemoryError);
  }
  Tensor y = tanh(matmul(randn({64, 64}), w));  // no budget: fine
  CHECK(y.numel() == 64 * 64);
}
