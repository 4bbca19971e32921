"""Small torch functions and Tensor methods ember lacked, each a composition of
existing ops: as_subclass, const_data_ptr, new_empty_strided, resize / resize_as (torch's
deprecated out-of-place forms), nonzero_static, as_strided_scatter, and the function
forms is_inference(t) / get_device(t)."""
import warnings

from . import _C
from ._C import Tensor

__all__ = ["nonzero_static", "as_strided_scatter", "is_inference", "get_device"]


def _require_tensor(value, op, name="input"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position 1) must be Tensor, not "
                        f"{type(value).__name__}")


def is_inference(input):  # noqa: A002 (torch's name)
    """Whether input was made in inference mode (torch.is_inference)."""
    _require_tensor(input, "is_inference")
    return input.is_inference()


def get_device(input):  # noqa: A002
    """The CUDA index of input's device, -1 on the CPU (torch.get_device)."""
    _require_tensor(input, "get_device")
    return input.get_device()


def nonzero_static(input, *, size, fill_value=-1):  # noqa: A002
    """The indices of input's nonzero elements as nonzero() gives them, cut or padded
    with fill_value to exactly size rows: a (size, input.dim()) int64 tensor."""
    _require_tensor(input, "nonzero_static")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = _C.nonzero(input) if input.dim() > 0 else _C.zeros(
        (1 if bool(input.item()) else 0, 0), dtype=_C.int64, device=input.device)
    found = found[:size]
    missing = size - found.size(0)
    if missing:
        padding = _C.full((missing, input.dim()), int(fill_value), dtype=_C.int64,
                          device=input.device)
        found = _C.cat([found, padding], 0)
    return found


def _clone_keeping_strides(t):
    """t's values in fresh memory with t's strides when t is dense and non-overlapping
    (as torch's clone(preserve_format)), else contiguous; storage offset 0."""
    order = sorted(range(t.dim()), key=lambda d: t.stride(d), reverse=True)
    expected, dense = 1, True
    for d in reversed(order):
        if t.size(d) != 1 and t.stride(d) != expected:
            dense = False
            break
        expected *= t.size(d)
    if dense and t.numel() > 0:
        out = _C.empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype, device=t.device)
    else:
        out = _C.empty(tuple(t.shape), dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def _as_strided_scatter_values(input, src, size, stride, storage_offset):
    out = _clone_keeping_strides(input)
    region = out.as_strided(size, stride, storage_offset)
    if tuple(region.shape) != tuple(src.shape):
        raise RuntimeError(f"as_strided_scatter: expected src to have a size equal to the "
                           f"slice of self. src size = {list(src.shape)}, slice size = "
                           f"{list(region.shape)}")
    region.copy_(src)
    return out


def _as_strided_scatter_function():
    from .autograd import Function

    class AsStridedScatter(Function):
        @staticmethod
        def forward(ctx, input, src, size, stride, storage_offset):  # noqa: A002
            out = _as_strided_scatter_values(input.detach(), src.detach(), size, stride,
                                             storage_offset)
            ctx.geometry = (size, stride, storage_offset)
            ctx.like = out
            return out

        @staticmethod
        def backward(ctx, grad):
            size, stride, storage_offset = ctx.geometry
            # The gradient laid out as the output was, so the region means the same places.
            laid_out = _clone_keeping_strides(ctx.like)
            laid_out.copy_(grad)
            grad_src = laid_out.as_strided(size, stride, storage_offset).clone()
            laid_out.as_strided(size, stride, storage_offset).zero_()
            return laid_out, grad_src, None, None, None

    return AsStridedScatter


_AsStridedScatter = None


def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    """input with the elements of input.as_strided(size, stride, storage_offset) replaced
    by src (a new tensor laid out as input's clone; differentiable in input and src)."""
    global _AsStridedScatter
    _require_tensor(input, "as_strided_scatter")
    _require_tensor(src, "as_strided_scatter", "src")
    if src.dtype != input.dtype:
        raise RuntimeError(f"as_strided_scatter: expected src to have the dtype of input "
                           f"({input.dtype}), got {src.dtype}")
    if src.device != input.device:
        raise RuntimeError(f"as_strided_scatter: expected src on {input.device}, got "
                           f"{src.device}")
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if not (input.requires_grad or src.requires_grad) or not _C.is_grad_enabled():
        return _as_strided_scatter_values(input, src, size, stride, storage_offset)
    if _AsStridedScatter is None:
        _AsStridedScatter = _as_strided_scatter_function()
    return _AsStridedScatter.apply(input, src, size, stride, storage_offset)


def _as_subclass(self, cls):
    """An instance of cls (a Tensor subclass) aliasing self and attached to its autograd
    graph (a view of self, as torch's alias)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    obj = Tensor.__new__(cls)
    _C._tensor_rebind(obj, self.view_as(self))
    return obj


def _const_data_ptr(self):
    """The address of self's first element (torch's read-only spelling of data_ptr)."""
    return self.data_ptr()


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       pin_memory=False, requires_grad=False):
    """An uninitialized tensor of this size and stride, in self's dtype and device unless
    given."""
    if layout is not None and str(layout) != "ember.strided":
        raise NotImplementedError(f"new_empty_strided: layout {layout} is not supported")
    out = _C.empty_strided(tuple(size), tuple(stride),
                           dtype=self.dtype if dtype is None else dtype,
                           device=self.device if device is None else device)
    if pin_memory:
        out = out.pin_memory()
    if requires_grad:
        out.requires_grad_(True)
    return out


def _resize_values(self, sizes):
    total = 1
    for s in sizes:
        total *= s
    if total != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(str(s) for s in sizes)} ({total} elements in "
            f"total), but the given tensor has a size of "
            f"{'x'.join(str(s) for s in self.shape)} ({self.numel()} elements). autograd's "
            "resize can only change the shape of a given tensor, while preserving the number "
            "of elements. ")
    return self.contiguous().view(tuple(sizes))  # a tuple: view() with no sizes is a TypeError


def _resize(self, *sizes):
    """Deprecated out-of-place resize: self reshaped to sizes (same number of elements),
    differentiable, as torch's."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple, _C.Size)):
        sizes = tuple(sizes[0])
    return _resize_values(self, [int(s) for s in sizes])


def _resize_as(self, tensor):
    """Deprecated out-of-place resize_as: self reshaped to tensor's shape."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize_values(self, list(tensor.shape))


def _new(self, *args, device=None):
    """The legacy constructor of a tensor of self's dtype (torch's Tensor.new): new() is
    empty, new(2, 3) or new(ember.Size([2, 3])) an uninitialized tensor of that size,
    new(data) (a list, tuple, range or array) a copy of the data, new(tensor) that
    tensor's memory (it must have self's dtype and device)."""
    device = self.device if device is None else device
    if not args:
        return _C.empty(0, dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype != self.dtype or str(other.device) != str(device):
            raise TypeError(f"new(): expected a tensor of dtype {self.dtype} on {device}, got one of dtype "
                            f"{other.dtype} on {other.device}")
        return other.detach()
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], _C.Size)):
        size = tuple(args[0]) if isinstance(args[0], _C.Size) else args
        negative = [s for s in size if s < 0]
        if negative:
            raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {list(size)}")
        return _C.empty(size, dtype=self.dtype, device=device)
    if len(args) == 1 and not isinstance(args[0], (str, bytes, float, bool)) and hasattr(args[0], "__len__"):
        return _C.tensor(args[0], dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], range):
        return _C.tensor(list(args[0]), dtype=self.dtype, device=device)
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")


def _to_dense(self, dtype=None, *, masked_grad=None):
    """Tensor.to_dense: ember's tensors are dense (strided), so self (in dtype if given)."""
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


def _dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory: sorted by stride, largest first
    (ties keep their order). Where size-1 dims or equal strides let two orders describe
    the layout, ambiguity_check=True raises, and a list of memory formats picks the order
    of the one the tensor is in (raising when it is in none)."""
    from . import _layout
    order = tuple(sorted(range(self.dim()), key=lambda d: -self.stride(d)))
    if not isinstance(ambiguity_check, (bool, list, tuple)):
        raise TypeError("dim_order(): ambiguity_check must be a bool or a list of memory formats")
    ambiguous = any(s == 1 for s in self.shape) or len(set(self.stride())) < self.dim()
    if ambiguity_check is False or not ambiguous:
        return order
    if ambiguity_check is not True:
        layouts = {_layout.contiguous_format: tuple(range(self.dim())),
                   _layout.channels_last: (0, 2, 3, 1), _layout.channels_last_3d: (0, 2, 3, 4, 1)}
        for fmt in ambiguity_check:
            if fmt not in layouts:
                raise TypeError(f"dim_order(): {fmt!r} is not a memory format")
            if len(layouts[fmt]) == self.dim() and self.is_contiguous(memory_format=fmt):
                return layouts[fmt]
    raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of "
                       "the given memory formats.")


def _is_set_to(self, tensor):
    """Whether both tensors view the same memory with the same geometry."""
    _require_tensor(tensor, "is_set_to", "tensor")
    return (self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
            and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride())


def _storage_type(self):
    """The legacy storage class of this tensor's dtype (FloatStorage for float32)."""
    from . import _storage
    for cls in _storage._LEGACY_CLASSES.values():
        if cls.dtype == self.dtype:
            return cls
    raise RuntimeError(f"storage_type: no storage class for {self.dtype}")


def install():
    Tensor.new = _new
    Tensor.as_subclass = _as_subclass
    Tensor.const_data_ptr = _const_data_ptr
    Tensor.new_empty_strided = _new_empty_strided
    Tensor.resize = _resize
    Tensor.resize_as = _resize_as
    Tensor.nonzero_static = nonzero_static
    Tensor.as_strided_scatter = as_strided_scatter
    Tensor.to_dense = _to_dense
    Tensor.dim_order = _dim_order
    Tensor.is_set_to = _is_set_to
    Tensor.storage_type = _storage_type
