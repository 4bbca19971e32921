// Random numbers. ember's generator is counter-based (Philox 4x32-10): the value
// of element i of a random tensor depends only on (seed, offset + i), where the
// offset advances by the tensor's size after each call. So a seed reproduces
// the same tensors whatever the number of threads (and, later, on CUDA).
// manual_seed(s) resets a generator to (seed s, offset 0).
//
// Every random op takes an optional Generator* (nullptr: the default generator),
// as PyTorch's take an optional generator:
//   ember::Generator g(42);
//   ember::Tensor x = ember::randn({2, 3}, &g);
//   x.uniform_(-1, 1, &g);
#pragma once
#include <array>
#include <cstdint>
#include <mutex>

#include "ember/device.h"

namespace ember {

class Tensor;

// Where a random op's stream starts: element i draws philox(seed, offset + i).
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // PyTorch's default seed
  // The state as get_state() returns it: seed and offset, 8 bytes each, little-endian.
  static constexpr int64_t kStateBytes = 16;

  explicit Generator(uint64_t seed = kDefaultSeed, Device device = kCPU);
  explicit Generator(Device device) : Generator(kDefaultSeed, device) {}
  // A generator is one stream of numbers; copying it would silently repeat them.
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  Generator& manual_seed(uint64_t seed);
  // Seeds from std::random_device and the clock; returns the new seed (torch's Generator.seed).
  uint64_t seed();
  uint64_t initial_seed() const;
  Device device() const { return device_; }

  // Reserves n counter values for one op: the caller owns [offset, offset + n).
  PhiloxState reserve(uint64_t n);
  PhiloxState state() const;
  void set_state(PhiloxState state);
  // The state as a 1-d uint8 tensor of kStateBytes bytes (torch's get_state/set_state).
  Tensor get_state() const;
  void set_state(const Tensor& state);

 private:
  mutable std::mutex mutex_;
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The default generator of `device`: one for the CPU and one per CUDA device, as in
// PyTorch ("cuda" without an index: device 0). Each starts at the default seed, so
// the same seed draws the same numbers on every device (the same Philox stream).
Generator& default_generator(Device device = kCPU);
// The generator an op uses: `generator`, or the op's device's default when it is null.
// Checks that it produces numbers for the device the op runs on.
Generator& generator_or_default(Generator* generator, Device device, const char* op);

// The seeds and state of the CPU's default generator, as torch.manual_seed, torch.seed,
// ...; manual_seed and seed also (re)seed every CUDA device's default generator, as
// PyTorch's do.
Generator& manual_seed(uint64_t seed);
uint64_t initial_seed();
uint64_t seed();
Tensor get_rng_state();
void set_rng_state(const Tensor& state);

// Philox 4x32-10: four pseudo-random 32-bit words for a (key, counter) pair.
std::array<uint32_t, 4> philox(uint64_t key, uint64_t counter_hi, uint64_t counter_lo);

}  // namespace ember
