// Elementwise kernels on CUDA: gpu_kernel<Out, In...>(out, {&a, &b}, f) queues
// out[i] = f(a[i], b[i]) on the current stream, over out's shape, inputs broadcast
// to it, any strides, no copies. The CUDA twin of cpu_kernel (cpu/loops.h).
//
// - f is an EMBER_LAMBDA (a __host__ __device__ lambda) taking opmath_t<In>... (float
//   for float16 and bfloat16) and returning anything convert<Out> takes.
// - Every input is either a tensor on out's device of dtype In, or a one-element
//   CPU tensor of any dtype (a Python number): that one is read once on the host
//   and passed to the kernel as a value (in opmath_t<In>, unrounded, as PyTorch does).
// - Two kernels per instantiation: when every tensor operand is one dense run
//   aligned for 4-element vectors, a vectorized kernel (four elements per thread,
//   one 4-wide load or store per operand); otherwise a strided kernel that finds
//   each element's offsets with an OffsetCalculator. Both are grid-stride loops.
// - Operations over 2^31 elements or more are split into launches (32-bit indices).
//
// The caller makes sure out does not partially overlap an input (see
// ember::prepare_operand) and that the dtypes match In and Out.
#pragma once
#include <cuda_runtime.h>

#include <cuda/std/tuple>

#include <array>
#include <cstring>
#include <utility>

#include "kernels/element_types.h"
#include "kernels/dtype_dispatch.h"
#include "cuda/launch.h"
#include "cuda/offset_calculator.h"

// A lambda that runs on the device and whose type the host can inspect.
#define EMBER_LAMBDA __host__ __device__

namespace ember::cuda {

// Elements per thread of the vectorized kernel.
constexpr int kVecElements = 4;

template <typename T, int N>
struct alignas(sizeof(T) * N) AlignedVector {
  T v[N];
};

// Where the kernels read their inputs: a pointer, or a value carried in the
// launch (a CPU scalar), stored as the bytes of an opmath_t<In>.
template <int NIn>
struct InputSlots {
  const char* ptr[NIn > 0 ? NIn : 1];
  bool is_value[NIn > 0 ? NIn : 1];
  alignas(8) unsigned char value[NIn > 0 ? NIn : 1][8];
};

namespace loops_detail {

template <typename In, int NIn>
__device__ inline opmath_t<In> carried_value(const InputSlots<NIn>& s, int k) {
  opmath_t<In> v;
  memcpy(&v, s.value[k], sizeof v);
  return v;
}

template <typename In, int NIn>
__device__ inline opmath_t<In> load_at(const InputSlots<NIn>& s, int k, int64_t offset) {
  if (s.is_value[k]) return carried_value<In>(s, k);
  return static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(s.ptr[k] + offset));
}

template <typename Out, typename... In, typename F, size_t... K>
__device__ inline void apply_strided(char* out, const InputSlots<sizeof...(In)>& s,
                                     const int64_t* off, const F& f, std::index_sequence<K...>) {
  *reinterpret_cast<Out*>(out + off[0]) = convert<Out>(f(load_at<In>(s, int(K), off[K + 1])...));
}

template <typename F, typename Out, typename... In>
__global__ void strided_kernel(OffsetCalculator<sizeof...(In) + 1> calc, char* out,
                               InputSlots<sizeof...(In)> inputs, uint32_t n, F f) {
  constexpr int N = sizeof...(In) + 1;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int64_t off[N];
    calc.offsets(i, off);
    apply_strided<Out, In...>(out, inputs, off, f, std::index_sequence_for<In...>{});
  }
}

// Input k's j-th value of the vector at element `base` (vec: the loaded vectors).
template <typename In, int NIn>
__device__ inline opmath_t<In> vector_element(const InputSlots<NIn>& s, int k,
                                              const AlignedVector<In, kVecElements>& vec, int j) {
  if (s.is_value[k]) return carried_value<In>(s, k);
  return static_cast<opmath_t<In>>(vec.v[j]);
}

template <typename In, int NIn>
__device__ inline AlignedVector<In, kVecElements> load_vector(const InputSlots<NIn>& s, int k,
                                                              uint32_t base) {
  AlignedVector<In, kVecElements> vec;
  if (!s.is_value[k]) vec = reinterpret_cast<const AlignedVector<In, kVecElements>*>(s.ptr[k])[base / kVecElements];
  return vec;
}

template <typename Out, typename... In, typename F, size_t... K>
__device__ inline void apply_vector(Out* out, const InputSlots<sizeof...(In)>& s, uint32_t base,
                                    uint32_t n, const F& f, std::index_sequence<K...>) {
  if (base + kVecElements <= n) {
    // Every load is issued before any arithmetic, so the loads overlap.
    ::cuda::std::tuple<AlignedVector<In, kVecElements>...> vectors{load_vector<In>(s, int(K), base)...};
    AlignedVector<Out, kVecElements> result;
#pragma unroll
    for (int j = 0; j < kVecElements; ++j)
      result.v[j] = convert<Out>(f(vector_element<In>(s, int(K), ::cuda::std::get<K>(vectors), j)...));
    reinterpret_cast<AlignedVector<Out, kVecElements>*>(out)[base / kVecElements] = result;
  } else {  // the last, partial vector
    for (uint32_t i = base; i < n; ++i)
      out[i] = convert<Out>(f(load_at<In>(s, int(K), int64_t(i) * int64_t(sizeof(In)))...));
  }
}

template <typename F, typename Out, typename... In>
__global__ void vectorized_kernel(Out* out, InputSlots<sizeof...(In)> inputs, uint32_t n, F f) {
  uint32_t stride = blockDim.x * gridDim.x * kVecElements;
  for (uint32_t base = (blockIdx.x * blockDim.x + threadIdx.x) * kVecElements; base < n; base += stride)
    apply_vector<Out, In...>(out, inputs, base, n, f, std::index_sequence_for<In...>{});
}

// A CPU scalar input's value as the bytes of an opmath_t<In>.
template <typename In>
void store_carried_value(const Tensor& t, unsigned char (&bytes)[8]) {
  opmath_t<In> v{};
  EMBER_DISPATCH_ALL(t.dtype(), "gpu_kernel", [&] {
    v = convert<opmath_t<In>>(*static_cast<const scalar_t*>(t.data_ptr()));
  });
  static_assert(sizeof v <= 8, "carried values are at most 8 bytes");
  std::memcpy(bytes, &v, sizeof v);
}

inline bool is_carried(const Tensor& t) { return t.is_cpu() && t.numel() == 1; }

template <typename... In, size_t... K>
void mark_carried_values(InputSlots<sizeof...(In)>& s,
                         const std::array<const Tensor*, sizeof...(In)>& ins, std::index_sequence<K...>) {
  ((s.is_value[K] = is_carried(*ins[K]),
    s.is_value[K] ? store_carried_value<In>(*ins[K], s.value[K]) : void()),
   ...);
}

inline bool aligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

}  // namespace loops_detail

// See the comment at the top.
template <typename Out, typename... In, typename F>
void gpu_kernel(const Tensor& out, const std::array<const Tensor*, sizeof...(In)>& ins, const F& f) {
  using namespace loops_detail;
  constexpr int NIn = sizeof...(In);
  if (out.numel() == 0) return;
  LaunchContext ctx(out);

  InputSlots<NIn> slots{};
  constexpr size_t in_sizes[NIn > 0 ? NIn : 1] = {sizeof(In)...};
  OperandStrides strides{broadcast_byte_strides(out, out.sizes())};
  OperandBytes base{static_cast<char*>(out.data_ptr())};
  mark_carried_values<In...>(slots, ins, std::index_sequence_for<In...>{});
  // A carried value gets zero strides and no pointer (it is not read).
  for (int k = 0; k < NIn; ++k) {
    const Tensor& t = *ins[k];
    if (slots.is_value[k]) {
      strides.emplace_back(static_cast<size_t>(out.dim()), int64_t{0});
      base.push_back(nullptr);
    } else {
      strides.push_back(broadcast_byte_strides(t, out.sizes()));
      base.push_back(static_cast<char*>(t.data_ptr()));
    }
  }
  ElementwiseGeometry g =
      coalesce(GeometrySizes(out.sizes().begin(), out.sizes().end()), strides, base);

  // The vectorized kernel: one dense run, every tensor operand aligned for vectors.
  bool vectorizable = g.sizes.size() <= 1 && g.numel() <= (int64_t(1) << 31) - 1 - kVecElements;
  if (vectorizable && g.sizes.size() == 1) {
    vectorizable = g.strides[0][0] == int64_t(sizeof(Out)) &&
                   aligned(g.base[0], sizeof(Out) * kVecElements);
    for (int k = 0; k < NIn && vectorizable; ++k)
      vectorizable = slots.is_value[k] || (g.strides[0][k + 1] == int64_t(in_sizes[k]) &&
                                           aligned(g.base[k + 1], in_sizes[k] * kVecElements));
  }
  if (vectorizable) {
    for (int k = 0; k < NIn; ++k) slots.ptr[k] = g.base[k + 1];
    uint32_t n = static_cast<uint32_t>(g.numel());
    vectorized_kernel<F, Out, In...><<<blocks_for((n + kVecElements - 1) / kVecElements), kBlockThreads, 0,
                                    ctx.stream>>>(reinterpret_cast<Out*>(g.base[0]), slots, n, f);
    EMBER_CUDA_CHECK_LAUNCH();
    return;
  }
  for_each_32bit_part(g, [&](const ElementwiseGeometry& part) {
    InputSlots<NIn> s = slots;
    for (int k = 0; k < NIn; ++k) s.ptr[k] = part.base[k + 1];
    uint32_t n = static_cast<uint32_t>(part.numel());
    strided_kernel<F, Out, In...><<<blocks_for(n), kBlockThreads, 0, ctx.stream>>>(
        make_offset_calculator<NIn + 1>(part), part.base[0], s, n, f);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda
