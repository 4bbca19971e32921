// The printed form of a tensor from C++ (Python's repr is python/ember/_tensor_str.py):
// tensor([[1.0000, 2.0000], [3.0000, 4.0000]], dtype=float64)
#include <cmath>
#include <cstdio>

#include "ember/ops/views.h"
#include "ember/tensor.h"

namespace ember {

namespace {
std::string format_value(const Scalar& v) {
  char buf[64];
  if (v.is_bool()) return v.to_bool() ? "True" : "False";
  if (v.is_int()) return std::to_string(v.to_int());
  double d = v.to_double();
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::snprintf(buf, sizeof buf, "%.4f", d);
  return buf;
}

void format_rec(std::ostream& os, const Tensor& t, int depth) {
  if (t.dim() == 0) { os << format_value(t.item()); return; }
  os << "[";
  int64_t n = t.size(0);
  bool summarize = t.numel() > 1000 && n > 6;
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && i == 3) { os << "..., "; i = n - 3; }
    format_rec(os, t.select(0, i), depth + 1);
    if (i + 1 < n) os << (t.dim() > 1 ? ",\n" + std::string(depth + 8, ' ') : ", ");
  }
  os << "]";
}
}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  std::ostringstream os;
  os << "tensor(";
  Tensor host = is_cpu() ? *this : cpu();
  if (numel() == 0 && dim() == 1) os << "[]";
  else if (numel() == 0) os << "[], size=" << shape_str(sizes());
  else format_rec(os, host, 0);
  if (!is_cpu()) os << ", device='" << device().str() << "'";
  DType dt = dtype();
  if (dt != default_dtype() && dt != kInt64 && dt != kBool) os << ", dtype=ember." << dtype_name(dt);
  os << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace ember
