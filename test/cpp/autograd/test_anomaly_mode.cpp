// Anomaly mode (ember/anomaly_mode.h) and post-accumulate-grad hooks
// (ember/autograd_hooks.h) from C++.
#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<std::string> g_reported;
void record_report(const std::string& node, const std::string& trace) { g_reported.push_back(node); }
std::string fixed_trace() { return "forward at test line"; }

}  // namespace

TEST_CASE("anomaly mode: a NaN gradient raises naming the node, and the reporter is told") {
  g_reported.clear();
  autograd::set_anomaly_reporter(&record_report);
  Tensor x = tensor({0.0, 1.0}).requires_grad_();
  Tensor nan = tensor({std::numeric_limits<double>::quiet_NaN(), 1.0});
  {
    autograd::DetectAnomalyGuard guard;
    CHECK(autograd::is_anomaly_enabled());
    Tensor y = (x * nan).sum();
    CHECK_THROWS_WITH(y.backward(), "Function 'MulBackward0' returned nan values in its 0th output.");
  }
  CHECK_FALSE(autograd::is_anomaly_enabled());
  REQUIRE(g_reported.size() == 1);
  CHECK(g_reported[0] == "MulBackward0");
  CHECK_FALSE(x.grad().defined());  // the failed pass accumulated nothing

  // Without anomaly mode the same graph runs and the NaN reaches .grad.
  (x * nan).sum().backward();
  CHECK(std::isnan(x.grad().data_ptr<double>()[0]));
  autograd::set_anomaly_reporter(nullptr);
}

TEST_CASE("anomaly mode: check_nan=false lets NaN through; the guard restores the mode") {
  autograd::set_anomaly_enabled(true, true);
  {
    autograd::DetectAnomalyGuard guard(/*check_nan=*/false);
    CHECK_FALSE(autograd::is_anomaly_check_nan_enabled());
    Tensor x = tensor({1.0}).requires_grad_();
    (x * tensor({std::numeric_limits<double>::quiet_NaN()})).sum().backward();
    CHECK(std::isnan(x.grad().data_ptr<double>()[0]));
  }
  CHECK(autograd::is_anomaly_enabled());
  CHECK(autograd::is_anomaly_check_nan_enabled());
  autograd::set_anomaly_enabled(false);
}

TEST_CASE("anomaly mode: the forward trace recorded with the node reaches the reporter") {
  static std::string seen;
  autograd::set_forward_trace_provider(&fixed_trace);
  autograd::set_anomaly_reporter([](const std::string&, const std::string& trace) { seen = trace; });
  {
    autograd::DetectAnomalyGuard guard;
    Tensor x = tensor({-1.0, 4.0}).requires_grad_();
    Tensor y = x.sqrt().sum();  // sqrt(-1) = NaN: its backward returns NaN
    CHECK_THROWS_AS(y.backward(), Error);
  }
  CHECK(seen == "forward at test line");
  autograd::set_forward_trace_provider(nullptr);
  autograd::set_anomaly_reporter(nullptr);
}

TEST_CASE("post-accumulate-grad hooks see the updated .grad, in order, and can be removed") {
  Tensor w = tensor({1.0, 2.0}).requires_grad_();
  std::vector<double> seen;
  int first = autograd::register_post_accumulate_grad_hook(
      w, [&](const Tensor& t) { seen.push_back(t.grad().data_ptr<double>()[0]); });
  autograd::register_post_accumulate_grad_hook(w, [&](const Tensor& t) { seen.push_back(-1); });
  (w * 3.0).sum().backward();
  (w * 2.0).sum().backward();
  CHECK(seen == std::vector<double>{3.0, -1, 5.0, -1});
  autograd::remove_post_accumulate_grad_hook(w, first);
  seen.clear();
  (w * 1.0).sum().backward();
  CHECK(seen == std::vector<double>{-1});
  // autograd::grad does not accumulate, so the hooks do not run.
  autograd::grad({(w * 2.0).sum()}, {w});
  CHECK(seen == std::vector<double>{-1});
}

TEST_CASE("post-accumulate-grad hooks: only on leaves that require grad") {
  Tensor plain = tensor({1.0});
  CHECK_THROWS_WITH(autograd::register_post_accumulate_grad_hook(plain, [](const Tensor&) {}),
                    Catch::Contains("doesn't require gradient"));
  Tensor w = tensor({1.0}).requires_grad_();
  Tensor nonleaf = w * 2.0;
  CHECK_THROWS_WITH(autograd::register_post_accumulate_grad_hook(nonleaf, [](const Tensor&) {}),
                    Catch::Contains("non-leaf"));
}
