// TensorOptions: dtype, device and requires_grad for factories, as in PyTorch's C++ API:
//   ember::zeros({2, 3}, ember::kFloat64)
//   ember::ones({4}, ember::TensorOptions().dtype(ember::kInt32).device("cpu"))
#pragma once
#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

struct TensorOptions {
  std::optional<DType> dtype_;
  Device device_ = kCPU;
  bool requires_grad_ = false;

  TensorOptions() = default;
  TensorOptions(DType t) : dtype_(t) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(const char* device) : device_(device) {}

  TensorOptions dtype(DType t) const { auto o = *this; o.dtype_ = t; return o; }
  TensorOptions dtype(std::optional<DType> t) const { auto o = *this; o.dtype_ = t; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions requires_grad(bool r) const { auto o = *this; o.requires_grad_ = r; return o; }
  // The dtype, or the given fallback (the default float type for most factories).
  DType dtype_or(DType fallback) const { return dtype_ ? *dtype_ : fallback; }
};

}  // namespace ember
