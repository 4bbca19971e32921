// Differences, distances, covariance and integration composites: diff, dist, cdist,
// cov, corrcoef, trapezoid, cumulative_trapezoid; and linalg.vector_norm / matrix_norm.
// Formulas follow PyTorch's own composites so that rounding matches.
#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factories.h"
#include "ember/ops/linalg.h"
#include "ember/ops/linalg_extra.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape_index.h"
#include "ember/ops/views.h"

namespace ember {

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append) {
  EMBER_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, "order must be non-negative but got ", n);
  int64_t d = wrap_dim(dim, self.dim(), "diff");
  Tensor x = self;
  if (prepend.defined() || append.defined()) {
    TensorList parts;
    for (const Tensor* t : {&prepend, &self, &append}) {
      if (!t->defined()) continue;
      EMBER_CHECK(t->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
      parts.push_back(*t);
    }
    x = cat(parts, d);
  }
  for (int64_t i = 0; i < n && x.size(d) > 0; ++i) {
    int64_t len = x.size(d) - 1;
    Tensor hi = narrow(x, d, 1, len), lo = narrow(x, d, 0, len);
    x = x.dtype() == DType::Bool ? logical_xor(hi, lo) : sub(hi, lo);
  }
  return x;
}

Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  return norm(sub(self, other), p.to_double());
}

namespace {

// Squared distances through one matrix product, as PyTorch's _euclidean_dist:
// [-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  Tensor n1 = sum(mul(x1, x1), IntList{-1}, true), n2 = sum(mul(x2, x2), IntList{-1}, true);
  Tensor a = cat({mul(x1, Scalar(-2)), n1, ones_like(n1)}, -1);
  Tensor b = cat({x2, ones_like(n2), n2}, -1);
  return sqrt(clamp_min(matmul(a, transpose(b, -1, -2)), Scalar(1e-30)));
}

}  // namespace

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<std::string> compute_mode) {
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  EMBER_CHECK(is_floating(x1.dtype()), "cdist only supports floating-point dtypes, X1 got: ",
              scalar_type_name(x1.dtype()));
  EMBER_CHECK(is_floating(x2.dtype()), "cdist only supports floating-point dtypes, X2 got: ",
              scalar_type_name(x2.dtype()));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  int mode = 0;
  if (compute_mode) {
    if (*compute_mode == "use_mm_for_euclid_dist") mode = 1;
    else if (*compute_mode == "donot_use_mm_for_euclid_dist") mode = 2;
    else EMBER_CHECK(*compute_mode == "use_mm_for_euclid_dist_if_necessary", *compute_mode,
                     " is not a valid value for compute_mode");
  }
  // Batch dims broadcast.
  DimVector b1(x1.sizes().begin(), x1.sizes().end() - 2), b2(x2.sizes().begin(), x2.sizes().end() - 2);
  DimVector batch = broadcast_shapes(b1, b2, "cdist");
  auto full_shape = [&](const Tensor& t) {
    IntList s(batch.begin(), batch.end());
    s.push_back(t.size(-2));
    s.push_back(t.size(-1));
    return s;
  };
  Tensor a = expand(x1, full_shape(x1)), b = expand(x2, full_shape(x2));
  int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  if (p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) return euclidean_dist(a, b);
  Tensor difference = sub(unsqueeze(a, -2), unsqueeze(b, -3));  // [..., P, R, M]
  return norm(difference, p, IntList{-1});
}

Tensor cov(const Tensor& self, int64_t correction, const Tensor& fweights, const Tensor& aweights) {
  EMBER_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  Tensor x = self.dim() < 2 ? reshape(self, {1, -1}) : self;
  if (!is_floating(x.dtype())) x = x.to(default_dtype());
  int64_t num_obs = x.size(1);
  Tensor w;
  if (fweights.defined()) {
    EMBER_CHECK(fweights.dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights "
                "with ", fweights.dim(), " dimensions");
    EMBER_CHECK(is_integral(fweights.dtype()), "cov(): expected fweights to have integral dtype but got fweights "
                "with ", scalar_type_name(fweights.dtype()), " dtype");
    EMBER_CHECK(fweights.numel() == num_obs, "cov(): expected fweights to have the same numel as there are "
                "observations in the input but got ", fweights.numel(), " != ", num_obs);
    EMBER_CHECK(fweights.numel() == 0 || amin(fweights).item<int64_t>() >= 0, "cov(): fweights cannot be negative");
    w = fweights;
  }
  if (aweights.defined()) {
    EMBER_CHECK(aweights.dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights "
                "with ", aweights.dim(), " dimensions");
    EMBER_CHECK(is_floating(aweights.dtype()), "cov(): expected aweights to have floating point dtype but got "
                "aweights with ", scalar_type_name(aweights.dtype()), " dtype");
    EMBER_CHECK(aweights.numel() == num_obs, "cov(): expected aweights to have the same numel as there are "
                "observations in the input but got ", aweights.numel(), " != ", num_obs);
    EMBER_CHECK(aweights.numel() == 0 || amin(aweights).item<double>() >= 0, "cov(): aweights cannot be negative");
    w = w.defined() ? mul(w, aweights) : aweights;
  }
  Tensor avg, w_sum, norm_factor;
  if (w.defined()) {
    w_sum = sum(w);
    avg = div(sum(mul(x, w), IntList{1}), w_sum);
    if (correction == 0) norm_factor = w_sum;
    else if (aweights.defined())
      norm_factor = sub(w_sum, div(mul(sum(mul(w, aweights)), Scalar(correction)), w_sum));
    else norm_factor = sub(w_sum, Scalar(correction));
  } else {
    w_sum = scalar_tensor(Scalar(num_obs), TensorOptions(DType::Int64).device(x.device()));
    avg = mean(x, IntList{1});
    norm_factor = sub(w_sum, Scalar(correction));
  }
  norm_factor = clamp_min(norm_factor, Scalar(0));  // PyTorch warns and uses 0
  Tensor centered = sub(x, unsqueeze(avg, 1));
  Tensor c = mm(centered, transpose(w.defined() ? mul(centered, w) : centered, 0, 1));
  return squeeze(div(c, norm_factor));
}

Tensor corrcoef(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  Tensor c = cov(self);
  if (c.dim() == 0) return div(c, c);  // one variable: 1, or nan for a constant one
  Tensor stddev = sqrt(diagonal(c));
  c = div(c, unsqueeze(stddev, -1));
  c = div(c, unsqueeze(stddev, 0));
  return clamp(c, Scalar(-1), Scalar(1));
}

namespace {

// x as spacings along dim of y: a 1-d x is laid along dim, others broadcast.
Tensor spacings(const Tensor& y, const Tensor& x, int64_t d, const char* op) {
  Tensor xv = x;
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(d), op, ": There must be one `x` value for each sample point");
    IntList shape(y.dim(), 1);
    shape[d] = x.size(0);
    xv = reshape(x, shape);
  } else if (x.dim() < y.dim()) {
    IntList shape(y.dim() - x.dim(), 1);
    shape.insert(shape.end(), x.sizes().begin(), x.sizes().end());
    xv = reshape(x, shape);
  }
  int64_t len = xv.size(d) - 1;
  return sub(narrow(xv, d, 1, len), narrow(xv, d, 0, len));
}

Tensor zeros_reduced(const Tensor& y, int64_t d) {
  IntList shape(y.sizes().begin(), y.sizes().end());
  shape.erase(shape.begin() + d);
  return zeros(shape, TensorOptions(y.dtype()).device(y.device()));
}

}  // namespace

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return zeros_reduced(y, d);
  Tensor dx = spacings(y, x, d, "trapezoid");
  int64_t len = y.size(d) - 1;
  return div(sum(mul(add(narrow(y, d, 1, len), narrow(y, d, 0, len)), dx), IntList{d}), Scalar(2));
}

Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return zeros_reduced(y, d);
  Tensor ends = mul(add(select(y, d, 0), select(y, d, -1)), Scalar(0.5));
  return mul(sub(sum(y, IntList{d}), ends), dx);
}

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  if (y.size(d) == 0) return zeros_like(y);
  Tensor dx = spacings(y, x, d, "cumulative_trapezoid");
  int64_t len = y.size(d) - 1;
  return cumsum(mul(div(dx, Scalar(2.0)), add(narrow(y, d, 0, len), narrow(y, d, 1, len))), d);
}

Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  int64_t d = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  if (y.size(d) == 0) return zeros_like(y);
  int64_t len = y.size(d) - 1;
  return cumsum(mul(add(narrow(y, d, 0, len), narrow(y, d, 1, len)), Scalar(dx.to_double() / 2.0)), d);
}

namespace linalg {

Tensor vector_norm(const Tensor& x, double ord, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(x.dtype()), "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(x.dtype()));
  return norm(x, ord, dim, keepdim, dtype);
}

namespace {

IntList matrix_dims(const Tensor& a, const IntList& dim) {
  EMBER_CHECK(a.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dim.size(), " dims");
  int64_t d0 = wrap_dim(dim[0], a.dim(), "linalg.matrix_norm"), d1 = wrap_dim(dim[1], a.dim(), "linalg.matrix_norm");
  EMBER_CHECK(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
  EMBER_CHECK(is_floating(a.dtype()), "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got ",
              scalar_type_name(a.dtype()));
  return {d0, d1};
}

}  // namespace

Tensor matrix_norm(const Tensor& a, const std::string& ord, const IntList& dim, bool keepdim,
                   std::optional<DType> dtype) {
  IntList dims = matrix_dims(a, dim);
  EMBER_CHECK_AS(NotImplementedError, ord != "nuc",
                 "linalg.matrix_norm: the nuclear norm needs a singular value decomposition, which ember does not have");
  EMBER_CHECK(ord == "fro", "linalg.matrix_norm: Order ", ord, " not supported.");
  return norm(a, 2.0, dims, keepdim, dtype);
}

Tensor matrix_norm(const Tensor& a, double ord, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  IntList dims = matrix_dims(a, dim);
  double abs_ord = std::fabs(ord);
  EMBER_CHECK(abs_ord == 2 || abs_ord == 1 || std::isinf(abs_ord), "linalg.matrix_norm: Order ", ord,
              " not supported.");
  EMBER_CHECK_AS(NotImplementedError, abs_ord != 2,
                 "linalg.matrix_norm: ord=+-2 needs a singular value decomposition, which ember does not have");
  Tensor x = dtype ? a.to(*dtype) : a;
  int64_t d0 = dims[0], d1 = dims[1];
  if (std::isinf(abs_ord)) std::swap(d0, d1);
  if (!keepdim && d0 < d1) --d1;
  Tensor sums = sum(abs(x), IntList{d0}, keepdim);
  return ord > 0 ? amax(sums, IntList{d1}, keepdim) : amin(sums, IntList{d1}, keepdim);
}

}  // namespace linalg

}  // namespace ember
