"""Float -> integer casts (lib/kernels/float_to_int.h): one defined result for NaN,
+-inf and out-of-range values, PyTorch's CPU results (x86-64), bit for bit, for every
float dtype -> every integer dtype (and bool: v != 0, NaN -> true), on contiguous,
strided, broadcast, 0-dim and empty inputs, through .to(), the dtype methods, copy_
and .type(); and on a GPU the CUDA result equals the CPU's (skipped without one)."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64", "bool"]

# NaN, infinities, values just beyond each target's range, negatives to uint8, in-range
# fractions (truncated toward zero) and the int32 / int64 edges.
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.7, -0.7, 1.5, -1.5, 2.9, -2.9, 127.5, 128.0, -128.5,
            -129.5, 255.5, 256.0, 300.7, -300.7, 32767.5, 32768.0, -32769.5, 40000.5, -40000.5, 65535.0,
            70000.0, 2.0**31 - 1, 2.0**31, 2.0**31 + 5, 2.0**31 + 768, -2.0**31, -2.0**31 - 0.5,
            -2.0**31 - 5, 2.0**32 + 7, 2.0**62, 2.0**63, -2.0**63, 2.0**63 * 4, -2.0**63 * 4, 9.2e18,
            -9.2e18, 1e30, -1e30, 1e300, -1e300, 5e-324]


def source(values, dtype, device="cpu"):
    """The values rounded to dtype, as a (torch, ember) pair holding the same bits."""
    t = torch.tensor(np.asarray(values, dtype=np.float64)).to(getattr(torch, dtype))
    e = ember.from_numpy(t.double().numpy()).to(getattr(ember, dtype))  # exact: t's values fit dtype
    return t, e.to(device)


def assert_same_bits(e, t, what):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], f"{what}: dtype {e.dtype} vs {t.dtype}"
    assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} vs {tuple(t.shape)}"
    if e.dtype.is_floating_point:  # numpy has no bfloat16: compare as float64 (exact)
        e, t = e.double(), t.double()
    np.testing.assert_array_equal(e.cpu().numpy(), t.numpy(), err_msg=what)


def mixed_values(n, seed):
    """n values over many magnitudes (in range and far out of it) with NaN and +-inf."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-1, 40, size=n)
    v = (rng.random(n) * 2 - 1) * scale
    v[rng.random(n) < 0.05] = np.nan
    v[rng.random(n) < 0.03] = np.inf
    v[rng.random(n) < 0.03] = -np.inf
    return v


@pytest.mark.parametrize("dst", INTS)
@pytest.mark.parametrize("src", FLOATS)
def test_specials_match_torch(src, dst):
    t, e = source(SPECIALS, src)
    assert_same_bits(e.to(getattr(ember, dst)), t.to(getattr(torch, dst)), f"{src} -> {dst}")


@pytest.mark.parametrize("dst", INTS)
@pytest.mark.parametrize("src", FLOATS)
def test_many_values_and_layouts_match_torch(src, dst):
    # 70001 elements: the bulk path split across threads (lib/cpu/float_to_int_convert.cpp)
    # and its tail; then strided, transposed, broadcast layouts and a strided destination
    # (the element loop), 0-dim and empty.
    t, e = source(mixed_values(70001, seed=FLOATS.index(src) * 10 + INTS.index(dst)), src)
    td, ed = getattr(torch, dst), getattr(ember, dst)
    assert_same_bits(e.to(ed), t.to(td), f"{src} -> {dst} contiguous")
    assert_same_bits(e[::3].to(ed), t[::3].to(td), f"{src} -> {dst} strided")
    t2, e2 = t[:10000].reshape(100, 100), e[:10000].reshape(100, 100)
    assert_same_bits(e2.t().to(ed), t2.t().to(td), f"{src} -> {dst} transposed")
    assert_same_bits(e2[:, 5].to(ed), t2[:, 5].to(td), f"{src} -> {dst} column")
    assert_same_bits(ember.zeros(100, 100, dtype=ed).t().copy_(e2), torch.zeros(100, 100, dtype=td).t().copy_(t2),
                     f"{src} -> {dst} into a transposed destination")
    for n in (1, 15, 16, 17, 1025):  # vector widths and float16's block, and the tails
        assert_same_bits(e[:n].to(ed), t[:n].to(td), f"{src} -> {dst} {n} elements")
    row_t, row_e = source(SPECIALS, src)
    into_t = torch.zeros(3, len(SPECIALS), dtype=td).copy_(row_t)
    into_e = ember.zeros(3, len(SPECIALS), dtype=ed).copy_(row_e)
    assert_same_bits(into_e, into_t, f"{src} -> {dst} broadcast copy_")
    for v in (np.nan, np.inf, -np.inf, -1.5, 300.7, 3e9, 1e30):
        ts, es = source(v, src)
        assert_same_bits(es.to(ed), ts.to(td), f"{src} -> {dst} 0-dim {v}")
    te, ee = source(np.zeros((0, 3)), src)
    assert_same_bits(ee.to(ed), te.to(td), f"{src} -> {dst} empty")


def test_the_rule():
    """The rule itself (lib/kernels/float_to_int.h), spelled out."""
    nan, inf = float("nan"), float("inf")
    x = ember.tensor([nan, inf, -inf, 1e30, 2.9, -2.9])
    assert x.long().tolist() == [-2**63] * 4 + [2, -2]
    assert x.int().tolist() == [-2**31] * 4 + [2, -2]
    assert x.short().tolist() == [0] * 4 + [2, -2]  # INT32_MIN's low 16 bits
    assert x.to(ember.uint8).tolist() == [0] * 4 + [2, 254]
    assert x.bool().tolist() == [True] * 6
    assert ember.tensor([300.7, -129.5, -1.5]).to(ember.int8).tolist() == [44, 127, -1]
    assert ember.tensor([300.7, -129.5, -1.5]).byte().tolist() == [44, 127, 255]
    # uint8 wraps through int64, int8 / int16 through int32 (float64 2^31 + 5)
    big = ember.tensor([2.0**31 + 5], dtype=ember.float64)
    assert big.byte().tolist() == [5] and big.char().tolist() == [0] and big.short().tolist() == [0]
    assert big.long().tolist() == [2**31 + 5] and big.int().tolist() == [-2**31]


def test_methods_copy_and_legacy_type():
    nan = float("nan")
    for fn in (lambda x: x.long(), lambda x: x.int(), lambda x: x.short(), lambda x: x.char(),
               lambda x: x.byte(), lambda x: x.to(ember.uint8) if isinstance(x, ember.Tensor)
               else x.to(torch.uint8), lambda x: x.bool()):
        e, t = fn(ember.tensor([nan, 1e10, -1.5])), fn(torch.tensor([nan, 1e10, -1.5]))
        assert_same_bits(e, t, "dtype method")
    e = ember.zeros(4, dtype=ember.int64).copy_(ember.tensor([nan, float("inf"), -3.7, 9e18]))
    t = torch.zeros(4, dtype=torch.int64).copy_(torch.tensor([nan, float("inf"), -3.7, 9e18]))
    assert_same_bits(e, t, "copy_ into int64")
    e = ember.zeros(2, 4, dtype=ember.uint8)
    e[:, 1:3].copy_(ember.tensor([-1.5, 260.2], dtype=ember.float64))
    t = torch.zeros(2, 4, dtype=torch.uint8)
    t[:, 1:3].copy_(torch.tensor([-1.5, 260.2], dtype=torch.float64))
    assert_same_bits(e, t, "copy_ into a uint8 view")
    x = ember.tensor([nan, -2.5, 3e9])
    assert_same_bits(x.type(ember.IntTensor), torch.tensor([nan, -2.5, 3e9]).type(torch.IntTensor),
                     "type(IntTensor)")
    assert_same_bits(x.type(ember.int16), torch.tensor([nan, -2.5, 3e9]).type(torch.int16), "type(int16)")


def test_float_to_float_and_int_to_int_are_unchanged():
    # the rule is for float -> integer only: the other casts keep their results
    t, e = source(SPECIALS, "float64")
    for dst in ("float32", "float16", "bfloat16"):
        assert_same_bits(e.to(getattr(ember, dst)), t.to(getattr(torch, dst)), f"float64 -> {dst}")
    ints = np.array([-2**63, -300, -1, 0, 255, 70000, 2**40 + 3, 2**63 - 1], dtype=np.int64)
    for dst in ("uint8", "int8", "int16", "int32", "float32"):
        assert_same_bits(ember.from_numpy(ints).to(getattr(ember, dst)),
                         torch.from_numpy(ints).to(getattr(torch, dst)), f"int64 -> {dst}")


# ---- CUDA against the CPU ------------------------------------------------------------------

@pytest.mark.cuda
@pytest.mark.parametrize("dst", INTS)
@pytest.mark.parametrize("src", FLOATS)
def test_cuda_matches_cpu(src, dst):
    ed = getattr(ember, dst)
    values = np.concatenate([SPECIALS, mixed_values(70001, seed=3)])
    _, cpu = source(values, src)
    gpu = cpu.to("cuda")
    for what, fn in [("contiguous", lambda x: x), ("strided", lambda x: x[::3]),
                     ("0-dim", lambda x: x[1]), ("empty", lambda x: x[:0])]:
        expected = fn(cpu).to(ed)
        got = fn(gpu).to(ed)  # converted on the device
        assert got.device.type == "cuda"
        np.testing.assert_array_equal(got.cpu().numpy(), expected.numpy(), err_msg=f"{src} -> {dst} {what}")
    # across devices: a cast on the way there, and on the way back
    np.testing.assert_array_equal(cpu.to("cuda", ed).cpu().numpy(), cpu.to(ed).numpy())
    np.testing.assert_array_equal(gpu.to("cpu", ed).numpy(), cpu.to(ed).numpy())
    into = ember.zeros(len(values), dtype=ed, device="cuda").copy_(gpu)
    np.testing.assert_array_equal(into.cpu().numpy(), cpu.to(ed).numpy(), err_msg=f"{src} -> {dst} copy_")
