// cat and flip on CUDA: the CPU kernels' bodies (kernels/shape_copies.h), which copy
// between restrided views through the copy_ kernel of the output's device: on
// CUDA one strided copy kernel per input of cat (casting to the promoted dtype,
// empty inputs skipped), one for flip (negative strides).
#include "kernels/shape_copies.h"
#include "dispatch/op_ids/shape_index.h"

namespace ember::cuda {
namespace {

EMBER_REGISTER_KERNEL(cat, CUDA, cat_kernel);
EMBER_REGISTER_KERNEL(flip, CUDA, flip_kernel);

}  // namespace
}  // namespace ember::cuda
