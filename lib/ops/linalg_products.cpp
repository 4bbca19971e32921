// Product composites: tensordot, kron, trace, inner, vdot, cross, addmv, addr, baddbmm,
// addbmm, chain_matmul / linalg.multi_dot, matrix_power, linalg.vecdot. Each reshapes
// its operands onto mm / bmm / addmm (so beta = 0 ignores NaN in self, as in PyTorch)
// or onto elementwise ops.
#include <numeric>

#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/linalg_extra.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

namespace {

bool is_one(const Scalar& s) { return s.to_double() == 1.0; }
bool is_zero(const Scalar& s) { return s.to_double() == 0.0; }

// beta * self + product, with self broadcast to product's shape (and ignored when beta is 0).
Tensor add_scaled(const Tensor& self, const Tensor& product, const Scalar& beta, const char* op) {
  DimVector target = product.sizes();
  EMBER_CHECK(broadcast_shapes(self.sizes(), target, op) == target, op, ": self of shape ",
              shape_str(self.sizes()), " cannot be broadcast to the product's shape ", shape_str(target));
  if (is_zero(beta)) return product;
  return add(product, is_one(beta) ? self : mul(self, beta));
}

}  // namespace

Tensor tensordot(const Tensor& a, const Tensor& b, const IntList& dims_a, const IntList& dims_b) {
  EMBER_CHECK(dims_a.size() == dims_b.size(), "both dimension lists should have same length");
  EMBER_CHECK(a.dtype() == b.dtype(), "both inputs should have same dtype");
  int64_t na = a.dim(), nb = b.dim();
  std::vector<bool> used_a(na, false), used_b(nb, false);
  IntList ca, cb;
  int64_t k = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    int64_t da = wrap_dim(dims_a[i], na, "tensordot"), db = wrap_dim(dims_b[i], nb, "tensordot");
    EMBER_CHECK(a.size(da) == b.size(db), "contracted dimensions need to match, but first has size ", a.size(da),
                " in dim ", dims_a[i], " and second has size ", b.size(db), " in dim ", dims_b[i]);
    used_a[da] = used_b[db] = true;
    ca.push_back(da);
    cb.push_back(db);
    k *= a.size(da);
  }
  IntList pa, pb, out_shape;
  int64_t m = 1, n = 1;
  for (int64_t d = 0; d < na; ++d)
    if (!used_a[d]) pa.push_back(d), out_shape.push_back(a.size(d)), m *= a.size(d);
  for (int64_t d = 0; d < nb; ++d)
    if (!used_b[d]) out_shape.push_back(b.size(d)), n *= b.size(d);
  pa.insert(pa.end(), ca.begin(), ca.end());
  pb = cb;
  for (int64_t d = 0; d < nb; ++d)
    if (!used_b[d]) pb.push_back(d);
  Tensor am = reshape(permute(a, pa), {m, k});
  Tensor bm = reshape(permute(b, pb), {k, n});
  return reshape(mm(am, bm), out_shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_CHECK(dims >= 0, "tensordot expects dims >= 0, but got dims=", dims);
  EMBER_CHECK(dims <= a.dim() && dims <= b.dim(), "tensordot expects dims < ndim_a or ndim_b, but got dims=", dims);
  IntList da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(i - dims);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

Tensor kron(const Tensor& self, const Tensor& other) {
  int64_t nd = std::max(self.dim(), other.dim());
  IntList sa, sb, out;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t ea = d - (nd - self.dim()), eb = d - (nd - other.dim());
    int64_t x = ea >= 0 ? self.size(ea) : 1, y = eb >= 0 ? other.size(eb) : 1;
    sa.insert(sa.end(), {x, 1});
    sb.insert(sb.end(), {1, y});
    out.push_back(x * y);
  }
  return reshape(mul(reshape(self, sa), reshape(other, sb)), out);
}

Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return sum(diagonal(self, 0, 0, 1));
}

Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return mul(self, other);
  EMBER_CHECK(self.size(-1) == other.size(-1), "inner() the last dimension must match on both input tensors but "
              "got shapes ", shape_str(self.sizes()), " and ", shape_str(other.sizes()));
  return tensordot(self, other, {-1}, {-1});
}

Tensor vdot(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              other.dim(), "D tensors");
  EMBER_CHECK(self.dtype() == other.dtype(), "expected both vectors to have same dtype, but found ",
              scalar_type_name(self.dtype()), " and ", scalar_type_name(other.dtype()));
  EMBER_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
              "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(),
              " and ", other.numel(), " elements respectively");
  return dot(self, other);
}

namespace {

Tensor cross_along(const Tensor& a0, const Tensor& b0, int64_t dim, const char* op) {
  DimVector shape = broadcast_shapes(a0.sizes(), b0.sizes(), op);
  Tensor a = expand(a0, IntList(shape.begin(), shape.end())), b = expand(b0, IntList(shape.begin(), shape.end()));
  int64_t d = wrap_dim(dim, static_cast<int64_t>(shape.size()), op);
  EMBER_CHECK(a0.size(d) == 3 && b0.size(d) == 3, op, ": inputs dimension ", dim,
              " must have length 3. Got ", a0.size(d), " and ", b0.size(d));
  auto part = [&](const Tensor& t, int64_t i) { return narrow(t, d, i, 1); };
  Tensor x = part(a, 1) * part(b, 2) - part(a, 2) * part(b, 1);
  Tensor y = part(a, 2) * part(b, 0) - part(a, 0) * part(b, 2);
  Tensor z = part(a, 0) * part(b, 1) - part(a, 1) * part(b, 0);
  return cat({x, y, z}, d);
}

}  // namespace

Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  EMBER_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  if (dim) return cross_along(self, other, *dim, "linalg.cross");
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), "cross");
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 3) return cross_along(self, other, static_cast<int64_t>(d), "linalg.cross");
  throw Error("no dimension of size 3 in input");
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", self.dim(), ", ",
              mat.dim(), ", ", vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0) && (self.numel() == 1 || (self.dim() == 1 && self.size(0) == mat.size(0))),
              "size mismatch, got input (", self.dim() ? self.size(0) : 1, "), mat (", mat.size(0), "x", mat.size(1),
              "), vec (", vec.size(0), ")");
  Tensor s = self.dim() == 0 ? self : unsqueeze(self, -1);
  return squeeze(addmm(s, mat, unsqueeze(vec, 1), beta, alpha), -1);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  EMBER_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return addmm(self, unsqueeze(vec1, 1), unsqueeze(vec2, 0), beta, alpha);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(self.dtype() == batch1.dtype(), "Input dtypes must be the same, got: input ",
              scalar_type_name(self.dtype()), ", batch1: ", scalar_type_name(batch1.dtype()), ", batch2: ",
              scalar_type_name(batch2.dtype()));
  Tensor p = bmm(batch1, batch2);
  if (!is_one(alpha)) p = mul(p, alpha);
  return add_scaled(self, p, beta, "baddbmm");
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  EMBER_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
              batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  int64_t b = batch1.size(0), n = batch1.size(1), m = batch1.size(2), p = batch2.size(2);
  // The sum over the batch is one product: [n, b*m] @ [b*m, p].
  Tensor left = reshape(permute(batch1, {1, 0, 2}), {n, b * m});
  return addmm(self, left, reshape(batch2, {b * m, p}), beta, alpha);
}

Tensor chain_matmul(const TensorList& matrices) {
  EMBER_CHECK(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  if (matrices.size() == 1) {
    EMBER_CHECK(matrices[0].dim() == 2, "chain_matmul(): Expected matrices to be 2D, but got ", matrices[0].dim(),
                "D");
    return clone(matrices[0]);
  }
  for (size_t i = 0; i < matrices.size(); ++i)
    EMBER_CHECK(matrices[i].dim() == 2, "chain_matmul(): tensor ", i, " must be 2D but got ", matrices[i].dim(), "D");
  return linalg::multi_dot(matrices);
}

Tensor matrix_power(const Tensor& self, int64_t n) {
  EMBER_CHECK(self.dim() >= 2 && self.size(-1) == self.size(-2),
              "linalg.matrix_power: A must be batches of square matrices, but they are ",
              self.dim() >= 2 ? self.size(-2) : 0, " by ", self.dim() >= 2 ? self.size(-1) : 0, " matrices");
  EMBER_CHECK_AS(NotImplementedError, n >= 0,
                 "linalg.matrix_power: a negative power needs a matrix inverse, which ember does not have");
  if (n == 0) {
    Tensor id = eye(self.size(-1), std::nullopt, TensorOptions(self.dtype()).device(self.device()));
    id = expand(id, IntList(self.sizes().begin(), self.sizes().end()));
    // where with an all-true mask: the identity's values, connected to self with a zero
    // gradient (PyTorch's result also has a grad_fn when self requires grad).
    return where(ge(id, Scalar(0)), id, self);
  }
  if (n == 1) return clone(self);
  // Square-and-multiply: the product of the powers of two in n's binary form.
  Tensor result, base = self;
  while (n > 0) {
    if (n & 1) result = result.defined() ? matmul(result, base) : base;
    n >>= 1;
    if (n > 0) base = matmul(base, base);
  }
  return result;
}

namespace linalg {

Tensor multi_dot(const TensorList& tensors) {
  size_t n = tensors.size();
  EMBER_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  for (size_t i = 0; i < n; ++i) {
    int64_t d = tensors[i].dim();
    if (i == 0) EMBER_CHECK(d == 1 || d == 2, "multi_dot(): the first tensor must be 1D or 2D but got ", d, "D");
    else if (i == n - 1) EMBER_CHECK(d == 1 || d == 2, "multi_dot(): the last tensor must be 1D or 2D but got ", d, "D");
    else EMBER_CHECK(d == 2, "multi_dot(): tensor ", i, " must be 2D but got ", d, "D");
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(), "multi_dot(): all tensors must have be the same dtype but "
                "tensor 0 is ", scalar_type_name(tensors[0].dtype()), " and tensor ", i, " is ",
                scalar_type_name(tensors[i].dtype()));
  }
  Tensor first = tensors[0].dim() == 1 ? unsqueeze(tensors[0], 0) : tensors[0];
  Tensor last = tensors[n - 1].dim() == 1 ? unsqueeze(tensors[n - 1], 1) : tensors[n - 1];
  for (size_t i = 0; i + 1 < n; ++i) {
    const Tensor& a = i == 0 ? first : tensors[i];
    const Tensor& b = i + 1 == n - 1 ? last : tensors[i + 1];
    EMBER_CHECK(a.size(1) == b.size(0), "multi_dot(): tensors ", i, " and ", i + 1, " with shapes ",
                shape_str(tensors[i].sizes()), " and ", shape_str(tensors[i + 1].sizes()), " cannot be multiplied");
  }
  Tensor result = first;
  for (size_t i = 1; i < n; ++i) result = mm(result, i == n - 1 ? last : tensors[i]);
  if (tensors[0].dim() == 1) result = squeeze(result, 0);
  if (tensors[n - 1].dim() == 1) result = squeeze(result, -1);
  return result;
}

Tensor cross(const Tensor& input, const Tensor& other, int64_t dim) {
  EMBER_CHECK(input.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  return cross_along(input, other, dim, "linalg.cross");
}

Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  EMBER_CHECK(x.dtype() == y.dtype(), "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
              scalar_type_name(x.dtype()), " and y of type ", scalar_type_name(y.dtype()), " instead");
  return sum(mul(x, y), IntList{dim});
}

}  // namespace linalg

}  // namespace ember
