// cat and flip for every device (kernels/shape_copies.h): copies between
// restrided views through the copy_ kernel of the output's device.
#include "kernels/shape_copies.h"

#include "ember/ops/factories.h"
#include "kernels/restride.h"

namespace ember {

// Each input is copied into its slice of the output along dim.
void cat_kernel(OpCall& c) {
  const int64_t dim = c.attr(0).to_int();
  const DType dtype = c.attr(1).to_dtype();
  DimVector sizes = c.in(0).sizes();
  sizes[dim] = 0;
  for (const Tensor& t : c.inputs) sizes[dim] += t.sizes()[dim];
  Tensor out = c.has_preset_output()
                   ? c.outputs[0]
                   : empty(sizes, TensorOptions(dtype).device(c.in(0).device()));
  int64_t offset = 0;
  for (const Tensor& t : c.inputs) {
    DimVector part = out.sizes();
    part[dim] = t.sizes()[dim];
    copy_into(restride(out, part, out.strides(), out.storage_offset() + offset * out.strides()[dim]),
              t);
    offset += part[dim];
  }
  if (!c.has_preset_output()) c.outputs.push_back(out);
}

// A view of self read backwards along the flipped dims (negative strides).
void flip_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  DimVector strides = self.strides();
  int64_t offset = self.storage_offset();
  if (self.numel() > 0) {
    for (int64_t d : c.attr(0).to_ints()) {
      offset += (self.sizes()[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  }
  copy_into(out, restride(self, self.sizes(), strides, offset));
  c.outputs.push_back(out);
}

}  // namespace ember
