#include "optim/values.h"

#include "ember/ops/factories.h"

namespace ember::optim {
namespace {

[[noreturn]] void wrong_kind(const char* name, const char* expected) {
  throw TypeError(detail::str("optimizer state dict: expected '", name, "' to be ", expected));
}

const OptimValue* find(const OptimValues& values, const char* name) {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

}  // namespace

double read_double(const OptimValues& values, const char* name, double current) {
  const OptimValue* v = find(values, name);
  if (!v) return current;
  if (auto* d = std::get_if<double>(v)) return *d;
  if (auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  if (auto* b = std::get_if<bool>(v)) return *b ? 1.0 : 0.0;
  wrong_kind(name, "a number");
}

bool read_bool(const OptimValues& values, const char* name, bool current) {
  const OptimValue* v = find(values, name);
  if (!v) return current;
  if (auto* b = std::get_if<bool>(v)) return *b;
  wrong_kind(name, "a bool");
}

std::vector<double> read_doubles(const OptimValues& values, const char* name,
                                 std::vector<double> current) {
  const OptimValue* v = find(values, name);
  if (!v) return current;
  if (auto* d = std::get_if<std::vector<double>>(v)) return *d;
  wrong_kind(name, "a list of numbers");
}

Tensor read_tensor(const OptimValues& values, const char* name) {
  const OptimValue* v = find(values, name);
  if (!v) return Tensor();
  if (auto* t = std::get_if<Tensor>(v)) return *t;
  wrong_kind(name, "a tensor");
}

int64_t read_step(const OptimValues& values) {
  const OptimValue* v = find(values, "step");
  if (!v) return 0;
  if (auto* t = std::get_if<Tensor>(v)) {
    EMBER_CHECK_TYPE(t->defined() && t->numel() == 1,
                     "optimizer state dict: expected 'step' to be a one-element tensor");
    return static_cast<int64_t>(t->item().to_double());
  }
  return static_cast<int64_t>(read_double(values, "step", 0));
}

Tensor step_tensor(int64_t step) {
  return scalar_tensor(static_cast<double>(step), TensorOptions(kFloat32));
}

void put_tensor(OptimValues& values, const char* name, const Tensor& t) {
  if (t.defined()) values[name] = t;
}

void check_option(bool ok, const char* what, double value) {
  EMBER_CHECK_VALUE(ok, "Invalid ", what, ": ", value);
}

}  // namespace ember::optim
