// Schedulers that drive other schedulers (SequentialLR, ChainedScheduler) or follow a
// metric (ReduceLROnPlateau), with torch.optim.lr_scheduler's names and behaviour.
//
//   auto warmup = std::make_shared<optim::LinearLR>(opt, 0.1, 1.0, 5);
//   auto decay = std::make_shared<optim::CosineAnnealingLR>(opt, 95);
//   optim::SequentialLR sched(opt, {warmup, decay}, {5});
//
//   optim::ReduceLROnPlateau plateau(opt, optim::ReduceLROnPlateauOptions().patience(3));
//   for (...) { train(); plateau.step(validation_loss); }
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

// Runs schedulers one after another: schedulers[i] from epoch milestones[i - 1] on, each
// restarted at its milestone. Make the schedulers in list order on the optimizer (the
// first one's base lrs are every one's), then hand them over.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);
  void step() override;

 protected:
  std::vector<double> get_lr() override;  // not used: step() delegates

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Steps every scheduler of the list at each step(), so their effects multiply.
class ChainedScheduler : public LRScheduler {
 public:
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  void step() override;

 protected:
  std::vector<double> get_lr() override;  // not used: step() delegates

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

struct ReduceLROnPlateauOptions {
  EMBER_ARG(std::string, mode) = "min";             // "min": lower is better; "max"
  EMBER_ARG(double, factor) = 0.1;                  // new lr = lr * factor (< 1)
  EMBER_ARG(int64_t, patience) = 10;                // epochs without improvement allowed
  EMBER_ARG(double, threshold) = 1e-4;              // the least change that counts
  EMBER_ARG(std::string, threshold_mode) = "rel";   // "rel" or "abs"
  EMBER_ARG(int64_t, cooldown) = 0;                 // epochs to wait after a reduction
  EMBER_ARG(std::vector<double>, min_lr) = {0.0};   // one for all groups, or one per group
  EMBER_ARG(double, eps) = 1e-8;                    // smaller reductions are skipped

 private:
  ReduceLROnPlateauOptions& derived() { return *this; }
};

// Multiplies the lrs by factor when the metric given to step(metric) has not improved
// for patience epochs, then waits cooldown epochs; never below min_lr.
class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer,
                             const ReduceLROnPlateauOptions& options = ReduceLROnPlateauOptions());
  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  bool in_cooldown() const { return cooldown_counter_ > 0; }
  // {"best", "num_bad_epochs", "cooldown_counter", "last_epoch", "_last_lr"}, the Python
  // scheduler's names.
  OptimValues state_dict() const;
  void load_state_dict(const OptimValues& state);

 private:
  bool is_better(double a, double best) const;

  Optimizer& optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> last_lr_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
};

}  // namespace ember::optim
