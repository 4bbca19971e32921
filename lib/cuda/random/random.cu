// Random kernels on CUDA: uniform_, normal_, random_, bernoulli_, randperm.
// Element i of the (logical, row-major) tensor draws philox4x32(seed, 0, offset + i)
// and maps its words with the samplers of kernels/philox.h, exactly as the CPU kernels
// (lib/cpu/random.cpp) do: the same seed and offset give the same tensor on both
// backends (bit for bit, except normal_, whose log/cos/sqrt may differ from the
// host's libm in the last place). The op function reserved (seed, offset) from the
// generator (lib/ops/random_call.h).
#include "kernels/philox.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "ops/random_call.h"

namespace ember::cuda {
namespace {

template <typename T>
struct UniformOp {
  double lo, hi;
  __device__ T operator()(const PhiloxWords& w) const { return philox_sample::uniform<T>(w, lo, hi); }
};
template <typename T>
struct NormalOp {
  double mean, std;
  __device__ T operator()(const PhiloxWords& w) const { return convert<T>(philox_sample::normal(w, mean, std)); }
};
template <typename T>
struct RandomIntOp {
  uint64_t lo, span;
  __device__ T operator()(const PhiloxWords& w) const { return convert<T>(philox_sample::random_int(w, lo, span)); }
};
template <typename T>
struct BernoulliOp {
  double p;
  __device__ T operator()(const PhiloxWords& w) const { return convert<T>(philox_sample::bernoulli(w, p) ? 1 : 0); }
};

// p[i] = gen(philox(key, 0, offset + i)) for i in [0, n): a grid-stride loop,
// indices in int64.
template <typename T, typename Gen>
__global__ void generate_kernel(T* p, int64_t n, uint64_t key, uint64_t offset, Gen gen) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    p[i] = gen(philox4x32(key, 0, offset + static_cast<uint64_t>(i)));
}

// Fills c's output with gen, through a contiguous buffer when the output itself
// is not contiguous (as the CPU kernel).
template <typename T, typename Gen>
void generate(const OpCall& c, const Gen& gen) {
  const Tensor& out = c.outputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  Tensor dense = out.is_contiguous() ? out : empty(out.sizes(), TensorOptions(out.dtype()).device(out.device()));
  const PhiloxState stream = philox_of(c);
  {
    LaunchContext ctx(out);
    generate_kernel<T, Gen><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(static_cast<T*>(dense.data_ptr()), n,
                                                                              stream.seed, stream.offset, gen);
    EMBER_CUDA_CHECK_LAUNCH();
  }
  if (!dense.is_same(out)) {
    Tensor o = out;
    copy_(o, dense);
  }
}

void uniform_kernel(OpCall& c) {
  const UniformArgs a = UniformArgs::from(c);
  EMBER_DISPATCH_FLOATING(c.outputs[0].dtype(), "uniform_", [&] {
    generate<scalar_t>(c, UniformOp<scalar_t>{a.low, a.high});
  });
}

void normal_kernel(OpCall& c) {
  const NormalArgs a = NormalArgs::from(c);
  EMBER_DISPATCH_FLOATING(c.outputs[0].dtype(), "normal_", [&] {
    generate<scalar_t>(c, NormalOp<scalar_t>{a.mean, a.std});
  });
}

void random_kernel(OpCall& c) {
  const RandomArgs a = RandomArgs::from(c);
  const uint64_t lo = static_cast<uint64_t>(a.low);
  const uint64_t span = static_cast<uint64_t>(a.span);
  EMBER_DISPATCH_ALL(c.outputs[0].dtype(), "random_", [&] {
    generate<scalar_t>(c, RandomIntOp<scalar_t>{lo, span});
  });
}

void bernoulli_kernel(OpCall& c) {
  const BernoulliArgs a = BernoulliArgs::from(c);
  EMBER_DISPATCH_ALL(c.outputs[0].dtype(), "bernoulli_", [&] {
    generate<scalar_t>(c, BernoulliOp<scalar_t>{a.p});
  });
}

// randperm's Fisher-Yates shuffle is inherently sequential (each swap depends on
// the previous ones), and it must give the CPU's permutation for the same seed:
// the CPU kernel runs on a host tensor, which is then copied to the device (the
// host waits for that transfer, as any copy from pageable memory).
void randperm_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  Tensor host = empty(out.sizes(), TensorOptions(out.dtype()));
  OpCall cpu_call(opid::randperm, SmallVector<Tensor, 4>{host}, c.attrs);
  cpu_call.outputs.push_back(host);
  cpu_call.device = kCPU;
  dispatch_backend(cpu_call);
  Tensor o = out;
  copy_(o, host);
}

EMBER_REGISTER_KERNEL(uniform_, CUDA, uniform_kernel);
EMBER_REGISTER_KERNEL(normal_, CUDA, normal_kernel);
EMBER_REGISTER_KERNEL(random_, CUDA, random_kernel);
EMBER_REGISTER_KERNEL(bernoulli_, CUDA, bernoulli_kernel);
EMBER_REGISTER_KERNEL(randperm, CUDA, randperm_kernel);

}  // namespace
}  // namespace ember::cuda
