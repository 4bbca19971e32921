// ember::nn::Module: registration, traversal, modes, conversion and printing.
// State dicts are in state_dict.cpp.
#include "ember/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>

#include "ember/autograd.h"

namespace ember::nn {

namespace {

// "ember::nn::LinearImpl" for the dynamic type of `module`.
std::string demangled_type_name(const Module& module) {
  const char* mangled = typeid(module).name();
  int status = 0;
  char* name = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string out = status == 0 && name ? name : mangled;
  std::free(name);
  return out;
}

// "Linear" for "ember::nn::LinearImpl": the class's own name, as Python's
// repr shows it (namespaces outside template arguments dropped, "Impl" too).
std::string display_name(const std::string& type_name) {
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i + 1 < type_name.size(); ++i) {
    if (type_name[i] == '<') ++depth;
    if (type_name[i] == '>') --depth;
    if (depth == 0 && type_name[i] == ':' && type_name[i + 1] == ':') start = i + 2;
  }
  std::string name = type_name.substr(start);
  if (name.size() > 4 && name.ends_with("Impl")) name.resize(name.size() - 4);
  return name;
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const {
  // The dynamic type is only known after construction, hence computed here.
  if (name_.empty()) name_ = display_name(demangled_type_name(*this));
  return name_;
}

// ---- registration ------------------------------------------------------------------------

void Module::check_new_name(const std::string& name, const char* kind) const {
  EMBER_CHECK_VALUE(!name.empty(), kind, " name must not be empty");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos, kind, " name must not contain a dot (\".\"), got \"",
                    name, "\"");
  EMBER_CHECK_VALUE(!parameters_.contains(name) && !buffers_.contains(name) && !children_.contains(name),
                    "attribute '", name, "' already exists in ", this->name());
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "parameter");
  if (tensor.defined()) tensor.requires_grad_(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_new_name(name, "buffer");
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::register_child(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "module");
  EMBER_CHECK_VALUE(module != nullptr, "register_module: module '", name, "' is empty (nullptr)");
  children_.insert(std::move(name), std::move(module));
}

// ---- traversal ---------------------------------------------------------------------------

namespace {

// Defined tensors of `own` under prefix + name, then each child's, recursively.
void collect_named(const Module& module, const std::string& prefix, bool recurse,
                   const OrderedDict<std::string, Tensor>& (*own)(const Module&),
                   OrderedDict<std::string, Tensor>& out) {
  for (const auto& item : own(module))
    if (item.value().defined()) out.insert(prefix + item.key(), item.value());
  if (!recurse) return;
  for (const auto& child : module.named_children())
    collect_named(*child.value(), prefix + child.key() + ".", true, own, out);
}

}  // namespace

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Parameter");
  collect_named(*this, "", recurse, [](const Module& m) -> const auto& { return m.parameters_; }, out);
  return out;
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> out("Buffer");
  collect_named(*this, "", recurse, [](const Module& m) -> const auto& { return m.buffers_; }, out);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }
std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }
OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const { return children_; }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                       bool include_self) {
  OrderedDict<std::string, std::shared_ptr<Module>> out("Module");
  apply([&](const std::string& name, Module& module) {
    if (&module == this && !include_self) return;
    std::shared_ptr<Module> ptr = module.weak_from_this().lock();
    EMBER_CHECK(ptr, "named_modules: module ", module.name(),
                " is not owned by a shared_ptr (construct it in a holder or with std::make_shared)");
    out.insert(name, std::move(ptr));
  }, name_prefix);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  return named_modules("", include_self).values();
}

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& child : children_) {
    std::string name = name_prefix.empty() ? child.key() : name_prefix + "." + child.key();
    child.value()->apply(fn, name);
  }
}

// ---- modes and conversion ------------------------------------------------------------

void Module::train(bool on) {
  is_training_ = on;
  for (auto& child : children_) child.value()->train(on);
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      NoGradGuard no_grad;
      p.set_grad(g.detach());  // a gradient with history is cut from it first, as in PyTorch
      p.grad().zero_();
    }
  }
}

void Module::convert_tensors(const std::function<Tensor(const Tensor&)>& convert) {
  NoGradGuard no_grad;
  auto convert_in_place = [&](Tensor& t) {
    if (!t.defined()) return;
    Tensor converted = convert(t);
    if (converted.is_same(t)) return;
    Tensor grad = t.grad();
    t.impl()->set_data(*converted.impl());
    if (grad.defined()) t.set_grad(convert(grad));
  };
  for (auto& item : parameters_) convert_in_place(item.value());
  for (auto& item : buffers_) convert_in_place(item.value());
  for (auto& child : children_) child.value()->convert_tensors(convert);
}

void Module::to(Device device, DType dtype, bool non_blocking) {
  convert_tensors([&](const Tensor& t) {
    return t.is_floating_point() ? t.to(device, dtype, non_blocking) : t.to(device, non_blocking);
  });
}

void Module::to(DType dtype, bool non_blocking) {
  convert_tensors([&](const Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
}

void Module::to(Device device, bool non_blocking) {
  convert_tensors([&](const Tensor& t) { return t.to(device, non_blocking); });
}

// ---- printing ------------------------------------------------------------------------

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << "\n";
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

std::ostream& operator<<(std::ostream& stream, const std::shared_ptr<Module>& module) {
  return stream << *module;
}

}  // namespace ember::nn
