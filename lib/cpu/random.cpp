// Random kernels. Element i of the (logical, row-major) tensor draws from
// philox(seed, counter = offset + i), so results do not depend on threading. The
// op function reserved (seed, offset) from the generator (lib/ops/random_call.h).
#include "kernels/philox.h"
#include "kernels/dtype_dispatch.h"
#include "cpu/parallel.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"
#include "ember/generator.h"
#include "ember/ops/factories.h"
#include "ember/ops/views.h"
#include "ops/random_call.h"

namespace ember::cpu {
namespace {

// Fills a tensor with gen(words) for each element, through a contiguous buffer
// when the tensor itself is not contiguous.
template <typename T, typename Gen>
void generate(const OpCall& c, const Gen& gen) {
  const Tensor& out = c.outputs[0];
  Tensor dense = out.is_contiguous() ? out : empty(out.sizes(), TensorOptions(out.dtype()));
  T* p = static_cast<T*>(dense.data_ptr());
  const PhiloxState stream = philox_of(c);
  const uint64_t key = stream.seed, offset = stream.offset;
  parallel_for(0, out.numel(), kGrainSize / 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = gen(philox4x32(key, 0, offset + static_cast<uint64_t>(i)));
  });
  if (!dense.is_same(out)) {
    Tensor o = out;
    copy_(o, dense);
  }
}

void uniform_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const UniformArgs a = UniformArgs::from(c);
  EMBER_DISPATCH_FLOATING(out.dtype(), "uniform_", [&] {
    generate<scalar_t>(c, [=](const PhiloxWords& w) { return philox_sample::uniform<scalar_t>(w, a.low, a.high); });
  });
}

void normal_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const NormalArgs a = NormalArgs::from(c);
  EMBER_DISPATCH_FLOATING(out.dtype(), "normal_", [&] {
    generate<scalar_t>(c, [=](const PhiloxWords& w) { return convert<scalar_t>(philox_sample::normal(w, a.mean, a.std)); });
  });
}

void random_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const RandomArgs a = RandomArgs::from(c);
  // In uint64 arithmetic, so that spans up to 2^64 (the whole int64 range) work.
  const uint64_t lo = static_cast<uint64_t>(a.low);
  const uint64_t span = static_cast<uint64_t>(a.span);
  EMBER_DISPATCH_ALL(out.dtype(), "random_", [&] {
    generate<scalar_t>(c, [=](const PhiloxWords& w) { return convert<scalar_t>(philox_sample::random_int(w, lo, span)); });
  });
}

void bernoulli_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  const BernoulliArgs a = BernoulliArgs::from(c);
  EMBER_DISPATCH_ALL(out.dtype(), "bernoulli_", [&] {
    generate<scalar_t>(c, [=](const PhiloxWords& w) { return convert<scalar_t>(philox_sample::bernoulli(w, a.p) ? 1 : 0); });
  });
}

void randperm_kernel(OpCall& c) {
  const Tensor& out = c.outputs[0];
  int64_t n = out.numel();
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  const PhiloxState stream = philox_of(c);
  const uint64_t key = stream.seed, offset = stream.offset;
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    const PhiloxWords w = philox4x32(key, 0, offset + static_cast<uint64_t>(i));
    uint64_t r = ((uint64_t(w[0]) << 32) | w[1]) % static_cast<uint64_t>(i + 1);
    std::swap(perm[i], perm[r]);
  }
  EMBER_DISPATCH_NUMERIC(out.dtype(), "randperm", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) p[i * (n > 1 ? out.stride(0) : 1)] = convert<scalar_t>(perm[i]);
  });
}

EMBER_REGISTER_KERNEL(uniform_, CPU, uniform_kernel);
EMBER_REGISTER_KERNEL(normal_, CPU, normal_kernel);
EMBER_REGISTER_KERNEL(random_, CPU, random_kernel);
EMBER_REGISTER_KERNEL(bernoulli_, CPU, bernoulli_kernel);
EMBER_REGISTER_KERNEL(randperm, CPU, randperm_kernel);

}  // namespace
}  // namespace ember::cpu
