// OpCall: one boxed call of an op: its inputs, its attributes and (after the
// kernel ran) its outputs. It is what every dispatcher layer sees, so the
// autograd layer and the tracer handle every op the same way.
#pragma once
#include <string>
#include <variant>

#include "dispatch/op_table.h"
#include "ember/tensor.h"

namespace ember {

// A non-tensor argument. None (monostate) stands for an optional left out.
class Attr {
 public:
  using Value = std::variant<std::monostate, bool, int64_t, double, Scalar, DimVector, DType,
                             Device, std::string>;
  Attr() = default;
  Attr(std::nullopt_t) {}
  Attr(bool v) : v_(v) {}
  Attr(int v) : v_(int64_t(v)) {}
  Attr(int64_t v) : v_(v) {}
  Attr(double v) : v_(v) {}
  Attr(const Scalar& v) : v_(v) {}
  Attr(DimVector v) : v_(std::move(v)) {}
  Attr(const IntList& v) : v_(DimVector(v.begin(), v.end())) {}
  Attr(DType v) : v_(v) {}
  Attr(Device v) : v_(v) {}
  Attr(std::string v) : v_(std::move(v)) {}
  Attr(const char* v) : v_(std::string(v)) {}
  template <typename T>
  Attr(const std::optional<T>& v) {
    if (v) *this = Attr(*v);
  }

  bool is_none() const { return v_.index() == 0; }
  bool to_bool() const { return std::get<bool>(v_); }
  int64_t to_int() const { return std::get<int64_t>(v_); }
  double to_double() const {
    if (auto* s = std::get_if<Scalar>(&v_)) return s->to_double();
    if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
    return std::get<double>(v_);
  }
  Scalar to_scalar() const {
    if (auto* s = std::get_if<Scalar>(&v_)) return *s;
    if (auto* i = std::get_if<int64_t>(&v_)) return Scalar(*i);
    if (auto* b = std::get_if<bool>(&v_)) return Scalar(*b);
    return Scalar(std::get<double>(v_));
  }
  const DimVector& to_ints() const { return std::get<DimVector>(v_); }
  DType to_dtype() const { return std::get<DType>(v_); }
  Device to_device() const { return std::get<Device>(v_); }
  const std::string& to_string() const { return std::get<std::string>(v_); }
  const Value& value() const { return v_; }

 private:
  Value v_;
};

struct OpCall {
  OpCall(OpId op_, std::initializer_list<Tensor> in, std::initializer_list<Attr> at = {})
      : op(op_), inputs(in), attrs(at) {}
  OpCall(OpId op_, SmallVector<Tensor, 4> in, SmallVector<Attr, 4> at = {})
      : op(op_), inputs(std::move(in)), attrs(std::move(at)) {}

  OpId op;
  SmallVector<Tensor, 4> inputs;  // an undefined Tensor stands for an optional left out
  SmallVector<Attr, 4> attrs;
  // Preset by the caller for in-place ops and out= (then the kernel writes into
  // them); otherwise empty and filled by the kernel.
  SmallVector<Tensor, 2> outputs;
  // Where the kernel runs. Resolved from the inputs when not preset (factories set it).
  std::optional<Device> device;

  const Tensor& in(size_t i) const { return inputs[i]; }
  const Attr& attr(size_t i) const { return attrs[i]; }
  size_t num_attrs() const { return attrs.size(); }
  const char* name() const { return op_name(op); }
  bool has_preset_output() const { return !outputs.empty(); }
};

}  // namespace ember
