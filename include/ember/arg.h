// EMBER_ARG: a chainable option of an options struct (torch's TORCH_ARG), used
// by ember::optim's and ember::nn's options.
#pragma once

// A chainable option: `T name() const`, `Derived& name(T)` (returns the
// options object itself, so setters chain), stored in `name_`. The class
// provides `derived()` (itself, or the CRTP Derived of a shared base).
#define EMBER_ARG(T, name)                                             \
 public:                                                               \
  auto& name(const T& new_##name) {                                    \
    this->name##_ = new_##name;                                        \
    return this->derived();                                            \
  }                                                                    \
  const T& name() const noexcept { return this->name##_; }             \
  T& name() noexcept { return this->name##_; }                         \
                                                                       \
 private:                                                              \
  T name##_
