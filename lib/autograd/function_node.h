// FunctionNode: the backward node of a custom Function, from C++
// (ember::autograd::Function<T>) or Python (ember.autograd.Function). Both
// differ only in how backward is called (a FunctionBackward); saving tensors,
// materializing gradients and checking what backward returns are shared.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "autograd/saved_tensor.h"
#include "ember/autograd_function.h"

namespace ember::autograd {

class FunctionNode : public Node {
 public:
  FunctionNode(std::shared_ptr<AutogradContext> ctx, std::string name, FunctionBackward backward)
      : ctx_(std::move(ctx)), name_(std::move(name)), backward_(std::move(backward)) {}

  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return name_; }
  void release_variables() override;

  // Which forward arguments were tensors, and which outputs (in input order /
  // output order, like next_edges() and output_meta()).
  std::vector<bool>& input_is_tensor() { return input_is_tensor_; }
  std::vector<bool>& output_is_tensor() { return output_is_tensor_; }
  std::vector<SavedTensor>& saved() { return saved_; }
  // The saved tensors, version-checked (outputs get their history back).
  TensorList unpack_saved();

 private:
  std::shared_ptr<AutogradContext> ctx_;
  std::string name_;
  FunctionBackward backward_;
  std::vector<bool> input_is_tensor_, output_is_tensor_;
  std::vector<SavedTensor> saved_;
  bool released_ = false;
};

}  // namespace ember::autograd
