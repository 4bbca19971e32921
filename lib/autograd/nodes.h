// The two kinds of node the tape makes: OpNode (the backward of one dispatched
// op, computed by its row in the derivative table) and AccumulateGrad (adds a
// gradient into a leaf's .grad).
#pragma once
#include <vector>

#include "autograd/derivatives.h"
#include "autograd/saved_tensor.h"

namespace ember::autograd {

class OpNode : public Node {
 public:
  struct InputMeta {
    DimVector sizes;
    DimVector strides;  // with storage_offset: where the input lay in its storage (as_strided)
    int64_t storage_offset = 0;
    DType dtype = kFloat32;
    bool defined = false;
  };

  OpNode(OpId op, const Derivative& d, SmallVector<Attr, 4> attrs)
      : op_(op), derivative_(d), attrs_(std::move(attrs)) {}

  TensorList apply(TensorList&& grads) override;
  std::string name() const override;
  void release_variables() override;

  OpId op() const { return op_; }
  std::vector<InputMeta>& input_meta() { return input_meta_; }
  std::vector<SavedTensor>& saved_inputs() { return saved_inputs_; }
  std::vector<SavedTensor>& saved_outputs() { return saved_outputs_; }
  // Under a memory budget: handles on the outputs, which keep their recipes (how to
  // recompute them if evicted) as long as the graph may need them (lib/remat).
  std::vector<remat::Ref>& remat_outputs() { return remat_outputs_; }
  const SmallVector<Attr, 4>& attrs() const { return attrs_; }
  bool released() const { return released_; }

 private:
  OpId op_;
  const Derivative& derivative_;
  SmallVector<Attr, 4> attrs_;
  std::vector<InputMeta> input_meta_;
  std::vector<SavedTensor> saved_inputs_;   // indexed like the inputs; unsaved ones empty
  std::vector<SavedTensor> saved_outputs_;
  std::vector<remat::Ref> remat_outputs_;
  bool released_ = false;
};

class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf);
  TensorList apply(TensorList&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor& leaf() const { return leaf_; }
  // Runs the leaf's hooks on a gradient (also used when autograd.grad captures it).
  static Tensor run_leaf_hooks(const Tensor& leaf, Tensor grad);

 private:
  Tensor leaf_;
};

// The backward node of one call of an op: edges to its inputs' histories, their
// metadata, and the inputs its derivative row saves (from before the op, for an
// in-place op). Outputs are attached by the caller.
std::shared_ptr<OpNode> make_op_node(const OpCall& call, const Derivative& d);

// "MulBackward0" from "mul", "MaxPool2dBackward0" from "max_pool2d".
std::string backward_node_name(const char* op);

}  // namespace ember::autograd
