"""The few Tensor methods written in Python: printing and format(), apply_ and
map_ (they call Python functions per element), and the function that unpickles
tensors. Everything else about Tensor is in ember._C."""
from . import _C, _tensor_str
from ._C import Tensor


def _format(self, format_spec):
    # format(t, ".2f") formats the value of a 0-dim tensor, as in PyTorch.
    if self.dim() == 0:
        return self.detach().item().__format__(format_spec)
    return object.__format__(self, format_spec)


def _rebuild_tensor(data, dtype, shape, requires_grad=False):
    """Makes a tensor from what Tensor.__reduce_ex__ saved: its bytes (row-major),
    dtype name and shape. Every argument is checked; no other code runs."""
    return _C._tensor_from_bytes(data, dtype, shape, requires_grad)


_rebuild_tensor.__module__ = "ember"  # pickles refer to it as ember._rebuild_tensor

Tensor.__repr__ = _tensor_str._str
Tensor.__str__ = _tensor_str._str
Tensor.__format__ = _format


def _make_subclass(cls, data, require_grad=False):
    """torch.Tensor._make_subclass: an instance of cls (a Python subclass of Tensor)
    that is a detached alias of data, e.g. nn.Parameter(data)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"_make_subclass: cls must be a subclass of Tensor, got {cls!r}")
    obj = Tensor.__new__(cls)
    Tensor.__init__(obj, data, require_grad)
    return obj


Tensor._make_subclass = staticmethod(_make_subclass)


def _apply_(self, callable):  # noqa: A002  (torch's argument name)
    """Tensor.apply_(callable): replaces each element x by callable(x), in Python, on the
    CPU and outside autograd (as torch's)."""
    _check_python_map(self, "apply_")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _map_(self, tensor, callable):  # noqa: A002  (torch's argument name)
    """Tensor.map_(tensor, callable): replaces each x by callable(x, y), y the element of
    tensor (broadcast to self's shape) at the same place."""
    _check_python_map(self, "map_")
    other = tensor.expand_as(self).reshape(-1).tolist()
    values = [callable(x, y) for x, y in zip(self.reshape(-1).tolist(), other)]
    self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _check_python_map(self, name):
    if not self.is_cpu:
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. "
                           f"Use var.detach().{name}() instead.")


Tensor.apply_ = _apply_
Tensor.map_ = _map_


def _cumsum_(self, dim, *, dtype=None):
    """In-place cumsum along dim (torch's Tensor.cumsum_), in self's dtype."""
    self.copy_(self.cumsum(dim, dtype=dtype))
    return self


def _cumprod_(self, dim, *, dtype=None):
    """In-place cumprod along dim (torch's Tensor.cumprod_), in self's dtype."""
    self.copy_(self.cumprod(dim, dtype=dtype))
    return self


Tensor.cumsum_ = _cumsum_
Tensor.cumprod_ = _cumprod_


def msort(input):  # noqa: A002 (torch's name)
    """torch.msort: input sorted along its first dim (sort(input, dim=0).values)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"msort(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.sort(dim=0).values


Tensor.msort = msort
