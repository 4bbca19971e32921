// Tensors over external memory (include/ember/ops/external.h).
#include "ember/ops/external.h"

#include <limits>

#include "ember/cuda.h"

namespace ember {

namespace {

// Calls the deleter when from_blob fails before a Storage owns the memory.
struct DeleterGuard {
  StorageDeleter deleter;
  void* ctx;
  void* data;
  bool armed = true;
  ~DeleterGuard() {
    if (armed && deleter) deleter(ctx, data);
  }
};

// Bytes spanned by the view (0 when it has no elements); checks for overflow.
size_t extent_bytes(const IntList& sizes, const IntList& strides, DType dtype) {
  int64_t last = 0;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 16;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK_VALUE(sizes[i] >= 0, "from_blob: negative size ", sizes[i], " in ",
                      shape_str(DimVector(sizes.begin(), sizes.end())));
    EMBER_CHECK_VALUE(strides[i] >= 0, "from_blob: negative strides are not supported, got ",
                      shape_str(DimVector(strides.begin(), strides.end())));
    if (sizes[i] == 0) return 0;
    EMBER_CHECK_VALUE(strides[i] == 0 || sizes[i] - 1 <= (kMax - last) / strides[i],
                      "from_blob: the sizes and strides span more memory than can be addressed");
    last += (sizes[i] - 1) * strides[i];
  }
  return static_cast<size_t>(last + 1) * itemsize(dtype);
}

void call_function_deleter(void* ctx, void* data) {
  auto* fn = static_cast<std::function<void(void*)>*>(ctx);
  if (*fn) (*fn)(data);
  delete fn;
}

}  // namespace

Tensor from_blob(void* data, const IntList& sizes, const IntList& strides, DType dtype,
                 Device device, StorageDeleter deleter, void* ctx) {
  DeleterGuard guard{deleter, ctx, data};
  EMBER_CHECK_VALUE(sizes.size() == strides.size(), "from_blob: got ", sizes.size(),
                    " sizes but ", strides.size(), " strides");
  size_t nbytes = extent_bytes(sizes, strides, dtype);
  EMBER_CHECK_VALUE(data != nullptr || nbytes == 0, "from_blob: data is null");
  if (device.is_cuda()) {
    // The memory must be on the device named (the current one for "cuda"): a kernel
    // reading host memory, or another GPU's, would fault.
    if (!cuda::is_built())
      throw Error(detail::str("from_blob: memory on ", device.str(),
                              " cannot be used: ember was built without CUDA"));
    const int current = device.index < 0 ? cuda::current_device() : int(device.index);
    if (nbytes > 0) {
      const int owner = cuda::device_of_pointer(data, "from_blob");
      EMBER_CHECK_VALUE(owner == current, "from_blob: the memory is on cuda:", owner,
                        ", not on cuda:", current);
    }
    device = Device(DeviceType::CUDA, current);
  } else {
    EMBER_CHECK_VALUE(device.is_cpu(), "from_blob: memory on ", device.str(), " is not supported");
  }
  auto storage = make_intrusive<Storage>(data, nbytes, device, deleter, ctx);
  guard.armed = false;  // the Storage owns the memory now
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), 0,
                                           DimVector(sizes.begin(), sizes.end()),
                                           DimVector(strides.begin(), strides.end()), dtype));
}

Tensor from_blob(void* data, const IntList& sizes, const IntList& strides,
                 std::function<void(void*)> deleter, TensorOptions options) {
  auto* ctx = new std::function<void(void*)>(std::move(deleter));
  Tensor t = from_blob(data, sizes, strides, options.dtype_or(default_dtype()), options.device_,
                       &call_function_deleter, ctx);
  if (options.requires_grad_) {
    EMBER_CHECK(t.is_floating_point(), "from_blob: only tensors of floating point dtype can "
                "require gradients, got ", dtype_name(t.dtype()));
    t.impl()->requires_grad = true;
  }
  return t;
}

Tensor from_blob(void* data, const IntList& sizes, std::function<void(void*)> deleter,
                 TensorOptions options) {
  DimVector strides = contiguous_strides(DimVector(sizes.begin(), sizes.end()));
  return from_blob(data, sizes, IntList(strides.begin(), strides.end()), std::move(deleter),
                   options);
}

}  // namespace ember
