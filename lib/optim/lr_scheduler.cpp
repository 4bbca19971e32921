// The learning-rate schedulers (include/ember/optim/lr_scheduler.h), with
// torch.optim.lr_scheduler's formulas.
#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>

#include "optim/lr_scheduler_util.h"
#include "optim/values.h"

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer), base_lrs_(current_lrs()) {}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  for (const OptimizerParamGroup& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  is_initial_ = true;
  step();
  is_initial_ = false;
}

void LRScheduler::step() {
  ++step_count_;
  update_lr();
}

void LRScheduler::update_lr(std::optional<int64_t> epoch) {
  std::vector<double> lrs;
  if (epoch) {
    last_epoch_ = *epoch;
    std::optional<std::vector<double>> closed = closed_form_lr();
    lrs = closed ? std::move(*closed) : get_lr();
  } else {
    ++last_epoch_;
    lrs = get_lr();
  }
  set_lrs(lrs);
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(lrs.size() == groups.size(), "LRScheduler: get_lr() gave ", lrs.size(),
              " learning rates for ", groups.size(), " parameter groups");
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = current_lrs();
}

OptimValues LRScheduler::state_dict() const {
  return {{"last_epoch", last_epoch_},
          {"_step_count", step_count_},
          {"base_lrs", base_lrs_},
          {"_last_lr", last_lr_}};
}

void LRScheduler::load_state_dict(const OptimValues& state) {
  last_epoch_ = static_cast<int64_t>(read_double(state, "last_epoch", double(last_epoch_)));
  step_count_ = static_cast<int64_t>(read_double(state, "_step_count", double(step_count_)));
  base_lrs_ = read_doubles(state, "base_lrs", base_lrs_);
  last_lr_ = read_doubles(state, "_last_lr", last_lr_);
}

// ---- StepLR, MultiStepLR, ExponentialLR ------------------------------------------------

namespace detail {

std::vector<double> per_group(const char* name, const std::vector<double>& values, size_t groups) {
  EMBER_CHECK_VALUE(values.size() == 1 || values.size() == groups, name,
                    " must have the same length as optimizer.param_groups. ", name, " has ",
                    values.size(), " values, param_groups has ", groups, ".");
  return values.size() == 1 ? std::vector<double>(groups, values[0]) : values;
}

bool momentum_is_beta1(const Optimizer& optimizer) {
  const OptimValues defaults = optimizer.defaults().values();
  const bool beta1 = defaults.count("betas") > 0;
  EMBER_CHECK_VALUE(beta1 || defaults.count("momentum"),
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
  return beta1;
}

void set_momentum(OptimizerOptions& options, bool use_beta1, double momentum) {
  if (!use_beta1) {
    options.set_values({{"momentum", momentum}});
    return;
  }
  std::vector<double> betas = read_doubles(options.values(), "betas", {});
  EMBER_CHECK(betas.size() == 2, "LRScheduler: expected the optimizer's betas to hold 2 numbers");
  betas[0] = momentum;
  options.set_values({{"betas", betas}});
}

}  // namespace detail

using detail::scaled;

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  if (last_epoch() == 0 || last_epoch() % step_size_ != 0) return current_lrs();
  return scaled(current_lrs(), gamma_);
}

std::optional<std::vector<double>> StepLR::closed_form_lr() const {
  return scaled(base_lrs(), std::pow(gamma_, double(last_epoch() / step_size_)));
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch());
  if (hits == 0) return current_lrs();
  return scaled(current_lrs(), std::pow(gamma_, static_cast<double>(hits)));
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() const {
  auto passed = std::count_if(milestones_.begin(), milestones_.end(),
                              [&](int64_t m) { return m <= last_epoch(); });
  return scaled(base_lrs(), std::pow(gamma_, static_cast<double>(passed)));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  if (is_initial()) return current_lrs();
  return scaled(current_lrs(), gamma_);
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() const {
  return scaled(base_lrs(), std::pow(gamma_, double(last_epoch())));
}

// ---- CosineAnnealingLR ---------------------------------------------------------------------

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = current_lrs();
  if (is_initial()) return lrs;
  const double e = static_cast<double>(last_epoch()), T = static_cast<double>(T_max_);
  const double pi = M_PI;
  for (size_t i = 0; i < lrs.size(); ++i) {
    if ((last_epoch() - 1 - T_max_) % (2 * T_max_) == 0)  // the bottom: turn back up
      lrs[i] = lrs[i] + (base_lrs()[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    else
      lrs[i] = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lrs[i] - eta_min_) +
               eta_min_;
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() const {
  std::vector<double> lrs = base_lrs();
  for (double& lr : lrs)
    lr = eta_min_ + (lr - eta_min_) * (1 + std::cos(M_PI * double(last_epoch()) / double(T_max_))) / 2;
  return lrs;
}

// ---- OneCycleLR ----------------------------------------------------------------------------

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options)
    : LRScheduler(optimizer), options_(options) {
  const int64_t total = options.total_steps();
  EMBER_CHECK_VALUE(total > 0, "Expected positive integer total_steps, but got ", total);
  const double pct = options.pct_start();
  EMBER_CHECK_VALUE(pct >= 0 && pct <= 1, "Expected float between 0 and 1 pct_start, but got ", pct);
  EMBER_CHECK_VALUE(options.anneal_strategy() == "cos" || options.anneal_strategy() == "linear",
                    "anneal_strategy must be one of 'cos' or 'linear', instead got ",
                    options.anneal_strategy());
  if (options.three_phase())
    phases_ = {{pct * total - 1, kInitial, kMax, kMaxMomentum, kBaseMomentum},
               {2 * pct * total - 2, kMax, kInitial, kBaseMomentum, kMaxMomentum},
               {double(total - 1), kInitial, kMin, kMaxMomentum, kMaxMomentum}};
  else
    phases_ = {{pct * total - 1, kInitial, kMax, kMaxMomentum, kBaseMomentum},
               {double(total - 1), kMax, kMin, kBaseMomentum, kMaxMomentum}};

  auto& groups = this->optimizer().param_groups();
  const std::vector<double> max_lrs = detail::per_group("max_lr", options.max_lr(), groups.size());
  std::vector<double> initial_lrs;
  for (double max_lr : max_lrs) {
    const double initial = max_lr / options.div_factor();
    group_lrs_.push_back({initial, max_lr, initial / options.final_div_factor()});
    initial_lrs.push_back(initial);
  }
  set_base_lrs(initial_lrs);

  if (options.cycle_momentum()) {
    use_beta1_ = detail::momentum_is_beta1(this->optimizer());
    for (OptimizerParamGroup& g : groups)
      detail::set_momentum(g.options(), use_beta1_, options.max_momentum());
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (options_.anneal_strategy() == "cos") return end + (start - end) / 2.0 * (std::cos(M_PI * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch();
  EMBER_CHECK_VALUE(step_num <= options_.total_steps(), "Tried to step ", step_num,
                    " times. The specified number of total steps is ", options_.total_steps());
  const double momenta[] = {options_.max_momentum(), options_.base_momentum()};
  auto& groups = optimizer().param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < groups.size(); ++g) {
    double start_step = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (step_num <= phase.end_step || i + 1 == phases_.size()) {
        const double pct = (double(step_num) - start_step) / (phase.end_step - start_step);
        lrs.push_back(anneal(group_lrs_[g][phase.start_lr], group_lrs_[g][phase.end_lr], pct));
        if (options_.cycle_momentum())
          detail::set_momentum(groups[g].options(), use_beta1_,
                               anneal(momenta[phase.start_momentum], momenta[phase.end_momentum], pct));
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

}  // namespace ember::optim
