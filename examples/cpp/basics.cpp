// ember from C++: the same names as in Python.
//   build/examples/basics
#include <ember/ember.h>

#include <iostream>

int main() {
  ember::manual_seed(0);

  // Factories and dtypes.
  ember::Tensor x = ember::arange(12).reshape({3, 4}).to(ember::kFloat32);
  std::cout << "x =\n" << x << "\n";

  // Views share memory: writing through the transpose changes x.
  ember::Tensor xt = x.t();
  xt.select(0, 0).fill_(-1);
  std::cout << "after writing column 0 through x.t():\n" << x << "\n";

  // Random numbers are reproducible from a seed.
  ember::Tensor r = ember::randn({2, 3}, ember::kFloat64);
  std::cout << "randn(2, 3) =\n" << r << "\n";

  // Errors say what is wrong.
  try {
    x.view({5});
  } catch (const ember::Error& e) {
    std::cout << "x.view({5}) -> " << e.what() << "\n";
  }

  ember::MemoryStats s = ember::memory_stats();
  std::cout << "allocator: " << s.allocated_bytes << " bytes in use, " << s.num_raw_allocs
            << " raw allocations\n";
  return 0;
}
