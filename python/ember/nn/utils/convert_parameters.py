"""parameters_to_vector and vector_to_parameters (torch.nn.utils)."""
from ... import _C
from ..._C import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param, old_device):
    if old_device is not None and param.device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return param.device


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor."""
    device = None
    vec = []
    for p in parameters:
        device = _check_same_device(p, device)
        vec.append(p.reshape(-1))
    return _C.cat(vec)


def vector_to_parameters(vec, parameters):
    """Points each parameter's data at its consecutive slice of the 1-D vec (as torch:
    afterwards the parameters share vec's memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for p in parameters:
        device = _check_same_device(p, device)
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p)
        pointer += n
