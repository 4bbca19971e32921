"""CUDA kernels of the convolutions (cuDNN), pools and normalizations against the CPU
kernels (cuda_compare.check_against_cpu), for what the op database's device check
(test_opdb.py::test_device_matches_cpu: the samples of conv2d / conv1d /
conv_transpose2d, the pools and batch / layer / group norm and of their backward rows,
over strides, paddings ("same", "valid"), dilations, groups, ceil_mode,
count_include_pad, divisor_override, training and eval, with and without affine
parameters, strided, unbatched and empty inputs, in every floating dtype) does not
reach: max pooling over NaN and ties (values and indices), layer_norm over long rows
and far from zero, integer convolutions and out-of-range pooling indices on CUDA. The
per-op case x dtype grids live in the op database. Skipped without a GPU."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

F = ember.nn.functional
LOOSE = {ember.float16: (2e-2, 2e-2), ember.bfloat16: (1e-1, 5e-2)}


def rand(*shape, dtype=ember.float32, seed=0, scale=1.0, offset=0.0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * scale + offset).astype(np.float64)
    return ember.from_numpy(a).to(dtype)


def tol(dtype):
    if dtype in LOOSE:
        return LOOSE[dtype]
    return (1e-9, 1e-9) if dtype == ember.float64 else (1e-4, 1e-4)


# ---- convolutions ----------------------------------------------------------------

def test_conv2d_integer_dtype_is_not_implemented_on_cuda():
    x = ember.ones(1, 1, 3, 3, dtype=ember.int32).to("cuda")
    with pytest.raises(NotImplementedError):
        F.conv2d(x, ember.ones(1, 1, 2, 2, dtype=ember.int32).to("cuda"))


# ---- pools ----------------------------------------------------------------------

def test_max_pool2d_nan_and_ties():
    a = np.arange(2 * 2 * 6 * 6, dtype=np.float32).reshape(2, 2, 6, 6) % 5  # ties
    a[0, 0, 1, 1] = np.nan
    a[1, 1, 4, 2] = np.nan
    a[1, 1, 5, 3] = np.nan
    check_against_cpu(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), a, atol=0, rtol=0)


def test_max_pool2d_backward_index_out_of_range():
    g = ember.ones(1, 1, 2, 2).to("cuda")
    idx = ember.from_numpy(np.array([0, 1, 2, 99], dtype=np.int64).reshape(1, 1, 2, 2)).to("cuda")
    with pytest.raises(IndexError):
        ember._C._max_pool2d_backward(g, idx, [1, 1, 3, 3]).cpu()


# ---- normalizations --------------------------------------------------------------

@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_layer_norm_long_rows(dtype):
    # rows of 1000: blocks of 512 threads (the op database's rows take one warp)
    atol, rtol = tol(dtype)
    check_against_cpu(lambda x, w, b: F.layer_norm(x, [1000], w, b), rand(3, 1000, dtype=dtype, offset=5.0),
                      rand(1000, dtype=dtype, seed=1), rand(1000, dtype=dtype, seed=2), grad=True, atol=atol,
                      rtol=rtol)


def test_layer_norm_large_mean():
    check_against_cpu(lambda x, w: F.layer_norm(x, [8], w), rand(5, 8, offset=1e4), rand(8, seed=1), grad=True,
                      atol=1e-3, rtol=1e-3)
