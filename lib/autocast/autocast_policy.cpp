#include "autocast/autocast_policy.h"

#include <cstring>

#include "autocast/autocast_state.h"
#include "dispatch/op_schema.h"

namespace ember::autocast {

namespace {

Policy parse(const char* name) {
  if (!name) return Policy::None;
  if (!std::strcmp(name, "lower_precision")) return Policy::LowerPrecision;
  if (!std::strcmp(name, "fp32")) return Policy::Fp32;
  if (!std::strcmp(name, "promote")) return Policy::Promote;
  if (!std::strcmp(name, "banned")) return Policy::Banned;
  return Policy::None;  // schema.py refuses any other value at build time
}

struct PolicyTable {
  Policy policy[kOpCapacity][kNumDeviceTypes] = {};
  PolicyTable() {
    for (int i = 0; i < kOpCapacity; ++i) {
      OpId op{static_cast<uint16_t>(i)};
      if (!is_op(op)) continue;
      const OpSchema& s = op_schema(op);
      policy[i][static_cast<int>(DeviceType::CUDA)] = parse(s.autocast);
      policy[i][static_cast<int>(DeviceType::CPU)] = parse(s.autocast_cpu);
    }
  }
};

}  // namespace

Policy policy(OpId op, DeviceType device) {
  static const PolicyTable table;
  return table.policy[static_cast<int>(op)][static_cast<int>(device)];
}

DType input_dtype_slow(OpId op, const Tensor& t) {
  DType dtype = t.dtype();
  DeviceType device = t.device().type;
  const State& st = state();
  if (!st.enabled[static_cast<int>(device)] || !is_floating(dtype) || dtype == kFloat64) return dtype;
  switch (policy(op, device)) {
    case Policy::LowerPrecision: return st.dtype[static_cast<int>(device)];
    case Policy::Fp32: return kFloat32;
    default: return dtype;
  }
}

}  // namespace ember::autocast
