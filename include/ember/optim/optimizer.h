// The optimizer base of the C++ front end, with the names of PyTorch's C++
// API (torch::optim): options structs with chainable setters, parameter
// groups that may override the defaults, per-parameter state, step(),
// zero_grad(), and a state dict in the layout of torch.optim's Python one.
//
//   ember::optim::SGD opt(model_params, ember::optim::SGDOptions(0.1).momentum(0.9));
//   opt.zero_grad();  loss.backward();  opt.step();
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ember/arg.h"
#include "ember/tensor.h"

namespace ember::optim {

// A value of an optimizer's state dict: a state tensor (exp_avg, step, ...)
// or an option (lr: double, nesterov: bool, betas: {beta1, beta2}).
using OptimValue = std::variant<bool, int64_t, double, std::vector<double>, Tensor>;
// Values by torch.optim's names ("lr", "momentum_buffer", ...).
using OptimValues = std::map<std::string, OptimValue>;

// The state of an optimizer as plain data, laid out like torch.optim's
// Optimizer.state_dict(): `state` by parameter index (parameters numbered
// through the groups in order; a parameter without state is left out) and
// one entry per group with its options and its parameters' indices. "step"
// is a 0-dim float32 tensor, as in PyTorch.
struct OptimizerStateDict {
  struct ParamGroup {
    OptimValues options;
    std::vector<int64_t> params;
  };
  std::map<int64_t, OptimValues> state;
  std::vector<ParamGroup> param_groups;
};

// The options of a group (hyperparameters). Each optimizer has its own
// subclass (SGDOptions, AdamOptions, ...).
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // The options by torch.optim's names (for state dicts and schedulers);
  // set_values reads the names it knows and ignores the others.
  virtual OptimValues values() const = 0;
  virtual void set_values(const OptimValues& values) = 0;
  // Raises ValueError for an invalid option ("Invalid learning rate: -1").
  virtual void validate() const = 0;
};

// The base of each optimizer's options: clone() and the lr accessors, from
// the Derived class's lr() option.
template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double get_lr() const override { return static_cast<const Derived&>(*this).lr(); }
  void set_lr(double lr) override { derived().lr(lr); }

 protected:
  Derived& derived() { return static_cast<Derived&>(*this); }
};

// The state an optimizer keeps for one parameter (momentum buffer, moments, step).
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  // Tensors are shared, not copied (as PyTorch's state_dict()).
  virtual OptimValues values() const = 0;
  virtual void set_values(const OptimValues& values) = 0;
};

template <typename Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }

 protected:
  Derived& derived() { return static_cast<Derived&>(*this); }
};

// Parameters that share options. Without options of its own, a group gets a
// copy of the optimizer's defaults when it is added.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  // One update of every parameter that has a gradient. The closure, if given,
  // re-evaluates the loss (with grad mode on) first; its result is returned.
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  // Raises ValueError for an undefined or non-leaf tensor, a parameter listed
  // twice, or one already in another group; validates the group's options
  // (a group without options gets a copy of the defaults).
  void add_param_group(const OptimizerParamGroup& param_group);
  // set_to_none: drops the gradients (p.grad() becomes undefined); otherwise
  // zeroes them in place.
  void zero_grad(bool set_to_none = true);

  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  // The per-parameter state, keyed by the parameter's TensorImpl.
  std::unordered_map<TensorImpl*, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  // The number of parameters in all groups.
  size_t size() const;

  // Shares the state tensors (copy them to keep a snapshot).
  OptimizerStateDict state_dict() const;
  // Takes the groups' options and the state of a state_dict() from an
  // optimizer of the same kind with the same group sizes (ValueError
  // otherwise); state tensors are copied, in the parameter's dtype.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  Optimizer(std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  // An empty state of this optimizer's kind (load_state_dict fills it).
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const = 0;

  // The step loop every optimizer shares: runs the closure, then, with grad
  // mode off, update(options of the group, param) for each parameter that has
  // a gradient.
  Tensor for_each_param_with_grad(const LossClosure& closure,
                                  const std::function<void(OptimizerOptions&, const Tensor&)>& update);

 private:
  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<TensorImpl*, std::unique_ptr<OptimizerParamState>> state_;
};

// What every optimizer class shares, given its Options and ParamState:
// the constructors (a list of parameters, or of groups) and the typed state.
template <typename Options, typename ParamState>
class OptimizerWith : public Optimizer {
 public:
  OptimizerWith(std::vector<OptimizerParamGroup> param_groups, Options defaults = Options())
      : Optimizer(std::move(param_groups), std::make_unique<Options>(std::move(defaults))) {}
  OptimizerWith(std::vector<Tensor> params, Options defaults = Options())
      : OptimizerWith(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
                      std::move(defaults)) {}

 protected:
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<ParamState>();
  }
  // The state of `param`, empty on first use.
  ParamState& state_of(const Tensor& param) {
    std::unique_ptr<OptimizerParamState>& slot = state()[param.impl()];
    if (!slot) slot = std::make_unique<ParamState>();
    return static_cast<ParamState&>(*slot);
  }
  // step()'s loop with the group's options as Options.
  template <typename Update>
  Tensor step_each(const LossClosure& closure, const Update& update) {
    return for_each_param_with_grad(closure, [&](OptimizerOptions& o, const Tensor& p) {
      update(static_cast<const Options&>(o), p);
    });
  }
};

}  // namespace ember::optim
