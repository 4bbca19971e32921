"""F.affine_grid / F.grid_sample and torch.affine_grid_generator / torch.grid_sampler
(grid_sampler_2d, grid_sampler_3d), as composites of ember ops (2-d and 3-d).

affine_grid is torch's base grid of normalized coordinates times theta (one matmul).
grid_sample turns each grid point into the taps of its interpolation (2 per spatial
dimension for bilinear / trilinear, 1 for nearest, 4 for bicubic), with one index into the
flattened input plane and one weight per tap, then gathers every tap for every channel at
once and sums the weighted taps. 'bicubic' is 4 taps per dimension in 3-d too (tricubic),
as PyTorch's CPU kernel does. The gradient of the input is the gather's (a
scatter-add); that of the grid flows through the tap weights, whose coordinate arithmetic
(unnormalizing, border clipping, reflection) follows PyTorch's
grid_sampler_compute_source_index, including its convention that the clip has zero
gradient on the borders. Out-of-range taps (padding_mode 'zeros') get weight 0.
"""
import warnings

from .. import _C

__all__ = ["affine_grid", "grid_sample"]  # the others are torch-level only

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_TYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "int64": "Long",
}
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _type_name(dtype):
    name = str(dtype).split(".")[-1]
    return _TYPE_NAMES.get(name, name)


def _sizes(t):
    return list(t.shape)


# ---------------------------------------------------------------------------------------
# affine_grid


def _linspace_from_neg_one(theta, steps, align_corners):
    if steps <= 1:
        return _C.zeros(1, dtype=theta.dtype, device=theta.device)
    values = _C.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    if not align_corners:
        values = values * (steps - 1) / steps
    return values


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: the (N, H, W, 2) or (N, D, H, W, 3) sampling grid of the
    affine maps theta (N, 2, 3) / (N, 3, 4) for an output of size (N, C, H, W) /
    (N, C, D, H, W)."""
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    spatial = size[2:]
    nd = len(spatial)
    if theta.dim() != 3 or theta.shape[0] != size[0] or theta.shape[2] != nd + 1:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {nd + 1}] but got: "
                           f"[{theta.shape[0] if theta.dim() else 0}, "
                           f"{theta.shape[2] if theta.dim() == 3 else 0}].")
    axes = [_linspace_from_neg_one(theta, s, align_corners) for s in spatial]
    columns = []
    for k in range(nd):  # x (last dimension) first, then y, then z
        axis = nd - 1 - k
        shape = [1] * nd
        shape[axis] = axes[axis].shape[0]
        columns.append(axes[axis].reshape(shape).expand(*spatial))
    columns.append(_C.ones(spatial, dtype=theta.dtype, device=theta.device))
    points = 1
    for s in spatial:
        points *= s
    base = _C.stack(columns, -1).reshape(1, points, nd + 1)
    grid = base.matmul(theta.transpose(1, 2))
    return grid.reshape(size[0], *spatial, nd)


def affine_grid(theta, size, align_corners=None):
    """torch.nn.functional.affine_grid: the sampling grid (N, H, W, 2) or (N, D, H, W, 3) of
    a batch of affine matrices theta (N, 2, 3) or (N, 3, 4), for grid_sample."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)


# ---------------------------------------------------------------------------------------
# grid_sample: coordinate helpers (PyTorch's GridSampler.h)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord, size):
    """clip_coordinates: to [0, size - 1], gradient 0 outside and on the borders."""
    high = size - 1
    inside = (coord > 0) & (coord < high)
    return _C.where(inside, coord, _C.where(coord <= 0, 0.0, float(high)).to(coord.dtype))


def _reflect(coord, twice_low, twice_high):
    """reflect_coordinates: folds coord into [low, high] (bounds given doubled)."""
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = coord - low
    x = _C.where(x < 0, -x, x)
    extra = _C.fmod(x, span)
    flips = (x.detach() / span).floor()
    odd = _C.fmod(flips, 2) == 1
    return _C.where(odd, span - extra + low, extra + low)


def _compute_coordinates(coord, size, padding_mode, align_corners):
    if padding_mode == 1:
        return _clip(coord, size)
    if padding_mode == 2:
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _cubic_coefficients(t):
    """PyTorch's get_cubic_upsample_coefficients (A = -0.75) for the taps at -1, 0, 1, 2."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _taps(coord, size, mode, padding_mode, align_corners):
    """For one spatial dimension: the (index, weight, in-range) of every tap, each (N, k, P)."""
    if mode == 1:  # nearest
        c = _compute_coordinates(_unnormalize(coord, size, align_corners), size, padding_mode,
                                 align_corners)
        r = c.round()  # half to even, as torch's nearbyint; its gradient is zero
        rd = r.detach()
        index = rd.long().unsqueeze(1)
        # weight 1 that still depends on the grid (torch's grid gradient is zeros, not None)
        weight = (_C.where(_C.isfinite(rd), r - rd, 0.0) + 1).unsqueeze(1)
    elif mode == 0:  # bilinear
        c = _compute_coordinates(_unnormalize(coord, size, align_corners), size, padding_mode,
                                 align_corners)
        low = c.detach().floor()
        index = _C.stack([low, low + 1], 1).long()
        weight = _C.stack([(low + 1) - c, c - low], 1)
    else:  # bicubic
        c = _unnormalize(coord, size, align_corners)
        low = c.detach().floor()
        weight = _C.stack(_cubic_coefficients(c - low), 1)
        positions = _C.stack([low - 1, low, low + 1, low + 2], 1)
        positions = _compute_coordinates(positions, size, padding_mode, align_corners)
        index = positions.trunc().long()
    valid = (index >= 0) & (index < size)
    return index, weight, valid


def _sample(input, grid, mode, padding_mode, align_corners):
    batch, channels = input.shape[0], input.shape[1]
    in_sizes = list(input.shape[2:])
    nd = len(in_sizes)
    out_sizes = list(grid.shape[1:-1])
    points = 1
    for s in out_sizes:
        points *= s
    plane = 1
    for s in in_sizes:
        plane *= s
    g = grid.reshape(batch, points, nd)
    flat_index, total_weight, total_valid = None, None, None
    stride = 1
    per_dim = []
    for k in reversed(range(nd)):  # W (grid component 0), then H, then D
        per_dim.append((k, stride) + _taps(g[:, :, nd - 1 - k], in_sizes[k], mode,
                                           padding_mode, align_corners))
        stride *= in_sizes[k]
    per_dim.reverse()  # D, H, W: the taps vary fastest along W
    # layout (N, taps_D, taps_H, taps_W, P): the weighted sum then reduces a middle axis
    taps = 1
    full = [batch]
    for position, (k, stride, index, weight, valid) in enumerate(per_dim):
        shape = [batch] + [1] * nd + [points]
        shape[1 + position] = index.shape[1]
        index, valid, weight = index.reshape(shape), valid.reshape(shape), weight.reshape(shape)
        flat_index = index * stride if flat_index is None else flat_index + index * stride
        total_valid = valid if total_valid is None else total_valid & valid
        total_weight = weight if total_weight is None else total_weight * weight
        taps *= index.shape[1 + position]
        full.append(index.shape[1 + position])
    full.append(points)
    flat_index = _C.where(total_valid, flat_index, 0).expand(*full).reshape(batch, taps * points)
    weight = _C.where(total_valid, total_weight, 0.0).expand(*full).reshape(batch, 1, taps,
                                                                              points)
    values = input.reshape(batch, channels, plane).gather(
        2, flat_index.unsqueeze(1).expand(batch, channels, taps * points))
    out = values.reshape(batch, channels, taps, points) * weight
    out = out.sum(2) if taps > 1 else out.squeeze(2)
    return out.reshape(batch, channels, *out_sizes)


def _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, rank=None):
    """torch's checks (check_grid_sampler_common, then the 2-d or 3-d one), then _sample."""
    if input.dim() < 1 or grid.dim() < 1 or input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got input with sizes {_sizes(input)} and grid with sizes "
                           f"{_sizes(grid)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {_sizes(grid)}")
    for i in range(2, input.dim()):
        if input.shape[i] <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {_sizes(input)} with "
                               f"dimension {i} being empty")
    if rank is None:
        rank = 2 if input.dim() == 4 else 3
    if input.dim() != rank + 2 or grid.dim() != rank + 2:
        raise RuntimeError(f"grid_sampler(): expected {rank + 2}D input and grid with same "
                           f"number of dimensions, but got input with sizes {_sizes(input)} "
                           f"and grid with sizes {_sizes(grid)}")
    kernel = "grid_sampler_2d_cpu_kernel_impl" if rank == 2 else "grid_sampler_3d_cpu"
    if interpolation_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): unknown interpolation mode {interpolation_mode}")
    if padding_mode not in (0, 1, 2):
        raise RuntimeError(f"grid_sampler(): unknown padding mode {padding_mode}")
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_type_name(input.dtype)}'")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(input.dtype)} but found "
                           f"{_type_name(grid.dtype)}")
    return _sample(input, grid, interpolation_mode, padding_mode, bool(align_corners))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: grid_sample with torch's integer codes (interpolation 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler_2d: grid_sampler for 4-D input and grid only."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 2)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler_3d: grid_sampler for 5-D input and grid only."""
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners, 3)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """torch.nn.functional.grid_sample: input (N, C, H, W) or (N, C, D, H, W) sampled at the
    normalized locations of grid (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3), whose
    last dimension is (x, y[, z]). mode 'bilinear' (trilinear in 3-d), 'nearest' or
    'bicubic' (tricubic in 3-d); padding_mode 'zeros', 'border' or 'reflection'."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)

