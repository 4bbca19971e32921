#include "ember/nn/modules/container.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::nn {

// ---- Sequential and ModuleList ---------------------------------------------------------

std::shared_ptr<Module> ModuleSequenceBase::ptr(size_t index) const {
  EMBER_CHECK_INDEX(index < modules_.size(), "Index out of range: ", index, " for a ", kind_, " of size ",
                    modules_.size());
  return modules_[index];
}

void ModuleSequenceBase::append(std::string name, std::shared_ptr<Module> module) {
  register_module(std::move(name), module);
  modules_.push_back(std::move(module));
}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) : SequentialImpl() {
  for (const auto& [name, module] : named_modules) push_back(name, module);
}

void SequentialImpl::push_back(AnyModule module) { push_back(std::to_string(size()), std::move(module)); }

void SequentialImpl::push_back(std::string name, AnyModule module) {
  append(std::move(name), module.ptr());
  forwards_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const AnyModule& m : other.forwards_) push_back(m);
}

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!forwards_.empty(), "Sequential: cannot call forward() on an empty Sequential");
  Tensor x = input;
  for (const AnyModule& m : forwards_) x = m.forward(x);
  return x;
}

void ModuleListImpl::push_back(const ModulePtr& module) { append(std::to_string(size()), module.ptr()); }

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& m : other) push_back(m);
}

// ---- ModuleDict --------------------------------------------------------------------------

ModuleDictImpl::ModuleDictImpl(std::initializer_list<std::pair<std::string, ModulePtr>> modules) {
  for (const auto& [key, module] : modules) insert(key, module);
}

void ModuleDictImpl::insert(const std::string& key, const ModulePtr& module) {
  if (modules_.contains(key)) {
    replace_module(key, module.ptr());
    modules_[key] = module.ptr();
  } else {
    register_module(key, module.ptr());
    modules_.insert(key, module.ptr());
  }
}

}  // namespace ember::nn
