"""out= on every function PyTorch gives one (python/ember/_out_variants.py), against torch.

For each call below, with the same inputs in both libraries: the result written into an
out of the right shape (the same object returned, the values torch writes), into an
empty out and into one of the wrong shape (resized; torch's warning when it had
elements), into an out of another dtype (written, or refused as torch refuses), and
the refusals torch makes before writing: autograd through out=, an out of the wrong
type, an expanded out, an out that partly overlaps an input. A refused call leaves out
bit-identical.
"""
import ast
import os
import warnings

import numpy as np
import pytest

import ember
from ember import _out_variants

torch = pytest.importorskip("torch")

rng = np.random.default_rng(7)
X = rng.uniform(-2, 2, (3, 4))            # a float matrix
Y = rng.uniform(-2, 2, (3, 4))
P = rng.uniform(0.1, 0.9, (3, 4))         # in (0, 1): log, sqrt, logit, erfinv, ndtri are finite
V = rng.uniform(-2, 2, (4,))
W = rng.uniform(-2, 2, (3,))
S = rng.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)           # well-conditioned square
SPD = S @ S.T
I = rng.integers(-5, 6, (3, 4))           # an integer matrix
J = rng.integers(1, 4, (3, 4))
IDX = np.array([2, 0, 1])
IDX2 = rng.integers(0, 4, (3, 2))
B3 = rng.uniform(-2, 2, (2, 3, 3))
C3 = rng.uniform(-2, 2, (3, 3))
V3 = rng.uniform(-2, 2, (4, 3))
U3 = rng.uniform(-2, 2, (4, 3))


class F:  # a float32 tensor argument
    def __init__(self, values, dtype="float32"):
        self.values, self.dtype = values, dtype


def f(v):
    return F(v)


def d(v):
    return F(v, "float64")


def i(v):
    return F(np.asarray(v), "int64")


def b(v):
    return F(np.asarray(v), "bool")


def make(lib, a):
    if isinstance(a, F):
        return lib.tensor(np.asarray(a.values), dtype=getattr(lib, a.dtype))
    if isinstance(a, list):
        return [make(lib, x) for x in a]
    if isinstance(a, tuple):
        return tuple(make(lib, x) for x in a)
    return a


UNARY = """abs absolute acos acosh angle arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan
atanh ceil conj_physical cos cosh deg2rad digamma erf erfc erfinv exp exp2 expm1 fix floor frac i0
lgamma log log10 log1p log2 logit neg negative rad2deg reciprocal round rsqrt sgn sigmoid sign signbit
sin sinc sinh sqrt square tan tanh trunc nan_to_num isneginf isposinf logical_not""".split()
BINARY = """add sub subtract mul multiply div divide true_divide atan2 arctan2 copysign float_power fmax
fmin fmod hypot igamma igammac logaddexp logaddexp2 maximum minimum nextafter pow remainder xlogy
floor_divide eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or
logical_xor""".split()
INT_BINARY = "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift gcd lcm".split()
DIM_REDUCTIONS = """sum mean nansum nanmean prod amax amin all any logsumexp std var argmax argmin cumsum
cumprod logcumsumexp cummax cummin max min median nanmedian mode sort argsort topk softmax
log_softmax""".split()
SPECIAL_UNARY = """digamma entr erf erfc erfinv exp2 expit expm1 gammaln i0 i1 log1p logit ndtr psi round
sinc""".split()

CASES = (
    [(n, (f(P),), {}) for n in UNARY]
    + [(n, (f(X), f(Y)), {}) for n in BINARY]
    + [(n, (i(I), i(J)), {}) for n in INT_BINARY]
    + [(n, (f(X), 1), {}) for n in DIM_REDUCTIONS if n not in ("topk", "prod", "argsort")]
    + [(f"special.{n}", (f(P),), {}) for n in SPECIAL_UNARY]
    + [
        ("special.xlogy", (f(P), f(Y)), {}), ("special.logsumexp", (f(X), 1), {}),
        ("special.polygamma", (1, f(P)), {}), ("polygamma", (2, f(P)), {}),
        ("prod", (f(X), 1), {}), ("topk", (f(X), 2), {}), ("kthvalue", (f(X), 2, 1), {}),
        ("max", (f(X),), {}), ("min", (f(X),), {}), ("msort", (f(X),), {}),
        ("argsort", (f(X),), {"dim": 1, "stable": True}),
        ("aminmax", (f(X),), {"dim": 1}), ("quantile", (f(X), 0.3), {"dim": 1}),
        ("nanquantile", (f(X), 0.7), {"dim": 1}), ("norm", (f(X),), {"dim": 1}),
        ("frobenius_norm", (f(X),), {"dim": (0, 1)}), ("nuclear_norm", (f(S),), {}),
        ("bitwise_not", (i(I),), {}), ("mvlgamma", (f(X + 3.0), 2), {}),
        ("addcdiv", (f(X), f(Y), f(P)), {"value": 0.5}), ("addcmul", (f(X), f(Y), f(P)), {"value": 2}),
        ("lerp", (f(X), f(Y), 0.25), {}), ("clamp", (f(X), -0.5, 0.5), {}), ("clip", (f(X), -1.0), {}),
        ("clamp_min", (f(X), 0.1), {}), ("clamp_max", (f(X), 0.1), {}), ("heaviside", (f(X), f(Y)), {}),
        ("ldexp", (f(X), i(J)), {}), ("threshold", (f(X), 0.1, 20.0), {}), ("hardshrink", (f(X), 0.5), {}),
        ("where", (b(X > 0), f(X), f(Y)), {}), ("renorm", (f(X), 2, 0, 1.0), {}),
        ("mm", (f(X), f(X.T)), {}), ("matmul", (f(X), f(V)), {}), ("bmm", (f(B3), f(B3)), {}),
        ("addmm", (f(C3), f(X), f(X.T)), {}), ("addbmm", (f(C3), f(B3), f(B3)), {}),
        ("baddbmm", (f(B3), f(B3), f(B3)), {}), ("addmv", (f(W), f(X), f(V)), {}), ("mv", (f(X), f(V)), {}),
        ("dot", (f(V), f(V)), {}), ("vdot", (f(V), f(V)), {}), ("inner", (f(X), f(Y)), {}),
        ("outer", (f(V), f(W)), {}), ("ger", (f(V), f(W)), {}), ("addr", (f(X.T), f(V), f(W)), {}),
        ("kron", (f(C3), f(X)), {}), ("tensordot", (f(X), f(Y.T)), {"dims": 1}),
        ("chain_matmul", (f(C3), f(C3), f(X)), {}), ("cross", (f(V3), f(U3)), {"dim": 1}),
        ("cat", ([f(X), f(Y)],), {}), ("concat", ([f(X), f(Y)], 1), {}), ("concatenate", ([f(X), f(Y)],), {}),
        ("stack", ([f(X), f(Y)],), {}), ("hstack", ([f(X), f(Y)],), {}), ("vstack", ([f(X), f(Y)],), {}),
        ("dstack", ([f(X), f(Y)],), {}), ("column_stack", ([f(V), f(V)],), {}), ("row_stack", ([f(X), f(Y)],), {}),
        ("tril", (f(X),), {}), ("triu", (f(X), 1), {}), ("diag", (f(X),), {}), ("diff", (f(X),), {}),
        ("narrow_copy", (f(X), 1, 1, 2), {}), ("index_select", (f(X), 0, i(IDX)), {}),
        ("gather", (f(X), 1, i(IDX2)), {}), ("take", (f(X), i(IDX)), {}),
        ("take_along_dim", (f(X), i(IDX2), 1), {}), ("masked_select", (f(X), b(X > 0)), {}),
        ("nonzero", (f(X > 0.5),), {}), ("scatter", (f(X), 1, i(IDX2), f(Y[:, :2])), {}),
        ("scatter_add", (f(X), 1, i(IDX2), f(Y[:, :2])), {}),
        ("scatter_reduce", (f(X), 1, i(IDX2), f(Y[:, :2]), "amax"), {}),
        ("index_add", (f(X), 0, i(IDX), f(Y)), {}), ("index_copy", (f(X), 0, i(IDX), f(Y)), {}),
        ("index_reduce", (f(X), 0, i(IDX), f(Y), "prod"), {}),
        ("slice_scatter", (f(X), f(Y[:, :2])), {"dim": 1, "start": 1, "end": 3}),
        ("searchsorted", (f(np.sort(V)), f(W)), {}), ("bucketize", (f(W), f(np.sort(V))), {}),
        ("histc", (f(X),), {"bins": 4}), ("isin", (i(I), i(J)), {}),
        ("cumsum", (i(I), 0), {}), ("sum", (i(I), 1), {}),
        ("matrix_power", (f(S), 2), {}), ("inverse", (f(S),), {}),
        ("cholesky_inverse", (f(np.linalg.cholesky(SPD)),), {}),
        ("cholesky_solve", (f(X[:, :3].T), f(np.linalg.cholesky(SPD))), {}),
        ("triangular_solve", (f(C3), f(np.triu(S))), {}), ("svd", (f(S),), {}),
        ("slogdet", (f(S),), {}), ("frexp", (f(X),), {}), ("histogram", (f(X),), {"bins": 3}),
        ("arange", (5,), {}), ("arange", (0, 2, 0.5), {}), ("range", (0, 3), {}),
        ("linspace", (0, 1, 5), {}), ("logspace", (0, 1, 4), {}), ("zeros", (2, 3), {}),
        ("ones", ((2, 3),), {}), ("full", ((2, 2), 1.5), {}), ("eye", (3,), {}),
        ("linalg.cross", (f(V3), f(U3)), {}), ("linalg.matmul", (f(X), f(X.T)), {}),
        ("linalg.multi_dot", ([f(C3), f(C3), f(X)],), {}), ("linalg.vecdot", (f(X), f(Y)), {}),
        ("linalg.vector_norm", (f(X),), {"dim": 1}),
    ]
)
RANDOM = [("rand", (2, 3), {}), ("randn", (2, 3), {}), ("randint", (0, 5, (2, 3)), {}),
          ("randperm", (5,), {}), ("bernoulli", (f(P),), {}), ("multinomial", (f(P), 2), {}),
          ("normal", (f(X), 1.0), {})]
IDS = [f"{n}-{k}" for k, (n, _, _) in enumerate(CASES)]


def fn_of(lib, name):
    obj = lib
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def call(lib, name, args, kwargs, **extra):
    return fn_of(lib, name)(*make(lib, args), **make(lib, kwargs), **extra)


def leaves(r):
    return list(r) if isinstance(r, tuple) else [r]


def empty_like_result(lib, r, dtype=None):
    return tuple(lib.empty(tuple(x.shape), dtype=dtype or x.dtype) for x in r) if isinstance(r, tuple) \
        else lib.empty(tuple(r.shape), dtype=dtype or r.dtype)


def as_np(t):
    t = t.detach()
    return t.float().numpy() if str(t.dtype).endswith("16") else t.numpy()


def assert_values(e, t, what):
    for k, (x, y) in enumerate(zip(leaves(e), leaves(t))):
        assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1], f"{what}: output {k} dtype"
        assert tuple(x.shape) == tuple(y.shape), f"{what}: output {k} shape {tuple(x.shape)} vs {tuple(y.shape)}"
        np.testing.assert_allclose(as_np(x).astype(np.float64), as_np(y).astype(np.float64), rtol=2e-5,
                                   atol=2e-5, equal_nan=True, err_msg=f"{what}: output {k}")


def outs_in(lib, template, dtype=None, shape=None):
    """out tensors shaped (and typed) as template (a result) in lib."""
    def one(x):
        return lib.zeros(shape if shape is not None else tuple(x.shape), dtype=dtype or getattr(lib, str(x.dtype).split(".")[-1]))
    return tuple(one(x) for x in template) if isinstance(template, tuple) else one(template)


def snapshot(outs):
    return [(tuple(o.shape), o.numpy().copy()) for o in leaves(outs)]


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=IDS)
def test_out_matches_torch(name, args, kwargs):
    expected = call(torch, name, args, kwargs)
    # the right shape and dtype: written in place, the same object(s) returned
    e_out, t_out = outs_in(ember, expected), outs_in(torch, expected)
    e_res = call(ember, name, args, kwargs, out=e_out)
    t_res = call(torch, name, args, kwargs, out=t_out)
    for r, o in zip(leaves(e_res), leaves(e_out)):
        assert r is o, f"{name}: out= returned another tensor"
    assert isinstance(e_res, tuple) == isinstance(t_res, tuple)
    assert_values(e_out, t_out, f"{name} out=")
    # an empty out is resized without a warning; a wrong-shaped one with torch's warning
    e_out, t_out = outs_in(ember, expected, shape=(0,)), outs_in(torch, expected, shape=(0,))
    with warnings.catch_warnings(record=True) as e_warn:
        warnings.simplefilter("always")
        call(ember, name, args, kwargs, out=e_out)
    assert not any("was resized" in str(w.message) for w in e_warn), f"{name}: warned resizing an empty out"
    call(torch, name, args, kwargs, out=t_out)
    assert_values(e_out, t_out, f"{name} out=empty")
    e_out, t_out = outs_in(ember, expected, shape=(7,)), outs_in(torch, expected, shape=(7,))
    with warnings.catch_warnings(record=True) as t_warn:
        warnings.simplefilter("always")
        call(torch, name, args, kwargs, out=t_out)
    with warnings.catch_warnings(record=True) as e_warn:
        warnings.simplefilter("always")
        call(ember, name, args, kwargs, out=e_out)
    assert_values(e_out, t_out, f"{name} out=resized")
    resized = lambda ws: any("was resized" in str(w.message) for w in ws)  # noqa: E731
    assert resized(e_warn) == resized(t_warn), f"{name}: resize warning differs from torch's"


def _other_dtype(result):
    """A dtype out could have instead of the result's: float64 for a float32 result,
    float32 for an integer or bool one, int64 for a float one (refused by the cast rule)."""
    name = str(result.dtype).split(".")[-1]
    return {"float32": ["float64", "int64"], "float64": ["float32"], "int64": ["float32", "int32"],
            "bool": ["float32", "int64"]}.get(name, [])


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=IDS)
def test_out_dtype_rule_matches_torch(name, args, kwargs):
    expected = call(torch, name, args, kwargs)
    first = leaves(expected)[0]
    for dt in _other_dtype(first):
        t_out = outs_in(torch, expected, dtype=getattr(torch, dt)) if not isinstance(expected, tuple) else \
            tuple(torch.zeros(tuple(x.shape), dtype=getattr(torch, dt) if k == 0 else x.dtype)
                  for k, x in enumerate(expected))
        e_out = outs_in(ember, expected, dtype=getattr(ember, dt)) if not isinstance(expected, tuple) else \
            tuple(ember.zeros(tuple(x.shape), dtype=getattr(ember, dt) if k == 0 else getattr(ember, str(x.dtype).split(".")[-1]))
                  for k, x in enumerate(expected))
        try:
            call(torch, name, args, kwargs, out=t_out)
            torch_error = None
        except Exception as e:  # noqa: BLE001
            torch_error = type(e)
        before = snapshot(e_out)
        if torch_error is None:
            call(ember, name, args, kwargs, out=e_out)
            assert_values(e_out, t_out, f"{name} out={dt}")
        else:
            with pytest.raises(torch_error):
                call(ember, name, args, kwargs, out=e_out)
            after = snapshot(e_out)
            assert all(a[0] == b_[0] and np.array_equal(a[1], b_[1], equal_nan=True)
                       for a, b_ in zip(before, after)), f"{name}: a refused out= call wrote into out"


GRAD_CASES = [c for c in CASES if any(isinstance(a, F) and a.dtype == "float32" for a in c[1])]


def _grad_outcome(lib, name, args, kwargs, expected, pos, out_requires_grad):
    """What an out= call does under grad mode: ("raises", type) or ("ok", out requires grad)."""
    built = list(make(lib, args))
    if pos is not None:
        built[pos].requires_grad_(True)
    out = outs_in(lib, expected)
    if out_requires_grad:
        for o in leaves(out):
            if o.is_floating_point():
                o.requires_grad_(True)
    before = snapshot(tuple(o.detach() for o in leaves(out)))
    try:
        fn_of(lib, name)(*built, **make(lib, kwargs), out=out)
    except Exception as e:  # noqa: BLE001
        after = snapshot(tuple(o.detach() for o in leaves(out)))
        assert all(x[0] == y[0] and np.array_equal(x[1], y[1]) for x, y in zip(before, after)), \
            f"{name}: a refused out= call wrote into out"
        return ("raises", type(e))
    return ("ok", [o.requires_grad for o in leaves(out)])


@pytest.mark.parametrize("name,args,kwargs", GRAD_CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(GRAD_CASES)])
def test_out_autograd_as_torch(name, args, kwargs):
    """An input that requires grad: refused for a differentiable primitive, recorded
    through the copy for the ops torch composes, allowed for a non-differentiable one;
    an out that requires grad: refused where torch refuses it. Allowed without grad mode."""
    expected = call(torch, name, args, kwargs)
    pos = next(k for k, a in enumerate(args) if isinstance(a, F) and a.dtype == "float32")
    for pos_, out_grad in ((pos, False), (None, True)):
        t = _grad_outcome(torch, name, args, kwargs, expected, pos_, out_grad)
        e = _grad_outcome(ember, name, args, kwargs, expected, pos_, out_grad)
        if name == "histogram" and t[0] == "ok":  # torch's out of the bin counts requires grad, oddly
            assert e[0] == "ok"
            continue
        assert e == t, f"{name}: ember {e}, torch {t} (input requires grad: {pos_ is not None})"
    for lib in (torch, ember):
        with lib.no_grad():
            built = list(make(lib, args))
            built[pos].requires_grad_(True)
            fn_of(lib, name)(*built, **make(lib, kwargs), out=outs_in(lib, expected))


@pytest.mark.parametrize("name,args,kwargs", RANDOM, ids=[c[0] for c in RANDOM])
def test_out_random_ops(name, args, kwargs):
    """Random draws differ; the shape, the dtype and what is refused are torch's."""
    expected = call(torch, name, args, kwargs)
    for dt in (None, "float64" if expected.is_floating_point() else "int32"):
        # (torch's normal(tensor, float, out=) does not resize an empty out: not mimicked)
        for shape in ((0,), tuple(expected.shape)) if name != "normal" else (tuple(expected.shape),):
            t_out = torch.zeros(shape, dtype=getattr(torch, dt) if dt else expected.dtype)
            e_out = ember.zeros(shape, dtype=getattr(ember, str(t_out.dtype).split(".")[-1]))
            try:
                t_res = call(torch, name, args, kwargs, out=t_out)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    call(ember, name, args, kwargs, out=e_out)
                continue
            e_res = call(ember, name, args, kwargs, out=e_out)
            assert e_res is e_out and tuple(e_out.shape) == tuple(t_res.shape)
            assert str(e_out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]


def test_factories_take_outs_dtype():
    for lib in (ember, torch):
        o = lib.zeros(5, dtype=lib.float64)
        assert lib.empty(2, 3, out=o) is o and o.dtype == lib.float64 and tuple(o.shape) == (2, 3)
        o = lib.empty(0, dtype=lib.int32)
        assert lib.zeros(2, 3, out=o).dtype == lib.int32 and tuple(o.shape) == (2, 3)
        o = lib.empty(0, dtype=lib.float64)
        lib.arange(0, 1, 0.25, out=o)
        assert o.dtype == lib.float64 and o.tolist() == [0.0, 0.25, 0.5, 0.75]


def test_out_bad_arguments_match_torch():
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            lib.median(lib.ones(3), out=lib.empty(0))
        x, y = lib.ones(3), lib.ones(3)
        with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
            lib.exp(x, out=3)
        with pytest.raises(TypeError):
            lib.exp(x, out=(lib.empty(3),))
        with pytest.raises(TypeError):
            lib.max(lib.ones(2, 3), 1, out=lib.empty(2))
        with pytest.raises(TypeError):
            lib.sort(lib.ones(2, 3), 1, out=(lib.empty(2, 3),))
        expanded = lib.zeros(3, 1).expand(3, 3)
        with pytest.raises(RuntimeError, match="single memory location"):
            lib.exp(lib.ones(3, 3), out=expanded)
        base = lib.arange(5.0)
        with pytest.raises(RuntimeError, match="single memory location"):
            lib.exp(base[:4], out=base[1:])
        assert base.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]  # nothing written
        z = lib.ones(3)
        assert lib.add(z, z, out=z) is z and z.tolist() == [2.0, 2.0, 2.0]  # out aliasing an input fully


def test_out_keeps_non_contiguous_layout():
    e = ember.zeros(4, 3).t()
    t = torch.zeros(4, 3).t()
    ember.add(ember.tensor(X), ember.tensor(Y), out=e)
    torch.add(torch.tensor(X), torch.tensor(Y), out=t)
    assert e.stride() == t.stride()
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


def test_plain_calls_unchanged():
    assert not isinstance(ember.add(ember.ones(2), 1), tuple)
    assert ember.add.__name__ == "add" and "add" in (ember.add.__doc__ or "")
    assert isinstance(ember.add, ember._C._OutVariant)


def test_function_list_is_torchs():
    """Every name in TORCH_FUNCTIONS takes out= in torch (its .pyi signatures), and every
    function ember has that takes out= in torch is in the list."""
    pyi = os.path.join(os.path.dirname(torch.__file__), "_C", "_VariableFunctions.pyi")
    with open(pyi) as fh:
        tree = ast.parse(fh.read())
    takes = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and any(a.arg == "out" for a in n.args.kwonlyargs)}
    import inspect
    for n in dir(torch):
        obj = getattr(torch, n)
        if inspect.isfunction(obj):
            try:
                if "out" in inspect.signature(obj).parameters:
                    takes.add(n)
            except (TypeError, ValueError):
                pass
    listed = set(_out_variants.TORCH_FUNCTIONS)
    assert not listed - takes, f"listed but torch has no out=: {sorted(listed - takes)}"
    missing = sorted(n for n in takes - listed if not n.startswith("_") and hasattr(ember, n)
                     and n not in ("native_batch_norm", "nonzero_static"))
    assert not missing, f"ember has these but not their out=: {missing}"
    for n in listed:
        if hasattr(ember, n):
            f_ = getattr(ember, n)
            assert isinstance(f_, ember._C._OutVariant) or "out" in inspect.signature(f_).parameters, n


def test_random_op_with_out_draws_once():
    """out= computes the result once: the same draw as without out, and the generator
    advanced by one draw (an out of another dtype goes through the Python rules, which
    must not compute again)."""
    p = ember.full((4, 5), 0.5)
    for out_dtype in (ember.float32, ember.float64):
        ember.manual_seed(3)
        plain = ember.bernoulli(p)
        after_plain = ember.rand(3)
        ember.manual_seed(3)
        out = ember.empty(4, 5, dtype=out_dtype)
        assert ember.bernoulli(p, out=out) is out
        assert out.to(ember.float32).tolist() == plain.tolist()
        assert ember.rand(3).tolist() == after_plain.tolist()


def test_fast_path_refusals_write_nothing():
    x = ember.arange(6.0)
    before = x.clone()
    with pytest.raises(RuntimeError, match="single memory location"):
        ember.add(x[:5], 1, out=x[1:])
    assert ember.equal(x, before)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.add(x, 1, out=ember.zeros(6, dtype=ember.int64))
    y = ember.zeros(6, requires_grad=True)
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        ember.add(y, 1, out=ember.zeros(6))
