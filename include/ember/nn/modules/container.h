// Containers: Sequential (modules called in order), ModuleList and
// ModuleDict (modules registered by position or by key), with torch::nn's
// names. Unnamed entries are registered as "0", "1", ...
//
//   ember::nn::Sequential seq(ember::nn::Linear(4, 8), ember::nn::ReLU(), ember::nn::Linear(8, 1));
//   ember::nn::Sequential named({{"fc", ember::nn::Linear(4, 8)}, {"act", ember::nn::ReLU()}});
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// A module handle taken from a holder (Linear(...)) or a shared_ptr.
class ModulePtr {
 public:
  template <typename M>
    requires std::is_base_of_v<Module, M>
  ModulePtr(std::shared_ptr<M> module) : ptr_(std::move(module)) {}  // NOLINT
  template <typename M>
  ModulePtr(const ModuleHolder<M>& holder) : ptr_(holder.ptr()) {}  // NOLINT
  const std::shared_ptr<Module>& ptr() const { return ptr_; }

 private:
  std::shared_ptr<Module> ptr_;
};

// `module` as an M& (ValueError naming `where` if it is of another type).
template <typename M>
M& module_as(const std::shared_ptr<Module>& module, const std::string& where) {
  auto* m = dynamic_cast<M*>(module.get());
  EMBER_CHECK_VALUE(m, where, ": the module is a ", module->name(), ", not the type asked for");
  return *m;
}

// A module whose forward takes and returns one tensor, with its type erased
// (what Sequential holds; torch's AnyModule for this signature).
class AnyModule {
 public:
  template <typename M>
    requires std::is_base_of_v<Module, M>
  AnyModule(std::shared_ptr<M> module)  // NOLINT
      : module_(module), forward_([m = module.get()](const Tensor& x) -> Tensor { return m->forward(x); }) {}
  template <typename M>
  AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}  // NOLINT

  Tensor forward(const Tensor& input) const { return forward_(input); }
  const std::shared_ptr<Module>& ptr() const { return module_; }
  // The module as its own type (ValueError if it is another).
  template <typename M>
  M& get() const {
    return module_as<M>(module_, "AnyModule::get");
  }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
};

using NamedAnyModule = std::pair<std::string, AnyModule>;

// What Sequential and ModuleList share: submodules by position, registered
// under their names ("0", "1", ... unless named).
class ModuleSequenceBase : public Module {
 public:
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  // IndexError past the end.
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  // The module as its own type (ValueError if it is another).
  template <typename M>
  M& at(size_t index) const {
    return module_as<M>(ptr(index), kind_ + "::at");
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override { stream << kind_; }

 protected:
  explicit ModuleSequenceBase(std::string kind) : kind_(std::move(kind)) {}
  void append(std::string name, std::shared_ptr<Module> module);

 private:
  std::string kind_;
  std::vector<std::shared_ptr<Module>> modules_;
};

class SequentialImpl : public ModuleSequenceBase {
 public:
  SequentialImpl() : ModuleSequenceBase("Sequential") {}
  template <typename... Modules>
    requires(sizeof...(Modules) > 0 && (std::is_constructible_v<AnyModule, Modules> && ...))
  explicit SequentialImpl(Modules&&... modules) : SequentialImpl() {
    (push_back(AnyModule(std::forward<Modules>(modules))), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);

  void push_back(AnyModule module);
  void push_back(std::string name, AnyModule module);
  // Appends the modules of another Sequential (shared, not copied).
  void extend(const SequentialImpl& other);
  // Calls each module on the output of the one before.
  Tensor forward(const Tensor& input);

 private:
  std::vector<AnyModule> forwards_;  // the modules of the base, with their forward
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

// Modules of any kind by position; the owner calls them.
class ModuleListImpl : public ModuleSequenceBase {
 public:
  ModuleListImpl() : ModuleSequenceBase("ModuleList") {}
  template <typename... Modules>
    requires(sizeof...(Modules) > 0 && (std::is_constructible_v<ModulePtr, Modules> && ...))
  explicit ModuleListImpl(Modules&&... modules) : ModuleListImpl() {
    (push_back(ModulePtr(std::forward<Modules>(modules))), ...);
  }

  void push_back(const ModulePtr& module);
  void extend(const ModuleListImpl& other);
};
EMBER_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(std::initializer_list<std::pair<std::string, ModulePtr>> modules);

  // Adds or replaces the module under `key`.
  void insert(const std::string& key, const ModulePtr& module);
  bool contains(const std::string& key) const { return modules_.contains(key); }
  // IndexError for a key that is not present.
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  template <typename M>
  M& at(const std::string& key) const {
    return module_as<M>(modules_[key], "ModuleDict::at");
  }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const {
    return modules_.items();
  }
  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.is_empty(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override { stream << "ModuleDict"; }

 private:
  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Key"};
};

class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  using Impl = ModuleDictImpl;
  ModuleDict(std::initializer_list<std::pair<std::string, ModulePtr>> modules)
      : ModuleHolder(std::make_shared<ModuleDictImpl>(modules)) {}
};

}  // namespace ember::nn
