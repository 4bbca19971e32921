"""ember.nn.utils.prune: torch.nn.utils.prune's pruning of parameters by masks.

Pruning `name` of a module reparametrizes it, exactly as torch does: the parameter moves
to `name + "_orig"`, a buffer `name + "_mask"` (1 = keep, 0 = pruned) is registered, the
attribute `name` becomes the plain tensor `name_orig * name_mask`, and the pruning method
itself is registered as a forward pre-hook that recomputes that product before every
forward (so gradients reach name_orig through the mask). Pruning the same parameter again
combines the methods in a PruningContainer, the new method acting only on what is left;
remove() makes the pruning permanent (name is a Parameter again, holding the product).
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import ember

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


def _orig_name(name):
    return f"{name}_orig"


def _mask_name(name):
    return f"{name}_mask"


def _pruning_hooks_of(module, name):
    """[(hook id, pruning method)] for the pruning pre-hooks of module acting on `name`."""
    return [(hook_id, hook) for hook_id, hook in module._forward_pre_hooks.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]


def _check_scores_shape(scores, reference, what):
    if scores is not None and scores.shape != reference.shape:
        raise AssertionError(f"importance_scores should have the same shape as {what}, "
                             f"got {scores.shape} vs {reference.shape}")


class BasePruningMethod(ABC):
    """Abstract base class of the pruning methods: subclasses define PRUNING_TYPE
    ("unstructured", "structured" or "global") and compute_mask(t, default_mask)."""

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: refresh `name` from name_orig and name_mask."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask to apply to `t` (of t's shape), given the mask already in place."""

    def apply_mask(self, module):
        """name_orig * name_mask (the pruned tensor)."""
        name = self._tensor_name
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        original = getattr(module, _orig_name(name))
        keep = getattr(module, _mask_name(name))
        return original * keep.to(dtype=original.dtype)

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune module.name with this method (built from args/kwargs), combining it with any
        pruning already applied to it. importance_scores (t's shape) rank the entries instead
        of the parameter's own values.

        Everything that can fail (the checks, computing the mask) runs before the module
        is touched, so a failed call leaves the module as it was."""
        earlier = _pruning_hooks_of(module, name)
        if len(earlier) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                                 f"{module}. Use a PruningContainer.")
        current = getattr(module, name)
        _check_scores_shape(importance_scores, current, f"parameter {name} of {module}")
        scores = current if importance_scores is None else importance_scores

        fresh = cls(*args, **kwargs)
        fresh._tensor_name = name
        if earlier:
            previous = earlier[0][1]
            # Already pruned: the new method joins a container and only sees what is left.
            if isinstance(previous, PruningContainer):
                combined, grew_existing = previous, True
            else:
                combined, grew_existing = PruningContainer(previous), False
            combined.add_pruning_method(fresh)
            start_mask = getattr(module, _mask_name(name)).detach().clone(memory_format=ember.contiguous_format)
        else:
            combined, grew_existing = fresh, False
            start_mask = ember.ones_like(current)

        try:
            new_mask = combined.compute_mask(scores, default_mask=start_mask)
        except Exception:
            if grew_existing:
                combined._pruning_methods = combined._pruning_methods[:-1]  # undo the append
            raise

        moved_parameter = not earlier
        if moved_parameter:
            # First pruning of `name`: the parameter lives on as name_orig.
            module.register_parameter(_orig_name(name), current)
            del module._parameters[name]
        try:
            module.register_buffer(_mask_name(name), new_mask)
            setattr(module, name, combined.apply_mask(module))
        except Exception:
            if moved_parameter:
                parameter = module._parameters.pop(_orig_name(name))
                module.register_parameter(name, parameter)
            raise
        for hook_id, _ in earlier:
            del module._forward_pre_hooks[hook_id]
        module.register_forward_pre_hook(combined)
        return combined

    def prune(self, t, default_mask=None, importance_scores=None):
        """t with this method's mask applied (t is not changed)."""
        _check_scores_shape(importance_scores, t, "tensor t")
        ranking = t if importance_scores is None else importance_scores
        start_mask = ember.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(ranking, default_mask=start_mask)

    def remove(self, module):
        """Make the pruning permanent: name becomes a Parameter holding name_orig * name_mask,
        and name_orig and name_mask are removed. The pre-hook itself is removed by remove()."""
        name = self._tensor_name
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned_values = self.apply_mask(module)
        # The plain tensor attribute goes, the original Parameter object takes its place,
        # now holding the pruned values (so optimizers keeping it still see the same object).
        if hasattr(module, name):
            delattr(module, name)
        parameter = module._parameters.pop(_orig_name(name))
        module._buffers.pop(_mask_name(name))
        parameter.data = pruned_values.data
        setattr(module, name, parameter)


def _entries_left_by(method, t, mask):
    """The index into t (and mask) selecting what `method` may still prune, by its type:
    the unpruned entries (unstructured), the channels along method.dim that still hold an
    unpruned entry (structured), or everything (global)."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    everything = [slice(None)] * t.dim()
    if kind == "global":
        return tuple(everything)
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                             "`dim` defined.")
    rank = t.dim()
    axis = method.dim + rank if method.dim < 0 else method.dim
    if axis < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {rank}")
    other_axes = [d for d in range(rank) if d != axis]
    everything[axis] = mask.sum(dim=other_axes) != 0
    return tuple(everything)


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods on one parameter, applied in turn; each acts only on
    the entries (unstructured) or channels (structured) the previous ones left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) != 1:
            for each in args:
                self.add_pruning_method(each)
            return
        # A single method: the container adopts the parameter it prunes.
        only = args[0]
        self._tensor_name = only._tensor_name
        self.add_pruning_method(only)

    def add_pruning_method(self, method):
        """Append `method` (it must prune the same parameter)."""
        if method is not None:
            if not isinstance(method, BasePruningMethod):
                raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
            if self._tensor_name != method._tensor_name:
                raise ValueError("Can only add pruning methods acting on the parameter named "
                                 f"'{self._tensor_name}' to PruningContainer {self}."
                                 f" Found '{method._tensor_name}'")
        self._pruning_methods = (*self._pruning_methods, method)

    # Sequence access to the methods, oldest first.
    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def __iter__(self):
        yield from self._pruning_methods

    def __len__(self):
        return len(self._pruning_methods)

    def compute_mask(self, t, default_mask):
        """The newest method's mask computed on what default_mask keeps, merged into it."""
        newest = self._pruning_methods[-1]
        merged = default_mask.to(dtype=t.dtype)
        region = _entries_left_by(newest, t, default_mask)
        sub_mask = newest.compute_mask(t[region], default_mask=default_mask[region])
        merged[region] = sub_mask.to(dtype=merged.dtype)
        return merged


def _zero_flat_positions(default_mask, positions):
    """A contiguous copy of default_mask with the given flat positions set to 0."""
    result = default_mask.clone(memory_format=ember.contiguous_format)
    if positions is not None:
        result.view(-1)[positions] = 0
    return result


def _keep_channels(t, dim, selector, default_mask):
    """A mask of t's shape that is 1 on the channels `selector` picks along dim (and 0
    elsewhere), intersected with default_mask."""
    result = ember.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = selector
    result[tuple(index)] = 1
    result *= default_mask.to(dtype=result.dtype)
    return result


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (the reparametrization without pruning)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries (a count, or a fraction in [0, 1]) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount_argument(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        how_many = _count_to_prune(self.amount, t.nelement())
        chosen = None
        if how_many:
            # The entries with the `how_many` largest random draws go.
            chosen = ember.topk(ember.rand_like(t).view(-1), k=how_many).indices
        return _zero_flat_positions(default_mask, chosen)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount_argument(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        how_many = _count_to_prune(self.amount, t.nelement())
        chosen = None
        if how_many:
            magnitudes = ember.abs(t).reshape(-1)
            chosen = ember.topk(magnitudes, k=how_many, largest=False).indices
        return _zero_flat_positions(default_mask, chosen)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount_argument(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        channels = _channel_count(t, self.dim)
        how_many = _count_to_prune(self.amount, channels)
        if how_many == 0:
            return default_mask
        draws = ember.rand(channels)
        # The how_many channels with the smallest draws are dropped.
        cutoff = ember.kthvalue(draws, k=how_many).values
        return _keep_channels(t, self.dim, draws > cutoff, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm (n: an int, inf,
    -inf, "fro" or "nuc")."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount_argument(amount)
        self.n = n  # the norm's order
        self.dim = dim
        self.amount = amount

    def compute_mask(self, t, default_mask):
        channels = _channel_count(t, self.dim)
        how_many = _count_to_prune(self.amount, channels)
        # The norms are computed even when nothing is pruned, so a bad `n` is reported.
        strongest = ember.topk(_channel_norms(t, self.n, self.dim), k=channels - how_many, largest=True)
        if how_many == 0:
            return default_mask
        return _keep_channels(t, self.dim, strongest.indices, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (of the parameter's shape)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        given = self.mask
        if given.shape != default_mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{given.shape}")
        return default_mask * given.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Reparametrize module.name without pruning anything; returns module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune `amount` random entries of module.name; returns module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the `amount` entries of module.name with the smallest |value|; returns module."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune `amount` random channels of module.name along dim; returns module."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the `amount` channels of module.name along dim with the smallest Ln norm; returns module."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) pairs in `parameters` together, as one vector: e.g. the
    `amount` smallest entries across all of them with pruning_method=L1Unstructured."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    elif not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    targets = list(parameters)  # walked several times below
    from .convert_parameters import parameters_to_vector

    scores, masks = [], []
    for module, name in targets:
        value = getattr(module, name)
        scores.append(importance_scores.get((module, name), value))
        # A parameter not pruned yet has no mask: all of it is still in play.
        masks.append(getattr(module, _mask_name(name), ember.ones_like(value)))
    all_scores = parameters_to_vector(scores)
    all_masks = parameters_to_vector(masks)

    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    # A container, so the method only ranks the entries every earlier pruning left.
    wrapper = PruningContainer()
    wrapper._tensor_name = "temp"
    wrapper.add_pruning_method(method)
    joint_mask = wrapper.compute_mask(all_scores, all_masks)

    offset = 0
    for module, name in targets:
        value = getattr(module, name)
        size = value.numel()
        custom_from_mask(module, name, mask=joint_mask[offset:offset + size].view_as(value))
        offset += size


def custom_from_mask(module, name, mask):
    """Prune module.name with `mask`; returns module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of module.name permanent and drop its reparametrization; returns module."""
    found = _pruning_hooks_of(module, name)
    if not found:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")
    hook_id, method = found[0]
    method.remove(module)
    del module._forward_pre_hooks[hook_id]
    return module


def is_pruned(module):
    """Whether module or any submodule has a pruning pre-hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, submodule in module.named_modules()
               for hook in submodule._forward_pre_hooks.values())


def _check_amount_argument(amount):
    """amount: a non-negative int (a count) or a float in [0, 1] (a fraction)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        valid = amount >= 0
    else:
        valid = 0.0 <= float(amount) <= 1.0
    if not valid:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, available):
    """How many of `available` entries/channels `amount` means; a count above it is an error."""
    if not isinstance(amount, numbers.Integral):
        return round(amount * available)
    if amount > available:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={available}")
    return amount


def _channel_count(t, dim):
    """The number of channels along dim, after checking t can be pruned structurally."""
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return t.shape[dim]


def _channel_norms(t, n, dim):
    """The Ln norm of each channel along dim (over all the other dims)."""
    axes = list(range(t.dim()))
    del axes[dim]
    two_axes = len(axes) == 2
    if n == "nuc" or (n == "fro" and two_axes):
        return ember.linalg.matrix_norm(t, ord=n, dim=axes if two_axes else (-2, -1))
    return ember.linalg.vector_norm(t, ord=2 if n == "fro" else n, dim=axes)
