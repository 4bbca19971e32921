// The optimizer base (include/ember/optim/optimizer.h): parameter groups,
// zero_grad, the shared step loop and the state dict.
#include "ember/optim/optimizer.h"

#include <unordered_set>

#include "ember/autograd.h"

namespace ember::optim {

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.options_ ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(options_, "OptimizerParamGroup: the group has no options yet (it gets the "
              "optimizer's defaults when it is added)");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup&>(*this).options();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  defaults_->validate();
  size_t total = 0;
  for (const OptimizerParamGroup& g : param_groups) total += g.params().size();
  EMBER_CHECK_VALUE(!param_groups.empty() && (total > 0 || param_groups.size() > 1),
                    "optimizer got an empty parameter list");
  for (const OptimizerParamGroup& g : param_groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  OptimizerParamGroup group(param_group);
  if (group.has_options())
    group.options().validate();
  else
    group.set_options(defaults_->clone());
  std::unordered_set<TensorImpl*> in_group;
  for (const Tensor& p : group.params()) {
    EMBER_CHECK_VALUE(p.defined(), "optimizer can only optimize defined Tensors");
    EMBER_CHECK_VALUE(p.is_leaf() || p.retains_grad(), "can't optimize a non-leaf Tensor");
    EMBER_CHECK_VALUE(in_group.insert(p.impl()).second,
                      "optimizer contains a parameter group with duplicate parameters");
  }
  for (const OptimizerParamGroup& other : param_groups_)
    for (const Tensor& p : other.params())
      EMBER_CHECK_VALUE(!in_group.count(p.impl()),
                        "some parameters appear in more than one parameter group");
  param_groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    for (Tensor& p : group.params()) {
      Tensor g = p.grad();
      if (!g.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
        continue;
      }
      // As PyTorch: a gradient that is part of a graph (create_graph=True)
      // is cut from it before it is zeroed.
      if (g.grad_fn())
        g.detach_();
      else if (g.requires_grad())
        g.requires_grad_(false);
      g.zero_();
    }
  }
}

size_t Optimizer::size() const {
  size_t n = 0;
  for (const OptimizerParamGroup& g : param_groups_) n += g.params().size();
  return n;
}

Tensor Optimizer::for_each_param_with_grad(
    const LossClosure& closure, const std::function<void(OptimizerOptions&, const Tensor&)>& update) {
  Tensor loss;
  if (closure) {
    AutoGradMode enable(true);
    loss = closure();
  }
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_)
    for (const Tensor& p : group.params())
      if (p.grad().defined()) update(group.options(), p);
  return loss;
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict sd;
  int64_t index = 0;
  for (const OptimizerParamGroup& group : param_groups_) {
    OptimizerStateDict::ParamGroup saved{group.options().values(), {}};
    for (const Tensor& p : group.params()) {
      saved.params.push_back(index);
      auto it = state_.find(p.impl());
      if (it != state_.end()) sd.state[index] = it->second->values();
      ++index;
    }
    sd.param_groups.push_back(std::move(saved));
  }
  return sd;
}

namespace {

// A copy of a saved state value for `param`: tensors are copied into the
// parameter's dtype and device, except "step", which keeps its own.
OptimValues copy_for(const OptimValues& saved, const Tensor& param) {
  OptimValues out;
  for (const auto& [name, value] : saved) {
    const Tensor* t = std::get_if<Tensor>(&value);
    if (!t || !t->defined())
      out[name] = value;
    else if (name == "step")
      out[name] = t->clone();
    else
      out[name] = t->to(param.device(), param.dtype(), /*non_blocking=*/false, /*copy=*/true);
  }
  return out;
}

}  // namespace

void Optimizer::load_state_dict(const OptimizerStateDict& sd) {
  EMBER_CHECK_VALUE(sd.param_groups.size() == param_groups_.size(),
                    "loaded state dict has a different number of parameter groups");
  for (size_t i = 0; i < param_groups_.size(); ++i)
    EMBER_CHECK_VALUE(sd.param_groups[i].params.size() == param_groups_[i].params().size(),
                      "loaded state dict contains a parameter group that doesn't match the size "
                      "of optimizer's group");
  // Everything is read before anything changes, so a bad state dict leaves
  // the optimizer as it was.
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  std::unordered_map<TensorImpl*, std::unique_ptr<OptimizerParamState>> state;
  NoGradGuard no_grad;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    const OptimizerStateDict::ParamGroup& saved = sd.param_groups[i];
    options.push_back(param_groups_[i].options().clone());
    options.back()->set_values(saved.options);
    for (size_t j = 0; j < saved.params.size(); ++j) {
      auto it = sd.state.find(saved.params[j]);
      if (it == sd.state.end()) continue;
      const Tensor& p = param_groups_[i].params()[j];
      std::unique_ptr<OptimizerParamState> s = make_param_state();
      s->set_values(copy_for(it->second, p));
      state[p.impl()] = std::move(s);
    }
  }
  for (size_t i = 0; i < param_groups_.size(); ++i)
    param_groups_[i].set_options(std::move(options[i]));
  state_ = std::move(state);
}

}  // namespace ember::optim
