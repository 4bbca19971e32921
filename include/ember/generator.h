// Random numbers. ember's generator is counter-based (Philox 4x32-10): the value
// of element i of a random tensor depends only on (seed, offset + i), where the
// offset advances by the tensor's size after each call. So a seed reproduces
// the same tensors whatever the number of threads (and, later, on CUDA).
// manual_seed(s) resets the default generator to (seed s, offset 0).
#pragma once
#include <array>
#include <cstdint>
#include <mutex>

namespace ember {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : seed_(seed) {}
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  // Reserves n counter values and returns the first: the caller owns [offset, offset + n).
  uint64_t reserve(uint64_t n);
  uint64_t offset() const { return offset_; }
  void set_offset(uint64_t offset) { offset_ = offset; }

 private:
  std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator();
void manual_seed(uint64_t seed);
uint64_t initial_seed();
// Seeds from the clock and returns the new seed (torch.seed).
uint64_t seed();

// Philox 4x32-10: four pseudo-random 32-bit words for a (key, counter) pair.
std::array<uint32_t, 4> philox(uint64_t key, uint64_t counter_hi, uint64_t counter_lo);

}  // namespace ember
