"""Lazy modules: LazyModuleMixin and the layers whose in_features / in_channels /
num_features come from the first input (torch.nn's Lazy* classes).

Until the first forward a lazy module holds UninitializedParameter / UninitializedBuffer
entries. A forward pre-hook infers the shapes from the input, materializes them, runs the
layer's reset_parameters, removes its hooks and turns the module into its non-lazy class
(cls_to_become), exactly as torch; load_state_dict materializes from the shapes it loads.
"""
import itertools
import weakref
from collections import OrderedDict

from ... import _C
from ...autograd import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .conv_extra import Conv3d, ConvTranspose1d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from ._hooks import RemovableHandle
from .linear import Linear

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _PicklableHandle(RemovableHandle):
    """A RemovableHandle that pickles (and deep-copies) with its hooks table, as torch's:
    the copy of a lazy module then removes its hooks from its own tables."""

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        table, self.id = state
        # no table: a dead reference (remove() does nothing)
        self.hooks_dict_ref = weakref.ref(table if table is not None else OrderedDict())
        # ids made from now on must not collide with this restored one
        following = next(RemovableHandle._next_id)
        RemovableHandle._next_id = itertools.count(max(following, self.id + 1))


def _lazy_load_pre_hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
    # ember's load_state_dict pre-hooks get the module first; torch's bound-method form
    module._lazy_load_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                           unexpected_keys, error_msgs)


class LazyModuleMixin:
    """A mixin for modules that infer their parameters' shapes from the first input.

    Subclasses define initialize_parameters(*inputs) (materialize the uninitialized
    entries, then reset_parameters) and cls_to_become (the class the module turns into).
    Convert a lazy module's dtype / device before its first forward: that "dry run" only
    infers shapes."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(_lazy_load_pre_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)
        self._load_hook.__class__ = _PicklableHandle
        self._initialize_hook.__class__ = _PicklableHandle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Uninitialized entries are saved as they are (torch: they cannot be detached).
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        """Materializes each uninitialized entry that state_dict gives an initialized value
        for, with that value's shape (the load then copies the values)."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, assign=False):
        # An uninitialized entry given an uninitialized value stays as it is (torch copies
        # an empty tensor into it): keep it from the shape checks of Module's loader.
        held = {}
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if is_lazy(param) and key in state_dict and is_lazy(state_dict[key]):
                held[key] = state_dict.pop(key)
        try:
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                          missing_keys, unexpected_keys, error_msgs, assign)
        finally:
            state_dict.update(held)
            for key in held:
                while key in missing_keys:
                    missing_keys.remove(key)

    def _apply(self, fn, recurse=True):
        # Conversions (to / double / cuda) keep uninitialized buffers uninitialized, with the
        # new dtype and device (parameters keep their object: only their data changes).
        lazy = {name: buf for name, buf in self._buffers.items() if is_lazy(buf)}
        super()._apply(fn, recurse)
        for name, old in lazy.items():
            new = self._buffers[name]
            if new is not old and not is_lazy(new):
                self._buffers[name] = UninitializedBuffer(old.requires_grad, new.device,
                                                          new.dtype,
                                                          getattr(old, "persistent", True))
        return self

    def initialize_parameters(self, *args, **kwargs):
        """Infers the shapes from the inputs and materializes the uninitialized entries."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether some parameter or buffer of this module is still uninitialized."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialize from the first inputs, then become
        cls_to_become (the hooks removed)."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


def _factory(device, dtype):
    return {"device": device, "dtype": dtype}


# ---- Linear ------------------------------------------------------------------------------

class LazyLinear(LazyModuleMixin, Linear):
    """LazyLinear(out_features, bias=True, device=None, dtype=None): a Linear whose
    in_features is the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**_factory(device, dtype))
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**_factory(device, dtype))

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} "
                                     "is not equal to in_features from self.weight: "
                                     f"{self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# ---- convolutions ------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    _num_spatial_dims = 1

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                             *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                             *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        num_spatial_dims = self._get_num_spatial_dims()
        num_dims_no_batch = num_spatial_dims + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D "
                               f"(batched) input to {self.__class__.__name__}, but got input of "
                               f"size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._num_spatial_dims


def _lazy_conv_init(self, out_channels, bias, device, dtype):
    self.weight = UninitializedParameter(**_factory(device, dtype))
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(**_factory(device, dtype))


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, **_factory(device, dtype))
        _lazy_conv_init(self, out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, **_factory(device, dtype))
        _lazy_conv_init(self, out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """LazyConv1d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    bias=True, padding_mode='zeros', device=None, dtype=None): in_channels from the input."""

    cls_to_become = Conv1d
    _num_spatial_dims = 1


class LazyConv2d(_LazyConv, Conv2d):
    """LazyConv2d(out_channels, kernel_size, ...): a Conv2d with in_channels from the input."""

    cls_to_become = Conv2d
    _num_spatial_dims = 2


class LazyConv3d(_LazyConv, Conv3d):
    """LazyConv3d(out_channels, kernel_size, ...): a Conv3d with in_channels from the input."""

    cls_to_become = Conv3d
    _num_spatial_dims = 3


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """LazyConvTranspose1d(out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)."""

    cls_to_become = ConvTranspose1d
    _num_spatial_dims = 1


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """LazyConvTranspose2d(out_channels, kernel_size, ...): in_channels from the input."""

    cls_to_become = ConvTranspose2d
    _num_spatial_dims = 2


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """LazyConvTranspose3d(out_channels, kernel_size, ...): in_channels from the input."""

    cls_to_become = ConvTranspose3d
    _num_spatial_dims = 3


# ---- normalization -----------------------------------------------------------------------

class _LazyNormBase(LazyModuleMixin, _BatchNorm):
    """num_features from dim 1 of the first input (torch's rule, batched or not)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        kw = _factory(device, dtype)
        if self.affine:
            self.weight = UninitializedParameter(**kw)
            if bias:
                self.bias = UninitializedParameter(**kw)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**kw)
            self.running_var = UninitializedBuffer(**kw)
            self.num_batches_tracked = _C.tensor(
                0, dtype=_C.int64, **({"device": device} if device is not None else {}))

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """LazyBatchNorm1d(eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
    device=None, dtype=None, *, bias=True): a BatchNorm1d with num_features from the input."""

    cls_to_become = BatchNorm1d

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """LazyBatchNorm2d(...): a BatchNorm2d with num_features from the input."""

    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """LazyBatchNorm3d(...): a BatchNorm3d with num_features from the input."""

    cls_to_become = BatchNorm3d

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """LazyInstanceNorm1d(eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
    ...): an InstanceNorm1d with num_features from the input (torch's defaults: affine and
    tracking on)."""

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """LazyInstanceNorm2d(...): an InstanceNorm2d with num_features from the input."""

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """LazyInstanceNorm3d(...): an InstanceNorm3d with num_features from the input."""

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
