// ember::nn::Module: the base of every layer of the C++ front end, with the
// names and behaviour of torch::nn::Module (and of Python's ember.nn.Module):
// parameters, buffers and submodules registered by name, traversed in
// registration order with dotted names, train/eval, to(dtype/device),
// zero_grad, state dicts and printing.
//
//   struct NetImpl : ember::nn::Module {
//     NetImpl() { fc = register_module("fc", ember::nn::Linear(4, 2)); }
//     ember::Tensor forward(ember::Tensor x) { return fc(x); }
//     ember::nn::Linear fc{nullptr};
//   };
//   EMBER_MODULE(Net);   // Net: a shared holder of NetImpl, net(x) calls forward
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ember/nn/module_holder.h"
#include "ember/nn/ordered_dict.h"
#include "ember/tensor.h"

namespace ember::nn {

class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;

  // name: what printing shows; by default the class's own name without its
  // namespaces and a trailing "Impl" (ember::nn::LinearImpl is "Linear", as
  // in Python's repr; torch's C++ printing would keep the namespaces).
  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  virtual ~Module() = default;

  const std::string& name() const;

  // ---- registration ---------------------------------------------------------------
  // Registers `tensor` as a parameter (requires_grad set as asked) and returns
  // the registered handle; an undefined tensor holds the place of a parameter
  // that is absent (a Linear without bias) and is skipped by traversals.
  // Names are non-empty, without '.', and unique among this module's
  // parameters, buffers and submodules (ValueError otherwise).
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    register_child(std::move(name), module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  // Swaps the submodule registered under `name` (IndexError if there is none).
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    children_[name] = module;
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> holder) {
    return replace_module(name, holder.ptr());
  }

  // ---- traversal (registration order; recursion goes depth first) --------------------
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  // Every module of the tree, this one first when include_self (which needs
  // this module to be owned by a shared_ptr, as modules in holders are).
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = "",
                                                                 bool include_self = true);

  // ---- modes and conversion -----------------------------------------------------------------
  // Sets the training mode of this module and of every submodule.
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }
  // Converts parameters and buffers in place (their handles stay valid, as
  // torch's set_data); a dtype applies to floating-point tensors only, as in
  // PyTorch's Python Module.to. Gradients are converted with them.
  virtual void to(Device device, DType dtype, bool non_blocking = false);
  virtual void to(DType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);
  // set_to_none: the gradients become undefined; otherwise they are zeroed.
  void zero_grad(bool set_to_none = true);
  // fn(module) for every module of the tree, this one first.
  void apply(const ModuleApplyFunction& fn);
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = "");

  // ---- state dicts ----------------------------------------------------------------------------
  // Parameters and buffers by dotted name, each module's own first (the keys
  // of Python's state_dict()); the tensors are detached aliases.
  OrderedDict<std::string, Tensor> state_dict() const;
  // Copies the values (without recording autograd). Keys missing from
  // state_dict or not in this module raise ember::Error when strict; a
  // shape mismatch raises always (the messages of PyTorch's load_state_dict).
  void load_state_dict(const std::map<std::string, Tensor>& state_dict, bool strict = true);

  // ---- printing ---------------------------------------------------------------------------
  // One line for this module (the name and its options); children are added
  // by operator<< as Python's repr does.
  virtual void pretty_print(std::ostream& stream) const;
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

 protected:
  bool is_training_ = true;

 private:
  void register_child(std::string name, std::shared_ptr<Module> module);
  void check_new_name(const std::string& name, const char* kind) const;
  void convert_tensors(const std::function<Tensor(const Tensor&)>& convert);
  void collect_state(const std::string& prefix, OrderedDict<std::string, Tensor>& out) const;

  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
  mutable std::string name_;
};

std::ostream& operator<<(std::ostream& stream, const Module& module);
std::ostream& operator<<(std::ostream& stream, const std::shared_ptr<Module>& module);

}  // namespace ember::nn

namespace ember::nn {

template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

}  // namespace ember::nn
