"""ember.utils.tensorboard.SummaryWriter: the event files are read back with a reader
written here (TFRecord lengths and CRCs, protobuf fields, PNG pixels) and, when the
tensorboard package is installed, with TensorBoard's own EventAccumulator."""
import glob
import os
import re
import socket
import struct
import time
import zlib

import numpy as np
import pytest

import ember
from ember.utils.tensorboard import SummaryWriter
from ember.utils.tensorboard import _crc32c, _proto, _png
from ember.utils.tensorboard._histogram_buckets import tensorflow_bucket_edges


# ---------------------------------------------------------------- independent reader

def bitwise_crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 * (crc & 1))
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    with open(path, "rb") as event_file:
        data = event_file.read()
    records, offset = [], 0
    while offset < len(data):
        header = data[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[offset + 8:offset + 12])
        assert length_crc == masked(bitwise_crc32c(header))
        payload = data[offset + 12:offset + 12 + length]
        assert len(payload) == length
        (payload_crc,) = struct.unpack("<I", data[offset + 12 + length:offset + 16 + length])
        assert payload_crc == masked(bitwise_crc32c(payload))
        records.append(payload)
        offset += 16 + length
    assert offset == len(data)
    return records


def read_varint(data, offset):
    value, shift = 0, 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset


def decode(data):
    """{field number: [raw value, ...]}: ints for varints, bytes for the other wire types."""
    fields, offset = {}, 0
    while offset < len(data):
        key, offset = read_varint(data, offset)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, offset = read_varint(data, offset)
        elif wire_type == 1:
            value, offset = data[offset:offset + 8], offset + 8
        elif wire_type == 5:
            value, offset = data[offset:offset + 4], offset + 4
        elif wire_type == 2:
            length, offset = read_varint(data, offset)
            value, offset = data[offset:offset + length], offset + length
        else:
            raise AssertionError(f"unexpected wire type {wire_type}")
        fields.setdefault(number, []).append(value)
    return fields


def as_double(raw):
    return struct.unpack("<d", raw)[0]


def as_float(raw):
    return struct.unpack("<f", raw)[0]


def packed_doubles(raw):
    return list(struct.unpack("<%dd" % (len(raw) // 8), raw))


def events_in(log_dir):
    (path,) = glob.glob(os.path.join(str(log_dir), "events.out.tfevents.*"))
    events = [decode(r) for r in read_records(path)]
    assert events[0][3] == [b"brain.Event:2"]
    return events[1:]


def summary_value(event):
    (summary,) = event[5]
    (value,) = decode(summary)[1]
    return decode(value)


def step_of(event):
    return event.get(2, [0])[0]


def decode_png(png):
    """Pixels (H, W, C) of an 8-bit non-interlaced PNG, undoing all five row filters."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, header = 8, b"", None
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset:offset + 4])
        kind = png[offset + 4:offset + 8]
        body = png[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", png[offset + 8 + length:offset + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    assert depth == 8 and interlace == 0
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color_type]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for r in range(height):
        line = raw[r * (stride + 1):(r + 1) * (stride + 1)]
        filter_type, row = line[0], bytearray(line[1:])
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if filter_type == 1:
                row[i] = (row[i] + left) & 0xFF
            elif filter_type == 2:
                row[i] = (row[i] + up) & 0xFF
            elif filter_type == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif filter_type == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                row[i] = (row[i] + pred) & 0xFF
        rows.append(bytes(row))
        previous = row
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(height, width, channels)


def expected_histogram(values, edges):
    """(limits, counts) as HistogramProto should hold them: the buckets from the first
    to the last non-empty one, behind one empty bucket ending at the first's left edge."""
    counts, edges = np.histogram(np.asarray(values, dtype=np.float64).ravel(), bins=edges)
    nonzero = [i for i, c in enumerate(counts) if c]
    first, last = nonzero[0], nonzero[-1]
    return list(edges[first:last + 2]), [0.0] + [float(c) for c in counts[first:last + 1]]


# ---------------------------------------------------------------- building blocks

def test_crc32c_known_vector_and_mask():
    assert _crc32c.crc32c(b"123456789") == 0xE3069283
    assert _crc32c.crc32c(b"") == 0
    rng = np.random.default_rng(0)
    for n in (1, 7, 100):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert _crc32c.crc32c(data) == bitwise_crc32c(data)
        assert _crc32c.masked_crc32c(data) == masked(bitwise_crc32c(data))


def test_proto_encoding():
    assert _proto.encode_varint(0) == b"\x00"
    assert _proto.encode_varint(1) == b"\x01"
    assert _proto.encode_varint(300) == b"\xac\x02"
    assert _proto.encode_varint(-1) == b"\xff" * 9 + b"\x01"
    assert read_varint(_proto.encode_varint(2**63 - 1), 0)[0] == 2**63 - 1
    assert _proto.varint_field(2, 150) == b"\x10\x96\x01"
    assert _proto.string_field(1, "testing") == b"\x0a\x07testing"
    assert _proto.double_field(1, 1.5) == b"\x09" + struct.pack("<d", 1.5)
    assert _proto.float_field(2, 0.25) == b"\x15" + struct.pack("<f", 0.25)
    fields = decode(_proto.packed_doubles_field(6, [1.0, -2.5, 3e30]))
    assert packed_doubles(fields[6][0]) == [1.0, -2.5, 3e30]


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (4, 6, 1), (3, 7, 2), (2, 9, 3), (6, 2, 4)])
def test_png_round_trip(shape):
    pixels = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    decoded = decode_png(_png.encode_png(pixels))
    np.testing.assert_array_equal(decoded, pixels.reshape(decoded.shape))


def test_png_rejects_bad_input():
    with pytest.raises(TypeError):
        _png.encode_png(np.zeros((2, 2, 3), dtype=np.float32))
    with pytest.raises(ValueError):
        _png.encode_png(np.zeros((2, 2, 5), dtype=np.uint8))
    with pytest.raises(ValueError):
        _png.encode_png(np.zeros((0, 2, 3), dtype=np.uint8))


def test_tensorflow_bucket_edges():
    edges = tensorflow_bucket_edges()
    positive = [e for e in edges if e > 0]
    assert positive[0] == 1e-12 and positive[-1] < 1e20 and positive[-1] * 1.1 >= 1e20
    assert np.allclose(np.diff(np.log(positive)), np.log(1.1))
    assert edges == sorted(edges) and 0.0 in edges
    assert [-e for e in reversed(edges)] == edges


# ---------------------------------------------------------------- the writer

def test_scalars_all_input_kinds(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("loss", ember.tensor(0.5), 1)
        writer.add_scalar("loss", ember.tensor([0.25], dtype=ember.float64), 2)
        writer.add_scalar("loss", np.float32(0.125), 3, walltime=1234.5)
        writer.add_scalar("loss", 7, -4)
        writer.add_scalar("acc", np.array([[0.1]]))
        writer.add_scalar("x", ember.arange(6.0)[4], global_step=ember.tensor(5))
        grad_tensor = ember.full((1, 1), 0.75, requires_grad=True) * 1
        writer.add_scalar("x", grad_tensor, 6)
        writer.add_scalar("x", ember.tensor(1.5, dtype=ember.bfloat16), 7)
        writer.add_scalar("x", ember.tensor(True), 8)
    events = events_in(tmp_path)
    assert [step_of(e) for e in events] == [1, 2, 3, 2**64 - 4, 0, 5, 6, 7, 8]
    values = [summary_value(e) for e in events]
    assert [v[1][0] for v in values] == [b"loss"] * 4 + [b"acc"] + [b"x"] * 4
    got = [as_float(v[2][0]) for v in values]
    assert got == [0.5, 0.25, 0.125, 7.0, np.float32(0.1), 4.0, 0.75, 1.5, 1.0]
    assert as_double(events[2][1][0]) == 1234.5
    assert abs(as_double(events[0][1][0]) - time.time()) < 60


def test_scalar_new_style_and_double_precision(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("f", 1.1, 0, new_style=True)
        writer.add_scalar("d", 1.1, 0, new_style=True, double_precision=True)
    f, d = [summary_value(e) for e in events_in(tmp_path)]
    for value, plugin in ((f, b"scalars"), (d, b"scalars")):
        metadata = decode(value[9][0])
        assert decode(metadata[1][0])[1] == [plugin]
        assert 2 not in value
    tensor_f, tensor_d = decode(f[8][0]), decode(d[8][0])
    assert tensor_f[1] == [1] and struct.unpack("<f", tensor_f[5][0])[0] == np.float32(1.1)
    assert tensor_d[1] == [2] and packed_doubles(tensor_d[6][0]) == [1.1]


def test_scalar_bad_inputs(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="exactly one element"):
            writer.add_scalar("a", ember.ones(2), 0)
        with pytest.raises(ValueError, match="exactly one element"):
            writer.add_scalar("a", np.zeros(0), 0)
        with pytest.raises(NotImplementedError):
            writer.add_scalar("a", object(), 0)
        with pytest.raises(TypeError):
            writer.add_scalar("a", np.array(["x"]), 0)
        with pytest.raises(TypeError):
            writer.add_scalar("a", np.array([1 + 2j]), 0)
    assert events_in(tmp_path) == []


@pytest.mark.parametrize("bins", ["tensorflow", 10, "auto", [-3.0, -1.0, 0.0, 0.5, 2.0]])
def test_histogram(tmp_path, bins):
    values = np.random.default_rng(2).normal(size=(40, 5)).astype(np.float32)
    values[0, 0] = 0.0
    source = ember.tensor(values)[:, ::2]  # non-contiguous
    flat = values[:, ::2].astype(np.float64).ravel()
    if isinstance(bins, list):
        flat = flat.clip(-2.9, 1.9)
        source = ember.tensor(flat.reshape(40, 3))
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("w", source, 3, bins=bins)
    (event,) = events_in(tmp_path)
    assert step_of(event) == 3
    value = summary_value(event)
    assert value[1] == [b"w"]
    histo = decode(value[5][0])
    assert as_double(histo[1][0]) == flat.min() and as_double(histo[2][0]) == flat.max()
    assert as_double(histo[3][0]) == flat.size
    assert np.isclose(as_double(histo[4][0]), flat.sum())
    assert np.isclose(as_double(histo[5][0]), (flat ** 2).sum())
    edges = tensorflow_bucket_edges() if bins == "tensorflow" else np.histogram_bin_edges(flat, bins)
    limits, counts = expected_histogram(flat, edges)
    assert packed_doubles(histo[6][0]) == pytest.approx(limits, rel=1e-15)
    assert packed_doubles(histo[7][0]) == counts
    assert sum(counts) == flat.size


def test_histogram_max_bins_merges_neighbours(tmp_path):
    values = np.arange(100, dtype=np.float64)
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("h", values, bins=30, max_bins=7)
    histo = decode(summary_value(events_in(tmp_path)[0])[5][0])
    counts, limits = packed_doubles(histo[7][0]), packed_doubles(histo[6][0])
    raw_counts, raw_edges = np.histogram(values, bins=30)
    group = 30 // 7  # 4 neighbours per bucket, last group padded with empty buckets
    padded = np.concatenate([raw_counts, np.zeros(-30 % group)])
    assert counts == [0.0] + list(padded.reshape(-1, group).sum(axis=1))
    assert limits == pytest.approx(list(raw_edges[::group]) + [raw_edges[-1]])
    assert sum(counts) == 100


def test_histogram_bad_inputs(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="empty"):
            writer.add_histogram("h", ember.zeros(0))
        with pytest.raises(ValueError, match="NaN"):
            writer.add_histogram("h", np.array([1.0, np.nan]))
        with pytest.raises(ValueError, match="inside the bins"):
            writer.add_histogram("h", np.array([5.0]), bins=[0.0, 1.0])
        with pytest.raises(ValueError, match="max_bins"):
            writer.add_histogram("h", np.array([5.0]), max_bins=0)
    assert events_in(tmp_path) == []


def image_of(event):
    value = summary_value(event)
    image = decode(value[4][0])
    height, width, colorspace = image[1][0], image[2][0], image[3][0]
    pixels = decode_png(image[4][0])
    assert pixels.shape == (height, width, colorspace)
    return value[1][0], pixels


def test_images_layouts_and_scaling(tmp_path):
    rng = np.random.default_rng(3)
    chw_float = rng.random((3, 5, 7), dtype=np.float32)
    chw_float[0, 0, 0], chw_float[1, 0, 0] = 1.5, -0.2  # clipped
    hwc_uint8 = rng.integers(0, 256, (4, 6, 4), dtype=np.uint8)
    gray_hw = rng.random((3, 2))
    batch = rng.random((10, 1, 2, 3)).astype(np.float32)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("chw", ember.tensor(chw_float), 1)
        writer.add_image("hwc", hwc_uint8, 2, dataformats="HWC")
        writer.add_image("hw", ember.tensor(gray_hw), 3, dataformats="HW")
        writer.add_image("wh", gray_hw.T, 3, dataformats="WH")
        writer.add_images("batch", ember.tensor(batch), 4)
        writer.add_images("nhwc", batch.transpose(0, 2, 3, 1), 5, dataformats="NHWC")
    events = events_in(tmp_path)
    to8 = lambda a: np.clip(a.astype(np.float32) * np.float32(255), 0, 255).astype(np.uint8)
    tag, pixels = image_of(events[0])
    assert tag == b"chw"
    np.testing.assert_array_equal(pixels, to8(chw_float.transpose(1, 2, 0)))
    assert pixels[0, 0, 0] == 255 and pixels[0, 0, 1] == 0
    np.testing.assert_array_equal(image_of(events[1])[1], hwc_uint8)
    gray_rgb = np.repeat(to8(gray_hw)[:, :, None], 3, axis=2)
    np.testing.assert_array_equal(image_of(events[2])[1], gray_rgb)
    np.testing.assert_array_equal(image_of(events[3])[1], gray_rgb)
    grid = np.zeros((2 * 2, 3 * 8), dtype=np.uint8)  # 10 images: 8 per row, 2 rows
    for i in range(10):
        row, col = divmod(i, 8)
        grid[row * 2:row * 2 + 2, col * 3:col * 3 + 3] = to8(batch[i, 0])
    for event in events[4:]:
        np.testing.assert_array_equal(image_of(event)[1], np.repeat(grid[:, :, None], 3, axis=2))


def test_image_bad_inputs(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="dataformats"):
            writer.add_image("i", np.zeros((3, 4, 4)), dataformats="HW")
        with pytest.raises(ValueError, match="dataformats"):
            writer.add_image("i", np.zeros((3, 4, 4)), dataformats="CHX")
        with pytest.raises(ValueError, match="channels"):
            writer.add_image("i", np.zeros((5, 4, 4)))
        with pytest.raises(ValueError, match="channels"):
            writer.add_images("i", np.zeros((2, 5, 4, 4)))
        with pytest.raises(ValueError, match="empty"):
            writer.add_images("i", np.zeros((0, 3, 4, 4)))
        with pytest.raises(ValueError, match="empty"):
            writer.add_image("i", np.zeros((3, 0, 4)))
    assert events_in(tmp_path) == []


def test_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(2, 1.5), dpi=50)
    figure.add_subplot(1, 1, 1).plot([0, 1, 2], [2, 0, 1])
    figure.canvas.draw()
    expected = np.asarray(figure.canvas.buffer_rgba())[:, :, :3].copy()
    with SummaryWriter(tmp_path) as writer:
        writer.add_figure("fig", figure, 7)
        assert not plt.fignum_exists(figure.number)
        second = plt.figure(figsize=(2, 1.5), dpi=50)
        writer.add_figure("figs", [second, second], 8, close=False)
        assert plt.fignum_exists(second.number)
        plt.close(second)
        small, large = plt.figure(figsize=(1, 1), dpi=20), plt.figure(figsize=(2, 1), dpi=20)
        with pytest.raises(ValueError, match="different pixel sizes"):
            writer.add_figure("figs", [small, large])
        assert plt.fignum_exists(small.number) and plt.fignum_exists(large.number)
        plt.close(small)
        plt.close(large)
    events = events_in(tmp_path)
    tag, pixels = image_of(events[0])
    assert tag == b"fig" and pixels.shape == (75, 100, 3)
    np.testing.assert_array_equal(pixels, expected)
    assert image_of(events[1])[1].shape == (75, 200, 3)


def test_audio(tmp_path):
    import io
    import wave

    samples = np.random.default_rng(5).uniform(-1.3, 1.3, size=(1, 300))
    with SummaryWriter(tmp_path) as writer:
        writer.add_audio("voice", ember.tensor(samples), 3, sample_rate=8000)
        with pytest.raises(ValueError, match="mono"):
            writer.add_audio("voice", np.zeros((2, 10)))
        with pytest.raises(ValueError, match="sample_rate"):
            writer.add_audio("voice", np.zeros(10), sample_rate=0)
    (event,) = events_in(tmp_path)
    value = summary_value(event)
    assert value[1] == [b"voice"]
    audio = decode(value[6][0])
    assert as_float(audio[1][0]) == 8000.0 and audio[2] == [1] and audio[3] == [300]
    assert audio[5] == [b"audio/wav"]
    with wave.open(io.BytesIO(audio[4][0])) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 8000)
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    expected = (np.clip(samples, -1, 1) * 32767).astype(np.int16)
    np.testing.assert_array_equal(pcm, expected.ravel())


@pytest.mark.parametrize("num_thresholds,weighted", [(127, False), (11, True), (500, False), (2, True)])
def test_pr_curve(tmp_path, num_thresholds, weighted):
    rng = np.random.default_rng(6)
    labels = rng.integers(0, 2, 60)
    predictions = rng.random(60).astype(np.float32)
    predictions[:4] = [0.0, 1.0, 1.001, -0.2]  # 1.001 still lands in the top bucket
    weights = rng.random(60) if weighted else None
    with SummaryWriter(tmp_path) as writer:
        writer.add_pr_curve("pr", ember.tensor(labels).bool(), ember.tensor(predictions), 5,
                            num_thresholds=num_thresholds,
                            weights=None if weights is None else ember.tensor(weights))
        with pytest.raises(ValueError, match="same size"):
            writer.add_pr_curve("pr", labels[:5], predictions)
        with pytest.raises(ValueError, match="NaN"):
            writer.add_pr_curve("pr", [1], [float("nan")])
        with pytest.raises(ValueError, match="weights"):
            writer.add_pr_curve("pr", labels, predictions, weights=np.ones(3))
    (event,) = events_in(tmp_path)
    value = summary_value(event)
    n = min(num_thresholds, 127)
    plugin = decode(decode(value[9][0])[1][0])
    assert plugin[1] == [b"pr_curves"] and decode(plugin[2][0]) == {2: [n]}
    tensor = decode(value[8][0])
    assert tensor[1] == [1]
    assert [decode(d)[1][0] for d in decode(tensor[2][0])[2]] == [6, n]
    table = np.frombuffer(tensor[5][0], dtype="<f4").reshape(6, n)
    w = np.ones(60) if weights is None else weights
    bucket = np.floor(predictions.astype(np.float64) * (n - 1))
    expected = np.zeros((6, n))
    for i in range(n):
        above = (bucket >= i) & (bucket <= n - 1)
        counted = (bucket >= 0) & (bucket <= n - 1)
        tp, fp = (w * labels)[above].sum(), (w * (1 - labels))[above].sum()
        all_pos, all_neg = (w * labels)[counted].sum(), (w * (1 - labels))[counted].sum()
        expected[:, i] = [tp, fp, all_neg - fp, all_pos - tp, tp / max(1e-7, tp + fp),
                          tp / max(1e-7, all_pos)]
    np.testing.assert_allclose(table, expected.astype(np.float32), rtol=1e-6, atol=1e-6)


def test_text(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_text("notes", "hello **ümlaut**", 2)
        with pytest.raises(TypeError):
            writer.add_text("notes", 3)
    (event,) = events_in(tmp_path)
    value = summary_value(event)
    assert value[1] == [b"notes/text_summary"]
    assert decode(decode(value[9][0])[1][0])[1] == [b"text"]
    tensor = decode(value[8][0])
    assert tensor[1] == [7]
    assert decode(decode(tensor[2][0])[2][0])[1] == [1]
    assert tensor[8] == ["hello **ümlaut**".encode()]


def test_add_scalars_writes_one_file_per_sub_tag(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalars("run/loss", {"train": step * 1.0, "val": ember.tensor(step + 0.5)}, step)
    assert events_in(tmp_path) == []
    for name, offset in (("train", 0.0), ("val", 0.5)):
        events = events_in(tmp_path / ("run_loss_" + name))
        assert [step_of(e) for e in events] == [0, 1, 2]
        assert [summary_value(e)[1][0] for e in events] == [b"run/loss"] * 3
        assert [as_float(summary_value(e)[2][0]) for e in events] == [s + offset for s in range(3)]


def test_tags_must_be_strings(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for call in (lambda: writer.add_scalar(1, 1.0), lambda: writer.add_histogram(None, [1.0]),
                     lambda: writer.add_image(b"x", np.zeros((3, 2, 2))),
                     lambda: writer.add_images(3, np.zeros((1, 3, 2, 2))),
                     lambda: writer.add_text(2, "t"), lambda: writer.add_scalars(1, {"a": 1.0}),
                     lambda: writer.add_scalars("m", {1: 1.0}), lambda: writer.add_scalars("m", [1.0])):
            with pytest.raises(TypeError, match="SummaryWriter"):
                call()
    assert events_in(tmp_path) == []
    assert os.listdir(tmp_path) == [os.path.basename(glob.glob(str(tmp_path / "events*"))[0])]


def test_file_name_default_log_dir_and_reopen(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter(comment="_lr0.1", filename_suffix=".v2")
    log_dir = writer.get_logdir()
    assert re.fullmatch(r"runs/[A-Z][a-z]{2}\d\d_\d\d-\d\d-\d\d_" + re.escape(socket.gethostname())
                        + r"_lr0\.1", log_dir)
    (path,) = glob.glob(os.path.join(log_dir, "*"))
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.%s\.%d\.\d+\.v2"
                        % (re.escape(socket.gethostname()), os.getpid()), os.path.basename(path))
    writer.add_scalar("a", 1.0, 1)
    writer.close()
    writer.close()  # closing twice is harmless
    writer.add_scalar("a", 2.0, 2)  # like torch: a closed writer opens a new file
    writer.close()
    files = sorted(glob.glob(os.path.join(log_dir, "*")))
    assert len(files) == 2
    steps = sorted(step_of(decode(r)) for f in files for r in read_records(f)[1:])
    assert steps == [1, 2]


def test_buffering_max_queue_flush_secs_and_flush(tmp_path):
    writer = SummaryWriter(tmp_path / "q", max_queue=3, flush_secs=1000)
    (path,) = glob.glob(str(tmp_path / "q" / "*"))
    writer.add_scalar("a", 1.0, 1)
    writer.add_scalar("a", 2.0, 2)
    assert len(read_records(path)) == 1  # only the version record so far
    writer.add_scalar("a", 3.0, 3)
    assert len(read_records(path)) == 4
    writer.add_scalar("a", 4.0, 4)
    writer.flush()
    assert len(read_records(path)) == 5
    writer.close()

    timed = SummaryWriter(tmp_path / "t", max_queue=100, flush_secs=0.2)
    (path,) = glob.glob(str(tmp_path / "t" / "*"))
    timed.add_scalar("a", 1.0, 1)
    deadline = time.time() + 10
    while len(read_records(path)) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert len(read_records(path)) == 2  # written by the background flush
    timed.close()

    with pytest.raises(ValueError):
        SummaryWriter(tmp_path / "bad", max_queue=0)


def test_purge_step_writes_session_start(tmp_path):
    with SummaryWriter(tmp_path, purge_step=5) as writer:
        writer.add_scalar("a", 1.0, 6)
    events = events_in(tmp_path)
    assert step_of(events[0]) == 5 and events[0][3] == [b"brain.Event:2"]
    assert step_of(events[1]) == 5 and decode(events[1][7][0])[1] == [1]
    assert step_of(events[2]) == 6


def hparams_content(event):
    value = summary_value(event)
    plugin_data = decode(decode(value[9][0])[1][0])
    assert plugin_data[1] == [b"hparams"]
    return value[1][0], decode(plugin_data[2][0])


def test_hparams(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_hparams({"lr": 0.1, "layers": 3, "opt": "adam", "wd": ember.tensor([0.5]),
                            "skip": None},
                           {"hparam/acc": ember.tensor(0.75)},
                           hparam_domain_discrete={"opt": ["adam", "sgd"], "layers": [2, 3]},
                           run_name="run1", global_step=4)
        for bad_args, error in [(([1], {}), TypeError), (({"a": 1}, "m"), TypeError),
                                (({"a": [1]}, {}), ValueError),
                                (({"a": 1}, {}, {"a": ["x"]}), TypeError),
                                (({"a": 1}, {}, {"b": [1]}), TypeError),
                                (({"a": 1}, {"m": ember.ones(2)}), ValueError),
                                (({1: 1}, {}), TypeError), (({"a": 1}, {2: 1.0}), TypeError)]:
            with pytest.raises(error):
                writer.add_hparams(*bad_args, run_name="bad")
    assert not (tmp_path / "bad").exists()
    events = events_in(tmp_path / "run1")
    assert [step_of(e) for e in events] == [4] * 4
    tag, experiment = hparams_content(events[0])
    assert tag == b"_hparams_/experiment"
    infos = [decode(i) for i in decode(experiment[2][0])[4]]
    assert [(i[1][0], i[4][0]) for i in infos] == [(b"lr", 3), (b"layers", 3), (b"opt", 1), (b"wd", 3)]
    opt_domain = [decode(v)[3][0] for v in decode(infos[2][5][0])[1]]
    layer_domain = [as_double(decode(v)[2][0]) for v in decode(infos[1][5][0])[1]]
    assert opt_domain == [b"adam", b"sgd"] and layer_domain == [2.0, 3.0]
    metric = decode(decode(experiment[2][0])[5][0])
    assert decode(metric[1][0])[2] == [b"hparam/acc"]
    tag, start = hparams_content(events[1])
    assert tag == b"_hparams_/session_start_info"
    entries = [decode(e) for e in decode(start[3][0])[1]]
    values = {e[1][0]: decode(e[2][0]) for e in entries}
    assert as_double(values[b"lr"][2][0]) == 0.1 and values[b"opt"][3] == [b"adam"]
    assert as_double(values[b"wd"][2][0]) == 0.5 and b"skip" not in values
    tag, end = hparams_content(events[2])
    assert tag == b"_hparams_/session_end_info" and decode(end[4][0])[1] == [1]
    metric_value = summary_value(events[3])
    assert metric_value[1] == [b"hparam/acc"] and as_float(metric_value[2][0]) == 0.75


def test_torch_spelling_import():
    namespace = {}
    exec("import ember as torch\nfrom torch.utils.tensorboard import SummaryWriter as W", namespace)
    assert namespace["W"] is SummaryWriter


# ---------------------------------------------------------------- TensorBoard itself

def test_read_back_with_tensorboard(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.util import tensor_util

    rng = np.random.default_rng(4)
    values = rng.normal(size=1000)
    image = rng.random((3, 6, 5)).astype(np.float32)
    with SummaryWriter(tmp_path) as writer:
        for step in range(5):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_histogram("weights", ember.tensor(values), 9)
        writer.add_image("picture", ember.tensor(image), 2)
        writer.add_text("note", "some text", 3)
        writer.add_hparams({"lr": 0.01, "opt": "sgd"}, {"acc": 0.9}, run_name="hp")
        writer.add_audio("sound", np.linspace(-1, 1, 50), 4, sample_rate=100)
        writer.add_pr_curve("pr", np.array([1, 0, 1]), np.array([0.9, 0.2, 0.4]), 6, num_thresholds=5)
    accumulator = EventAccumulator(str(tmp_path), size_guidance={"tensors": 0, "images": 0,
                                                                 "audio": 0})
    accumulator.Reload()
    scalars = accumulator.Scalars("loss")
    assert [s.step for s in scalars] == list(range(5))
    assert [s.value for s in scalars] == pytest.approx([1.0 / (s + 1) for s in range(5)], rel=1e-7)

    (histogram,) = accumulator.Histograms("weights")
    assert histogram.step == 9
    limits, counts = expected_histogram(values, tensorflow_bucket_edges())
    assert histogram.histogram_value.num == 1000
    assert histogram.histogram_value.min == values.min()
    assert list(histogram.histogram_value.bucket) == counts
    assert list(histogram.histogram_value.bucket_limit) == pytest.approx(limits, rel=1e-15)

    (picture,) = accumulator.Images("picture")
    assert (picture.step, picture.width, picture.height) == (2, 5, 6)
    import io
    from PIL import Image  # tensorboard depends on pillow
    decoded = np.asarray(Image.open(io.BytesIO(picture.encoded_image_string)))
    expected = (np.clip(image * np.float32(255), 0, 255)).astype(np.uint8).transpose(1, 2, 0)
    np.testing.assert_array_equal(decoded, expected)

    (sound,) = accumulator.Audio("sound")
    assert (sound.step, sound.sample_rate, sound.length_frames, sound.content_type) == (
        4, 100.0, 50, "audio/wav")

    (pr,) = accumulator.Tensors("pr")
    assert pr.step == 6
    # Threshold 2 of 5 is 0.5: 0.9 is a true positive, 0.2 a true negative, 0.4 a false negative.
    np.testing.assert_allclose(tensor_util.make_ndarray(pr.tensor_proto)[:, 2], [1, 0, 1, 1, 1, 0.5])
    assert accumulator.SummaryMetadata("pr").plugin_data.plugin_name == "pr_curves"

    (text,) = accumulator.Tensors("note/text_summary")
    assert text.step == 3
    assert tensor_util.make_ndarray(text.tensor_proto).tolist() == [b"some text"]
    assert accumulator.SummaryMetadata("note/text_summary").plugin_data.plugin_name == "text"

    from tensorboard.plugins.hparams import plugin_data_pb2
    run = EventAccumulator(str(tmp_path / "hp"))
    run.Reload()
    assert run.Scalars("acc")[0].value == pytest.approx(0.9)
    content = plugin_data_pb2.HParamsPluginData.FromString(
        run.PluginTagToContent("hparams")["_hparams_/session_start_info"])
    assert content.session_start_info.hparams["lr"].number_value == 0.01
    assert content.session_start_info.hparams["opt"].string_value == "sgd"
    experiment = plugin_data_pb2.HParamsPluginData.FromString(
        run.PluginTagToContent("hparams")["_hparams_/experiment"]).experiment
    assert [i.name for i in experiment.hparam_infos] == ["lr", "opt"]
    assert [m.name.tag for m in experiment.metric_infos] == ["acc"]
