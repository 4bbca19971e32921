// Module::state_dict and load_state_dict, with the checks and messages of
// PyTorch's load_state_dict.
#include <set>
#include <sstream>

#include "ember/autograd.h"
#include "ember/nn/module.h"

namespace ember::nn {

void Module::collect_state(const std::string& prefix, OrderedDict<std::string, Tensor>& out) const {
  for (const auto* own : {&parameters_, &buffers_})
    for (const auto& item : *own)
      if (item.value().defined()) out.insert(prefix + item.key(), item.value().detach());
  for (const auto& child : children_) child.value()->collect_state(prefix + child.key() + ".", out);
}

OrderedDict<std::string, Tensor> Module::state_dict() const {
  OrderedDict<std::string, Tensor> out("Key");
  collect_state("", out);
  return out;
}

namespace {

// `"a", "b"`, as PyTorch lists keys.
std::string quoted_list(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "\"" : ", \"") + k + "\"";
  return out;
}

}  // namespace

void Module::load_state_dict(const std::map<std::string, Tensor>& state_dict, bool strict) {
  OrderedDict<std::string, Tensor> own = this->state_dict();
  std::vector<std::string> missing, unexpected, errors;
  for (const auto& item : own) {
    auto it = state_dict.find(item.key());
    if (it == state_dict.end()) {
      missing.push_back(item.key());
      continue;
    }
    const Tensor& src = it->second;
    EMBER_CHECK_TYPE(src.defined(), "load_state_dict: the value of \"", item.key(), "\" is undefined");
    if (src.sizes() != item.value().sizes()) {
      errors.push_back(detail::str("size mismatch for ", item.key(), ": copying a param with shape ",
                                   shape_str(src.sizes()), " from checkpoint, the shape in current model is ",
                                   shape_str(item.value().sizes()), "."));
    }
  }
  for (const auto& [key, value] : state_dict)
    if (!own.contains(key)) unexpected.push_back(key);
  if (strict) {
    // PyTorch lists missing keys, then unexpected ones, then the other errors.
    if (!unexpected.empty())
      errors.insert(errors.begin(), "Unexpected key(s) in state_dict: " + quoted_list(unexpected) + ". ");
    if (!missing.empty())
      errors.insert(errors.begin(), "Missing key(s) in state_dict: " + quoted_list(missing) + ". ");
  }
  if (!errors.empty()) {
    std::ostringstream msg;
    msg << "Error(s) in loading state_dict for " << name() << ":";
    for (const std::string& e : errors) msg << "\n\t" << e;
    throw Error(msg.str());
  }
  NoGradGuard no_grad;
  for (auto& item : own) {
    auto it = state_dict.find(item.key());
    if (it != state_dict.end()) item.value().copy_(it->second);
  }
}

}  // namespace ember::nn
