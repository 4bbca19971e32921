"""In-place forms that PyTorch has and ember builds from its out-of-place ops, and the
torch.* function spellings of in-place Tensor methods (torch.clamp_(x, ...)).

Each in-place form computes the out-of-place result first and writes self last
(self.copy_(result)), so a call that raises leaves self as it was, and autograd records
the write as it records any copy_.
"""
from . import _C
from ._C import Tensor

__all__ = ["fill", "feature_dropout", "feature_dropout_", "dropout_", "alpha_dropout_",
           "feature_alpha_dropout_", "split_with_sizes", "unsafe_chunk", "unsafe_split",
           "unsafe_split_with_sizes", "renorm"]


def _write(self, result):
    return self.copy_(result)


def _addmm_(self, mat1, mat2, *, beta=1, alpha=1):
    return _write(self, _C.addmm(self, mat1, mat2, beta=beta, alpha=alpha))


def _addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    return _write(self, _C.addbmm(self, batch1, batch2, beta=beta, alpha=alpha))


def _baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    return _write(self, _C.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha))


def _addmv_(self, mat, vec, *, beta=1, alpha=1):
    return _write(self, _C.addmv(self, mat, vec, beta=beta, alpha=alpha))


def _addr_(self, vec1, vec2, *, beta=1, alpha=1):
    return _write(self, _C.addr(self, vec1, vec2, beta=beta, alpha=alpha))


def _tril_(self, diagonal=0):
    return _write(self, _C.tril(self, diagonal))


def _triu_(self, diagonal=0):
    return _write(self, _C.triu(self, diagonal))


def renorm(input, p, dim, maxnorm):  # noqa: A002 (torch's name)
    """Each sub-tensor along dim (input.select(dim, i)) whose p-norm exceeds maxnorm,
    scaled to have p-norm maxnorm (PyTorch's rule, with its 1e-7 guard); the others as
    they are."""
    if not input.is_floating_point():
        raise RuntimeError(f"renorm: expected a floating point tensor, got {input.dtype}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           "dimensions")
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    others = [i for i in range(input.dim()) if i != d]
    norms = input.norm(p, dim=others, keepdim=True)
    factor = _C.where(norms > maxnorm, maxnorm / (norms + 1e-7), _C.ones_like(norms))
    return input * factor


def _renorm_(self, p, dim, maxnorm):
    return _write(self, renorm(self, p, dim, maxnorm))


def _fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal (all dims of equal size when self has more than two);
    with wrap, a tall matrix's diagonal restarts below every N + 1 rows (PyTorch's rule)."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    sizes = list(self.shape)
    if self.dim() > 2 and len(set(sizes)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    length = min(sizes)
    step = sum(self.stride())
    if wrap and self.dim() == 2 and sizes[0] > sizes[1] + 1:
        # Each block of N + 1 rows holds one full diagonal of an N-column matrix.
        rows, cols = sizes
        length = (rows * cols + cols) // (cols + 1)
        if self.stride(1) != 1 or self.stride(0) != cols:
            raise RuntimeError("fill_diagonal_ with wrap=True needs a contiguous tensor")
    diagonal = self.as_strided((length,), (step,), self.storage_offset())
    diagonal.fill_(fill_value)
    return self


def fill(input, value):  # noqa: A002 (torch's name)
    """torch.fill: a new tensor like input with every element value."""
    return _C.full_like(input, value.item() if isinstance(value, Tensor) else value)


def dropout_(input, p=0.5, train=True):  # noqa: A002
    return _write(input, _C.dropout(input, p, train))


def alpha_dropout_(input, p=0.5, train=True):  # noqa: A002
    return _write(input, _C.alpha_dropout(input, p, train))


def feature_alpha_dropout_(input, p=0.5, train=True):  # noqa: A002
    return _write(input, _C.feature_alpha_dropout(input, p, train))


def feature_dropout(input, p=0.5, train=True):  # noqa: A002
    """Dropout of whole channels: each (sample, channel) slice of input (N, C, *) is zeroed
    with probability p and the rest scaled by 1 / (1 - p), as torch.feature_dropout."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not train or p == 0 or input.numel() == 0:
        return input.clone()
    if p == 1:
        return input * 0
    mask_shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    mask = _C.empty(mask_shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    return input * mask.div_(1 - p)


def feature_dropout_(input, p=0.5, train=True):  # noqa: A002
    return _write(input, feature_dropout(input, p, train))


def split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    return input.split_with_sizes(split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0):  # noqa: A002
    return input.chunk(chunks, dim)


def unsafe_split(input, split_size, dim=0):  # noqa: A002
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    return input.split_with_sizes(split_sizes, dim)


for _name, _fn in {"addmm_": _addmm_, "addbmm_": _addbmm_, "baddbmm_": _baddbmm_,
                   "addmv_": _addmv_, "addr_": _addr_, "tril_": _tril_, "triu_": _triu_,
                   "renorm": renorm, "renorm_": _renorm_, "fill_diagonal_": _fill_diagonal_,
                   "unsafe_chunk": unsafe_chunk, "unsafe_split": unsafe_split,
                   "unsafe_split_with_sizes": unsafe_split_with_sizes}.items():
    setattr(Tensor, _name, _fn)


def _function_of_method(name):
    """torch.<name>(input, *args, **kwargs): the Tensor method of that name, as a function."""
    def function(input, *args, **kwargs):  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}(input, ...): the same as input.{name}(...)."
    return function


# The in-place methods PyTorch also spells as torch.<name>(input, ...).
METHOD_FUNCTIONS = ["clamp_", "clamp_max_", "clamp_min_", "clip_", "round_", "zero_", "fill_",
                    "gcd_", "lcm_", "ldexp_", "xlogy_", "nan_to_num_", "addmv_", "index_put_",
                    "detach_", "as_strided_", "resize_as_", "is_signed"]
for _name in METHOD_FUNCTIONS:
    globals()[_name] = _function_of_method(_name)
__all__ += METHOD_FUNCTIONS

del _name, _fn
