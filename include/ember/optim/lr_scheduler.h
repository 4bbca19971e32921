// Learning-rate schedulers of the C++ front end, with torch.optim.lr_scheduler's
// names and behaviour: the constructor records each group's lr as its base lr
// and takes the initial step (last_epoch -1 -> 0); step(), called after the
// optimizer's step, advances last_epoch by one and sets every group's lr with
// PyTorch's (chainable) formulas.
//
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(opt); sched.step(); }
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  virtual ~LRScheduler() = default;

  virtual void step();
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
  // The lrs at last_epoch() from the base lrs alone, for schedulers that have a closed
  // form (SequentialLR restarts a scheduler at its milestone with it); nullopt if none.
  virtual std::optional<std::vector<double>> closed_form_lr() const { return std::nullopt; }
  // Writes lrs into the groups and records them as the last lrs.
  void set_lrs(const std::vector<double>& lrs);
  void set_last_epoch(int64_t epoch) { last_epoch_ = epoch; }
  // True during the constructor's step.
  bool is_initial() const { return is_initial_; }
  int64_t step_count() const { return step_count_; }
  void set_base_lrs(std::vector<double> lrs) { base_lrs_ = std::move(lrs); }
  Optimizer& optimizer() { return optimizer_; }

 private:
  friend class SequentialLR;      // restarts its schedulers at the milestones
  friend class ChainedScheduler;  // checks they share one optimizer
  // Sets last_epoch to epoch (closed form where there is one) or advances it by one
  // (chainable form), then writes the new lrs.
  void update_lr(std::optional<int64_t> epoch = std::nullopt);

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
  std::optional<std::vector<double>> closed_form_lr() const override;

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
  std::optional<std::vector<double>> closed_form_lr() const override;

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
  std::optional<std::vector<double>> closed_form_lr() const override;

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
  std::optional<std::vector<double>> closed_form_lr() const override;

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

  OneCycleLROptions options_;
  std::vector<Phase> phases_;
  std::vector<std::vector<double>> group_lrs_;  // [group][Level]
  bool use_beta1_ = false;
};

// lr = base_lr * lr_lambda(epoch): one function for every group, or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<Lambda> lambdas_;
};

// lr * lr_lambda(epoch) every epoch (from epoch 1 on).
class MultiplicativeLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda);
  MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<Lambda> lambdas_;
};

// lr * factor until epoch total_iters, then the base lr again.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;

 private:
  double factor_;
  int64_t total_iters_;
};

// The factor of the base lr goes linearly from start_factor to end_factor over
// total_iters epochs (a warm-up, typically), then stays.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

// base_lr * (1 - epoch / total_iters)^power, then 0.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;

 private:
  int64_t total_iters_;
  double power_;
};

// SGDR: a cosine from base_lr down to eta_min over T_i epochs, then a restart; the
// periods are T_0, T_0 * T_mult, T_0 * T_mult^2, ...
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0);
  void step() override;

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t T_0_, T_i_, T_mult_;
  double eta_min_;
  double T_cur_ = -1;
};

struct CyclicLROptions {
  CyclicLROptions(double base_lr, double max_lr) : base_lr_({base_lr}), max_lr_({max_lr}) {}
  // One value for every group, or one per group.
  EMBER_ARG(std::vector<double>, base_lr);
  EMBER_ARG(std::vector<double>, max_lr);
  EMBER_ARG(int64_t, step_size_up) = 2000;
  EMBER_ARG(std::optional<int64_t>, step_size_down);  // default: step_size_up
  EMBER_ARG(std::string, mode) = "triangular";         // "triangular2", "exp_range"
  EMBER_ARG(double, gamma) = 1.0;                       // exp_range's decay per iteration
  // A custom amplitude scale (replaces mode), of the cycle number or the iteration.
  EMBER_ARG(std::function<double(double)>, scale_fn);
  EMBER_ARG(std::string, scale_mode) = "cycle";         // "cycle" or "iterations"
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(double, base_momentum) = 0.8;
  EMBER_ARG(double, max_momentum) = 0.9;

 private:
  CyclicLROptions& derived() { return *this; }
};

// The cyclical policy: up from base_lr to max_lr over step_size_up iterations and back
// over step_size_down, the amplitude scaled per cycle; momentum (or beta1) cycles
// inversely. One step() per batch.
class CyclicLR : public LRScheduler {
 public:
  CyclicLR(Optimizer& optimizer, const CyclicLROptions& options);

 protected:
  std::vector<double> get_lr() override;

 private:
  double scale(double x) const;

  CyclicLROptions options_;
  std::vector<double> max_lrs_, base_momenta_, max_momenta_;
  double total_size_, step_ratio_;
  bool use_beta1_ = false;
};

}  // namespace ember::optim
