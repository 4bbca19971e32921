"""The 3-d convolutions and pools, the transposed 1-d convolution, max-unpooling and the
fractional max pools (functionals and modules) against torch on the same float64 inputs:
values, gradients of every floating input, indices, reprs, state_dict keys, errors."""
import math

import numpy as np
import pytest

import ember
import ember.nn as nn

from _torch_compare import check_same, copy_state, module_pair

torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)


def randn(*shape):
    return rng.standard_normal(shape)


def ties(*shape):
    """Values on a coarse grid: many equal maxima, so the tie rule of the indices shows."""
    return np.round(rng.standard_normal(shape) * 2) / 2


def same_error(fn):
    """fn(F, lib) raises the same exception type with ember and with torch."""
    import torch.nn.functional as TF

    import ember.nn.functional as EF
    with pytest.raises(Exception) as t_err:
        fn(TF, torch)
    with pytest.raises(Exception) as e_err:
        fn(EF, ember)
    assert type(e_err.value).__name__ == type(t_err.value).__name__, (
        f"ember raised {type(e_err.value).__name__}: {e_err.value}; torch raised "
        f"{type(t_err.value).__name__}: {t_err.value}")
    return e_err.value, t_err.value


def t_(lib, a):
    return lib.from_numpy(np.ascontiguousarray(a))


# ---- conv3d ------------------------------------------------------------------------------

CONV3D = [
    # (input shape, weight shape, keywords)
    ((2, 4, 5, 6, 7), (6, 2, 3, 2, 3), dict(stride=(2, 1, 2), padding=(1, 0, 2), dilation=(1, 2, 1),
                                            groups=2)),
    ((1, 3, 6, 5, 4), (4, 3, 2, 2, 2), dict(padding="same", dilation=(2, 1, 1))),
    ((2, 3, 6, 5, 4), (4, 3, 2, 3, 2), dict(padding="valid", stride=2)),
    ((2, 3, 6, 5, 4), (4, 3, 3, 3, 3), dict(padding="same")),
    ((6, 5, 4, 4), (3, 2, 3, 3, 3), dict(padding=1, groups=3)),  # unbatched
    ((0, 3, 5, 5, 5), (2, 3, 2, 2, 2), dict(stride=2)),  # empty batch
    ((2, 2, 4, 4, 4), (2, 1, 1, 1, 1), dict(groups=2)),  # depthwise 1x1x1
    ((1, 1, 3, 3, 3), (1, 1, 3, 3, 3), {}),  # kernel == input
    ((2, 4, 7, 5, 6), (8, 1, 2, 3, 2), dict(stride=(3, 2, 1), padding=(0, 1, 1), groups=4,
                                            dilation=(2, 1, 2))),
]


@pytest.mark.parametrize("xs,ws,kw", CONV3D)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv3d(xs, ws, kw, bias):
    arrays = [randn(*xs), randn(*ws)] + ([randn(ws[0])] if bias else [])
    check_same(torch, lambda F, x, w, *b: F.conv3d(x, w, *b, **kw), *arrays)


def test_conv3d_noncontiguous_input_and_weight():
    check_same(torch, lambda F, x, w: F.conv3d(x.transpose(2, 4), w.transpose(3, 4), stride=(1, 2, 1),
                                               padding=1), randn(2, 3, 6, 5, 4), randn(4, 3, 2, 2, 3))


def test_conv3d_positional_and_float32():
    x, w, b = randn(1, 2, 4, 5, 6), randn(3, 2, 2, 3, 2), randn(3)
    e = nn.functional.conv3d(t_(ember, x).float(), t_(ember, w).float(), t_(ember, b).float(), 1, 1, 1, 1)
    t = torch.nn.functional.conv3d(t_(torch, x).float(), t_(torch, w).float(), t_(torch, b).float(), 1, 1, 1, 1)
    assert str(e.dtype) == "ember.float32"
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-4, atol=1e-5)
    assert e.is_contiguous()


@pytest.mark.parametrize("case", [
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5)), t_(L, randn(6, 2, 3, 3, 3)), groups=2),  # rank
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 2, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2),  # kernel > input
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=3),  # channels
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(5, 2, 3, 3, 3)), groups=2),  # groups | out
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2, padding=-1),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2, stride=0),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2, dilation=0),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=0),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2, stride=(1, 2)),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3)), groups=2),  # weight rank
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), t_(L, randn(5)), groups=2),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2, padding="same",
                          stride=2),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 2, 3, 3, 3)), groups=2, padding="full"),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)).float(), t_(L, randn(6, 2, 3, 3, 3)), groups=2),
    lambda F, L: F.conv3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(6, 4, 0, 1, 1))),  # empty kernel
])
def test_conv3d_errors(case):
    same_error(case)


# ---- transposed convolutions ---------------------------------------------------------------

CONVT3D = [
    ((2, 4, 3, 4, 5), (4, 3, 3, 2, 3), dict(stride=(2, 1, 3), padding=(1, 0, 2), output_padding=(1, 0, 2),
                                            dilation=(1, 2, 1), groups=2)),
    ((2, 4, 3, 4, 5), (4, 3, 3, 2, 3), dict(stride=2, dilation=3, output_padding=2)),  # op >= stride
    ((2, 4, 3, 4, 5), (4, 3, 3, 2, 3), dict(stride=(2, 1, 1), padding=(0, 1, 1), dilation=(3, 2, 2),
                                            output_padding=(2, 1, 1))),
    ((4, 3, 4, 5), (4, 1, 2, 2, 2), dict(groups=4, padding=1)),  # unbatched, depthwise
    ((1, 2, 2, 2, 2), (2, 2, 1, 1, 1), {}),
    ((0, 2, 3, 3, 3), (2, 3, 2, 2, 2), dict(stride=2)),  # empty batch
    ((1, 3, 3, 3, 3), (3, 2, 3, 3, 3), dict(padding=1, output_padding=1, stride=2)),
]


@pytest.mark.parametrize("xs,ws,kw", CONVT3D)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose3d(xs, ws, kw, bias):
    arrays = [randn(*xs), randn(*ws)] + ([randn(ws[1] * kw.get("groups", 1))] if bias else [])
    check_same(torch, lambda F, x, w, *b: F.conv_transpose3d(x, w, *b, **kw), *arrays)


def test_conv_transpose3d_positional_noncontiguous():
    check_same(torch, lambda F, x, w, b: F.conv_transpose3d(x.transpose(3, 4), w, b, 2, 1, 1, 1, 1),
               randn(2, 3, 3, 5, 4), randn(3, 2, 3, 3, 3), randn(2))


CONVT1D = [
    ((2, 4, 7), (4, 3, 3), dict(stride=3, padding=1, output_padding=2, groups=2, dilation=2)),
    ((4, 7), (4, 3, 3), dict(stride=2, output_padding=1)),  # unbatched
    ((1, 2, 5), (2, 3, 4), dict(padding=2)),
    ((0, 2, 5), (2, 3, 4), {}),
]


@pytest.mark.parametrize("xs,ws,kw", CONVT1D)
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose1d(xs, ws, kw, bias):
    arrays = [randn(*xs), randn(*ws)] + ([randn(ws[1] * kw.get("groups", 1))] if bias else [])
    check_same(torch, lambda F, x, w, *b: F.conv_transpose1d(x, w, *b, **kw), *arrays)
    check_same(torch, lambda F, x, w, *b: F.conv_transpose1d(x.transpose(-1, -2).transpose(-1, -2), w,
                                                             *b, **kw), *arrays)


@pytest.mark.parametrize("case", [
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 3, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3))),  # channels
    lambda F, L: F.conv_transpose3d(t_(L, randn(5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3))),  # rank
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), stride=2,
                                    output_padding=(1, 2, 0)),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), groups=3),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), padding=-1),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), output_padding=-1),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), stride=0),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), dilation=0),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 1, 1, 1)), t_(L, randn(4, 3, 3, 3, 3)), padding=2),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)),
                                    t_(L, randn(4))),  # bias size
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 5, 6, 7)), t_(L, randn(4, 3, 3, 3, 3)), padding="same"),
    lambda F, L: F.conv_transpose3d(t_(L, randn(2, 4, 0, 6, 7)), t_(L, randn(4, 3, 3, 3, 3))),
    lambda F, L: F.conv_transpose1d(t_(L, randn(2, 3, 7)), t_(L, randn(4, 3, 3))),  # channels
    lambda F, L: F.conv_transpose1d(t_(L, randn(2, 4, 6, 7)), t_(L, randn(4, 3, 3))),  # rank
    lambda F, L: F.conv_transpose1d(t_(L, randn(2, 4, 7)), t_(L, randn(4, 3, 3)), stride=(1, 2)),
    lambda F, L: F.conv_transpose1d(t_(L, randn(2, 4, 7)), t_(L, randn(4, 3, 3)), output_padding=1),
    lambda F, L: F.conv_transpose1d(t_(L, randn(2, 4, 1)), t_(L, randn(4, 3, 3)), padding=3),
])
def test_conv_transpose_errors(case):
    same_error(case)


# ---- avg / max / adaptive / LP pooling -------------------------------------------------------

AVG = [
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), padding=(1, 1, 0), ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(3, 2, 2), divisor_override=5),
    dict(kernel_size=2, stride=(2, 1, 3), padding=1, count_include_pad=False),
    dict(kernel_size=(1, 3, 3), stride=1, padding=(0, 1, 1)),
    dict(kernel_size=2, stride=[]),
]


@pytest.mark.parametrize("kw", AVG)
def test_avg_pool3d(kw):
    check_same(torch, lambda F, x: F.avg_pool3d(x, **kw), randn(2, 3, 7, 8, 9))
    check_same(torch, lambda F, x: F.avg_pool3d(x.transpose(2, 4), **kw), randn(1, 2, 9, 8, 7))
    check_same(torch, lambda F, x: F.avg_pool3d(x, **kw), randn(3, 7, 8, 9))  # unbatched
    check_same(torch, lambda F, x: F.avg_pool3d(x, **kw), randn(0, 3, 7, 8, 9))


MAX = [
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), padding=(1, 1, 0), dilation=(2, 1, 3), ceil_mode=True),
    dict(kernel_size=(3, 2, 2)),
    dict(kernel_size=2, stride=1),
    dict(kernel_size=(3, 3, 1), stride=(2, 1, 1), padding=(1, 1, 0), dilation=2),
]


@pytest.mark.parametrize("kw", MAX)
@pytest.mark.parametrize("data", [randn, ties])
def test_max_pool3d(kw, data):
    check_same(torch, lambda F, x: F.max_pool3d(x, **kw, return_indices=True), data(2, 3, 7, 8, 9))
    check_same(torch, lambda F, x: F.max_pool3d_with_indices(x, **kw), data(1, 2, 7, 8, 9))
    check_same(torch, lambda F, x: F.max_pool3d(x, **kw), data(2, 7, 8, 9))  # unbatched
    check_same(torch, lambda F, x: F.max_pool3d(x.transpose(3, 4), **kw, return_indices=True),
               data(1, 2, 7, 9, 8))
    check_same(torch, lambda F, x: F.max_pool3d(x, **kw, return_indices=True), data(0, 2, 7, 8, 9))


def test_max_pool3d_positional_and_integers():
    check_same(torch, lambda F, x: F.max_pool3d(x, 2, 1, 1, 1, True, True), ties(1, 2, 4, 5, 6))
    x = rng.integers(-5, 5, (1, 2, 4, 4, 4))
    e = nn.functional.max_pool3d(t_(ember, x), 2, return_indices=True)
    t = torch.nn.functional.max_pool3d(t_(torch, x), 2, return_indices=True)
    for a, b in zip(e, t):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


ADAPTIVE_SIZES = [(3, 4, 5), 2, (None, 3, 1), (7, 8, 9), (4, 11, 2), (1, 1, 1), [2, None, None]]


@pytest.mark.parametrize("size", ADAPTIVE_SIZES)
@pytest.mark.parametrize("data", [randn, ties])
def test_adaptive_pool3d(size, data):
    check_same(torch, lambda F, x: F.adaptive_avg_pool3d(x, size), data(2, 3, 7, 8, 9))
    check_same(torch, lambda F, x: F.adaptive_max_pool3d(x, size, True), data(2, 3, 7, 8, 9))
    check_same(torch, lambda F, x: F.adaptive_max_pool3d_with_indices(x, size), data(3, 7, 8, 9))
    check_same(torch, lambda F, x: F.adaptive_avg_pool3d(x.transpose(2, 3), size), data(1, 2, 8, 7, 9))
    check_same(torch, lambda F, x: F.adaptive_max_pool3d(x, size), data(0, 3, 7, 8, 9))
    check_same(torch, lambda F, x: F.adaptive_avg_pool3d(x, size), data(0, 3, 7, 8, 9))


def test_adaptive_pool3d_empty_output():
    check_same(torch, lambda F, x: F.adaptive_avg_pool3d(x, (0, 2, 2)), randn(2, 3, 4, 4, 4), grad=False)
    check_same(torch, lambda F, x: F.adaptive_max_pool3d(x, (2, 0, 2), True), randn(2, 3, 4, 4, 4), grad=False)


@pytest.mark.parametrize("norm,kw", [
    (2, dict(kernel_size=2, stride=(1, 2, 2), ceil_mode=True)),
    (4.0, dict(kernel_size=(2, 3, 2))),
    (1, dict(kernel_size=(3, 1, 2), stride=2)),
    (float("inf"), dict(kernel_size=2)),
    (-float("inf"), dict(kernel_size=2, stride=1)),
])
def test_lp_pool3d(norm, kw):
    check_same(torch, lambda F, x: F.lp_pool3d(x, norm, **kw), np.abs(randn(2, 3, 6, 7, 8)) + 0.1)
    check_same(torch, lambda F, x: F.lp_pool3d(x, norm, **kw), np.abs(randn(3, 6, 7, 8)) + 0.1)


def test_lp_pool3d_fractional_norm_values():
    # values exact; the gradient of x^(1/p) goes through ember's pow backward (see the
    # report: its exponent - 1 is rounded to float32, ~1e-8 relative)
    check_same(torch, lambda F, x: F.lp_pool3d(x, 1.5, 2), np.abs(randn(1, 2, 4, 4, 4)) + 0.1,
               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", [
    lambda F, L: F.avg_pool3d(t_(L, randn(5, 6, 7)), 2),  # rank
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, padding=2),  # pad > k / 2
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 8),  # kernel > input
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, divisor_override=0),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, stride=0),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 0),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 0, 5, 6, 7)), 2),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, padding=-1),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), (2, 2)),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, (2, 2)),
    lambda F, L: F.avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2.0),
    lambda F, L: F.max_pool3d(t_(L, randn(5, 6, 7)), 2),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, padding=2),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 8),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, dilation=0),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, padding=-1),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 0, 6, 7)), 2),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), (2, 2)),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 2, 2, 0, (1, 1)),
    lambda F, L: F.max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 0),
    lambda F, L: F.adaptive_avg_pool3d(t_(L, randn(5, 6, 7)), 2),
    lambda F, L: F.adaptive_avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), -1),
    lambda F, L: F.adaptive_avg_pool3d(t_(L, randn(2, 3, 0, 6, 7)), 2),
    lambda F, L: F.adaptive_avg_pool3d(t_(L, randn(2, 3, 5, 6, 7)), (2, 2)),
    lambda F, L: F.adaptive_max_pool3d(t_(L, randn(5, 6, 7)), 2),
    lambda F, L: F.adaptive_max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), (2, 2)),
    lambda F, L: F.adaptive_max_pool3d(t_(L, randn(2, 0, 5, 6, 7)), 2),
    lambda F, L: F.adaptive_max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), -1),
    lambda F, L: F.adaptive_max_pool3d(t_(L, randn(2, 3, 5, 6, 7)), None),
    lambda F, L: F.lp_pool3d(t_(L, randn(2, 3, 5, 6, 7)), 0, 2),
    lambda F, L: F.lp_pool3d(t_(L, randn(5, 6, 7)), 2, 2),
])
def test_pool3d_errors(case):
    same_error(case)


# ---- max_unpool --------------------------------------------------------------------------

UNPOOL = [
    (3, (2, 3, 6, 8, 10), dict(kernel_size=2)),
    (3, (2, 3, 6, 8, 10), dict(kernel_size=3, stride=2, padding=1)),
    (3, (3, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2))),
    (2, (2, 3, 8, 10), dict(kernel_size=2)),
    (2, (2, 3, 9, 10), dict(kernel_size=3, stride=2, padding=1)),
    (2, (3, 8, 10), dict(kernel_size=(2, 3), stride=(2, 1))),
    (1, (2, 3, 10), dict(kernel_size=2)),
    (1, (2, 3, 11), dict(kernel_size=3, stride=2, padding=1)),
    (1, (3, 10), dict(kernel_size=2, stride=1)),
]


@pytest.mark.parametrize("nd,shape,kw", UNPOOL)
@pytest.mark.parametrize("with_size", [False, True])
def test_max_unpool_round_trip(nd, shape, kw, with_size):
    x = ties(*shape)
    pool = getattr(torch.nn.functional, f"max_pool{nd}d")
    values, indices = pool(torch.from_numpy(x), return_indices=True, **kw)
    size = {"output_size": list(shape[-nd:])} if with_size else {}
    try:
        expected = getattr(torch.nn.functional, f"max_unpool{nd}d")(values, indices, **kw, **size)
    except RuntimeError:  # an index past the default output size: both must refuse
        same_error(lambda F, L: getattr(F, f"max_unpool{nd}d")(
            t_(L, values.numpy()), t_(L, indices.numpy()), **kw, **size))
        return
    check_same(torch, lambda F, v, i: getattr(F, f"max_unpool{nd}d")(v, i, **kw, **size),
               values.numpy(), indices.numpy(), nograd=(1,))
    # and the round trip through ember's own max pool
    ev, ei = getattr(nn.functional, f"max_pool{nd}d")(t_(ember, x), return_indices=True, **kw)
    eu = getattr(nn.functional, f"max_unpool{nd}d")(ev, ei, **kw, **size)
    np.testing.assert_array_equal(eu.numpy(), expected.numpy())


def test_max_unpool_output_size_with_batch_dims():
    v, i = torch.nn.functional.max_pool3d(torch.from_numpy(randn(2, 3, 5, 6, 8)), 2, return_indices=True)
    check_same(torch, lambda F, a, b: F.max_unpool3d(a, b, 2, output_size=(2, 3, 5, 6, 8)), v.numpy(),
               i.numpy(), nograd=(1,))


@pytest.mark.parametrize("case", [
    lambda F, L, v, i: F.max_unpool3d(v[0, 0], i[0, 0], 2),  # rank
    lambda F, L, v, i: F.max_unpool3d(v, i.int(), 2),  # index dtype
    lambda F, L, v, i: F.max_unpool3d(v, i[:, :, :1], 2),  # shapes differ
    lambda F, L, v, i: F.max_unpool3d(v, i + 1000, 2),  # index out of range
    lambda F, L, v, i: F.max_unpool3d(v, i - 1000, 2),
    lambda F, L, v, i: F.max_unpool3d(v, i, 2, output_size=(9, 6, 8)),
    lambda F, L, v, i: F.max_unpool3d(v, i, 2, output_size=(6, 8)),
    lambda F, L, v, i: F.max_unpool3d(v, i, 2, stride=0),
    lambda F, L, v, i: F.max_unpool3d(v[:, :0], i[:, :0], 2),
    lambda F, L, v, i: F.max_unpool2d(v[:, :, 0], i[:, :, 0], 2),  # indices past a 2-d plane
    lambda F, L, v, i: F.max_unpool2d(v[0, 0, 0], i[0, 0, 0], 2),  # rank
    lambda F, L, v, i: F.max_unpool2d(v, i, 2),  # rank 5
    lambda F, L, v, i: F.max_unpool1d(v[0, 0, 0, 0], i[0, 0, 0, 0], 2),  # rank
    lambda F, L, v, i: F.max_unpool1d(v[:, :, 0, 0], i[:, :, 0, 0] + 100, 2),
])
def test_max_unpool_errors(case):
    v, i = torch.nn.functional.max_pool3d(torch.from_numpy(randn(2, 3, 4, 6, 8)), 2, return_indices=True)
    v, i = v.numpy(), i.numpy()
    same_error(lambda F, L: case(F, L, t_(L, v), t_(L, i)))


# ---- fractional max pooling ----------------------------------------------------------------

FRAC2D = [((2, 3, 9, 11), 3, (4, 5)), ((2, 3, 17, 23), (2, 3), (8, 10)), ((1, 2, 50, 37), 2, (25, 18)),
          ((3, 9, 11), 2, (5, 7)), ((2, 3, 9, 11), 2, (1, 8)), ((2, 3, 6, 6), 2, (5, 5)),
          ((0, 3, 9, 11), 2, (4, 5))]
FRAC3D = [((2, 3, 7, 9, 11), 2, (3, 4, 5)), ((1, 2, 13, 17, 10), (3, 2, 2), (6, 8, 4)),
          ((2, 9, 11, 8), 2, (5, 7, 3)), ((1, 1, 4, 4, 5), 2, (1, 2, 3))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("data", [randn, ties])
def test_fractional_max_pool_same_samples(dtype, data):
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == np.float32 else {}
    for nd, cases in ((2, FRAC2D), (3, FRAC3D)):
        for shape, k, size in cases:
            batch = 1 if len(shape) == nd + 1 else max(shape[0], 1)
            samples = rng.random((batch, shape[-nd - 1], nd)).astype(dtype)
            fn = f"fractional_max_pool{nd}d"
            check_same(torch, lambda F, x, s: getattr(F, fn)(x, k, output_size=size, return_indices=True,
                                                              _random_samples=s),
                       data(*shape).astype(dtype), samples, nograd=(1,), **tol)
            check_same(torch, lambda F, x, s: getattr(F, fn + "_with_indices")(x, k, size,
                                                                               _random_samples=s),
                       data(*shape).astype(dtype), samples, nograd=(1,), **tol)


def test_fractional_max_pool_ratio_extreme_samples_and_noncontiguous():
    check_same(torch, lambda F, x, s: F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.7), _random_samples=s),
               randn(2, 3, 20, 15), rng.random((2, 3, 2)), nograd=(1,))
    check_same(torch, lambda F, x, s: F.fractional_max_pool3d(x, 2, output_ratio=0.5, _random_samples=s),
               randn(2, 3, 10, 20, 15), rng.random((2, 3, 3)), nograd=(1,))
    # samples of a larger batch, 0 and values near 1; a transposed input
    s = np.array([[[0.0, 0.999999]], [[0.5, 0.0]], [[0.9, 0.1]]])
    check_same(torch, lambda F, x, s: F.fractional_max_pool2d(x.transpose(2, 3), (3, 2), (5, 4), True,
                                                              _random_samples=s),
               randn(2, 1, 9, 12), s, nograd=(1,))


def test_fractional_max_pool_generator():
    x = t_(ember, randn(2, 3, 12, 12))
    ember.manual_seed(3)
    a, ia = nn.functional.fractional_max_pool2d(x, 2, output_size=5, return_indices=True)
    ember.manual_seed(3)
    b, ib = nn.functional.fractional_max_pool2d(x, 2, output_size=5, return_indices=True)
    np.testing.assert_array_equal(ia.numpy(), ib.numpy())
    assert tuple(a.shape) == (2, 3, 5, 5)
    flat = x.reshape(2, 3, 144).numpy()
    np.testing.assert_array_equal(np.take_along_axis(flat, ia.reshape(2, 3, 25).numpy(), 2),
                                  a.reshape(2, 3, 25).numpy())
    # the samples are those ember.rand draws: passing them explicitly gives the same result
    ember.manual_seed(3)
    s = ember.rand(2, 3, 2, dtype=x.dtype)
    c = nn.functional.fractional_max_pool2d(x, 2, output_size=5, _random_samples=s)
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    y = nn.functional.fractional_max_pool3d(t_(ember, randn(3, 8, 8, 8)), 2, output_ratio=0.5)
    assert tuple(y.shape) == (3, 4, 4, 4)


@pytest.mark.parametrize("case", [
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3),  # no size / ratio
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (8, 5), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 10), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(9, 11)), 3, (4, 5), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 5), _random_samples=s[:1]),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 5), _random_samples=s[:, :2]),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 5), _random_samples=s[:, :, :1]),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 5), _random_samples=s.float()),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 5), _random_samples=s[0]),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 0, (4, 5), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 0, 9, 11)), 2, (4, 5), _random_samples=s[:, :0]),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), (2, 2, 2), (4, 5), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 2, (4, 5, 6), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 2, output_ratio=0.5, _random_samples=s),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 2, output_ratio=(.5, .5, .5),
                                            _random_samples=s),
    lambda F, L, s: F.fractional_max_pool3d(t_(L, randn(2, 3, 7, 9, 11)), 3, (6, 4, 5),
                                            _random_samples=s[:, :, :1].expand(2, 3, 3)),
    lambda F, L, s: F.fractional_max_pool3d(t_(L, randn(7, 9, 11)), 3, (3, 4, 5), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool3d(t_(L, randn(2, 3, 4, 4, 4)), 2, (1, 2, 3),  # 3 + 2 - 1 == 4
                                            _random_samples=s[:, :, :1].expand(2, 3, 3)),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 5, 6)), 2, (4, 6), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool3d(t_(L, randn(2, 3, 7, 9, 11)), 3, (3, 4, 5), _random_samples=s),
    lambda F, L, s: F.fractional_max_pool3d(t_(L, randn(2, 3, 7, 9, 11)), 3),
    lambda F, L, s: F.fractional_max_pool2d(t_(L, randn(2, 3, 9, 11)), 3, (4, 5),
                                            _random_samples=s.requires_grad_()),
    lambda F, L, s: F.fractional_max_pool3d(t_(L, randn(2, 3, 7, 9, 11)), (2, 2), (3, 4, 5),
                                            _random_samples=s[:, :, :1].expand(2, 3, 3)),
])
def test_fractional_max_pool_errors(case):
    s = rng.random((2, 3, 2))
    same_error(lambda F, L: case(F, L, t_(L, s)))


# ---- modules -----------------------------------------------------------------------------

def _same_module_output(e_mod, t_mod, *arrays, tol=1e-10, **call):
    """Same values and gradients (input and parameters) of two modules on the same input."""
    e_in = [t_(ember, a).requires_grad_() for a in arrays]
    t_in = [t_(torch, a).requires_grad_() for a in arrays]
    e_out, t_out = e_mod(*e_in, **call), t_mod(*t_in, **call)
    e_out = e_out if isinstance(e_out, tuple) else (e_out,)
    t_out = t_out if isinstance(t_out, tuple) else (t_out,)
    for a, b in zip(e_out, t_out):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    seed = randn(*t_out[0].shape)
    e_out[0].backward(t_(ember, seed))
    t_out[0].backward(t_(torch, seed))
    for a, b in zip(e_in, t_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)
    e_params = dict(e_mod.named_parameters())
    for name, p in t_mod.named_parameters():
        np.testing.assert_allclose(e_params[name].grad.numpy(), p.grad.numpy(), rtol=tol, atol=tol)


CONV_MODULES = [
    ("Conv3d", (4, 6, 3), dict(stride=2, padding=1, groups=2), (2, 4, 6, 7, 5)),
    ("Conv3d", (3, 2, (2, 3, 2)), dict(padding="same", dilation=(2, 1, 1)), (2, 3, 5, 6, 4)),
    ("Conv3d", (3, 2, 3), dict(padding=(1, 2, 1), padding_mode="reflect"), (1, 3, 5, 6, 4)),
    ("Conv3d", (3, 2, 3), dict(padding=1, padding_mode="replicate", bias=False), (3, 5, 6, 4)),
    ("Conv3d", (3, 2, (3, 2, 3)), dict(padding=(2, 1, 1), padding_mode="circular", stride=(1, 2, 1)),
     (2, 3, 5, 6, 4)),
    ("Conv3d", (2, 2, 2), dict(padding="same", padding_mode="reflect"), (1, 2, 4, 5, 6)),
    ("ConvTranspose3d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), (2, 4, 3, 4, 5)),
    ("ConvTranspose3d", (2, 3, (2, 3, 2)), dict(dilation=(2, 1, 1), bias=False), (2, 3, 4, 5)),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2), (2, 4, 7)),
    ("ConvTranspose1d", (2, 3, 4), dict(dilation=2, bias=False), (2, 5)),
]


@pytest.mark.parametrize("name,args,kw,shape", CONV_MODULES)
@pytest.mark.filterwarnings("ignore:Using padding='same'")
def test_conv_modules(name, args, kw, shape):
    e, t = module_pair(torch, lambda: getattr(nn, name)(*args, **kw),
                       lambda: getattr(torch.nn, name)(*args, **kw))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert tuple(e._reversed_padding_repeated_twice) == tuple(t._reversed_padding_repeated_twice)
    _same_module_output(e, t, randn(*shape))


def test_conv_transpose_output_size():
    e, t = module_pair(torch, lambda: nn.ConvTranspose3d(2, 3, 3, stride=(2, 3, 2), padding=1),
                       lambda: torch.nn.ConvTranspose3d(2, 3, 3, stride=(2, 3, 2), padding=1))
    for size in [(6, 8, 7), (1, 3, 6, 8, 7), (5, 7, 7), [1, 3, 6, 9, 8]]:
        _same_module_output(e, t, randn(1, 2, 3, 3, 4), output_size=size)
    for bad in [(8, 8, 8), (6, 8)]:
        with pytest.raises(ValueError):
            t(torch.zeros(1, 2, 3, 3, 4, dtype=torch.float64), output_size=bad)
        with pytest.raises(ValueError):
            e(ember.zeros(1, 2, 3, 3, 4, dtype=ember.float64), output_size=bad)
    e, t = module_pair(torch, lambda: nn.ConvTranspose1d(2, 3, 3, stride=3),
                       lambda: torch.nn.ConvTranspose1d(2, 3, 3, stride=3))
    for size in [(15,), (3, 16), [17]]:
        _same_module_output(e, t, randn(2, 5), output_size=size)  # unbatched: 1 or 2 elements


@pytest.mark.parametrize("name,args,kw", [
    ("Conv3d", (4, 6, 3), dict(groups=3)),
    ("Conv3d", (4, 6, 3), dict(groups=0)),
    ("Conv3d", (4, 6, 3), dict(padding="full")),
    ("Conv3d", (4, 6, 3), dict(padding="same", stride=2)),
    ("Conv3d", (4, 6, 3), dict(padding_mode="mirror")),
    ("ConvTranspose3d", (4, 6, 3), dict(padding_mode="reflect")),
    ("ConvTranspose1d", (4, 6, 3), dict(groups=4)),
    ("ConvTranspose1d", (4, 6, 3), dict(padding_mode="circular")),
])
def test_conv_module_argument_errors(name, args, kw):
    with pytest.raises(Exception) as t_err:
        getattr(torch.nn, name)(*args, **kw)
    with pytest.raises(type(t_err.value)):
        getattr(nn, name)(*args, **kw)


@pytest.mark.parametrize("name,args", [
    ("Conv3d", (6, 4, 3)), ("Conv3d", (6, 4, (3, 1, 2))), ("ConvTranspose3d", (6, 4, 3)),
    ("ConvTranspose1d", (6, 4, 5)), ("ConvTranspose3d", (6, 8, 2)),
])
def test_conv_module_init_follows_torch(name, args):
    """kaiming_uniform_(a=sqrt(5)): weights in +-1/sqrt(fan_in), bias in the same bound."""
    ember.manual_seed(0)
    m = getattr(nn, name)(*args, groups=2)
    t = getattr(torch.nn, name)(*args, groups=2)
    w = m.weight.detach().numpy()
    assert m.weight.shape == tuple(t.weight.shape)
    fan_in = w.shape[1] * int(np.prod(w.shape[2:]))
    bound = 1 / math.sqrt(fan_in)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    assert abs(w.mean()) < 0.2 * bound  # uniform around 0


POOL_MODULES = [
    ("MaxPool3d", (3,), dict(stride=2, padding=1, dilation=1, ceil_mode=True), (2, 3, 7, 8, 9)),
    ("MaxPool3d", ((2, 3, 2),), dict(return_indices=True, dilation=(1, 2, 1)), (3, 7, 8, 9)),
    ("AvgPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False), (2, 3, 7, 8, 9)),
    ("AvgPool3d", ((2, 3, 2),), dict(divisor_override=3), (3, 7, 8, 9)),
    ("AdaptiveAvgPool3d", ((3, None, 4),), {}, (2, 3, 7, 8, 9)),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True), (2, 3, 7, 8, 9)),
    ("AdaptiveMaxPool3d", ((1, 3, 2),), {}, (3, 7, 8, 9)),
    ("LPPool3d", (2, 2), dict(stride=(1, 2, 2), ceil_mode=True), (2, 3, 7, 8, 9)),
    ("LPPool3d", (4, (2, 1, 2)), {}, (3, 7, 8, 9)),
]


@pytest.mark.parametrize("name,args,kw,shape", POOL_MODULES)
def test_pool_modules(name, args, kw, shape):
    e, t = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(e) == repr(t)
    x = np.abs(randn(*shape)) + 0.1 if name == "LPPool3d" else randn(*shape)
    _same_module_output(e, t, x, tol=1e-8)


def test_lp_pool_module_refuses_norm_zero():
    with pytest.raises(ValueError):
        torch.nn.LPPool3d(0, 2)
    with pytest.raises(ValueError):
        nn.LPPool3d(0, 2)


@pytest.mark.parametrize("nd,kw,shape", [
    (1, dict(kernel_size=2), (2, 3, 10)), (2, dict(kernel_size=3, stride=2, padding=1), (2, 3, 9, 9)),
    (3, dict(kernel_size=(2, 2, 3), stride=(2, 1, 3)), (2, 3, 4, 6, 9)), (3, dict(kernel_size=2), (3, 4, 6, 8)),
])
def test_unpool_modules(nd, kw, shape):
    t_pool = getattr(torch.nn, f"MaxPool{nd}d")(**kw, return_indices=True)
    e_un, t_un = getattr(nn, f"MaxUnpool{nd}d")(**kw), getattr(torch.nn, f"MaxUnpool{nd}d")(**kw)
    assert repr(e_un) == repr(t_un)
    assert list(e_un.state_dict()) == []
    v, i = t_pool(torch.from_numpy(ties(*shape)))
    check_same(torch, lambda F, a, b: (e_un if F is nn.functional else t_un)(a, b, output_size=shape[-nd:]),
               v.numpy(), i.numpy(), nograd=(1,))


def test_fractional_modules():
    s2, s3 = rng.random((2, 3, 2)), rng.random((2, 3, 3))
    for nd, s, shape, kw in [(2, s2, (2, 3, 11, 12), dict(output_size=(5, 4))),
                             (2, s2, (2, 3, 11, 12), dict(output_ratio=0.5, return_indices=True)),
                             (3, s3, (2, 3, 8, 9, 7), dict(output_size=3, return_indices=True)),
                             (3, s3, (2, 3, 8, 9, 7), dict(output_ratio=(0.5, 0.4, 0.6)))]:
        name = f"FractionalMaxPool{nd}d"
        e = getattr(nn, name)(2, _random_samples=t_(ember, s), **kw)
        t = getattr(torch.nn, name)(2, _random_samples=t_(torch, s), **kw)
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict()) == ["_random_samples"]
        assert (e.kernel_size, e.output_size, e.output_ratio) == (t.kernel_size, t.output_size, t.output_ratio)
        _same_module_output(e, t, randn(*shape))
        # without samples: no buffer in the state_dict, random windows of the right shape
        e = getattr(nn, name)(2, **kw)
        t = getattr(torch.nn, name)(2, **kw)
        assert list(e.state_dict()) == list(t.state_dict()) == []
        out_e = e(t_(ember, randn(*shape)))
        out_t = t(t_(torch, randn(*shape)))
        out_e = out_e if isinstance(out_e, tuple) else (out_e,)
        out_t = out_t if isinstance(out_t, tuple) else (out_t,)
        assert [tuple(o.shape) for o in out_e] == [tuple(o.shape) for o in out_t]


@pytest.mark.parametrize("name,args,kw", [
    ("FractionalMaxPool2d", (3,), {}),
    ("FractionalMaxPool2d", (3,), dict(output_size=2, output_ratio=0.5)),
    ("FractionalMaxPool2d", (3,), dict(output_ratio=1.5)),
    ("FractionalMaxPool2d", (3,), dict(output_ratio=(0.5,))),
    ("FractionalMaxPool3d", (0,), dict(output_size=2)),
    ("FractionalMaxPool3d", ((2, 0, 2),), dict(output_size=2)),
    ("FractionalMaxPool3d", (2,), dict(output_ratio=(0.5, 0.5, 1.0))),
])
def test_fractional_module_argument_errors(name, args, kw):
    with pytest.raises(Exception) as t_err:
        getattr(torch.nn, name)(*args, **kw)
    with pytest.raises(type(t_err.value)):
        getattr(nn, name)(*args, **kw)


# ---- BatchNorm3d / InstanceNorm3d ---------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, dict(momentum=None), dict(affine=False), dict(track_running_stats=False),
                                dict(bias=False, eps=1e-3)])
def test_batch_norm3d(kw):
    e, t = module_pair(torch, lambda: nn.BatchNorm3d(3, **kw), lambda: torch.nn.BatchNorm3d(3, **kw))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    for _ in range(2):
        _same_module_output(e, t, randn(2, 3, 4, 3, 5), tol=1e-9)
    e.eval()
    t.eval()
    _same_module_output(e, t, randn(2, 3, 4, 3, 5), tol=1e-9)
    for name, buf in t.state_dict().items():
        np.testing.assert_allclose(e.state_dict()[name].numpy(), buf.numpy(), rtol=1e-10)
    with pytest.raises(ValueError):
        t(torch.zeros(2, 3, 4, 4, dtype=torch.float64))
    with pytest.raises(ValueError):
        e(ember.zeros(2, 3, 4, 4, dtype=ember.float64))


def test_instance_norm3d():
    e, t = module_pair(torch, lambda: nn.InstanceNorm3d(3, affine=True, track_running_stats=True),
                       lambda: torch.nn.InstanceNorm3d(3, affine=True, track_running_stats=True))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    _same_module_output(e, t, randn(2, 3, 4, 3, 5), tol=1e-9)
    _same_module_output(e, t, randn(3, 4, 3, 5), tol=1e-9)


def test_state_dict_round_trip_between_libraries():
    t = torch.nn.Sequential(torch.nn.Conv3d(2, 4, 3, padding=1), torch.nn.BatchNorm3d(4),
                            torch.nn.ConvTranspose3d(4, 2, 2, stride=2)).double()
    e = nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4),
                      nn.ConvTranspose3d(4, 2, 2, stride=2)).double()
    copy_state(t, e)
    assert list(e.state_dict()) == list(t.state_dict())
    e.eval()
    t.eval()
    _same_module_output(e, t, randn(1, 2, 3, 4, 5), tol=1e-9)
