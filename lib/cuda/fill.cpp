// fill_ on CUDA: the value is converted to the tensor's dtype on the host, then its
// bytes are written into every element by the strided fill kernel.
#include <cstring>

#include "kernels/dtype_dispatch.h"
#include "cuda/strided_ops.h"
#include "dispatch/args/core.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_ids/core.h"

namespace ember::cuda {
namespace {

void fill_kernel(OpCall& c) {
  const Tensor& self = c.outputs[0];
  const FillArgs a = FillArgs::from(c);
  uint64_t bits = 0;  // little-endian: the value's bytes are the low bytes
  EMBER_DISPATCH_ALL(self.dtype(), "fill_", [&] {
    scalar_t value = a.value.to<scalar_t>();
    std::memcpy(&bits, &value, sizeof value);
  });
  DeviceGuard guard(self.device().index);
  strided_fill(self, bits, current_stream(self.device().index));
}

EMBER_REGISTER_KERNEL(fill_, CUDA, fill_kernel);

}  // namespace
}  // namespace ember::cuda
