#include <ember/ember.h>

#include <iostream>

int main() {
  ember::manual_seed(0);
  ember::Tensor x = ember::arange(6).reshape({2, 3}).to(ember::kFloat32);
  ember::Tensor y = x.t().contiguous();
  std::cout << y << "\n";
  return y.sizes() == ember::DimVector{3, 2} && y.data_ptr<float>()[1] == 3.0f ? 0 : 1;
}
