"""F.max_unpool1d / 2d / 3d: the partial inverses of the max pools, as a scatter.

Each value goes to its flat index in a zero output plane (the gradient of the input is the
output gradient gathered at the same indices, torch's backward). The output size rule and
the checks with their messages are PyTorch's; max_unpool1d runs as the 2-d op over a unit
width, as torch does (so its messages name max_unpooling2d).
"""
from .. import _C

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]

_SCALAR_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "int64": "Long", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


def _tuple(value, n):
    if isinstance(value, int):
        return (value,) * n
    return tuple(value)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch.nn.functional._unpool_output_size."""
    input_size = input.shape
    default_size = []
    for d in range(len(kernel_size)):
        default_size.append((input_size[-len(kernel_size) + d] - 1) * stride[d]
                            + kernel_size[d] - 2 * padding[d])
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError("output_size should be a sequence containing "
                             f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has "
                             f"a length of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                                 f"{min_size} and {max_size})")
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={ret[d]}")
    return list(ret)


def _max_unpool(input, indices, output_size, n):
    """The scatter of values to indices over n spatial dims (torch's max_unpooling{n}d)."""
    name = f"max_unpooling{n}d"
    if indices.dtype != _C.int64:
        dtype = str(indices.dtype).split(".")[-1]
        raise RuntimeError("elements in indices should be type int64 but got: "
                           f"{_SCALAR_NAMES.get(dtype, dtype)}")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Input to {name} should be a {n + 1}d or {n + 2}d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for i in range(1 if input.dim() == n + 2 else 0, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"{name}_forward_out_cpu(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {i} being empty")
    unbatched = input.dim() == n + 1
    if unbatched:
        input, indices = input.unsqueeze(0), indices.unsqueeze(0)
    batch, channels = input.shape[0], input.shape[1]
    plane = 1
    for s in output_size:
        plane *= s
    count = 1
    for s in input.shape[2:]:
        count *= s
    flat = indices.reshape(batch, channels, count)
    if flat.numel():
        bad = (flat < 0) | (flat >= plane)
        if bool(bad.any()):
            first = int(flat.reshape(-1)[bad.reshape(-1).nonzero()[0, 0]])
            raise RuntimeError(f"Found an invalid max index: {first} (output volumes are of size "
                               + "x".join(str(s) for s in output_size) + ")")
    out = _C.zeros(batch, channels, plane, dtype=input.dtype, device=input.device)
    out = out.scatter(2, flat, input.reshape(batch, channels, count))
    out = out.reshape(batch, channels, *output_size)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None)."""
    kernel_size = _tuple(kernel_size, 1)
    stride = kernel_size if stride is None else _tuple(stride, 1)
    padding = _tuple(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1], 2).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None)."""
    kernel_size = _tuple(kernel_size, 2)
    stride = kernel_size if stride is None else _tuple(stride, 2)
    padding = _tuple(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(input, indices, size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None)."""
    kernel_size = _tuple(kernel_size, 3)
    stride = kernel_size if stride is None else _tuple(stride, 3)
    padding = _tuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    return _max_unpool(input, indices, size, 3)
