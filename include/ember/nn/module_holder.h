// ModuleHolder<Impl>: a shared handle to a module (torch::nn::ModuleHolder),
// and EMBER_MODULE(Name), which makes `Name` the holder of `NameImpl`
// (torch's TORCH_MODULE). `Linear fc(4, 2)` builds a LinearImpl; copies of a
// holder share it; `fc(x)` and `fc->forward(x)` call its forward;
// `Linear fc{nullptr}` is empty until a module is assigned.
#pragma once
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "ember/error.h"

namespace ember::nn {

template <typename Contained>
class ModuleHolder {
  template <typename Head, typename... Tail>
  static constexpr bool is_constructor_args =
      sizeof...(Tail) > 0 || !(std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
                               std::is_convertible_v<Head, std::shared_ptr<Contained>> ||
                               std::is_base_of_v<ModuleHolder, std::decay_t<Head>>);

 public:
  using ContainedType = Contained;

  // Default-constructs the module (only for modules with a default constructor;
  // write `Holder h{nullptr}` for an empty holder).
  ModuleHolder()
    requires std::is_default_constructible_v<Contained>
      : impl_(std::make_shared<Contained>()) {}
  ModuleHolder(std::nullptr_t) {}  // NOLINT: empty, as in torch
  // Builds the module from its constructor's arguments.
  template <typename Head, typename... Tail>
    requires is_constructor_args<Head, Tail...>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }

  // holder(args...) is holder->forward(args...).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  // Indexing of containers (Sequential, ModuleList, ModuleDict).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  void check_not_empty() const {
    EMBER_CHECK(impl_ != nullptr, "Accessing an empty ModuleHolder (constructed with nullptr)");
  }
  std::shared_ptr<Contained> impl_;
};

}  // namespace ember::nn

// `Name`: the holder of `ImplType`.
#define EMBER_MODULE_IMPL(Name, ImplType)                            \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {          \
   public:                                                           \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder;         \
    using Impl = ImplType;                                           \
  }

// `Name`: the holder of `NameImpl`.
#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)
