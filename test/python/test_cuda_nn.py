"""CUDA kernels of the convolutions (cuDNN), pools and normalizations, compared with
the CPU kernels (cuda_compare.check_against_cpu): values and input gradients, float32
and float64 tightly, float16/bfloat16 loosely. Float32 convolutions run without TF32
(ember.backends.cudnn.allow_tf32 = False) where that switch exists; without it they
get TF32-sized tolerances."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

F = ember.nn.functional
HALF_DTYPES = [ember.float16, ember.bfloat16]
LOOSE = {ember.float16: (2e-2, 2e-2), ember.bfloat16: (1e-1, 5e-2)}


def _cudnn_switches():
    backends = getattr(ember, "backends", None)
    return getattr(backends, "cudnn", None) if backends is not None else None


_CUDNN = _cudnn_switches()
EXACT_FLOAT32 = _CUDNN is not None and hasattr(_CUDNN, "allow_tf32")


@pytest.fixture(autouse=True)
def no_tf32():
    """Full float32 convolutions for the comparisons with the CPU."""
    if not EXACT_FLOAT32:
        yield
        return
    old = _CUDNN.allow_tf32
    _CUDNN.allow_tf32 = False
    try:
        yield
    finally:
        _CUDNN.allow_tf32 = old


def rand(*shape, dtype=ember.float32, seed=0, scale=1.0, offset=0.0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * scale + offset).astype(np.float64)
    return ember.from_numpy(a).to(dtype)


def conv_tol(dtype):
    """(atol, rtol) of a convolution compared with the CPU's."""
    if dtype in LOOSE:
        return LOOSE[dtype]
    if dtype == ember.float64:
        return (1e-9, 1e-9)
    return (1e-4, 1e-4) if EXACT_FLOAT32 else (3e-2, 1e-2)


def tol(dtype):
    if dtype in LOOSE:
        return LOOSE[dtype]
    return (1e-9, 1e-9) if dtype == ember.float64 else (1e-4, 1e-4)


# ---- convolutions ----------------------------------------------------------------

# (input shape, weight shape, stride, padding, dilation, groups, bias)
CONV_CASES = [
    ((2, 3, 8, 8), (4, 3, 3, 3), 1, 1, 1, 1, True),
    ((2, 4, 9, 7), (6, 2, 3, 2), (2, 1), (1, 0), (1, 2), 2, False),
    ((1, 6, 5, 5), (6, 1, 3, 3), 1, 1, 1, 6, True),       # depthwise
    ((3, 8, 6, 6), (4, 8, 1, 1), 1, 0, 1, 1, True),       # pointwise
    ((2, 3, 11, 10), (5, 3, 5, 3), 3, 2, 2, 1, False),    # strided, dilated
    ((1, 4, 4, 4), (4, 4, 4, 4), 1, 0, 1, 1, True),       # kernel = image: 1x1 output
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_conv2d(case, dtype):
    xs, ws, stride, padding, dilation, groups, bias = case
    args = [rand(*xs, dtype=dtype), rand(*ws, dtype=dtype, seed=1)]
    if bias:
        args.append(rand(ws[0], dtype=dtype, seed=2))
    atol, rtol = conv_tol(dtype)
    check_against_cpu(lambda x, w, *b: F.conv2d(x, w, b[0] if b else None, stride, padding, dilation, groups),
                      *args, grad=True, atol=atol, rtol=rtol)


@pytest.mark.parametrize("case", CONV_CASES[:3])
@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_conv2d_half(case, dtype):
    xs, ws, stride, padding, dilation, groups, bias = case
    args = [rand(*xs, dtype=dtype), rand(*ws, dtype=dtype, seed=1, scale=0.3)]
    if bias:
        args.append(rand(ws[0], dtype=dtype, seed=2))
    atol, rtol = conv_tol(dtype)
    check_against_cpu(lambda x, w, *b: F.conv2d(x, w, b[0] if b else None, stride, padding, dilation, groups),
                      *args, grad=True, atol=atol, rtol=rtol)


def test_conv2d_padding_same_and_valid():
    atol, rtol = conv_tol(ember.float32)
    x, w = rand(2, 3, 7, 6), rand(4, 3, 4, 3, seed=1)
    check_against_cpu(lambda x, w: F.conv2d(x, w, padding="same", dilation=2), x, w, grad=True,
                      atol=atol, rtol=rtol)
    check_against_cpu(lambda x, w: F.conv2d(x, w, padding="valid"), x, w, grad=True, atol=atol, rtol=rtol)


def test_conv2d_non_contiguous_and_unbatched():
    atol, rtol = conv_tol(ember.float32)
    x, w = rand(2, 8, 3, 9), rand(4, 3, 3, 3, seed=1)
    # channels last in memory, and a strided slice
    check_against_cpu(lambda x, w: F.conv2d(x.permute(0, 2, 1, 3)[:, :, ::2], w, padding=1), x, w, grad=True,
                      atol=atol, rtol=rtol)
    check_against_cpu(lambda x, w: F.conv2d(x, w.transpose(2, 3), padding=1), rand(3, 6, 6), rand(4, 3, 3, 3),
                      grad=True, atol=atol, rtol=rtol)


def test_conv2d_empty_batch_and_conv1d():
    atol, rtol = conv_tol(ember.float32)
    out = check_against_cpu(lambda x, w, b: F.conv2d(x, w, b, padding=1), rand(0, 3, 5, 5), rand(4, 3, 3, 3),
                            rand(4), grad=True, atol=atol, rtol=rtol)
    assert tuple(out.shape) == (0, 4, 5, 5)
    check_against_cpu(lambda x, w: F.conv1d(x, w, stride=2, padding=1), rand(2, 3, 17), rand(5, 3, 4),
                      grad=True, atol=atol, rtol=rtol)


# (input shape, weight shape, stride, padding, output_padding, groups, dilation, bias)
CONV_T_CASES = [
    ((2, 4, 5, 5), (4, 3, 3, 3), 2, 1, 1, 1, 1, True),
    ((1, 4, 3, 6), (4, 2, 3, 2), (1, 2), (0, 1), (0, 1), 2, 1, False),
    ((2, 3, 4, 4), (3, 2, 2, 3), 1, 1, 0, 1, 2, True),
]


@pytest.mark.parametrize("case", CONV_T_CASES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16])
def test_conv_transpose2d(case, dtype):
    xs, ws, stride, padding, opad, groups, dilation, bias = case
    args = [rand(*xs, dtype=dtype), rand(*ws, dtype=dtype, seed=1, scale=0.5)]
    if bias:
        args.append(rand(ws[1] * groups, dtype=dtype, seed=2))
    atol, rtol = conv_tol(dtype)
    check_against_cpu(lambda x, w, *b: F.conv_transpose2d(x, w, b[0] if b else None, stride, padding, opad,
                                                          groups, dilation),
                      *args, grad=True, atol=atol, rtol=rtol)


def test_conv_backward_primitives():
    atol, rtol = conv_tol(ember.float32)
    g, w, x = rand(2, 6, 4, 3), rand(6, 2, 3, 3, seed=1), rand(2, 4, 8, 6, seed=2)
    check_against_cpu(lambda g, w: ember._C._conv2d_backward_input(g, w, [2, 4, 8, 6], [2, 2], [1, 1], [1, 1], 2),
                      g, w, atol=atol, rtol=rtol)
    check_against_cpu(lambda g, x: ember._C._conv2d_backward_weight(g, x, [6, 2, 3, 3], [2, 2], [1, 1], [1, 1], 2),
                      g, x, atol=atol, rtol=rtol)


def test_conv2d_integer_dtype_is_not_implemented_on_cuda():
    x = ember.ones(1, 1, 3, 3, dtype=ember.int32).to("cuda")
    with pytest.raises(NotImplementedError):
        F.conv2d(x, ember.ones(1, 1, 2, 2, dtype=ember.int32).to("cuda"))


# ---- pools ----------------------------------------------------------------------

# (kernel, stride, padding, dilation, ceil_mode)
MAX_CASES = [
    (2, None, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), (2, 1), True),
    (4, 3, 2, 1, True),
]


@pytest.mark.parametrize("case", MAX_CASES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_max_pool2d_with_indices(case, dtype):
    k, s, p, d, ceil = case
    x = rand(2, 3, 9, 8, dtype=dtype)
    # values and indices exactly; gradients up to the order of the additions where windows overlap
    atol, rtol = tol(dtype)
    values, indices = check_against_cpu(
        lambda x: F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True), x, grad=True,
        atol=atol, rtol=rtol)
    assert indices.dtype == ember.int64
    expected = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil)
    np.testing.assert_array_equal(values.detach().cpu().to(ember.float64).numpy(),
                                  expected.to(ember.float64).numpy())
    check_against_cpu(lambda x: F.max_pool2d(x, k, s, p, d, ceil_mode=ceil), x, grad=True, atol=atol, rtol=rtol)


def test_max_pool2d_nan_ties_and_views():
    a = np.arange(2 * 2 * 6 * 6, dtype=np.float32).reshape(2, 2, 6, 6) % 5  # ties
    a[0, 0, 1, 1] = np.nan
    a[1, 1, 4, 2] = np.nan
    a[1, 1, 5, 3] = np.nan
    check_against_cpu(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), a, atol=0, rtol=0)
    check_against_cpu(lambda x: F.max_pool2d(x.transpose(2, 3)[:, :, 1:], 2, return_indices=True),
                      rand(2, 3, 7, 6), grad=True)
    check_against_cpu(lambda x: F.max_pool2d(x, 2), rand(3, 6, 6), grad=True)  # unbatched
    check_against_cpu(lambda x: F.max_pool2d(x, 2, return_indices=True), rand(0, 3, 6, 6), grad=True)


# (kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG_CASES = [
    (2, None, 0, False, True, None),
    (3, 2, 1, False, True, None),
    (3, 2, 1, True, False, None),
    ((3, 2), (2, 1), (1, 1), True, True, None),
    (3, 2, 1, True, True, 5),
]


@pytest.mark.parametrize("case", AVG_CASES)
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_avg_pool2d(case, dtype):
    k, s, p, ceil, include_pad, divisor = case
    atol, rtol = tol(dtype)
    check_against_cpu(lambda x: F.avg_pool2d(x, k, s, p, ceil, include_pad, divisor), rand(2, 3, 9, 8, dtype=dtype),
                      grad=True, atol=atol, rtol=rtol)


@pytest.mark.parametrize("sizes", [((7, 5), (3, 4)), ((6, 6), (1, 1)), ((5, 5), (7, 7)), ((9, 4), (2, None))])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_adaptive_avg_pool2d(sizes, dtype):
    (h, w), out = sizes
    atol, rtol = tol(dtype)
    check_against_cpu(lambda x: F.adaptive_avg_pool2d(x, out), rand(2, 3, h, w, dtype=dtype), grad=True,
                      atol=atol, rtol=rtol)
    check_against_cpu(lambda x: F.adaptive_avg_pool2d(x[:, ::2], out), rand(2, 4, h, w, dtype=dtype), grad=True,
                      atol=atol, rtol=rtol)


def test_max_pool2d_backward_index_out_of_range():
    g = ember.ones(1, 1, 2, 2).to("cuda")
    idx = ember.from_numpy(np.array([0, 1, 2, 99], dtype=np.int64).reshape(1, 1, 2, 2)).to("cuda")
    with pytest.raises(IndexError):
        ember._C._max_pool2d_backward(g, idx, [1, 1, 3, 3]).cpu()


# ---- normalizations --------------------------------------------------------------

def _batch_norm_step(C, training, dtype, momentum=0.1):
    rng = np.random.default_rng(3)
    rm0 = rng.standard_normal(C)
    rv0 = rng.uniform(0.5, 2.0, C)

    def fn(x, w, b):
        rm = ember.from_numpy(rm0).to(dtype).to(x.device)
        rv = ember.from_numpy(rv0).to(dtype).to(x.device)
        y = F.batch_norm(x, rm, rv, w, b, training=training, momentum=momentum)
        return y, rm, rv  # the running statistics after the step
    return fn


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (8, 5), (2, 4, 3), (1, 2, 1, 1)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_batch_norm(shape, training, dtype):
    if training and shape[0] * int(np.prod(shape[2:])) == 1:
        pytest.skip("a single value per channel has no training variance")
    C = shape[1]
    atol, rtol = tol(dtype)
    check_against_cpu(_batch_norm_step(C, training, dtype), rand(*shape, dtype=dtype, offset=3.0),
                      rand(C, dtype=dtype, seed=1), rand(C, dtype=dtype, seed=2), grad=True, atol=atol, rtol=rtol)


def test_batch_norm_without_affine_or_running_stats():
    atol, rtol = tol(ember.float32)
    check_against_cpu(lambda x: F.batch_norm(x, None, None, training=True), rand(4, 3, 6, 2), grad=True,
                      atol=atol, rtol=rtol)
    check_against_cpu(lambda x: F.batch_norm(x.transpose(0, 1), None, None, training=True), rand(3, 4, 5),
                      grad=True, atol=atol, rtol=rtol)


@pytest.mark.parametrize("case", [((4, 5, 6), [6], True), ((3, 4, 5), [4, 5], True), ((2, 7), [7], False),
                                  ((3, 1000), [1000], True), ((6, 1), [1], True)])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_layer_norm(case, dtype):
    shape, ns, affine = case
    atol, rtol = tol(dtype)
    x = rand(*shape, dtype=dtype, offset=5.0)
    if affine:
        check_against_cpu(lambda x, w, b: F.layer_norm(x, ns, w, b), x, rand(*ns, dtype=dtype, seed=1),
                          rand(*ns, dtype=dtype, seed=2), grad=True, atol=atol, rtol=rtol)
    else:
        check_against_cpu(lambda x: F.layer_norm(x, ns), x, grad=True, atol=atol, rtol=rtol)


def test_layer_norm_large_mean_and_views():
    check_against_cpu(lambda x, w: F.layer_norm(x, [8], w), rand(5, 8, offset=1e4), rand(8, seed=1), grad=True,
                      atol=1e-3, rtol=1e-3)
    check_against_cpu(lambda x: F.layer_norm(x.transpose(0, 1), [3]), rand(3, 4), grad=True, atol=1e-4, rtol=1e-4)
    check_against_cpu(lambda x: F.layer_norm(x, [4]), rand(0, 4), grad=True)


@pytest.mark.parametrize("case", [((2, 6, 4, 4), 3, True), ((3, 4, 5), 1, True), ((2, 6, 3), 6, False),
                                  ((4, 8), 2, True)])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_group_norm(case, dtype):
    shape, groups, affine = case
    atol, rtol = tol(dtype)
    x = rand(*shape, dtype=dtype, offset=2.0)
    C = shape[1]
    if affine:
        check_against_cpu(lambda x, w, b: F.group_norm(x, groups, w, b), x, rand(C, dtype=dtype, seed=1),
                          rand(C, dtype=dtype, seed=2), grad=True, atol=atol, rtol=rtol)
    else:
        check_against_cpu(lambda x: F.group_norm(x, groups), x, grad=True, atol=atol, rtol=rtol)
