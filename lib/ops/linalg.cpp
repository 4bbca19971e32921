// Matrix products: the op functions (argument checks, then dispatch) of mm,
// bmm, mv, dot, addmm, and the composites matmul, outer and linear.
#include "autocast/autocast_policy.h"
#include "dispatch/args/linalg.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

// PyTorch's C++ type names, which its dtype-mismatch messages print.
const char* c_type_name(DType t) {
  switch (t) {
    case kBool: return "bool";
    case kUInt8: return "unsigned char";
    case kInt8: return "signed char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kFloat32: return "float";
    case kFloat64: return "double";
  }
  return "?";
}

// "2x3" for [2, 3], as PyTorch prints matrix shapes.
std::string dims_x(const Tensor& t) {
  std::string s;
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? "x" : "") + std::to_string(t.size(d));
  return s;
}

// `kernel_op`: the dispatched op the operands reach; inside an autocast region their
// dtypes are compared as that op's autocast policy casts them (lib/autocast).
void check_same_dtype(const char* op, OpId kernel_op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(autocast::input_dtype(kernel_op, a) == autocast::input_dtype(kernel_op, b), op, ": expected m1 and m2 to have the same dtype, but got: ",
              c_type_name(a.dtype()), " != ", c_type_name(b.dtype()));
  EMBER_CHECK_AS(NotImplementedError, a.dtype() != kBool, op, ": not implemented for dtype bool");
}

void check_matrix(const char* op, const char* name, const Tensor& t) {
  EMBER_CHECK(t.dim() == 2, op, ": ", name, " must be a matrix, got ", t.dim(), "-D tensor");
}

[[noreturn]] void throw_cannot_multiply(const char* op, const Tensor& a, const Tensor& b) {
  throw Error(detail::str(op, ": mat1 and mat2 shapes cannot be multiplied (", dims_x(a), " and ",
                          dims_x(b), ")"));
}

DimVector leading(const Tensor& t, int64_t drop) {
  return DimVector(t.sizes().begin(), t.sizes().end() - drop);
}

// Whether dims [0, dim-1) of t merge into one, so t.reshape(-1, t.size(-1)) is a view.
bool leading_dims_fold(const Tensor& t) {
  int64_t expected = -1;  // the stride the next outer dim must have
  for (int64_t d = t.dim() - 2; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (expected != -1 && t.stride(d) != expected) return false;
    expected = t.stride(d) * t.size(d);
  }
  return true;
}

// The number of rows of t viewed as a matrix [-1, t.size(-1)] (also when empty).
int64_t rows_of(const Tensor& t) {
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < t.dim(); ++d) rows *= t.size(d);
  return rows;
}

IntList concat(const DimVector& a, std::initializer_list<int64_t> b) {
  IntList out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// [..., n, k] @ [k] or [..., n, k] @ [k, p] as one mv/mm on a [-1, k] view.
Tensor matmul_folded(const Tensor& a, const Tensor& b) {
  Tensor a2 = a.reshape({rows_of(a), a.size(-1)});
  Tensor out = b.dim() == 1 ? mv(a2, b) : mm(a2, b);
  DimVector shape = leading(a, 1);
  if (b.dim() == 2) shape.push_back(b.size(1));
  return out.view(IntList(shape.begin(), shape.end()));
}

// The general case: batch dims broadcast, one bmm over the flattened batch.
Tensor matmul_batched(const Tensor& a, const Tensor& b) {
  Tensor a1 = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor b1 = b.dim() == 1 ? b.unsqueeze(1) : b;
  int64_t n = a1.size(-2), k = a1.size(-1), p = b1.size(-1);
  DimVector ba = leading(a1, 2), bb = leading(b1, 2);
  size_t nd = std::max(ba.size(), bb.size());
  DimVector batch(nd);
  for (size_t i = 0; i < nd; ++i) {
    int64_t sa = i < nd - ba.size() ? 1 : ba[i - (nd - ba.size())];
    int64_t sb = i < nd - bb.size() ? 1 : bb[i - (nd - bb.size())];
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, "matmul: the batch dimensions of shapes ",
                shape_str(a.sizes()), " and ", shape_str(b.sizes()),
                " cannot be broadcast together (size ", sa, " vs ", sb, ")");
    batch[i] = sa == 1 ? sb : sa;
  }
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  // Expanded operands keep stride 0 over broadcast dims; reshape copies only
  // when several batch dims cannot merge into one.
  Tensor a3 = a1.expand(concat(batch, {n, k})).reshape({nbatch, n, k});
  Tensor b3 = b1.expand(concat(batch, {k, p})).reshape({nbatch, k, p});
  Tensor out = bmm(a3, b3);
  IntList shape(batch.begin(), batch.end());
  if (a.dim() > 1) shape.push_back(n);
  if (b.dim() > 1) shape.push_back(p);
  return out.view(shape);
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_matrix("mm", "self", self);
  check_matrix("mm", "mat2", mat2);
  if (self.size(1) != mat2.size(0)) throw_cannot_multiply("mm", self, mat2);
  check_same_dtype("mm", opid::mm, self, mat2);
  OpCall call(opid::mm, {self, mat2});
  return dispatch_one(call);
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  EMBER_CHECK(self.dim() == 3, "bmm: batch1 must be a 3D tensor, got ", self.dim(), "-D");
  EMBER_CHECK(mat2.dim() == 3, "bmm: batch2 must be a 3D tensor, got ", mat2.dim(), "-D");
  EMBER_CHECK(self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1),
              "bmm: batch1 and batch2 shapes cannot be multiplied (", dims_x(self), " and ",
              dims_x(mat2), ")");
  check_same_dtype("bmm", opid::bmm, self, mat2);
  OpCall call(opid::bmm, {self, mat2});
  return dispatch_one(call);
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "mv: expected a 2-D matrix and a 1-D vector, but got ",
              self.dim(), "-D and ", vec.dim(), "-D tensors");
  EMBER_CHECK(self.size(1) == vec.size(0), "mv: size mismatch, got mat (", dims_x(self), "), vec (",
              dims_x(vec), ")");
  check_same_dtype("mv", opid::mv, self, vec);
  OpCall call(opid::mv, {self, vec});
  return dispatch_one(call);
}

Tensor dot(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "dot: 1D tensors expected, but got ",
              self.dim(), "D and ", other.dim(), "D tensors");
  EMBER_CHECK(self.size(0) == other.size(0), "dot: inconsistent tensor size, expected tensor [",
              self.size(0), "] and src [", other.size(0),
              "] to have the same number of elements, but got ", self.size(0), " and ",
              other.size(0), " elements respectively");
  EMBER_CHECK(self.dtype() == other.dtype(), "dot: expected both vectors to have same dtype, but found ",
              dtype_name(self.dtype()), " and ", dtype_name(other.dtype()));
  EMBER_CHECK_AS(NotImplementedError, self.dtype() != kBool, "dot: not implemented for dtype bool");
  OpCall call(opid::dot, {self, other});
  return dispatch_one(call);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  check_matrix("addmm", "mat1", mat1);
  check_matrix("addmm", "mat2", mat2);
  if (mat1.size(1) != mat2.size(0)) throw_cannot_multiply("addmm", mat1, mat2);
  check_same_dtype("addmm", opid::addmm, mat1, mat2);
  EMBER_CHECK(autocast::input_dtype(opid::addmm, self) == autocast::input_dtype(opid::addmm, mat2), "addmm: self and mat2 must have the same dtype, but got ",
              dtype_name(self.dtype()), " and ", dtype_name(mat2.dtype()));
  DimVector target{mat1.size(0), mat2.size(1)};
  EMBER_CHECK(self.dim() <= 2 && broadcast_shapes(self.sizes(), target, "addmm") == target,
              "addmm: self of shape ", shape_str(self.sizes()),
              " cannot be broadcast to the product's shape ", shape_str(target));
  OpCall call(opid::addmm, {self, mat1, mat2}, AddmmArgs{.beta = beta, .alpha = alpha}.attrs());
  return dispatch_one(call);
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  int64_t d1 = self.dim(), d2 = other.dim();
  EMBER_CHECK(d1 >= 1 && d2 >= 1, "matmul: both arguments to matmul need to be at least 1D, but they are ",
              d1, "D and ", d2, "D");
  int64_t k2 = d2 == 1 ? other.size(0) : other.size(-2);
  if (self.size(-1) != k2) throw_cannot_multiply("matmul", self, other);
  // The op it reaches: dot, mv, mm or bmm (as below), whose autocast policy applies.
  bool folds = d1 >= 3 && d2 <= 2 && leading_dims_fold(self);
  OpId kernel_op = d2 == 1 ? (d1 == 1 ? opid::dot : d1 == 2 || folds ? opid::mv : opid::bmm)
                           : (d1 <= 2 && d2 == 2) || folds ? opid::mm : opid::bmm;
  check_same_dtype("matmul", kernel_op, self, other);
  if (d1 == 1 && d2 == 1) return dot(self, other);
  if (d1 == 2 && d2 == 1) return mv(self, other);
  if (d1 == 1 && d2 == 2) return mm(self.unsqueeze(0), other).squeeze(0);
  if (d1 == 2 && d2 == 2) return mm(self, other);
  // A batch of matrices times one matrix or vector: one big product, if the
  // batch folds into the rows without a copy.
  if (d1 >= 3 && d2 <= 2 && leading_dims_fold(self)) return matmul_folded(self, other);
  return matmul_batched(self, other);
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  DType t = result_type(self, vec2);
  EMBER_CHECK_AS(NotImplementedError, t != kBool, "outer: not implemented for dtype bool");
  return mm(self.to(t).unsqueeze(1), vec2.to(t).unsqueeze(0));
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(input.dim() >= 1 && weight.dim() >= 1,
              "linear: both arguments to linear need to be at least 1D, but they are ", input.dim(),
              "D and ", weight.dim(), "D");
  EMBER_CHECK(weight.dim() <= 2, "linear: weight must be 1-D or 2-D ([out_features, in_features]), got ",
              weight.dim(), "-D");
  Tensor w = weight.dim() == 1 ? weight.unsqueeze(0) : weight;  // [out, in]
  if (input.size(-1) != w.size(1)) {
    Tensor wt = w.t();
    throw_cannot_multiply("linear", input, wt);
  }
  check_same_dtype("linear", opid::addmm, input, weight);
  // Output shape: input's leading dims, then out_features (none for a 1-d weight).
  DimVector shape = leading(input, 1);
  if (weight.dim() == 2) shape.push_back(w.size(0));
  IntList out_shape(shape.begin(), shape.end());
  // The common case (2-d input and weight) skips the reshapes, so its result is
  // addmm's own (grad_fn AddmmBackward0, as in PyTorch) with no view dispatches.
  bool matrix = input.dim() == 2 && weight.dim() == 2;
  auto shaped = [&](const Tensor& r) { return matrix ? r : r.view(out_shape); };
  Tensor x = matrix ? input : input.reshape({rows_of(input), input.size(-1)});
  if (!bias.defined()) return shaped(mm(x, w.t()));
  EMBER_CHECK(autocast::input_dtype(opid::addmm, bias) == autocast::input_dtype(opid::addmm, input),
              "linear: bias must have the dtype of input (",
              dtype_name(input.dtype()), "), got ", dtype_name(bias.dtype()));
  // A bias of the output's last dims broadcasts inside addmm; any other one is
  // expanded to the full output first.
  Tensor b = bias;
  if (bias.dim() > 1 || weight.dim() == 1) {
    DimVector full = broadcast_shapes(bias.sizes(), shape, "linear");
    EMBER_CHECK(full == shape, "linear: bias of shape ", shape_str(bias.sizes()),
                " cannot be broadcast to the output shape ", shape_str(shape));
    b = bias.expand(out_shape).reshape({x.size(0), w.size(0)});
  } else if (bias.dim() == 1) {
    EMBER_CHECK(bias.size(0) == w.size(0) || bias.size(0) == 1, "linear: bias of shape ",
                shape_str(bias.sizes()), " cannot be broadcast to the output shape ", shape_str(shape));
  }
  return shaped(addmm(b, x, w.t()));
}

// ---- Tensor methods ---------------------------------------------------------------------
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& mat2) const { return ember::mm(*this, mat2); }
Tensor Tensor::bmm(const Tensor& mat2) const { return ember::bmm(*this, mat2); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}

}  // namespace ember
