"""The activations of ops/activation.h on CUDA against the CPU kernels
(lib/cuda/elementwise/activation_extra.cu): values and gradients (the backward
ops) for every floating dtype, non-contiguous, 0-dim and empty inputs, special
values, integer hardtanh/threshold and the in-place forms. Skipped without a GPU."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

FLOATS = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
RNG = np.random.default_rng(0)

KERNELS = {
    "elu": lambda x: F.elu(x, 0.7),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, 1.5),
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 2.0),
    "relu6": lambda x: F.relu6(x * 4),
    "hardsigmoid": lambda x: F.hardsigmoid(x * 4),
    "hardswish": lambda x: F.hardswish(x * 4),
    "mish": lambda x: F.mish(x * 3),
    "logsigmoid": lambda x: F.logsigmoid(x * 10),
    "softshrink": lambda x: F.softshrink(x, 0.3),
    "hardshrink": lambda x: F.hardshrink(x, 0.3),
    "threshold": lambda x: F.threshold(x, 0.1, -2.0),
    "glu": F.glu,
    "prelu": lambda x: F.prelu(x, ember.tensor([0.1, -0.2, 0.3, 0.4], dtype=x.dtype, device=x.device)),
    "softmin": lambda x: F.softmin(x, 1),
}


def randn(*shape, dtype=ember.float32):
    return ember.from_numpy(RNG.standard_normal(shape)).to(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_values_and_grads(name, dtype):
    fn = KERNELS[name]
    check_against_cpu(fn, randn(6, 4, dtype=dtype), grad=True)
    check_against_cpu(lambda x: fn(x.t()), randn(4, 6, dtype=dtype), grad=True)


@pytest.mark.parametrize("name", sorted(set(KERNELS) - {"glu", "prelu", "softmin"}))
def test_zero_dim_empty_and_special(name):
    fn = KERNELS[name]
    check_against_cpu(fn, randn(dtype=ember.float64), grad=True)
    check_against_cpu(fn, randn(0, 3), grad=True)
    special = ember.tensor([float("nan"), float("inf"), -float("inf"), 0.0, 3.0, -3.0, 6.0, 80.0, -80.0])
    check_against_cpu(fn, special)


def test_integer_hardtanh_and_threshold():
    x = ember.tensor([-7, -1, 0, 2, 5, 9], dtype=ember.int32)
    check_against_cpu(lambda v: F.hardtanh(v, -2, 3), x)
    check_against_cpu(lambda v: F.threshold(v, 1, 100), x)


@pytest.mark.parametrize("name", ["elu", "hardtanh", "hardsigmoid", "hardswish", "mish", "threshold"])
def test_inplace(name):
    calls = {
        "elu": lambda x: F.elu(x, 0.5, inplace=True),
        "hardtanh": lambda x: F.hardtanh_(x, -0.5, 0.5),
        "hardsigmoid": lambda x: F.hardsigmoid(x, inplace=True),
        "hardswish": lambda x: F.hardswish(x, inplace=True),
        "mish": lambda x: F.mish(x, inplace=True),
        "threshold": lambda x: F.threshold(x, 0.0, 7.0, inplace=True),
    }

    def fn(x):
        y = x * 1
        calls[name](y)
        return y
    check_against_cpu(fn, randn(5, 7), grad=True)


def test_second_derivative_on_device():
    def fn(x):
        y = F.mish(x) + F.elu(x) + F.logsigmoid(x) + F.hardswish(x)
        (g,) = ember.autograd.grad(y.sum(), x, create_graph=True)
        return g
    check_against_cpu(fn, randn(4, 5, dtype=ember.float64), grad=True)
