// The schedulers that cycle: CosineAnnealingWarmRestarts and CyclicLR
// (include/ember/optim/lr_scheduler.h), with torch.optim.lr_scheduler's formulas.
#include <cmath>

#include "ember/optim/lr_scheduler.h"
#include "optim/lr_scheduler_util.h"

namespace ember::optim {

// ---- CosineAnnealingWarmRestarts ---------------------------------------------------------

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0,
                                                         int64_t T_mult, double eta_min)
    : LRScheduler(optimizer), T_0_(T_0), T_i_(T_0), T_mult_(T_mult), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_0 > 0, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK_VALUE(T_mult >= 1, "Expected integer T_mult >= 1, but got ", T_mult);
  initial_step();
}

void CosineAnnealingWarmRestarts::step() {
  // The period's position advances by one; at the period's end it restarts, the next
  // period T_mult times longer. (The constructor's step starts at epoch 0.)
  if (last_epoch() < 0) {
    T_cur_ = 0;
  } else {
    T_cur_ += 1;
    if (T_cur_ >= double(T_i_)) {
      T_cur_ = std::fmod(T_cur_, double(T_i_));
      T_i_ *= T_mult_;
    }
  }
  set_last_epoch(last_epoch() + 1);
  set_lrs(get_lr());
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> lrs = base_lrs();
  for (double& lr : lrs)
    lr = eta_min_ + (lr - eta_min_) * (1 + std::cos(M_PI * T_cur_ / double(T_i_))) / 2;
  return lrs;
}

// ---- CyclicLR -------------------------------------------------------------------------------

CyclicLR::CyclicLR(Optimizer& optimizer, const CyclicLROptions& options)
    : LRScheduler(optimizer), options_(options) {
  auto& groups = this->optimizer().param_groups();
  const std::vector<double> base_lrs = detail::per_group("base_lr", options.base_lr(), groups.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(base_lrs[i]);
  max_lrs_ = detail::per_group("max_lr", options.max_lr(), groups.size());
  const double up = double(options.step_size_up());
  const double down = options.step_size_down() ? double(*options.step_size_down()) : up;
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  const std::string& mode = options.mode();
  EMBER_CHECK_VALUE(options.scale_fn() || mode == "triangular" || mode == "triangular2" ||
                        mode == "exp_range",
                    "mode is invalid and scale_fn is None");
  // The built-in modes fix the scale mode, as in PyTorch.
  if (!options.scale_fn()) options_.scale_mode(mode == "exp_range" ? "iterations" : "cycle");
  if (options.cycle_momentum()) {
    use_beta1_ = detail::momentum_is_beta1(this->optimizer());
    base_momenta_ = detail::per_group("base_momentum", {options.base_momentum()}, groups.size());
    max_momenta_ = detail::per_group("max_momentum", {options.max_momentum()}, groups.size());
    for (size_t i = 0; i < groups.size(); ++i)
      detail::set_momentum(groups[i].options(), use_beta1_, max_momenta_[i]);
  }
  set_base_lrs(base_lrs);
  initial_step();
}

double CyclicLR::scale(double x) const {
  if (options_.scale_fn()) return options_.scale_fn()(x);
  if (options_.mode() == "triangular") return 1.0;
  if (options_.mode() == "triangular2") return 1.0 / std::pow(2.0, x - 1);
  return std::pow(options_.gamma(), x);
}

std::vector<double> CyclicLR::get_lr() {
  const double epoch = double(last_epoch());
  const double cycle = std::floor(1 + epoch / total_size_);
  const double x = 1.0 + epoch / total_size_ - cycle;  // position in the cycle, [0, 1)
  const double rise = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double amplitude = rise * scale(options_.scale_mode() == "cycle" ? cycle : epoch);
  std::vector<double> lrs = base_lrs();
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] += (max_lrs_[i] - lrs[i]) * amplitude;
  if (options_.cycle_momentum()) {
    auto& groups = optimizer().param_groups();
    for (size_t i = 0; i < groups.size(); ++i)
      detail::set_momentum(groups[i].options(), use_beta1_,
                           max_momenta_[i] - (max_momenta_[i] - base_momenta_[i]) * amplitude);
  }
  return lrs;
}

}  // namespace ember::optim
