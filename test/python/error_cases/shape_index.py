import ember

Z = ember.zeros
L = ember.int64


def _idx(*values):
    t = Z(len(values), dtype=L)
    for i, v in enumerate(values):
        t[i] = v
    return t


def _setitem(x, index, value):
    x[index] = value


CASES = [
    # joining and splitting
    ("cat with mismatched sizes", lambda: ember.cat([Z(2, 3), Z(2, 4)]), RuntimeError,
     r"cat: Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1"),
    ("cat with different ranks", lambda: ember.cat([Z(2, 3), Z(3)]), RuntimeError,
     r"cat: Tensors must have same number of dimensions: got 2 and 1"),
    ("cat of nothing", lambda: ember.cat([]), ValueError, r"cat: expected a non-empty list"),
    ("cat dim out of range", lambda: ember.cat([Z(2, 3)], dim=2), IndexError, r"cat: dimension out of range"),
    ("cat of 0-dim tensors", lambda: ember.cat([Z([]), Z([])]), RuntimeError, r"zero-dimensional tensor \(at position 0\)"),
    ("stack of unequal shapes", lambda: ember.stack([Z(2), Z(3)]), RuntimeError,
     r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at entry 1"),
    ("stack of nothing", lambda: ember.stack([]), RuntimeError, r"stack expects a non-empty TensorList"),
    ("split with negative size", lambda: Z(4).split(-1), RuntimeError, r"split expects split_size be non-negative"),
    ("split sizes not summing up", lambda: Z(4).split([1, 2]), RuntimeError,
     r"split_with_sizes expects split_sizes to sum exactly to 4"),
    ("chunk into 0 pieces", lambda: Z(4).chunk(0), RuntimeError, r"chunk expects `chunks` to be greater than 0"),
    ("tensor_split into 0 sections", lambda: ember.tensor_split(Z(3), 0), RuntimeError, r"tensor_split.*larger than 0"),
    # rearranging
    ("repeat with too few dims", lambda: Z(2, 3).repeat(2), RuntimeError, r"repeat: Number of dimensions of repeat dims"),
    ("repeat with a negative count", lambda: Z(2).repeat(-1), RuntimeError, r"repeat: .*negative dimension"),
    ("flip a dim twice", lambda: Z(2, 3).flip(0, 0), RuntimeError, r"flip: dim 0 appears multiple times"),
    ("flip dim out of range", lambda: Z(2, 3).flip(2), IndexError, r"flip: dimension out of range"),
    ("roll shifts and dims differ", lambda: Z(2, 3).roll((1, 2), (0,)), RuntimeError,
     r"roll: shifts and dimensions must align"),
    ("tril of a vector", lambda: Z(3).tril(), RuntimeError, r"tril: input tensor must have at least 2 dimensions"),
    ("diag of a 3-d tensor", lambda: Z(2, 2, 2).diag(), RuntimeError, r"diag\(\): Supports 1D or 2D tensors. Got 3D"),
    ("diagonal with identical dims", lambda: ember.diagonal(Z(2, 2), 0, 0, 0), RuntimeError,
     r"diagonal: diagonal dimensions cannot be identical"),
    # along a dim
    ("gather index out of range", lambda: Z(2, 3).gather(1, _idx(3).view(1, 1)), RuntimeError,
     r"gather: index 3 is out of bounds for dimension 1 with size 3"),
    ("gather with a float index", lambda: Z(2, 3).gather(1, Z(1, 1)), RuntimeError,
     r"gather\(\): Expected dtype int32/int64 for index"),
    ("gather with a lower-rank index", lambda: Z(2, 3).gather(1, _idx(0)), RuntimeError,
     r"gather\(\): Index tensor must have the same number of dimensions"),
    ("gather index larger than self", lambda: Z(2, 3).gather(1, Z(3, 1, dtype=L)), RuntimeError,
     r"gather\(\): Size does not match at dimension 0"),
    ("scatter index out of range", lambda: Z(2, 3).scatter(1, _idx(3).view(1, 1), 1.0), RuntimeError,
     r"scatter_value_: index 3 is out of bounds for dimension 1 with size 3"),
    ("scatter src of another dtype", lambda: Z(2, 3).scatter(1, _idx(0).view(1, 1), Z(1, 1, dtype=ember.float64)),
     RuntimeError, r"scatter\(\): Expected self.dtype to be equal to src.dtype"),
    ("scatter_add negative index", lambda: Z(2, 3).scatter_add(1, _idx(-1).view(1, 1), Z(1, 1)), RuntimeError,
     r"index -1 is out of bounds for dimension 1 with size 3"),
    ("scatter with an unknown reduce", lambda: Z(3).scatter(0, _idx(0), 1.0, reduce="max"), RuntimeError,
     r"reduce argument must be either add or multiply"),
    ("index_select out of range", lambda: Z(2, 3).index_select(1, _idx(3)), RuntimeError,
     r"index_select: index 3 is out of bounds for dimension 1 with size 3"),
    ("index_select with a matrix index", lambda: Z(2, 3).index_select(1, Z(1, 1, dtype=L)), IndexError,
     r"index_select\(\): Index is supposed to be a vector"),
    ("index_add with a mismatched source", lambda: Z(2, 3).index_add(0, _idx(0), Z(1, 4)), RuntimeError,
     r"index_add_\(\): source tensor shape must match self tensor shape"),
    ("index_add with another dtype", lambda: Z(2, 3).index_add(0, _idx(0), Z(1, 3, dtype=ember.float64)),
     RuntimeError, r"index_add_\(\): self \(float32\) and source \(float64\) must have the same scalar type"),
    ("index_add index out of range", lambda: Z(2, 3).index_add(0, _idx(5), Z(1, 3)), RuntimeError,
     r"index_add_: index 5 is out of bounds for dimension 0 with size 2"),
    ("index_copy index out of range", lambda: Z(3).index_copy(0, _idx(5), Z(1)), IndexError,
     r"index_copy_: index 5 is out of bounds for dimension 0 with size 3"),
    ("take out of range", lambda: Z(2, 3).take(_idx(6)), IndexError,
     r"take: out of range: tried to access index 6 on a tensor of 6 elements"),
    ("take with an int32 index", lambda: Z(2, 3).take(Z(1, dtype=ember.int32)), RuntimeError,
     r"take\(\): Expected a long tensor for index"),
    # masks
    ("masked_fill with a float mask", lambda: Z(2, 3).masked_fill(Z(2, 3), 1.0), RuntimeError,
     r"masked_fill only supports boolean masks, but got mask with dtype float32"),
    ("masked_fill_ mask bigger than self", lambda: Z(3).masked_fill_(Z(2, 3, dtype=ember.bool), 1.0), RuntimeError,
     r"masked_fill_: output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"),
    ("masked_fill with a 1-d value", lambda: Z(2, 3).masked_fill(Z(2, 3, dtype=ember.bool), Z(2)), RuntimeError,
     r"only supports a 0-dimensional value tensor, but got tensor with 1 dimension"),
    ("masked_select with a float mask", lambda: Z(2, 3).masked_select(Z(2, 3)), RuntimeError,
     r"masked_select: expected BoolTensor for mask"),
    # sorting
    ("topk k too large", lambda: Z(3).topk(4), RuntimeError, r"topk: selected index k out of range"),
    ("topk negative k", lambda: Z(3).topk(-1), RuntimeError, r"selected index k out of range"),
    ("sort dim out of range", lambda: Z(3).sort(dim=1), IndexError, r"sort: dimension out of range"),
    ("unique dim of a 0-dim tensor", lambda: ember.unique(Z([]), dim=0), IndexError, r"unique: dim specified as 0"),
    ("unique with empty unselected dims", lambda: ember.unique(Z(3, 0), dim=0), RuntimeError,
     r"unique: there are 0 sized dimensions"),
    # Python indexing
    ("index out of range", lambda: Z(3)[5], IndexError, r"index 5 is out of bounds for dimension 0 with size 3"),
    ("second index out of range", lambda: Z(2, 3)[0, 5], IndexError, r"index 5 is out of bounds for dimension 1 with size 3"),
    ("negative index out of range", lambda: Z(2, 3)[-3], IndexError, r"index -3 is out of bounds for dimension 0 with size 2"),
    ("too many indices", lambda: Z(2, 3)[0, 0, 0], IndexError, r"too many indices for tensor of dimension 2"),
    ("negative step", lambda: Z(4)[::-1], ValueError, r"step must be greater than zero"),
    ("negative step in a tuple", lambda: Z(4, 2)[:, ::-1], ValueError, r"step must be greater than zero"),
    ("mask of the wrong shape", lambda: Z(2, 3)[Z(3, dtype=ember.bool)], IndexError,
     r"The shape of the mask \[3\] at index 0 does not match the shape of the indexed tensor \[2, 3\] at index 0"),
    ("index tensor out of range", lambda: Z(2, 3)[:, _idx(5)], IndexError, r"index 5 is out of bounds for dimension 1 with size 3"),
    ("float index tensor", lambda: Z(2, 3)[Z(1)], IndexError, r"tensors used as indices must be long, int, byte or bool tensors"),
    ("float index", lambda: Z(2, 3)[1.5], IndexError, r"only integers, slices .* are valid indices \(got float\)"),
    ("string index", lambda: Z(2, 3)["a"], IndexError, r"valid indices \(got str\)"),
    ("unbroadcastable index lists", lambda: Z(2, 3)[[0, 1], [0, 1, 2]], IndexError,
     r"shape mismatch: indexing tensors could not be broadcast together with shapes \[2\], \[3\]"),
    ("two ellipses", lambda: Z(2, 3)[..., ...], IndexError, r"an index can only have a single ellipsis"),
    ("index a 0-dim tensor", lambda: Z([])[0], IndexError, r"invalid index of a 0-dim tensor"),
    ("ragged index list", lambda: Z(3)[[[0, 1], [2]]], ValueError, r"rectangular"),
    ("setitem value of the wrong shape", lambda: _setitem(Z(2, 3), [0, 1], Z(3, 3)), RuntimeError,
     r"shape mismatch: value tensor of shape \[3, 3\] cannot be broadcast to indexing result of shape \[2, 3\]"),
    ("setitem out of range", lambda: _setitem(Z(3), 3, 1.0), IndexError, r"index 3 is out of bounds"),
    ("setitem a string", lambda: _setitem(Z(3), 0, "a"), TypeError, r"can't assign a str to a Tensor"),
    ("index_put_ of another dtype", lambda: Z(3).index_put_((_idx(0),), Z(1, dtype=ember.float64)), RuntimeError,
     r"index_put_: Index put requires the source and destination dtypes match"),
]
