"""Build serialized `Summary` messages (one Value each) for scalars, histograms,
images and text, plus the conversion of user input (ember tensors, numpy arrays,
Python numbers) to numpy.

Field numbers are those of TensorBoard's summary.proto, histogram.proto,
tensor.proto, tensor_shape.proto and types.proto.
"""
import numbers

import numpy as np

from . import _proto
from ._histogram_buckets import histogram_fields
from ._png import encode_png
from . import _pr_curve
from ._wav import encode_wav

# Summary / Summary.Value
_SUMMARY_VALUE = 1
_VALUE_TAG = 1
_VALUE_SIMPLE_VALUE = 2
_VALUE_IMAGE = 4
_VALUE_HISTO = 5
_VALUE_AUDIO = 6
_VALUE_TENSOR = 8
_VALUE_METADATA = 9
# Summary.Image
_IMAGE_HEIGHT, _IMAGE_WIDTH, _IMAGE_COLORSPACE, _IMAGE_ENCODED = 1, 2, 3, 4
# Summary.Audio
_AUDIO_SAMPLE_RATE, _AUDIO_NUM_CHANNELS, _AUDIO_LENGTH_FRAMES, _AUDIO_ENCODED, _AUDIO_CONTENT_TYPE = 1, 2, 3, 4, 5
# HistogramProto
_HISTO_MIN, _HISTO_MAX, _HISTO_NUM, _HISTO_SUM, _HISTO_SUM_SQUARES = 1, 2, 3, 4, 5
_HISTO_BUCKET_LIMIT, _HISTO_BUCKET = 6, 7
# SummaryMetadata / PluginData
_METADATA_PLUGIN_DATA = 1
_PLUGIN_NAME, _PLUGIN_CONTENT = 1, 2
# TensorProto / TensorShapeProto
_TENSOR_DTYPE, _TENSOR_SHAPE, _TENSOR_FLOAT_VAL, _TENSOR_DOUBLE_VAL, _TENSOR_STRING_VAL = 1, 2, 5, 6, 8
_SHAPE_DIM, _DIM_SIZE = 2, 1
# types.proto DataType
DT_FLOAT, DT_DOUBLE, DT_STRING = 1, 2, 7


def to_numpy(value, op_name):
    """A numpy array from an ember tensor, numpy array/scalar or Python number."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (np.generic, numbers.Number)) and not isinstance(value, str):
        return np.asarray(value)
    detach = getattr(value, "detach", None)
    if callable(detach) and hasattr(value, "numpy"):  # an ember tensor
        import ember

        tensor = value.detach().cpu()
        if tensor.dtype == ember.bfloat16:  # numpy has no bfloat16; float32 holds it exactly
            tensor = tensor.float()
        return tensor.numpy()
    if isinstance(value, (list, tuple)):
        return np.asarray(value)
    raise NotImplementedError(
        f"SummaryWriter.{op_name}: got {type(value).__name__}, but a tensor, numpy array "
        "or Python number is expected")


def _summary(value_fields):
    return summary_of_value(b"".join(value_fields))


def summary_of_value(encoded_value):
    """A Summary holding one already-encoded Summary.Value."""
    return _proto.bytes_field(_SUMMARY_VALUE, encoded_value)


def plugin_metadata_field(plugin_name, content=b""):
    """Summary.Value's metadata field naming the plugin that reads the value."""
    plugin_data = _proto.string_field(_PLUGIN_NAME, plugin_name)
    if content:
        plugin_data += _proto.bytes_field(_PLUGIN_CONTENT, content)
    return _proto.bytes_field(_VALUE_METADATA, _proto.bytes_field(_METADATA_PLUGIN_DATA, plugin_data))


def _shape(dims):
    return b"".join(_proto.bytes_field(_SHAPE_DIM, _proto.varint_field(_DIM_SIZE, d)) for d in dims)


def scalar_value_of(scalar_value, op_name="add_scalar"):
    array = to_numpy(scalar_value, op_name)
    if array.size != 1:
        raise ValueError(
            f"SummaryWriter.{op_name}: the scalar must hold exactly one element, got shape "
            f"{tuple(array.shape)}")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"SummaryWriter.{op_name}: the scalar must be a real number, got dtype {array.dtype}")
    return float(array.reshape(()))


def scalar_summary(tag, scalar_value, new_style=False, double_precision=False):
    value = scalar_value_of(scalar_value)
    fields = [_proto.string_field(_VALUE_TAG, tag)]
    if not new_style:
        fields.append(_proto.float_field(_VALUE_SIMPLE_VALUE, value))
        return _summary(fields)
    if double_precision:
        tensor = (_proto.varint_field(_TENSOR_DTYPE, DT_DOUBLE)
                  + _proto.packed_doubles_field(_TENSOR_DOUBLE_VAL, [value]))
    else:
        tensor = (_proto.varint_field(_TENSOR_DTYPE, DT_FLOAT)
                  + _proto.packed_floats_field(_TENSOR_FLOAT_VAL, [value]))
    fields.append(_proto.bytes_field(_VALUE_TENSOR, tensor))
    fields.append(plugin_metadata_field("scalars"))
    return _summary(fields)


def histogram_summary(tag, values, bins="tensorflow", max_bins=None):
    array = to_numpy(values, "add_histogram")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"SummaryWriter.add_histogram: values must be real numbers, got dtype {array.dtype}")
    lo, hi, num, total, total_sq, limits, counts = histogram_fields(array, bins, max_bins)
    histo = b"".join([
        _proto.double_field(_HISTO_MIN, lo), _proto.double_field(_HISTO_MAX, hi),
        _proto.double_field(_HISTO_NUM, num), _proto.double_field(_HISTO_SUM, total),
        _proto.double_field(_HISTO_SUM_SQUARES, total_sq),
        _proto.packed_doubles_field(_HISTO_BUCKET_LIMIT, limits),
        _proto.packed_doubles_field(_HISTO_BUCKET, counts),
    ])
    return _summary([_proto.string_field(_VALUE_TAG, tag), _proto.bytes_field(_VALUE_HISTO, histo)])


def encoded_image_summary(tag, png_bytes, height, width, channels):
    image = b"".join([
        _proto.varint_field(_IMAGE_HEIGHT, height), _proto.varint_field(_IMAGE_WIDTH, width),
        _proto.varint_field(_IMAGE_COLORSPACE, channels),
        _proto.bytes_field(_IMAGE_ENCODED, png_bytes),
    ])
    return _summary([_proto.string_field(_VALUE_TAG, tag), _proto.bytes_field(_VALUE_IMAGE, image)])


def image_summary(tag, hwc_uint8):
    """Summary of one (H, W, C) uint8 image: C = 2 (gray + alpha), 3 (RGB) or 4 (RGBA)."""
    height, width, channels = hwc_uint8.shape
    return encoded_image_summary(tag, encode_png(hwc_uint8), height, width, channels)


def text_summary(tag, text):
    if not isinstance(text, str):
        raise TypeError(f"SummaryWriter.add_text: text_string must be a str, got {type(text).__name__}")
    tensor = b"".join([
        _proto.varint_field(_TENSOR_DTYPE, DT_STRING),
        _proto.bytes_field(_TENSOR_SHAPE, _shape([1])),
        _proto.bytes_field(_TENSOR_STRING_VAL, text.encode("utf-8")),
    ])
    # The text plugin's content is TextPluginData(version=0), whose encoding is empty.
    return _summary([_proto.string_field(_VALUE_TAG, tag + "/text_summary"),
                     plugin_metadata_field("text"),
                     _proto.bytes_field(_VALUE_TENSOR, tensor)])


def audio_summary(tag, samples, sample_rate):
    """Summary of mono audio: any shape that squeezes to 1-d, values in [-1, 1]."""
    array = to_numpy(samples, "add_audio")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"SummaryWriter.add_audio: samples must be real numbers, got dtype {array.dtype}")
    squeezed = array.squeeze()
    if squeezed.ndim != 1:
        raise ValueError("SummaryWriter.add_audio: expected mono samples (a tensor that squeezes to "
                         f"1 dimension), got shape {tuple(array.shape)}")
    if not float(sample_rate) > 0:
        raise ValueError(f"SummaryWriter.add_audio: sample_rate must be positive, got {sample_rate}")
    audio = b"".join([
        _proto.float_field(_AUDIO_SAMPLE_RATE, sample_rate),
        _proto.varint_field(_AUDIO_NUM_CHANNELS, 1),
        _proto.varint_field(_AUDIO_LENGTH_FRAMES, squeezed.shape[0]),
        _proto.bytes_field(_AUDIO_ENCODED, encode_wav(squeezed, sample_rate)),
        _proto.string_field(_AUDIO_CONTENT_TYPE, "audio/wav"),
    ])
    return _summary([_proto.string_field(_VALUE_TAG, tag), _proto.bytes_field(_VALUE_AUDIO, audio)])


def pr_curve_summary(tag, labels, predictions, num_thresholds=127, weights=None):
    labels = to_numpy(labels, "add_pr_curve")
    predictions = to_numpy(predictions, "add_pr_curve")
    for name, array in (("labels", labels), ("predictions", predictions)):
        if array.dtype.kind not in "biuf":
            raise TypeError(f"SummaryWriter.add_pr_curve: {name} must be real numbers, got dtype {array.dtype}")
    if weights is not None:
        weights = to_numpy(weights, "add_pr_curve")
    if int(num_thresholds) < 1:
        raise ValueError(f"SummaryWriter.add_pr_curve: num_thresholds must be >= 1, got {num_thresholds}")
    num_thresholds = min(int(num_thresholds), _pr_curve.MAX_THRESHOLDS)
    table = _pr_curve.curve_table(labels, predictions, num_thresholds, weights)
    tensor = b"".join([
        _proto.varint_field(_TENSOR_DTYPE, DT_FLOAT),
        _proto.bytes_field(_TENSOR_SHAPE, _shape(table.shape)),
        _proto.packed_floats_field(_TENSOR_FLOAT_VAL, table.reshape(-1)),
    ])
    return _summary([_proto.string_field(_VALUE_TAG, tag),
                     plugin_metadata_field("pr_curves", _pr_curve.plugin_content(num_thresholds)),
                     _proto.bytes_field(_VALUE_TENSOR, tensor)])
