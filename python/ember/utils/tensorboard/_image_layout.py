"""Turn user image input into the (H, W, C) uint8 array that gets PNG-encoded.

Conventions follow PyTorch's SummaryWriter so the same call shows the same picture:
- `dataformats` names the axes ("CHW", "HWC", "HW", "NCHW", "NHWC", ...);
- one channel is repeated to RGB; 3 channels are RGB, 4 are RGBA; a single image may
  also have 2 (grayscale + alpha), a batch may not;
- a batch (N axis) is tiled into a grid at most 8 images wide, row by row, no padding;
- uint8 input is used as is; any other dtype is taken to lie in [0, 1] and is
  multiplied by 255 (in float32), clipped to [0, 255] and truncated to uint8.
"""
import math

import numpy as np

_GRID_COLUMNS = 8


def _axes_order(dataformats, wanted, ndim, op_name):
    dataformats = str(dataformats).upper()
    if len(set(dataformats)) != len(dataformats) or not set(dataformats) <= set("NCHW"):
        raise ValueError(f"SummaryWriter.{op_name}: invalid dataformats {dataformats!r}; "
                         "use distinct letters among N, C, H, W")
    if len(dataformats) != ndim:
        raise ValueError(f"SummaryWriter.{op_name}: dataformats {dataformats!r} has "
                         f"{len(dataformats)} axes but the image has {ndim} dimensions")
    missing = [axis for axis in wanted if axis not in dataformats]
    if missing:
        raise ValueError(f"SummaryWriter.{op_name}: dataformats {dataformats!r} lacks axis "
                         f"{missing[0]!r}; a {ndim}-d image needs {wanted}")
    return [dataformats.index(axis) for axis in wanted]


def _check_channels(channels, allowed, op_name):
    if channels not in allowed:
        raise ValueError(f"SummaryWriter.{op_name}: images need {' or '.join(map(str, allowed))} "
                         f"channels, got {channels}")


def _tile(batch_nchw):
    count, channels, height, width = batch_nchw.shape
    columns = min(count, _GRID_COLUMNS)
    rows = math.ceil(count / columns)
    canvas = np.zeros((channels, height * rows, width * columns), dtype=batch_nchw.dtype)
    for index in range(count):
        row, column = divmod(index, columns)
        canvas[:, row * height:(row + 1) * height, column * width:(column + 1) * width] = batch_nchw[index]
    return canvas


def to_hwc(array, dataformats, op_name):
    """Reorder a 2-, 3- or 4-d image array to (H, W, C) with C in {2, 3, 4}."""
    if array.ndim == 4:
        nchw = np.transpose(array, _axes_order(dataformats, "NCHW", 4, op_name))
        if nchw.shape[0] == 0:
            raise ValueError(f"SummaryWriter.{op_name}: the image batch is empty")
        _check_channels(nchw.shape[1], (1, 3, 4), op_name)
        if nchw.shape[1] == 1:
            nchw = np.repeat(nchw, 3, axis=1)
        return np.transpose(_tile(nchw), (1, 2, 0))
    if array.ndim == 3:
        hwc = np.transpose(array, _axes_order(dataformats, "HWC", 3, op_name))
        _check_channels(hwc.shape[2], (1, 2, 3, 4), op_name)
        return np.repeat(hwc, 3, axis=2) if hwc.shape[2] == 1 else hwc
    if array.ndim == 2:
        hw = np.transpose(array, _axes_order(dataformats, "HW", 2, op_name))
        return np.repeat(hw[:, :, None], 3, axis=2)
    raise ValueError(f"SummaryWriter.{op_name}: expected a 2-, 3- or 4-d image, got shape {array.shape}")


def to_uint8(hwc):
    if hwc.dtype == np.uint8:
        return np.ascontiguousarray(hwc)
    if hwc.dtype.kind not in "biuf":
        raise TypeError(f"SummaryWriter: image pixels must be real numbers, got dtype {hwc.dtype}")
    scaled = hwc.astype(np.float32) * np.float32(255)
    return np.clip(scaled, 0, 255).astype(np.uint8)


def image_pixels(array, dataformats, op_name):
    hwc = to_uint8(to_hwc(np.asarray(array), dataformats, op_name))
    if hwc.shape[0] == 0 or hwc.shape[1] == 0:
        raise ValueError(f"SummaryWriter.{op_name}: the image is empty (shape {hwc.shape})")
    return hwc


def figure_pixels_chw(figure):
    """RGB pixels (3, H, W) of a matplotlib figure, rendered with the Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    return np.ascontiguousarray(np.moveaxis(rgba[:, :, :3], 2, 0))
