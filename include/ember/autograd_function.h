// Custom autograd Functions from C++: an op with a hand-written backward, as
// PyTorch's torch::autograd::Function. The Python ember.autograd.Function runs
// on the same machinery (lib/autograd/function.cpp).
//
//   struct Cube : ember::autograd::Function<Cube> {
//     static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
//       ctx->save_for_backward({x});
//       ctx->saved_data["k"] = k;
//       return x * x * x * k;
//     }
//     static TensorList backward(AutogradContext* ctx, TensorList grad_outputs) {
//       Tensor x = ctx->get_saved_variables()[0];
//       double k = ctx->saved_data["k"].to_double();
//       return {grad_outputs[0] * 3 * x * x * k, Tensor()};  // one per forward argument
//     }
//   };
//   Tensor y = Cube::apply(x, 2.0);
//
// forward runs with grad mode off and returns a Tensor or a TensorList. Its
// Tensor arguments (and each Tensor of a TensorList argument) are the inputs
// of the node. backward gets one gradient per output (zeros for an output no
// gradient reached, unless set_materialize_grads(false): then undefined) and
// returns one per argument, with TensorList arguments counted tensor by tensor;
// undefined where there is none (always for non-tensor arguments). It may use
// ember ops freely: with create_graph they are recorded (second derivatives).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/autograd.h"

namespace ember::autograd {

// A non-tensor value forward keeps for backward (AutogradContext::saved_data).
// A tensor kept here is not checked for in-place changes: use save_for_backward.
class SavedValue {
 public:
  using Value = std::variant<std::monostate, bool, int64_t, double, std::string, IntList, Tensor>;
  SavedValue() = default;
  SavedValue(bool v) : v_(v) {}
  SavedValue(int v) : v_(int64_t(v)) {}
  SavedValue(int64_t v) : v_(v) {}
  SavedValue(double v) : v_(v) {}
  SavedValue(std::string v) : v_(std::move(v)) {}
  SavedValue(const char* v) : v_(std::string(v)) {}
  SavedValue(IntList v) : v_(std::move(v)) {}
  SavedValue(Tensor v) : v_(std::move(v)) {}

  bool is_none() const { return v_.index() == 0; }
  bool to_bool() const { return get<bool>("bool"); }
  int64_t to_int() const { return get<int64_t>("int"); }
  double to_double() const;  // an int is widened
  const std::string& to_string() const { return get<std::string>("string"); }
  const IntList& to_ints() const { return get<IntList>("int list"); }
  const Tensor& to_tensor() const { return get<Tensor>("Tensor"); }

 private:
  template <typename T>
  const T& get(const char* what) const {
    const T* p = std::get_if<T>(&v_);
    if (!p) throw_wrong_type(what);
    return *p;
  }
  [[noreturn]] void throw_wrong_type(const char* wanted) const;
  Value v_;
};

class AutogradContext;
using FunctionBackward = std::function<TensorList(TensorList&&)>;

}  // namespace ember::autograd

// Internals of Function::apply, in ember::detail so that ember::autograd code
// still finds ember::detail::str as detail::str.
namespace ember::detail {
// Puts the outputs of a custom Function's forward on the tape (or not, if no
// input requires grad) and returns them as the caller gets them: a returned
// input becomes a new alias, a dirty input gets the node as its history.
// `backward` computes the input gradients from the output gradients.
TensorList link_function(const std::shared_ptr<autograd::AutogradContext>& ctx,
                         const TensorList& inputs, TensorList outputs, std::string name,
                         autograd::FunctionBackward backward);
// "CubeBackward" from the type Cube.
std::string function_node_name(const std::type_info& type);
// The node's inputs among forward's arguments (undefined: not a tensor).
inline void collect_inputs(TensorList& out, const Tensor& t) { out.push_back(t); }
inline void collect_inputs(TensorList& out, const TensorList& ts) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <typename T>
void collect_inputs(TensorList& out, const T&) { out.emplace_back(); }  // not a tensor
}  // namespace ember::detail

namespace ember::autograd {

// What forward leaves for backward (PyTorch's AutogradContext).
class AutogradContext {
 public:
  // Any values backward needs (numbers, shapes, strings).
  std::unordered_map<std::string, SavedValue> saved_data;

  // Tensors backward needs: inputs, outputs or intermediates. They are checked
  // for in-place changes when backward reads them.
  void save_for_backward(TensorList to_save);
  TensorList get_saved_variables() const;
  // Inputs that forward changed in place (and returns): they get the node as history.
  void mark_dirty(const TensorList& inputs);
  // Outputs that never get a gradient (indices, masks).
  void mark_non_differentiable(const TensorList& outputs);
  // false: backward receives undefined tensors instead of zeros for outputs no
  // gradient reached.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool materialize_grads() const { return materialize_grads_; }
  // Whether input i (counted as backward counts them) needs a gradient.
  bool needs_input_grad(size_t i) const;
  size_t num_inputs() const { return needs_input_grad_.size(); }

  // Called before forward with its tensor inputs (Function::apply does).
  void set_inputs(const TensorList& inputs);

 private:
  friend TensorList detail::link_function(const std::shared_ptr<autograd::AutogradContext>&,
                                          const TensorList&, TensorList, std::string,
                                          autograd::FunctionBackward);
  TensorList to_save_, dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  std::weak_ptr<Node> node_;  // holds the saved tensors once forward is linked
};


// Derive as `struct MyFn : Function<MyFn>` with static forward and backward
// (see the top of this file); call MyFn::apply(args...).
template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    auto ctx = std::make_shared<AutogradContext>();
    TensorList inputs;
    (::ember::detail::collect_inputs(inputs, args), ...);
    ctx->set_inputs(inputs);
    using Out = decltype(T::forward(ctx.get(), std::forward<Args>(args)...));
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, TensorList>,
                  "a custom Function's forward must return a Tensor or a TensorList");
    TensorList outputs;
    {
      NoGradGuard no_grad;
      if constexpr (std::is_same_v<Out, Tensor>)
        outputs.push_back(T::forward(ctx.get(), std::forward<Args>(args)...));
      else
        outputs = T::forward(ctx.get(), std::forward<Args>(args)...);
    }
    // The node owns ctx, so the raw pointer lives as long as backward can run.
    AutogradContext* raw = ctx.get();
    TensorList linked = ::ember::detail::link_function(
        ctx, inputs, std::move(outputs), grad_fn_name(),
        [raw](TensorList&& grads) { return T::backward(raw, std::move(grads)); });
    if constexpr (std::is_same_v<Out, Tensor>) return linked[0];
    else return linked;
  }

 private:
  // The grad_fn's name: T::node_name where T declares one (ember's own Functions
  // use PyTorch's names, e.g. "UnbindBackward0"), else "<T>Backward".
  static std::string grad_fn_name() {
    if constexpr (requires { T::node_name; }) return T::node_name;
    else return ::ember::detail::function_node_name(typeid(T));
  }
};

}  // namespace ember::autograd
