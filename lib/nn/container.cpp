#include "ember/nn/modules/container.h"

namespace ember::nn {

namespace {

void check_index(size_t index, size_t size, const char* kind) {
  EMBER_CHECK_INDEX(index < size, "Index out of range: ", index, " for a ", kind, " of size ", size);
}

}  // namespace

// ---- Sequential ------------------------------------------------------------------------

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
  for (const auto& [name, module] : named_modules) push_back(name, module);
}

void SequentialImpl::push_back(AnyModule module) { push_back(std::to_string(modules_.size()), std::move(module)); }

void SequentialImpl::push_back(std::string name, AnyModule module) {
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const AnyModule& m : other.modules_) push_back(m);
}

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!modules_.empty(), "Sequential: cannot call forward() on an empty Sequential");
  Tensor x = input;
  for (const AnyModule& m : modules_) x = m.forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  check_index(index, modules_.size(), "Sequential");
  return modules_[index].ptr();
}

// ---- ModuleList -------------------------------------------------------------------------

void ModuleListImpl::push_back(const ModulePtr& module) {
  register_module(std::to_string(modules_.size()), module.ptr());
  modules_.push_back(module.ptr());
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& m : other.modules_) push_back(m);
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  check_index(index, modules_.size(), "ModuleList");
  return modules_[index];
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
