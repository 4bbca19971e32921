// The schedulers that scale the lr by a factor per epoch: LambdaLR, MultiplicativeLR,
// ConstantLR, LinearLR, PolynomialLR (include/ember/optim/lr_scheduler.h), with
// torch.optim.lr_scheduler's formulas: chainable ones from the current lrs, closed forms
// from the base lrs.
#include <algorithm>
#include <cmath>

#include "ember/optim/lr_scheduler.h"
#include "optim/lr_scheduler_util.h"

namespace ember::optim {

using detail::scaled;

namespace {

// One function per group: a single one is used for every group.
std::vector<std::function<double(int64_t)>> lambdas_per_group(
    const char* who, std::vector<std::function<double(int64_t)>> lambdas, size_t groups) {
  if (lambdas.size() == 1) lambdas.resize(groups, lambdas[0]);
  EMBER_CHECK_VALUE(lambdas.size() == groups, "Expected ", groups, " lr_lambdas, but got ",
                    lambdas.size());
  for (const auto& fn : lambdas)
    EMBER_CHECK_TYPE(static_cast<bool>(fn), who, ": lr_lambda should be a function, but got an "
                     "empty std::function");
  return lambdas;
}

}  // namespace

// ---- LambdaLR, MultiplicativeLR -------------------------------------------------------------

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda)
    : LambdaLR(optimizer, std::vector<Lambda>{std::move(lr_lambda)}) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas)
    : LRScheduler(optimizer),
      lambdas_(lambdas_per_group("LambdaLR", std::move(lr_lambdas), optimizer.param_groups().size())) {
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs = base_lrs();
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lambdas_[i](last_epoch());
  return lrs;
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda)
    : MultiplicativeLR(optimizer, std::vector<Lambda>{std::move(lr_lambda)}) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas)
    : LRScheduler(optimizer),
      lambdas_(lambdas_per_group("MultiplicativeLR", std::move(lr_lambdas),
                                 optimizer.param_groups().size())) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = current_lrs();
  if (is_initial()) return lrs;
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lambdas_[i](last_epoch());
  return lrs;
}

// ---- ConstantLR -------------------------------------------------------------------------------

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK_VALUE(factor >= 0 && factor <= 1,
                    "Constant multiplicative factor expected to be between 0 and 1.");
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  if (last_epoch() == 0) return scaled(current_lrs(), factor_);
  if (last_epoch() != total_iters_) return current_lrs();
  return scaled(current_lrs(), 1.0 / factor_);
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() const {
  return scaled(base_lrs(), last_epoch() >= total_iters_ ? 1.0 : factor_);
}

// ---- LinearLR ---------------------------------------------------------------------------------

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK_VALUE(start_factor > 0 && start_factor <= 1,
                    "Starting multiplicative factor expected to be greater than 0 and less or "
                    "equal to 1.");
  EMBER_CHECK_VALUE(end_factor >= 0 && end_factor <= 1,
                    "Ending multiplicative factor expected to be between 0 and 1.");
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  if (last_epoch() == 0) return scaled(current_lrs(), start_factor_);
  if (is_initial() || last_epoch() > total_iters_) return current_lrs();
  const double delta = end_factor_ - start_factor_;
  return scaled(current_lrs(), 1.0 + delta / (double(total_iters_) * start_factor_ +
                                              double(last_epoch() - 1) * delta));
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() const {
  const double progress = double(std::min(total_iters_, last_epoch())) / double(total_iters_);
  return scaled(base_lrs(), start_factor_ + (end_factor_ - start_factor_) * progress);
}

// ---- PolynomialLR -----------------------------------------------------------------------------

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer), total_iters_(total_iters), power_(power) {
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  if (is_initial() || last_epoch() > total_iters_) return current_lrs();
  const double t = double(total_iters_), e = double(last_epoch());
  return scaled(current_lrs(), std::pow((1.0 - e / t) / (1.0 - (e - 1) / t), power_));
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lr() const {
  const double done = double(std::min(total_iters_, last_epoch())) / double(total_iters_);
  return scaled(base_lrs(), std::pow(1.0 - done, power_));
}

}  // namespace ember::optim
