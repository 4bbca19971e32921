"""ember.nn.utils: gradient clipping, parameter/vector conversion, the legacy weight_norm and
spectral_norm hooks, conv/linear + BatchNorm fusion, skip_init, and the submodules
rnn (padded / packed sequences), parametrize (register_parametrization and friends),
parametrizations (weight_norm, spectral_norm, orthogonal) and stateless (functional_call)."""
from . import parametrizations, parametrize, rnn, stateless
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "clip_grads_with_norm_", "get_total_norm", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init"]

# The submodules are attributes (ember.nn.utils.parametrize, ...), as in torch, but not in
# __all__ (which lists the functions, as torch's).
_SUBMODULES = (parametrizations, parametrize, rnn, stateless)
