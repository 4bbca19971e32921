// The autocast layer (lib/dispatch/autocast_hook.h): above the tracer and autograd
// layers, it casts an op's floating inputs as the op's schema row says, with ordinary
// dispatched casts (so autograd and the tracer see them), then hands the call on
// with autocast off, so that what runs below (kernels that dispatch, the layers)
// is not cast again.
#include <string_view>

#include "autocast/autocast_cache.h"
#include "autocast/autocast_policy.h"
#include "autocast/autocast_state.h"
#include "dispatch/autocast_hook.h"
#include "dispatch/op_schema.h"
#include "ember/error.h"

namespace ember::autocast {

namespace {

// The device type whose autocast state applies: the first input's, where a 0-dim CPU
// tensor (a Python number) gives way to a tensor of another device, as in resolve_device.
DeviceType call_device_type(const OpCall& call) {
  const Tensor* first = nullptr;
  for (const Tensor& t : call.inputs) {
    if (!t.defined()) continue;
    if (!first || (first->is_cpu() && first->dim() == 0)) first = &t;
  }
  return first ? first->device().type : DeviceType::CPU;
}

// What torch casts: floating tensors on the region's device type, but never float64.
bool eligible(const Tensor& t, DeviceType device) {
  return t.defined() && t.device().type == device && is_floating(t.dtype()) && t.dtype() != kFloat64;
}

// Promote: float32 if any eligible input is float32 (or the lower-precision inputs
// differ), else the region's dtype. Nullopt when no input is eligible.
std::optional<DType> widest(const OpCall& call, DeviceType device, DType lower) {
  std::optional<DType> out;
  for (const Tensor& t : call.inputs) {
    if (!eligible(t, device)) continue;
    out = (!out || *out == t.dtype()) && t.dtype() == lower ? lower : kFloat32;
  }
  return out;
}

void cast_inputs(OpCall& call, DeviceType device, DType to, bool may_cache) {
  const State& st = state();
  // A trace records the casts it sees: a copy cached before it began would be a constant.
  bool cache = may_cache && st.cache_enabled && !dispatch_state().tracing;
  for (Tensor& t : call.inputs) {
    if (!eligible(t, device) || t.dtype() == to) continue;
    // torch's rule: a float32 leaf that requires grad (a parameter) is cast once per region.
    if (cache && t.dtype() == kFloat32 && t.requires_grad()) {
      if (t.is_leaf()) {
        t = cached_cast(t, to);
        continue;
      }
      // linear hands addmm its weight transposed (a view): the view of the cached copy
      // of the parameter, so a weight is still cast once per region, as in torch, where
      // linear itself is autocast. The copy is contiguous, as the base is here.
      Tensor base = t.is_view() ? t._base() : Tensor();
      if (base.defined() && base.is_leaf() && base.requires_grad() && base.dtype() == kFloat32 &&
          base.is_contiguous() && base.storage_offset() == 0) {
        IntList sizes(t.sizes().begin(), t.sizes().end());
        IntList strides(t.strides().begin(), t.strides().end());
        t = cached_cast(base, to).as_strided(sizes, strides, t.storage_offset());
        continue;
      }
    }
    t = t.to(to);
  }
}

// torch's fp32_set_opt_dtype: an fp32 op with an output dtype (sum, prod, softmax,
// cumsum, norm, ...) computes in float32 and returns float32. Here the op function has
// already resolved `dtype` to the input's own when the caller gave none, so a `dtype`
// equal to the input's lower-precision dtype is read as "not given".
void widen_output_dtype(OpCall& call, DType input_dtype) {
  const OpSchema& s = op_schema(call.op);
  for (uint8_t i = 0; i < s.num_attrs && i < call.attrs.size(); ++i) {
    if (s.attrs[i].kind != ArgKind::DType || std::string_view(s.attrs[i].name) != "dtype") continue;
    // The position comes from the row (by the attr's name), as the model-file reader's.
    if (!call.attrs[i].is_none() && call.attrs[i].to_dtype() == input_dtype) call.attrs[i] = kFloat32;
  }
}

[[noreturn]] void refuse(const OpCall& call) {
  throw Error(detail::str(
      "torch.nn.functional.", call.name(), " and torch.nn.BCELoss are unsafe to autocast.\n"
      "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
      "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
      "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
      "safe to autocast."));
}

// Autocast off for the rest of the call, restored however it ends.
class BelowAutocast {
 public:
  BelowAutocast() : was_(exchange_autocast_active(false)) {}
  ~BelowAutocast() { exchange_autocast_active(was_); }

 private:
  bool was_;
};

void autocast_layer(OpCall& call) {
  // In-place and out= calls write a given tensor: not eligible, as in torch.
  if (!call.has_preset_output()) {
    DeviceType device = call_device_type(call);
    const State& st = state();
    int d = static_cast<int>(device);
    if (st.enabled[d]) {
      switch (policy(call.op, device)) {
        case Policy::None: break;
        case Policy::LowerPrecision: cast_inputs(call, device, st.dtype[d], true); break;
        case Policy::Fp32: {
          bool lower_input = !call.inputs.empty() && eligible(call.inputs[0], device) &&
                             call.inputs[0].dtype() != kFloat32;
          DType input_dtype = lower_input ? call.inputs[0].dtype() : kFloat32;
          cast_inputs(call, device, kFloat32, false);
          if (lower_input) widen_output_dtype(call, input_dtype);
          break;
        }
        case Policy::Promote:
          if (auto to = widest(call, device, st.dtype[d])) cast_inputs(call, device, *to, false);
          break;
        case Policy::Banned: refuse(call);
      }
    }
  }
  BelowAutocast below;
  dispatch_below_autocast(call);
}

struct InstallLayer {
  InstallLayer() { set_autocast_layer(&autocast_layer); }
} install_layer;

}  // namespace
}  // namespace ember::autocast
