#include <ember/ember.h>

#include <cstdio>
#include <iostream>
#include <memory>

int main() {
  ember::manual_seed(0);
  ember::Tensor x = ember::arange(6).reshape({2, 3}).to(ember::kFloat32);
  ember::Tensor y = x.t().contiguous();
  std::cout << y << "\n";
  // A structured op (its declaration and method are generated headers, installed too).
  float half_pi = ember::zeros({1}).acos().item<float>();
  bool structured_ok = half_pi > 1.5707f && half_pi < 1.5709f &&
                       ember::mish(ember::zeros({1})).item<float>() == 0.0f;
  // Saving and loading through the module holders, as libtorch's torch::save/load take them.
  auto saved = std::make_shared<ember::nn::LinearImpl>(3, 2);
  ember::nn::Linear holder(3, 2);
  std::string path = "consumer_linear.safetensors";
  ember::save(saved, path);
  ember::load(holder, path);
  std::remove(path.c_str());
  bool holders_ok = ember::equal(holder->weight, saved->weight);
  return y.sizes() == ember::DimVector{3, 2} && y.data_ptr<float>()[1] == 3.0f && structured_ok &&
                 holders_ok ? 0 : 1;
}
