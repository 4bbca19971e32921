#include "dispatch/dispatcher.h"
#include "dispatch/autocast_hook.h"
#include "dispatch/remat_hook.h"

#include <atomic>

#include "core/cuda_launch_blocking.h"
#include "dispatch/kernel_lookup.h"
#include "dispatch/op_ids/core.h"
#include "dispatch/op_schema.h"
#include "dispatch/profiler_hook.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/inference_mode.h"

namespace ember {

namespace {
KernelFn g_kernels[kOpCapacity][kNumDeviceTypes] = {};
LayerFn g_tracer_layer = nullptr;
LayerFn g_autograd_layer = nullptr;
LayerFn g_autocast_layer = nullptr;
LayerFn g_remat_layer = nullptr;
std::atomic<bool> g_remat_active{false};
// The off path tests a plain global first: the number of threads whose autocast state is
// on (a thread-local read in a shared library is a call to __tls_get_addr).
std::atomic<int> g_autocast_threads{0};
// This thread's autocast state is on; a thread that ends so gives its count back.
struct ThreadAutocastEnabled {
  bool on = false;
  ~ThreadAutocastEnabled() {
    if (on) g_autocast_threads.fetch_sub(1, std::memory_order_relaxed);
  }
};
thread_local ThreadAutocastEnabled t_autocast_enabled;
thread_local bool t_autocast_active = false;   // ...and the layer is not suspended
inline bool autocast_layer_on() {
  return __builtin_expect(g_autocast_threads.load(std::memory_order_relaxed) != 0, 0) &&
         t_autocast_active;
}
bool g_always_autograd[kOpCapacity] = {};

// The device every tensor input is on. A 0-dim CPU tensor may join tensors of
// another device (as in PyTorch), so a Python number never forces a copy.
Device resolve_device(const OpCall& call) {
  const Tensor* first = nullptr;
  for (const Tensor& t : call.inputs) {
    if (!t.defined()) continue;
    if (!first) { first = &t; continue; }
    if (t.device() == first->device()) continue;
    bool t_scalar = t.is_cpu() && t.dim() == 0;
    bool first_scalar = first->is_cpu() && first->dim() == 0;
    if (first_scalar && !t_scalar) { first = &t; continue; }
    if (t_scalar) continue;
    throw Error(detail::str(call.name(), ": expected all tensors to be on the same device, but got ",
                            first->device().str(), " and ", t.device().str()));
  }
  return first ? first->device() : kCPU;
}

// Note [Requires grad] (lib/autograd/autograd_meta.h): a tensor with autograd
// metadata (a view, whose requires_grad may follow its base's) goes to the
// autograd layer too, which decides.
bool needs_autograd_layer(const OpCall& call) {
  if (g_always_autograd[static_cast<int>(call.op)]) return true;
  if (!dispatch_state().grad_enabled) return false;
  for (const Tensor& t : call.inputs)
    if (t.defined() && (t.impl()->requires_grad || t.impl()->autograd)) return true;
  return false;
}
}  // namespace

DispatchState& dispatch_state() {
  thread_local DispatchState state;
  return state;
}

HostReadFn g_host_read_hook = nullptr;
void set_host_read_hook(HostReadFn fn) { g_host_read_hook = fn; }

void set_tracer_layer(LayerFn fn) { g_tracer_layer = fn; }
void set_autograd_layer(LayerFn fn) { g_autograd_layer = fn; }
void set_autocast_layer(LayerFn fn) { g_autocast_layer = fn; }
void set_remat_layer(LayerFn fn) { g_remat_layer = fn; }
void set_remat_active(bool on) { g_remat_active.store(on, std::memory_order_relaxed); }
void set_autocast_active(bool on) {
  on = on && g_autocast_layer;
  if (on != t_autocast_enabled.on) {
    g_autocast_threads.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
    t_autocast_enabled.on = on;
  }
  t_autocast_active = on;
}
bool exchange_autocast_active(bool on) {
  bool was = t_autocast_active;
  t_autocast_active = on && t_autocast_enabled.on;
  return was;
}
bool autocast_active() { return autocast_layer_on(); }
void route_to_autograd_layer(OpId op) { g_always_autograd[static_cast<int>(op)] = true; }

void register_kernel(OpId op, DeviceType device, KernelFn fn) {
  g_kernels[static_cast<int>(op)][static_cast<int>(device)] = fn;
}

KernelFn find_kernel(OpId op, DeviceType device) {
  return g_kernels[static_cast<int>(op)][static_cast<int>(device)];
}

bool has_kernel(OpId op, DeviceType device) {
  return g_kernels[static_cast<int>(op)][static_cast<int>(device)] != nullptr;
}

namespace {
inline void dispatch_from_tracer(OpCall& call) {
  if (__builtin_expect(dispatch_state().tracing, 0) && g_tracer_layer) {
    g_tracer_layer(call);
    return;
  }
  dispatch_below_tracer(call);
}

// The autocast layer (lib/autocast) first: its casts are dispatched ops, traced and recorded.
inline void dispatch_layers(OpCall& call) {
  if (autocast_layer_on()) {
    g_autocast_layer(call);
    return;
  }
  dispatch_from_tracer(call);
}

// Out of line, so that dispatch() sets up no frame for the profiler's range when it is off.
[[gnu::noinline]] void dispatch_profiled(OpCall& call) {
  profiler::detail::OpRange range(call);
  dispatch_layers(call);
}
}  // namespace

void dispatch(OpCall& call) {
  // The op profiler (include/ember/profiler.h): one relaxed atomic load when it is off.
  if (__builtin_expect(profiler::detail::enabled(), 0)) return dispatch_profiled(call);
  dispatch_layers(call);
}

void dispatch_below_autocast(OpCall& call) { dispatch_from_tracer(call); }

void dispatch_below_tracer(OpCall& call) {
  if (g_autograd_layer && needs_autograd_layer(call)) {
    g_autograd_layer(call);
    return;
  }
  dispatch_backend(call);
}

namespace {

// Whether the preset outputs may be written, checked before anything is: an inference
// tensor only inside inference mode; and not an output whose elements share memory (an
// expanded tensor: a stride 0 on a dim longer than 1), whose result would depend on the
// order of the writes (PyTorch refuses it for every op but fill_).
void check_writable_outputs(const OpCall& call) {
  for (const Tensor& out : call.outputs)
    EMBER_CHECK(!out.impl()->is_inference || is_inference_mode_enabled(), call.name(),
                ": Inplace update to inference tensor outside InferenceMode is not allowed.You "
                "can make a clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details.");
  if (call.op == opid::fill_) return;  // the same value into every element: order-free
  for (const Tensor& out : call.outputs) {
    const DimVector& sizes = out.sizes();
    const DimVector& strides = out.strides();
    for (size_t d = 0; d < sizes.size(); ++d)
      EMBER_CHECK(!(strides[d] == 0 && sizes[d] > 1), call.name(),
                  ": unsupported operation: more than one element of the written-to tensor refers "
                  "to a single memory location. Please clone() the tensor before performing the "
                  "operation.");
  }
}

}  // namespace

void dispatch_backend(OpCall& call) {
  if (__builtin_expect(g_remat_active.load(std::memory_order_relaxed), 0) && g_remat_layer)
    return g_remat_layer(call);
  dispatch_backend_kernel(call);
}

void dispatch_backend_kernel(OpCall& call) {
  if (!call.device) call.device = resolve_device(call);
  KernelFn fn = g_kernels[static_cast<int>(call.op)][static_cast<int>(call.device->type)];
  if (!fn)
    throw NotImplementedError(detail::str(call.name(), ": no kernel for device ",
                                          call.device->str()));
  bool preset = call.has_preset_output();
  if (preset) check_writable_outputs(call);
  if (__builtin_expect(schema_checks_enabled(), 0)) check_call_inputs(call);
  fn(call);
  // The synchronizing debug mode: a device-side error is raised by the op that caused it.
  if (__builtin_expect(cuda::launch_blocking(), 0) && call.device->is_cuda() &&
      !cuda::detail::graph_capture_underway())
    cuda::synchronize(call.device->index);
  if (__builtin_expect(schema_checks_enabled(), 0)) check_call_outputs(call);
  // Note [Versions]: every write into an existing tensor bumps its storage's version.
  if (preset)
    for (const Tensor& out : call.outputs) out.bump_version();
}

}  // namespace ember
