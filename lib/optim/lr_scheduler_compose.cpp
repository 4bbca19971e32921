// SequentialLR, ChainedScheduler and ReduceLROnPlateau
// (include/ember/optim/lr_scheduler_compose.h), as torch.optim.lr_scheduler's.
#include "ember/optim/lr_scheduler_compose.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "optim/lr_scheduler_util.h"
#include "optim/values.h"
#include "dispatch/op_ids/reduce.h"

namespace ember::optim {

namespace {

// At least one scheduler, all of the same optimizer (PyTorch's messages).
Optimizer& common_optimizer(const char* who, const std::vector<std::shared_ptr<LRScheduler>>& all,
                            Optimizer* expected, Optimizer& (*optimizer_of)(LRScheduler&)) {
  EMBER_CHECK_VALUE(!all.empty(), who, " expects at least one scheduler, but got no scheduler.");
  Optimizer& optimizer = expected ? *expected : optimizer_of(*all[0]);
  for (size_t i = 0; i < all.size(); ++i) {
    EMBER_CHECK_VALUE(all[i] != nullptr, who, ": the scheduler at index ", i, " is null");
    EMBER_CHECK_VALUE(&optimizer_of(*all[i]) == &optimizer, who,
                      " expects all schedulers to belong to the same optimizer, but got "
                      "scheduler at index ", i, " with a different optimizer");
  }
  return optimizer;
}

}  // namespace

// ---- SequentialLR ---------------------------------------------------------------------------

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : LRScheduler(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  common_optimizer("SequentialLR", schedulers_, &optimizer,
                   [](LRScheduler& s) -> Optimizer& { return s.optimizer_; });
  EMBER_CHECK_VALUE(milestones_.size() + 1 == schedulers_.size(),
                    "Sequential Schedulers expects number of schedulers provided to be one more "
                    "than the number of milestone points, but got number of schedulers ",
                    schedulers_.size(), " and the number of milestones to be equal to ",
                    milestones_.size());
  // Undo the initial steps the schedulers took when they were made: back to the base lrs
  // (the first scheduler's, as Python's group["initial_lr"]) and one epoch back each; then
  // the scheduler of epoch 0 takes its initial step again.
  const std::vector<double> initial = schedulers_[0]->base_lrs();
  for (auto& s : schedulers_) {
    s->set_base_lrs(initial);
    s->last_epoch_ -= 1;
  }
  set_base_lrs(initial);
  set_lrs(initial);
  set_last_epoch(0);
  auto first = std::upper_bound(milestones_.begin(), milestones_.end(), int64_t{0});
  LRScheduler& current = *schedulers_[size_t(first - milestones_.begin())];
  current.initial_step();
  set_lrs(current.get_last_lr());
}

void SequentialLR::step() {
  set_last_epoch(last_epoch() + 1);
  auto next = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch());
  const size_t idx = size_t(next - milestones_.begin());
  LRScheduler& current = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch())
    current.update_lr(0);  // its first epoch
  else
    current.step();
  set_lrs(current.get_last_lr());
}

std::vector<double> SequentialLR::get_lr() { return current_lrs(); }

// ---- ChainedScheduler -------------------------------------------------------------------------

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(common_optimizer("ChainedScheduler", schedulers, nullptr,
                                   [](LRScheduler& s) -> Optimizer& { return s.optimizer_; })),
      schedulers_(std::move(schedulers)) {
  set_lrs(current_lrs());
}

void ChainedScheduler::step() {
  for (auto& s : schedulers_) s->step();
  set_lrs(current_lrs());
}

std::vector<double> ChainedScheduler::get_lr() { return current_lrs(); }

// ---- ReduceLROnPlateau ------------------------------------------------------------------------

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options)
    : optimizer_(optimizer), options_(options) {
  EMBER_CHECK_VALUE(options.factor() < 1.0, "Factor should be < 1.0.");
  EMBER_CHECK_VALUE(options.mode() == "min" || options.mode() == "max",
                    "mode ", options.mode(), " is unknown!");
  EMBER_CHECK_VALUE(options.threshold_mode() == "rel" || options.threshold_mode() == "abs",
                    "threshold mode ", options.threshold_mode(), " is unknown!");
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK_VALUE(options.min_lr().size() == 1 || options.min_lr().size() == groups, "expected ",
                    groups, " min_lrs, got ", options.min_lr().size());
  const double inf = std::numeric_limits<double>::infinity();
  best_ = options.mode() == "min" ? inf : -inf;
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.options().get_lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const double t = options_.threshold();
  const bool rel = options_.threshold_mode() == "rel";
  if (options_.mode() == "min") return rel ? a < best * (1.0 - t) : a < best - t;
  return rel ? a > best * (t + 1.0) : a > best + t;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (in_cooldown()) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  auto& groups = optimizer_.param_groups();
  if (num_bad_epochs_ > options_.patience()) {
    // One min_lr serves every group, also groups added since; a list must match them.
    const std::vector<double>& given = options_.min_lr();
    EMBER_CHECK(given.size() == 1 || given.size() == groups.size(), "The number of param groups in "
                "the `optimizer` (", groups.size(), ") differs from when `ReduceLROnPlateau` was "
                "initialized (", given.size(), "), usually due to a new param group being added to "
                "the optimizer. Please modify the `min_lrs` field to match the length of the "
                "`optimizer` param groups.");
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options().get_lr();
      const double new_lr = std::max(old_lr * options_.factor(), given[given.size() == 1 ? 0 : i]);
      if (old_lr - new_lr > options_.eps()) groups[i].options().set_lr(new_lr);
    }
    cooldown_counter_ = options_.cooldown();
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : groups) last_lr_.push_back(g.options().get_lr());
}

OptimValues ReduceLROnPlateau::state_dict() const {
  return {{"best", best_},
          {"num_bad_epochs", num_bad_epochs_},
          {"cooldown_counter", cooldown_counter_},
          {"last_epoch", last_epoch_},
          {"_last_lr", last_lr_}};
}

void ReduceLROnPlateau::load_state_dict(const OptimValues& state) {
  best_ = read_double(state, "best", best_);
  num_bad_epochs_ = static_cast<int64_t>(read_double(state, "num_bad_epochs", double(num_bad_epochs_)));
  cooldown_counter_ =
      static_cast<int64_t>(read_double(state, "cooldown_counter", double(cooldown_counter_)));
  last_epoch_ = static_cast<int64_t>(read_double(state, "last_epoch", double(last_epoch_)));
  last_lr_ = read_doubles(state, "_last_lr", last_lr_);
}

}  // namespace ember::optim
