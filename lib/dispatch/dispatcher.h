// The dispatcher: the one door every op goes through (see DESIGN.md).
//
//   dispatch(call) -> tracer layer   (only while a trace is active)
//                  -> autograd layer (if grad mode is on and an input requires grad, and for views)
//                  -> backend layer  (kernel for (op, device) from the registry)
//
// A layer with nothing to do costs one branch. The tracer and autograd layers
// are installed by lib/jit and lib/autograd through set_*_layer.
#pragma once
#include "dispatch/op_call.h"

namespace ember {

using KernelFn = void (*)(OpCall& call);
using LayerFn = void (*)(OpCall& call);

// Per-thread switches the layers read.
struct DispatchState {
  bool grad_enabled = true;
  bool tracing = false;
};
DispatchState& dispatch_state();

// While one lives, ops on this thread are not traced: a tensor made from host
// data (ember.tensor([...])) is one constant of a trace, not the ops that built it.
class NoTraceGuard {
 public:
  NoTraceGuard() : was_(dispatch_state().tracing) { dispatch_state().tracing = false; }
  ~NoTraceGuard() { dispatch_state().tracing = was_; }
  NoTraceGuard(const NoTraceGuard&) = delete;
  NoTraceGuard& operator=(const NoTraceGuard&) = delete;

 private:
  bool was_;
};

void dispatch(OpCall& call);
// Entry points below a layer, for the layers themselves.
void dispatch_below_tracer(OpCall& call);
void dispatch_backend(OpCall& call);

void set_tracer_layer(LayerFn fn);
// A value is read back to the host (item(), bool(t), tolist(), numpy()): while a
// trace is active the tracer warns, because the trace bakes the value in.
using HostReadFn = void (*)(const char* what);
void set_host_read_hook(HostReadFn fn);
extern HostReadFn g_host_read_hook;  // inline below: a host read outside a trace costs one branch
inline void note_host_read(const char* what) {
  if (__builtin_expect(dispatch_state().tracing, 0) && g_host_read_hook) g_host_read_hook(what);
}
void set_autograd_layer(LayerFn fn);
// Calls of `op` pass the autograd layer even when nothing requires grad and
// grad mode is off (view ops: the layer records their base).
void route_to_autograd_layer(OpId op);

void register_kernel(OpId op, DeviceType device, KernelFn fn);
bool has_kernel(OpId op, DeviceType device);

struct KernelRegistrar {
  KernelRegistrar(OpId op, DeviceType device, KernelFn fn) { register_kernel(op, device, fn); }
};

// Convenience for ops with one output: runs the call and returns outputs[0],
// moved out (the call is spent: one reference count less per op).
inline Tensor dispatch_one(OpCall& call) {
  dispatch(call);
  return std::move(call.outputs[0]);
}

}  // namespace ember

// In a kernel file:  EMBER_REGISTER_KERNEL(add, CPU, add_kernel);
#define EMBER_REGISTER_KERNEL(op, device, fn)                                             \
  static ::ember::KernelRegistrar ember_kernel_registrar_##op##_##device(                 \
      ::ember::opid::op, ::ember::DeviceType::device, fn)
