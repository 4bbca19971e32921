// dot on CUDA through cublasDotEx: the result is written straight into the 0-dim
// output on the device (device pointer mode), so nothing waits for the GPU.
// float16/bfloat16 accumulate in float32, as on the CPU.
#include "cuda/blas/cublas_context.h"
#include "cuda/blas/gemm.h"
#include "cuda/launch.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/linalg.h"
#include "ember/ops/factories.h"

namespace ember::cuda::blas {
namespace {

// Pointer mode DEVICE for one call; the handle goes back to HOST (what the gemm
// paths pass their alpha/beta with) on every way out.
class DevicePointerMode {
 public:
  explicit DevicePointerMode(cublasHandle_t h) : handle_(h) {
    EMBER_CUBLAS(cublas_library(), cublasSetPointerMode_v2, std::string("dot: setting up cuBLAS"),
                 handle_, CUBLAS_POINTER_MODE_DEVICE);
  }
  ~DevicePointerMode() {
    EMBER_DYNAMIC_FN(cublas_library(), cublasSetPointerMode_v2)(handle_, CUBLAS_POINTER_MODE_HOST);
  }
  DevicePointerMode(const DevicePointerMode&) = delete;
  DevicePointerMode& operator=(const DevicePointerMode&) = delete;

 private:
  cublasHandle_t handle_;
};

// A vector cuBLAS reads with a positive increment (an expanded one is copied).
Tensor positive_stride(const Tensor& v) {
  return v.size(0) <= 1 || v.stride(0) > 0 ? v : v.contiguous();
}

// dot: in self [n], other [n]; out: a 0-dim tensor.
void dot_kernel(OpCall& call) {
  const Tensor &x_in = call.in(0), &y_in = call.in(1);
  check_blas_dtype("dot", x_in.dtype());
  Tensor out;
  if (call.has_preset_output()) {
    out = call.outputs[0];
  } else {
    out = empty({}, TensorOptions(x_in.dtype()).device(x_in.device()));
    call.outputs.push_back(out);
  }
  int64_t n = x_in.size(0);
  if (n == 0) {
    out.zero_();
    return;
  }
  Tensor x = positive_stride(x_in), y = positive_stride(y_in);
  int64_t incx = n == 1 ? 1 : x.stride(0), incy = n == 1 ? 1 : y.stride(0);
  cudaDataType_t type = cuda_data_type(x.dtype());
  cudaDataType_t exec = x.dtype() == kFloat64 ? CUDA_R_64F : CUDA_R_32F;
  LaunchContext ctx(out);
  BlasContext blas = blas_context(out.device().index, ctx.stream);
  DevicePointerMode mode(blas.handle);
  EMBER_CUBLAS(cublas_library(), cublasDotEx_64,
               ::ember::detail::str("dot: ", dtype_name(x.dtype()), " [", n, "] . [", n, "] on ",
                                    x.device().str()),
               blas.handle, n, x.data_ptr(), type, incx, y.data_ptr(), type, incy, out.data_ptr(),
               type, exec);
}

}  // namespace

EMBER_REGISTER_KERNEL(dot, CUDA, dot_kernel);

}  // namespace ember::cuda::blas
