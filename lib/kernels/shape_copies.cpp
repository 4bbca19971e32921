// cat and flip for every device (kernels/shape_copies.h): copies between
// restrided views through the copy_ kernel of the output's device.
#include "kernels/shape_copies.h"

#include "dispatch/args/shape_index.h"
#include "ember/ops/factories.h"
#include "kernels/restride.h"

namespace ember {

// Each input is copied into its slice of the output along dim.
void cat_kernel(OpCall& c) {
  const CatArgs a = CatArgs::from(c);
  DimVector sizes = c.in(0).sizes();
  sizes[a.dim] = 0;
  for (const Tensor& t : c.inputs) sizes[a.dim] += t.sizes()[a.dim];
  Tensor out = c.has_preset_output()
                   ? c.outputs[0]
                   : empty(sizes, TensorOptions(a.dtype).device(c.in(0).device()));
  int64_t offset = 0;
  for (const Tensor& t : c.inputs) {
    DimVector part = out.sizes();
    part[a.dim] = t.sizes()[a.dim];
    copy_into(
        restride(out, part, out.strides(), out.storage_offset() + offset * out.strides()[a.dim]), t);
    offset += part[a.dim];
  }
  if (!c.has_preset_output()) c.outputs.push_back(out);
}

// A view of self read backwards along the flipped dims (negative strides).
void flip_kernel(OpCall& c) {
  const Tensor& self = c.in(0);
  const FlipArgs a = FlipArgs::from(c);
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  DimVector strides = self.strides();
  int64_t offset = self.storage_offset();
  if (self.numel() > 0) {
    for (int64_t d : a.dims) {
      offset += (self.sizes()[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  }
  copy_into(out, restride(self, self.sizes(), strides, offset));
  c.outputs.push_back(out);
}

}  // namespace ember
