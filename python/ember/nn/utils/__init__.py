"""ember.nn.utils: gradient clipping, parameter/vector conversion, weight_norm, and
(in ember.nn.utils.rnn) padded / packed sequences."""
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "clip_grads_with_norm_", "get_total_norm", "weight_norm",
           "remove_weight_norm"]
