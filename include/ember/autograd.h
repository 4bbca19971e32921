// Autograd: grad mode switches, the graph's nodes, backward and grad.
// See lib/autograd/ for the tape (autograd_layer.cpp), the engine (engine.cpp)
// and the derivative table (derivatives/).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember {

bool is_grad_enabled();
void set_grad_enabled(bool enabled);

// Turns gradient recording off in a scope (torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

// Sets grad mode to `enabled` in a scope (torch.set_grad_enabled / enable_grad).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled);
  ~AutoGradMode();
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

namespace autograd {

class Node;

// Where a gradient goes: input `input_nr` of `function` (the node of the forward
// op that produced the tensor, or the AccumulateGrad node of a leaf).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

// A node of the backward graph. It receives one gradient per output of its
// forward op and returns one gradient per next edge (undefined: no gradient).
class Node : public std::enable_shared_from_this<Node> {
 public:
  using PreHook = std::function<Tensor(const Tensor&)>;

  Node();
  virtual ~Node() = default;
  virtual TensorList apply(TensorList&& grads) = 0;
  // "MulBackward0", as PyTorch names them.
  virtual std::string name() const = 0;
  // Frees what the node saved; called after backward unless retain_graph.
  virtual void release_variables() {}

  std::vector<Edge>& next_edges() { return next_edges_; }
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  // Nodes created later run earlier in backward (a topological order).
  uint64_t sequence_nr() const { return sequence_nr_; }

  // What each forward output looked like: the gradient arriving for it must
  // match (the engine reduces broadcast gradients and casts dtypes to fit).
  struct OutputMeta {
    DimVector sizes;
    DType dtype = kFloat32;
    Device device;
  };
  std::vector<OutputMeta>& output_meta() { return output_meta_; }
  const std::vector<OutputMeta>& output_meta() const { return output_meta_; }

  // Hooks on the gradient of forward output `output_nr` (Tensor::register_hook
  // on a non-leaf); a hook may return a replacement gradient or an undefined tensor.
  int add_pre_hook(uint32_t output_nr, PreHook hook);
  void remove_pre_hook(int id);
  void run_pre_hooks(TensorList& grads);

  // The CUDA stream the forward op ran on (none for CPU ops): the engine runs the
  // node's backward on the same stream, as PyTorch does.
  struct StreamRef {
    int device = -1;
    void* handle = nullptr;  // the cudaStream_t
    bool defined() const { return device >= 0; }
    bool operator==(const StreamRef& o) const { return device == o.device && handle == o.handle; }
  };
  const StreamRef& forward_stream() const { return forward_stream_; }
  void set_forward_stream(const StreamRef& s) { forward_stream_ = s; }

 private:
  StreamRef forward_stream_;
  std::vector<Edge> next_edges_;
  std::vector<OutputMeta> output_meta_;
  std::vector<std::tuple<int, uint32_t, PreHook>> pre_hooks_;
  uint64_t sequence_nr_;
};

// Computes the gradients of `tensors` (with `grad_tensors` as their incoming
// gradients; may be omitted for scalars) and accumulates them into the .grad
// of the leaves (or only of `inputs`, if given).
void backward(const TensorList& tensors, const TensorList& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const TensorList& inputs = {});

// Returns the gradients of `outputs` with respect to `inputs` without touching .grad.
TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, bool allow_unused = false);

}  // namespace autograd
}  // namespace ember
