// CPU kernels of the pools' backward primitives: each output's gradient is
// added into the input positions its window read (max: the one position its
// index names). Planes ([..., H, W] flattened) are spread over the threads and
// each plane sums in a fixed order, so results are reproducible.
// float16/bfloat16 accumulate in float and round once at the end.
#include <atomic>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "cpu/pool_common.h"
#include "dispatch/args/nn_backward.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/nn_backward.h"
#include "ember/ops/factories.h"

namespace ember::cpu {

namespace {

// The plane sizes of a backward call: gradient planes OH x OW into input
// planes H x W (the Args' input_size).
struct Planes {
  int64_t count, H, W, OH, OW;
};

// Runs body<T, Acc>(planes, g, acc) with g the contiguous grad_output (input 0)
// and acc a zeroed accumulator of args.input_size (float, double for double);
// the output is acc in grad_output's dtype.
template <class Args, typename Body>
void scatter_to_input(OpCall& call, const Args& args, const char* op, const Body& body) {
  const Tensor g = call.in(0).contiguous();
  const int64_t nd = static_cast<int64_t>(args.input_size.size());
  Planes p{1, args.input_size[nd - 2], args.input_size[nd - 1], g.size(-2), g.size(-1)};
  for (int64_t d = 0; d < nd - 2; ++d) p.count *= args.input_size[d];
  const DType acc_dtype = g.dtype() == kFloat64 ? kFloat64 : kFloat32;
  Tensor acc = zeros(IntList(args.input_size.begin(), args.input_size.end()), TensorOptions(acc_dtype));
  if (acc.numel() > 0 && g.numel() > 0) {
    EMBER_DISPATCH_FLOATING(g.dtype(), op, [&] {
      using Acc = opmath_t<scalar_t>;
      body(p, static_cast<const scalar_t*>(g.data_ptr()), static_cast<Acc*>(acc.data_ptr()));
    });
  }
  call.outputs.push_back(acc.dtype() == g.dtype() ? acc : acc.to(g.dtype()));
}

// acc[ih, iw] += v over the window [h0, h1) x [w0, w1) of a plane of width W.
template <typename Acc>
inline void add_to_window(Acc* acc, int64_t W, int64_t h0, int64_t h1, int64_t w0, int64_t w1, Acc v) {
  for (int64_t ih = h0; ih < h1; ++ih) {
    Acc* row = acc + ih * W;
#pragma omp simd
    for (int64_t iw = w0; iw < w1; ++iw) row[iw] += v;
  }
}

// max_pool2d_backward: in grad_output, indices (int64, plane positions); attr input_size.
void max_pool2d_backward_kernel(OpCall& call) {
  const MaxPool2dBackwardArgs args = MaxPool2dBackwardArgs::from(call);
  const Tensor idx = call.in(1).contiguous();
  const int64_t* ip = static_cast<const int64_t*>(idx.data_ptr());
  std::atomic<bool> out_of_range{false};
  int64_t plane_size = 0;
  scatter_to_input(call, args, "max_pool2d_backward", [&](const Planes& p, const auto* g, auto* acc) {
    using Acc = std::remove_pointer_t<decltype(acc)>;
    const int64_t in_plane = p.H * p.W, out_plane = p.OH * p.OW;
    plane_size = in_plane;
    for_each_plane(p.count, out_plane, [&](int64_t k) {
      const int64_t* i = ip + k * out_plane;
      Acc* a = acc + k * in_plane;
      for (int64_t o = 0; o < out_plane; ++o) {
        if (static_cast<uint64_t>(i[o]) >= static_cast<uint64_t>(in_plane)) {
          out_of_range.store(true, std::memory_order_relaxed);
          continue;
        }
        a[i[o]] += static_cast<Acc>(g[k * out_plane + o]);
      }
    });
  });
  EMBER_CHECK(!out_of_range.load(), "max_pool2d_backward: found an index outside the input planes of ",
              plane_size, " elements");
}

// avg_pool2d_backward: in grad_output; attrs input_size, kernel, stride, padding,
// ceil_mode, count_include_pad, divisor_override?.
void avg_pool2d_backward_kernel(OpCall& call) {
  const AvgPool2dBackwardArgs args = AvgPool2dBackwardArgs::from(call);
  const Window2d w = window_from(args);
  const int64_t divisor = args.divisor_override.value_or(0);
  scatter_to_input(call, args, "avg_pool2d_backward", [&](const Planes& p, const auto* g, auto* acc) {
    using Acc = std::remove_pointer_t<decltype(acc)>;
    // The windows are the same in every plane: computed once per call for planes of
    // up to kPrecomputedWindows outputs (tiny maps, where per-output set-up dominated).
    std::vector<AvgWindow> windows;
    if (p.OH * p.OW <= kPrecomputedWindows) {
      windows.reserve(static_cast<size_t>(p.OH * p.OW));
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow)
          windows.push_back(avg_window(w, oh, ow, p.H, p.W, args.count_include_pad, divisor));
    }
    for_each_plane(p.count, work_product({p.OH, p.OW, w.kh, w.kw}), [&](int64_t k) {
      const auto* gp = g + k * p.OH * p.OW;
      Acc* a = acc + k * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          const AvgWindow win = windows.empty()
                                    ? avg_window(w, oh, ow, p.H, p.W, args.count_include_pad, divisor)
                                    : windows[static_cast<size_t>(oh * p.OW + ow)];
          if (win.empty()) continue;
          Acc v = static_cast<Acc>(gp[oh * p.OW + ow]) / static_cast<Acc>(win.divisor);
          add_to_window(a, p.W, win.h0, win.h1, win.w0, win.w1, v);
        }
    });
  });
}

// adaptive_avg_pool2d_backward: in grad_output; attr input_size.
void adaptive_avg_pool2d_backward_kernel(OpCall& call) {
  const AdaptiveAvgPool2dBackwardArgs args = AdaptiveAvgPool2dBackwardArgs::from(call);
  scatter_to_input(call, args, "adaptive_avg_pool2d_backward", [&](const Planes& p, const auto* g, auto* acc) {
    using Acc = std::remove_pointer_t<decltype(acc)>;
    for_each_plane(p.count, p.H * p.W + p.OH * p.OW, [&](int64_t k) {
      const auto* gp = g + k * p.OH * p.OW;
      Acc* a = acc + k * p.H * p.W;
      for (int64_t oh = 0; oh < p.OH; ++oh) {
        const int64_t h0 = adaptive_start(oh, p.OH, p.H), h1 = adaptive_end(oh, p.OH, p.H);
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          const int64_t w0 = adaptive_start(ow, p.OW, p.W), w1 = adaptive_end(ow, p.OW, p.W);
          Acc v = static_cast<Acc>(gp[oh * p.OW + ow]) / static_cast<Acc>((h1 - h0) * (w1 - w0));
          add_to_window(a, p.W, h0, h1, w0, w1, v);
        }
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool2d_backward, CPU, max_pool2d_backward_kernel);
EMBER_REGISTER_KERNEL(avg_pool2d_backward, CPU, avg_pool2d_backward_kernel);
EMBER_REGISTER_KERNEL(adaptive_avg_pool2d_backward, CPU, adaptive_avg_pool2d_backward_kernel);

}  // namespace ember::cpu
