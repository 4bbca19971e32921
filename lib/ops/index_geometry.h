// Note [Advanced indexing geometry]: where the dims of self[i0, i1, ...] go when
// some entries are index tensors, shared by the op functions (result shapes)
// and the kernels of index / index_put_ on every device.
//
// indices[d] indexes dim d of self; an undefined tensor leaves dim d whole. The
// defined indices all have one shape (the op function broadcast them), which
// replaces the indexed dims in the result. If the indexed dims are adjacent it
// takes their place; otherwise it goes first (numpy's rule): x[:, i, j] on a
// [A, B, C] tensor gives [A, I], x[i, :, j] gives [I, B].
#pragma once
#include "ember/tensor.h"

namespace ember {

struct AdvancedIndexGeometry {
  DimVector perm;          // self's dims in result order: the indexed ones at before..before+count
  int64_t before = 0;      // unindexed dims ahead of the indexed block (in perm order)
  int64_t count = 0;       // indexed dims
  DimVector index_shape;   // the common shape of the indices
  DimVector result_shape;  // perm[:before] sizes + index_shape + the rest
};

// indices: at most self's dim entries, at least one defined, all defined of one shape.
AdvancedIndexGeometry advanced_index_geometry(const DimVector& self_sizes,
                                              const TensorList& indices);

}  // namespace ember
