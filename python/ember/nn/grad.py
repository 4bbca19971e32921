"""ember.nn.grad: the gradients of a convolution with respect to its input and to its
weight, as torch.nn.grad gives them (conv2d_input, conv2d_weight, ...).

A convolution is linear in its input and in its weight, so each is the vector-Jacobian
product of the convolution at a zero tensor of the given size: computed by ember's own
convolution backward, the one training uses."""
from . import functional as F


def _grad_of(conv, size, other, grad_output, wrt_input, stride, padding, dilation, groups, name):
    import ember
    from ..autograd import grad
    point = ember.zeros(tuple(size), dtype=grad_output.dtype, device=grad_output.device)
    point.requires_grad_(True)
    args = (point, other) if wrt_input else (other, point)
    with ember.enable_grad():
        out = conv(args[0], args[1], None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"{name}: grad_output has shape {tuple(grad_output.shape)}, but the "
                               f"convolution gives {tuple(out.shape)}")
        result, = grad(out, point, grad_output, create_graph=grad_output.requires_grad or
                       other.requires_grad)
    return result


def _pair(conv, ndim):
    def input_grad(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        input_size = list(input_size)
        if len(input_size) != ndim + 2:
            raise ValueError(f"conv{ndim}d_input: input_size must have {ndim + 2} entries, got "
                             f"{input_size}")
        return _grad_of(conv, input_size, weight, grad_output, True, stride, padding, dilation,
                        groups, f"conv{ndim}d_input")

    def weight_grad(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _grad_of(conv, weight_size, input, grad_output, False, stride, padding, dilation,
                        groups, f"conv{ndim}d_weight")

    input_grad.__name__, weight_grad.__name__ = f"conv{ndim}d_input", f"conv{ndim}d_weight"
    input_grad.__doc__ = f"The gradient of conv{ndim}d with respect to an input of input_size."
    weight_grad.__doc__ = f"The gradient of conv{ndim}d with respect to a weight of weight_size."
    return input_grad, weight_grad


conv1d_input, conv1d_weight = _pair(F.conv1d, 1)
conv2d_input, conv2d_weight = _pair(F.conv2d, 2)
conv3d_input, conv3d_weight = _pair(F.conv3d, 3)

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]
