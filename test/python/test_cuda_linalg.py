"""Matrix products on CUDA (cuBLAS / cuBLASLt, lib/cuda/blas/) against the CPU
kernels, for what the op database's device check (test_opdb.py::test_device_matches_cpu:
the samples of mm, bmm, addmm, mv and dot and of matmul / linear reaching them, with
transposed, strided, broadcast-batch and empty operands, beta / alpha, every dtype the
row claims, and float64 gradients) does not reach: sizes past its small samples,
operands read in place with a leading dimension (sub-blocks, permuted or sliced
batches) or a stride of 0, a batch that does not fold into rows, outer, the
fused-bias path (alpha, layouts, alignment), beta == 0 ignoring NaN, integer dtypes
refused on CUDA and the errors' messages, TensorFloat-32 on and off, a training step,
streams and steady-state allocations. The per-op shape x dtype grids live in the op
database. Needs a GPU."""
import numpy as np
import pytest

import ember
from cuda_compare import check_against_cpu

pytestmark = pytest.mark.cuda

FLOATS = [ember.float32, ember.float64, ember.float16, ember.bfloat16]
INTS = [ember.int64, ember.int32, ember.int16, ember.int8, ember.uint8]

# Products sum k terms: float16/bfloat16 inputs are rounded once, the sums are in
# float32 on both devices but in different orders.
TOL = {
    ember.float32: dict(atol=1e-4, rtol=1e-4),
    ember.float64: dict(atol=1e-10, rtol=1e-10),
    ember.float16: dict(atol=2e-2, rtol=2e-2),
    ember.bfloat16: dict(atol=1e-1, rtol=5e-2),
}


@pytest.fixture(autouse=True)
def full_float32_precision():
    """float32 products in full precision (PyTorch's default), whatever a test sets."""
    saved = ember.backends.cuda.matmul.allow_tf32
    ember.backends.cuda.matmul.allow_tf32 = False
    yield
    ember.backends.cuda.matmul.allow_tf32 = saved


def rand(*shape, dtype=ember.float32, seed=0):
    rng = np.random.default_rng(seed + 97 * len(shape) + sum(shape))
    return ember.from_numpy(rng.standard_normal(shape)).to(dtype)


def check(fn, *args, dtype=ember.float32, grad=True):
    return check_against_cpu(fn, *args, grad=grad, **TOL[dtype])


# ---- mm -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,k,n", [(64, 33, 17), (128, 256, 64)])
def test_mm_larger_sizes(dtype, m, k, n):
    # Past the op database's small samples: odd sizes, and sizes the tensor-core kernels tile.
    check(ember.mm, rand(m, k, dtype=dtype), rand(k, n, dtype=dtype, seed=1), dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mm_of_sliced_operands(dtype):
    big = rand(12, 16, dtype=dtype)
    # A sub-block: row stride (leading dimension) 16 > 5 columns.
    check(lambda x: ember.mm(x[2:9, 3:8], x[4:9, 1:12]), big, dtype=dtype)
    # A transposed sub-block.
    check(lambda x: ember.mm(x[1:6, 2:9].t(), x[3:8, :4]), big, dtype=dtype)
    # An expanded (stride 0) operand.
    check(lambda x, v: ember.mm(x[:5, :4], v.expand(4, 6)), big, rand(6, dtype=dtype), dtype=dtype)


@pytest.mark.parametrize("dtype", INTS + [ember.bool])
def test_integer_products_raise_not_implemented_naming_op_and_dtype(dtype):
    a = ember.ones(2, 2, dtype=dtype, device="cuda")
    for name, fn in [("mm", lambda: ember.mm(a, a)), ("bmm", lambda: ember.bmm(a[None], a[None])),
                     ("mv", lambda: ember.mv(a, a[0])), ("dot", lambda: ember.dot(a[0], a[0])),
                     ("addmm", lambda: ember.addmm(a, a, a))]:
        with pytest.raises(NotImplementedError, match=name):
            fn()
    if dtype == ember.int64:  # PyTorch's name of the dtype, as in its message
        with pytest.raises(NotImplementedError, match="mm: not implemented for 'Long' on CUDA"):
            ember.mm(a, a)


def test_errors_name_the_op_and_shapes_on_cuda():
    a = ember.ones(2, 3, device="cuda")
    with pytest.raises(RuntimeError, match=r"mm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        ember.mm(a, a)
    with pytest.raises(RuntimeError, match="same device"):
        ember.mm(a, ember.ones(3, 2))


# ---- bmm and matmul -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_bmm_of_permuted_and_sliced_batches(dtype):
    a, b = rand(3, 6, 5, dtype=dtype), rand(7, 3, 6, dtype=dtype, seed=1)
    # Batch dimension not outermost in memory (batch stride 6 < matrix size).
    check(lambda x, y: ember.bmm(x.transpose(1, 2), y.permute(1, 2, 0)), a, b, dtype=dtype)
    # A sliced batch (batch stride 2 matrices).
    check(lambda x: ember.bmm(x[::2], x[::2].transpose(1, 2)), rand(6, 4, 5, dtype=dtype), dtype=dtype)


def test_matmul_of_a_non_foldable_batch():
    # Batch dims that do not merge into the rows: matmul's batched path, not one mm.
    check(lambda x, y: ember.matmul(x.transpose(0, 1), y), rand(3, 2, 4, 5), rand(5, 6))


# ---- addmm and linear -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_addmm_fused_bias_with_alpha(dtype):
    # beta == 1 and a bias vector: cuBLASLt's bias epilogue, here with the product scaled.
    check(lambda s, a, b: ember.addmm(s, a, b, alpha=0.25), rand(16, dtype=dtype, seed=2),
          rand(8, 12, dtype=dtype), rand(12, 16, dtype=dtype, seed=1), dtype=dtype)


@pytest.mark.parametrize("bias_shape", [(4,), (3, 4)])
def test_addmm_beta_zero_ignores_nan_in_self(bias_shape):
    nan = ember.full(bias_shape, float("nan"), device="cuda")
    a, b = rand(3, 5).cuda(), rand(5, 4).cuda()
    out = ember.addmm(nan, a, b, beta=0)
    assert not ember.isnan(out.cpu()).any().item()
    np.testing.assert_allclose(out.cpu().numpy(), (a.cpu() @ b.cpu()).numpy(), rtol=1e-5, atol=1e-5)


def test_addmm_bias_of_a_transposed_and_sliced_product():
    # The fused-bias path takes operands as they lie, like the plain path.
    w = rand(16, 12)
    check(lambda b, x, w: ember.addmm(b, x.t(), w[:, ::1].t()), rand(16, seed=3), rand(12, 9), w)
    check(lambda b, x, w: ember.addmm(b, x[1:7, 2:10], w[2:10, :5]), rand(5, seed=3), rand(8, 11), w)
    # A bias vector that is not contiguous, or offset by one element (alignment).
    check(lambda b, x, w: ember.addmm(b[::2], x, w.t()), rand(32, seed=3), rand(9, 12), w)
    check(lambda b, x, w: ember.addmm(b[1:], x, w.t()), rand(17, seed=3), rand(9, 12), w)


def test_addmm_empty_k_with_beta_zero_gives_zeros():
    nan = ember.full((3, 4), float("nan"), device="cuda")
    out = ember.addmm(nan, ember.ones(3, 0, device="cuda"), ember.ones(0, 4, device="cuda"), beta=0)
    assert (out.cpu() == 0).all().item()


def test_linear_module_trains_on_cuda():
    ember.manual_seed(0)
    layer = ember.nn.Linear(32, 8).cuda()
    x = rand(64, 32).cuda()
    y = layer(x)
    expected = x.cpu() @ layer.weight.detach().cpu().t() + layer.bias.detach().cpu()
    np.testing.assert_allclose(y.detach().cpu().numpy(), expected.numpy(), rtol=1e-4, atol=1e-4)
    y.sum().backward()
    assert layer.weight.grad.is_cuda and layer.bias.grad.is_cuda
    np.testing.assert_allclose(layer.bias.grad.cpu().numpy(), np.full(8, 64.0), rtol=1e-6)


# ---- mv, dot, outer -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_mv_of_a_sub_block_and_expanded_vector(dtype):
    # Row stride 12 > 5 columns and vector stride 3; a vector of stride 0.
    check(lambda a, v: ember.mv(a[::2, 1:], v[::3]), rand(9, 6, dtype=dtype), rand(15, dtype=dtype),
          dtype=dtype)
    check(lambda a, v: ember.mv(a, v.expand(5)), rand(7, 5, dtype=dtype), rand(1, dtype=dtype),
          dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_dot_of_an_expanded_operand(dtype):
    check(lambda x, y: ember.dot(x, y.expand(10)), rand(10, dtype=dtype), rand(1, dtype=dtype),
          dtype=dtype)


def test_dot_result_stays_on_the_device():
    # Written by cuBLAS into device memory (device pointer mode): read back by item().
    x = ember.arange(1000, dtype=ember.float32).cuda()
    out = ember.dot(x, x)
    assert out.is_cuda
    assert out.item() == pytest.approx(sum(i * i for i in range(1000)), rel=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_outer(dtype):  # a composite (mm of a column by a row) that no op database entry reaches
    check(ember.outer, rand(5, dtype=dtype), rand(4, dtype=dtype, seed=1), dtype=dtype)


# ---- TensorFloat-32 -------------------------------------------------------------------

def relative_error(actual, reference):
    a = actual.detach().cpu().to(ember.float64).numpy()
    r = reference.detach().cpu().to(ember.float64).numpy()
    return np.linalg.norm(a - r) / np.linalg.norm(r)


@pytest.mark.parametrize("op", ["mm", "bmm", "addmm", "linear"])
def test_tf32_switch(op):
    a64, b64, bias64 = rand(4, 256, 1024, dtype=ember.float64), rand(4, 1024, 384, dtype=ember.float64,
                                                                      seed=1), rand(384, dtype=ember.float64)
    products = {
        "mm": lambda a, b, c: ember.mm(a[0], b[0]),
        "bmm": lambda a, b, c: ember.bmm(a, b),
        "addmm": lambda a, b, c: ember.addmm(c, a[0], b[0]),
        "linear": lambda a, b, c: ember.nn.functional.linear(a[0], b[0].t(), c),
    }
    fn = products[op]
    reference = fn(a64, b64, bias64)
    a, b, bias = (t.to(ember.float32).cuda() for t in (a64, b64, bias64))
    ember.backends.cuda.matmul.allow_tf32 = False
    full = relative_error(fn(a, b, bias), reference)
    ember.backends.cuda.matmul.allow_tf32 = True
    tf32 = relative_error(fn(a, b, bias), reference)
    ember.set_float32_matmul_precision("highest")
    again = relative_error(fn(a, b, bias), reference)
    # float32: about 1e-7 (at most a few 1e-6 with any summation order).
    assert full < 2e-5, full
    assert again < 2e-5, again
    # TensorFloat-32 keeps 10 mantissa bits: errors near 2^-11 per input (about 3e-4).
    assert tf32 < 5e-3, tf32
    assert tf32 > 5e-5, f"allow_tf32 had no effect (relative error {tf32})"


def test_tf32_leaves_float64_and_half_alone():
    ember.backends.cuda.matmul.allow_tf32 = True
    check(ember.mm, rand(64, 128, dtype=ember.float64), rand(128, 32, dtype=ember.float64, seed=1),
          dtype=ember.float64)
    check(ember.mm, rand(64, 128, dtype=ember.float16), rand(128, 32, dtype=ember.float16, seed=1),
          dtype=ember.float16)


# ---- streams, memory ------------------------------------------------------------------

def test_products_run_on_the_current_stream():
    a, b = rand(256, 256).cuda(), rand(256, 256, seed=1).cuda()
    expected = (a.cpu() @ b.cpu()).numpy()
    s = ember.cuda.Stream()
    s.wait_stream(ember.cuda.current_stream())
    with ember.cuda.stream(s):
        out = ember.mm(a, b)
        biased = ember.addmm(b[0], a, b)
    s.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(biased.cpu().numpy(), expected + b[0].cpu().numpy(), rtol=1e-4, atol=1e-4)


def test_steady_state_makes_no_new_device_allocations():
    a, b, bias = rand(512, 256).cuda(), rand(256, 128, seed=1).cuda(), rand(128).cuda()
    for _ in range(3):  # warm up: handles, workspaces, cached blocks
        ember.mm(a, b), ember.addmm(bias, a, b), ember.bmm(a[None], b[None]), ember.mv(a, b[:, 0])
    ember.cuda.synchronize()
    raw = ember.cuda.memory_stats()["num_raw_allocs"]
    for _ in range(10):
        ember.mm(a, b), ember.addmm(bias, a, b), ember.bmm(a[None], b[None]), ember.mv(a, b[:, 0])
    ember.cuda.synchronize()
    assert ember.cuda.memory_stats()["num_raw_allocs"] == raw  # no cudaMalloc in steady state
