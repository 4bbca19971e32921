#include "ember/generator.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>

#include "kernels/philox.h"
#include "ember/cuda.h"
#include "ember/cuda_graph.h"
#include "ember/error.h"
#include "ember/ops/factories.h"
#include "ember/tensor.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember {

namespace {

void check_device(Device device) {
  // Philox is device-independent: a CUDA generator draws the same numbers as a CPU one.
  EMBER_CHECK(device.is_cpu() || (device.is_cuda() && cuda::is_built()), "Generator: device '",
              device.str(), "' is not available in this build");
}

}  // namespace

Generator::Generator(uint64_t seed, Device device) : device_(device), seed_(seed) {
  check_device(device);
}

Generator& Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
  return *this;
}

uint64_t Generator::seed() {
  // random_device alone may be deterministic on some platforms; the clock breaks ties.
  std::random_device rd;
  uint64_t s = (uint64_t(rd()) << 32) ^ rd() ^
               static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

PhiloxState Generator::reserve(uint64_t n) {
  // A captured CUDA graph would replay the counter it was handed at capture, so every
  // replay would draw the same numbers: refused instead (ember/cuda_graph.h).
  EMBER_CHECK(!(device_.is_cuda() && cuda::detail::graph_capture_underway() &&
                cuda::is_current_stream_capturing()),
              "random number generation on CUDA cannot be captured in a CUDA graph in ember: "
              "every replay would repeat the captured draw; draw the random tensor outside "
              "the graph and copy it into a tensor the graph reads");
  std::lock_guard<std::mutex> lock(mutex_);
  PhiloxState start{seed_, offset_};
  offset_ += n;
  return start;
}

PhiloxState Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {seed_, offset_};
}

void Generator::set_state(PhiloxState state) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = state.seed;
  offset_ = state.offset;
}

Tensor Generator::get_state() const {
  PhiloxState s = state();
  Tensor out = empty(IntList{kStateBytes}, TensorOptions(kUInt8));
  uint8_t* p = out.data_ptr<uint8_t>();
  for (int i = 0; i < 8; ++i) {
    p[i] = static_cast<uint8_t>(s.seed >> (8 * i));
    p[8 + i] = static_cast<uint8_t>(s.offset >> (8 * i));
  }
  return out;
}

void Generator::set_state(const Tensor& state) {
  EMBER_CHECK_TYPE(state.defined() && state.dtype() == kUInt8,
                   "set_state: expected a uint8 tensor (as get_state returns), got ",
                   state.defined() ? dtype_name(state.dtype()) : "an undefined tensor");
  EMBER_CHECK(state.numel() == kStateBytes, "set_state: expected a generator state of ",
              kStateBytes, " bytes but found the input RNG state size to be ", state.numel());
  Tensor bytes = state.cpu().contiguous();
  const uint8_t* p = bytes.data_ptr<uint8_t>();
  PhiloxState s;
  for (int i = 0; i < 8; ++i) {
    s.seed |= uint64_t(p[i]) << (8 * i);
    s.offset |= uint64_t(p[8 + i]) << (8 * i);
  }
  set_state(s);
}

namespace {

constexpr int kMaxCudaGenerators = 64;

struct CudaGenerators {
  std::mutex mutex;
  std::unique_ptr<Generator> per_device[kMaxCudaGenerators];
  // The last seed manual_seed()/seed() gave every device: a generator made later
  // starts from it too.
  bool seeded_all = false;
  uint64_t all_seed = 0;
};
CudaGenerators& cuda_generators() {
  static CudaGenerators* g = new CudaGenerators;  // never destroyed: used until exit
  return *g;
}

// Calls f on each CUDA default generator made so far (the others start seeded anew).
template <typename F>
void for_each_cuda_generator(const F& f) {
  CudaGenerators& g = cuda_generators();
  std::lock_guard<std::mutex> lock(g.mutex);
  for (auto& p : g.per_device)
    if (p) f(*p);
}

}  // namespace

Generator& default_generator(Device device) {
  static Generator cpu;
  if (!device.is_cuda()) return cpu;
  int index = device.index < 0 ? 0 : device.index;
  EMBER_CHECK(index < kMaxCudaGenerators, "default_generator: CUDA device index ", index, " out of range");
  CudaGenerators& g = cuda_generators();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (!g.per_device[index]) {
    g.per_device[index] = std::make_unique<Generator>(Device(DeviceType::CUDA, index));
    // Seeded like the CPU's after a manual_seed (torch.manual_seed seeds every device).
    if (g.seeded_all) g.per_device[index]->manual_seed(g.all_seed);
  }
  return *g.per_device[index];
}

Generator& generator_or_default(Generator* generator, Device device, const char* op) {
  if (!generator) return default_generator(device);
  EMBER_CHECK(generator->device().type == device.type, op, ": expected a '", Device(device.type).str(),
              "' generator for a tensor on ", device.str(), ", but found a '",
              generator->device().str(), "' generator");
  return *generator;
}

Generator& manual_seed(uint64_t seed) {
  {
    std::lock_guard<std::mutex> lock(cuda_generators().mutex);
    cuda_generators().seeded_all = true;
    cuda_generators().all_seed = seed;
  }
  for_each_cuda_generator([seed](Generator& g) { g.manual_seed(seed); });
  return default_generator().manual_seed(seed);
}
uint64_t initial_seed() { return default_generator().initial_seed(); }
uint64_t seed() {
  uint64_t s = default_generator().seed();
  {
    std::lock_guard<std::mutex> lock(cuda_generators().mutex);
    cuda_generators().seeded_all = true;
    cuda_generators().all_seed = s;
  }
  for_each_cuda_generator([s](Generator& g) { g.manual_seed(s); });
  return s;
}
Tensor get_rng_state() { return default_generator().get_state(); }
void set_rng_state(const Tensor& state) { default_generator().set_state(state); }

std::array<uint32_t, 4> philox(uint64_t key, uint64_t counter_hi, uint64_t counter_lo) {
  const PhiloxWords w = philox4x32(key, counter_hi, counter_lo);
  return {w[0], w[1], w[2], w[3]};
}

}  // namespace ember
