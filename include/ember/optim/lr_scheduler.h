// Learning-rate schedulers of the C++ front end, with torch.optim.lr_scheduler's
// names and behaviour: the constructor records each group's lr as its base lr
// and takes the initial step (last_epoch -1 -> 0); step(), called after the
// optimizer's step, advances last_epoch by one and sets every group's lr with
// PyTorch's (chainable) formulas.
//
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(opt); sched.step(); }
#pragma once
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler() = default;

  void step();
  // The lrs that the last step() (or the constructor) set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

  // {"last_epoch", "_step_count", "base_lrs", "_last_lr"}, as the Python
  // scheduler's state_dict() names them; load_state_dict() resumes a
  // scheduler built with the same arguments.
  OptimValues state_dict() const;
  void load_state_dict(const OptimValues& state);

 protected:
  explicit LRScheduler(Optimizer& optimizer);
  // Every subclass calls this once, at the end of its constructor (a base
  // constructor cannot call get_lr()).
  void initial_step();
  // The lr of every group for last_epoch() (already advanced), computed from
  // the groups' current lrs where the formula is chainable.
  virtual std::vector<double> get_lr() = 0;
  std::vector<double> current_lrs() const;
  // True during the constructor's step.
  bool is_initial() const { return is_initial_; }
  int64_t step_count() const { return step_count_; }
  void set_base_lrs(std::vector<double> lrs) { base_lrs_ = std::move(lrs); }
  Optimizer& optimizer() { return optimizer_; }

 private:
  Optimizer& optimizer_;
  std::vector<double> base_lrs_, last_lr_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  bool is_initial_ = false;
};

// lr * gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

// lr * gamma at each milestone (gamma^k at a milestone listed k times).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr * gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() override;

 private:
  double gamma_;
};

// eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, computed
// recursively from the current lr as PyTorch does (it keeps going past T_max,
// back up along the cosine).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t T_max_;
  double eta_min_;
};

struct OneCycleLROptions {
  OneCycleLROptions(double max_lr, int64_t total_steps) : max_lr_({max_lr}), total_steps_(total_steps) {}
  // One max lr for every group, or one per group.
  EMBER_ARG(std::vector<double>, max_lr);
  EMBER_ARG(int64_t, total_steps);
  EMBER_ARG(double, pct_start) = 0.3;
  EMBER_ARG(std::string, anneal_strategy) = "cos";  // "cos" or "linear"
  // Cycles momentum (SGD, RMSprop) or beta1 (Adam, AdamW) inversely to the lr.
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(double, base_momentum) = 0.85;
  EMBER_ARG(double, max_momentum) = 0.95;
  EMBER_ARG(double, div_factor) = 25;
  EMBER_ARG(double, final_div_factor) = 1e4;
  EMBER_ARG(bool, three_phase) = false;

 private:
  OneCycleLROptions& derived() { return *this; }
};

// The 1cycle policy: from max_lr / div_factor up to max_lr, then down to
// max_lr / div_factor / final_div_factor over total_steps steps (one step()
// per batch). Stepping past total_steps is a ValueError.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);

 protected:
  std::vector<double> get_lr() override;

 private:
  enum Level { kInitial, kMax, kMin };     // which lr a phase starts or ends at
  enum MomentumLevel { kMaxMomentum, kBaseMomentum };
  struct Phase {
    double end_step;
    Level start_lr, end_lr;
    MomentumLevel start_momentum, end_momentum;
  };
  double anneal(double start, double end, double pct) const;
  void set_momentum(OptimizerOptions& options, double momentum) const;

  OneCycleLROptions options_;
  std::vector<Phase> phases_;
  std::vector<std::vector<double>> group_lrs_;  // [group][Level]
  bool use_beta1_ = false;
};

}  // namespace ember::optim
