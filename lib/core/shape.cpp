// Shape helpers shared by every op: dims, strides, broadcasting, messages.
#include "ember/ops/views.h"
#include "ember/tensor.h"

namespace ember {

int64_t wrap_dim(int64_t d, int64_t ndim, const char* op) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-d tensor accepts dim 0 and -1, as in PyTorch
  if (d < -n || d >= n)
    throw IndexError(detail::str(op, ": dimension out of range (expected to be in range of [", -n,
                                 ", ", n - 1, "], but got ", d, ")"));
  return d < 0 ? d + n : d;
}

std::string shape_str(const DimVector& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

DimVector contiguous_strides(const DimVector& sizes) {
  DimVector strides(sizes.size());
  int64_t acc = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = acc;
    acc *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

std::string describe(const Tensor& t) {
  if (!t.defined()) return "an undefined tensor";
  return detail::str("tensor of shape ", shape_str(t.sizes()), ", dtype ", dtype_name(t.dtype()),
                     " on ", t.device().str());
}

DimVector broadcast_shapes(const DimVector& a, const DimVector& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa != sb && sa != 1 && sb != 1)
      throw Error(detail::str(op, ": the shapes ", shape_str(a), " and ", shape_str(b),
                              " cannot be broadcast together (size ", sa, " vs ", sb,
                              " at dimension ", i, ")"));
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

namespace {
// size(d) and stride(d) of a 0-d tensor have nothing to read: PyTorch's IndexError (where
// wrap_dim, for ops, lets a 0-d tensor take dim 0 and -1).
void check_has_dims(const Tensor& t, int64_t d) {
  if (t.dim() == 0)
    throw IndexError(detail::str("Dimension specified as ", d, " but tensor has no dimensions"));
}
}  // namespace

int64_t Tensor::size(int64_t d) const {
  check_has_dims(*this, d);
  return sizes()[wrap_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  check_has_dims(*this, d);
  return strides()[wrap_dim(d, dim(), "stride")];
}

}  // namespace ember
