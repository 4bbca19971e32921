"""spectral_norm / remove_spectral_norm: the hook-based torch.nn.utils.spectral_norm.

weight = weight_orig / sigma, sigma = u^T W v estimated by power iteration. The
parameter `name` is replaced by `name_orig`, with buffers `name_u` and `name_v`, and
a forward pre-hook (a SpectralNorm object, as torch, so it can be found again)
recomputes `name` before each forward, doing n_power_iterations steps on u and v (in
place) when the module is training. A state_dict post-hook records the format version
in the state_dict's metadata; a load pre-hook converts a version-0 state_dict (which
held `name` and `name_orig` but no `name_v`).
"""
from ... import _C
from ...autograd import no_grad
from .. import functional as F
from ..parameter import Parameter
from .parametrizations import _solve, _transposed_conv_types

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    _version = 1  # version 1: name_v is a buffer; version 0 stored name instead

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(_C.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_C.mv(weight_mat, v), dim=0, eps=self.eps))
                # Clones, so that a graph from an earlier forward keeps the values it used.
                u = u.clone()
                v = v.clone()
        sigma = _C.dot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # v = pinv(W^T W) W^T u = pinv(W) u (rescaled so that u^T W v = target_sigma), with
        # pinv(W) from the smaller Gram matrix: exact for a W of full rank.
        h, w = weight_mat.shape
        if h <= w:
            v = weight_mat.t().matmul(_solve(weight_mat.matmul(weight_mat.t()), u.unsqueeze(1)))
        else:
            v = _solve(weight_mat.t().matmul(weight_mat), weight_mat.t().matmul(u.unsqueeze(1)))
        v = v.squeeze(1)
        return v * (target_sigma / _C.dot(u, _C.mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # A plain attribute (not a parameter) until the first forward recomputes it.
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module.register_state_dict_post_hook(SpectralNormStateDictHook(fn))
        module.register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 state_dict (name, name_orig, name_u) to version 1 (name_v)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                and weight_key not in state_dict):
            # Saved without metadata (not by state_dict()), already in the current format.
            return
        has_missing_keys = False
        for suffix in ("_orig", "", "_u"):
            key = weight_key + suffix
            if key not in state_dict:
                has_missing_keys = True
                if strict:
                    missing_keys.append(key)
        if has_missing_keys:
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records the spectral_norm format version in the state_dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparameterizes module.<name> as <name>_orig / sigma(<name>_orig), sigma the
    largest singular value estimated by power iteration (buffers <name>_u, <name>_v)
    before each forward. dim: the output dim (default 0; 1 for ConvTranspose).
    Returns module."""
    if dim is None:
        dim = 1 if isinstance(module, _transposed_conv_types()) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def _hook_key(hooks, kind, name, owner=lambda hook: hook):
    """The key of the first hook in hooks (a dict) of type kind whose (owner's) name is name."""
    return next((key for key, hook in hooks.items()
                 if isinstance(hook, kind) and owner(hook).name == name), None)


def remove_spectral_norm(module, name="weight"):
    """Turns the spectrally normalized <name> back into one plain Parameter."""
    key = _hook_key(module._forward_pre_hooks, SpectralNorm, name)
    if key is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    module._forward_pre_hooks[key].remove(module)
    del module._forward_pre_hooks[key]
    # The state-dict hooks that spectral_norm added for this name go with it.
    for hooks, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        key = _hook_key(hooks, kind, name, owner=lambda hook: hook.fn)
        if key is not None:
            del hooks[key]
    return module
