// The registries and shape rules of fused pointwise programs (kernels/fused_pointwise.h).
#include "kernels/fused_pointwise.h"

#include <algorithm>
#include <map>

namespace ember::kernels::fused {

namespace {
// Filled by static registrars before main (the backends' tables); read-only afterwards,
// so concurrent lookups from several threads running one module need no lock.
std::map<OpId, LowerFn>& lowerings() {
  static std::map<OpId, LowerFn> r;
  return r;
}
FusedRunner g_runners[kNumDeviceTypes] = {};
}  // namespace

void register_pointwise_op(OpId op, LowerFn lower) {
  if (!lower) return;  // an op a table leaves out
  EMBER_CHECK(lowerings().emplace(op, lower).second, "pointwise fusion: op ", op_name(op),
              " registered twice");
}

LowerFn pointwise_lowering(OpId op) {
  auto it = lowerings().find(op);
  return it == lowerings().end() ? nullptr : it->second;
}

std::vector<OpId> pointwise_ops() {
  std::vector<OpId> ops;
  for (const auto& [op, fn] : lowerings()) ops.push_back(op);
  return ops;
}

void register_fused_runner(DeviceType device, FusedRunner run) {
  g_runners[static_cast<int>(device)] = run;
}

FusedRunner fused_runner(DeviceType device) {
  int i = static_cast<int>(device);
  return i >= 0 && i < kNumDeviceTypes ? g_runners[i] : nullptr;
}

int64_t numel_of(const DimVector& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool broadcast_into(DimVector& acc, const DimVector& sizes) {
  if (sizes.size() > acc.size()) {
    DimVector wider(sizes.size() - acc.size(), 1);
    for (int64_t s : acc) wider.push_back(s);
    acc = wider;
  }
  size_t lead = acc.size() - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t& a = acc[lead + d];
    int64_t s = sizes[d];
    if (s == a || s == 1) continue;
    if (a != 1) return false;
    a = s;
  }
  return true;
}

namespace {
// sizes without its leading 1s.
DimVector strip_leading_ones(const DimVector& sizes) {
  size_t i = 0;
  while (i < sizes.size() && sizes[i] == 1) ++i;
  DimVector core;
  for (; i < sizes.size(); ++i) core.push_back(sizes[i]);
  return core;
}
}  // namespace

OperandForm operand_form(const DimVector& operand, const DimVector& shape) {
  int64_t n = numel_of(operand);
  if (n == 1) return OperandForm::Scalar;
  DimVector acc = shape;
  if (!broadcast_into(acc, operand) || acc != shape) return OperandForm::Other;
  if (n == numel_of(shape)) return OperandForm::Full;
  DimVector core = strip_leading_ones(operand);
  if (core.size() > shape.size()) return OperandForm::Other;
  if (!std::equal(core.begin(), core.end(), shape.end() - static_cast<std::ptrdiff_t>(core.size())))
    return OperandForm::Other;
  return OperandForm::Trailing;
}

}  // namespace ember::kernels::fused
