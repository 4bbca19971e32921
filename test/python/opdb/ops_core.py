"""Op database entries of the core group (lib/dispatch/schema/core.toml): copies and
fills, the factories arange/linspace/eye (called without a tensor input), the random
fills, the views (checked to share their input's storage, as PyTorch's do) and the
views' backward helpers (reached through autograd)."""
import numpy as np

from .opinfo import (ALL, ALL_AND_BOOL, FLOAT, FLOATING, INTEGRAL, Dtype, ErrorCase, OpInfo,
                     Sample, T, layouts, make_values, unary_samples)

NUMERIC = ALL  # floating and integer dtypes, no bool


# ---- helpers ---------------------------------------------------------------------------

def _storage_start(t):
    return t.data_ptr() - t.storage_offset() * t.element_size()


def _view(x, v):
    """v, checked to be a view of x (to share its storage), in either library."""
    if x.numel() and v.numel():
        assert _storage_start(v) == _storage_start(x), "the result does not share its input's storage"
    return v


def _shares(x, y):
    """Whether y shares x's storage (None for an empty one: nothing to share)."""
    if not (x.numel() and y.numel()):
        return None
    return _storage_start(x) == _storage_start(y)


def _views(fn):
    """fn(m, x, ...) applied, and its result checked to be a view of x."""
    return lambda m_, x, *a, **k: _view(x, fn(m_, x, *a, **k))


def _f(rng, shape, dtype, low=-3.0, high=3.0, **kw):
    return T(make_values(rng, shape, dtype, low, high), dtype, **kw)


def _fill_value(dtype):
    return True if dtype == "bool" else (7 if dtype in INTEGRAL else 2.5)


# ---- copies and fills --------------------------------------------------------------------

def _no_grad_self(args):
    """The destination of a copy or fill: its old values are overwritten, so no
    gradient reaches it (ember: None; torch: zeros; see _partial for that check)."""
    x = args[0]
    return (T(x.values, x.dtype, x.noncontig, grad=False),) + tuple(args[1:])


def _copy_samples(dtype, rng):
    shapes = [[(3, 4), (3, 4)], [(3, 4), (4,)], [(3, 4), (3, 1)], [(2, 3, 2), ()], [(), ()],
              [(0, 3), (3,)], [(2, 3, 2), (2, 3, 2)]]
    return [Sample(_no_grad_self(args)) for args in layouts(rng, shapes, dtype)]


def _partial(op):
    """fn(m, x, *args): op(view, *args) on the first two rows of a clone of x, which
    is returned: the gradient flows to x outside the overwritten rows (and, through
    the op's formula, is zero inside them)."""
    def fn(m, x, *args, **kwargs):
        z = x.clone()
        op(m, z[:2], *args, **kwargs)
        return z
    return fn


def _partial_samples(second=None):
    """x of shapes (4, 3), (3, 2, 2), (2, 5) (and a strided layout); second(dtype, rng,
    view_shape) -> the op's other arguments."""
    def make(dtype, rng):
        out = []
        for shape in [(4, 3), (3, 2, 2), (2, 5)]:
            v = make_values(rng, shape, dtype)
            rest = second(dtype, rng, (2,) + shape[1:]) if second else ()
            out.append(Sample((T(v, dtype),) + rest))
            out.append(Sample((T(v, dtype, noncontig=True),) + rest))
        return out
    return make


def _copy_cast_samples(dtype, rng):
    # src of another dtype, values that every dtype holds (bool: 0/1; uint8: >= 0).
    out = []
    for src_dtype in ("float64", "int64", "bool", "float16"):
        if src_dtype == dtype:
            continue
        hi = 1 if "bool" in (dtype, src_dtype) else 60
        x = T(make_values(rng, (3, 4), dtype, 0, hi), dtype)
        v = np.floor(rng.uniform(0, hi + 1, size=(3, 4))) if src_dtype != "bool" else rng.random((3, 4)) < 0.5
        out.append(Sample((x, T(v, src_dtype, grad=False))))
        out.append(Sample((x, T(v[:, :1], src_dtype, noncontig=True, grad=False))))
    return out


def _to_samples(dtype, rng):
    out = []
    for target in ("int64", "float32", "bool", "bfloat16"):
        for args in layouts(rng, [[(3, 4)], [()]], dtype, 0, 60 if dtype != "bool" else 1):
            out.append(Sample(args, {"dtype": Dtype(target)}))
    return out


def _fill_samples(dtype, rng):
    v = _fill_value(dtype)
    return [Sample(args, {"value": v}) for args in layouts(rng, [[(3, 4)], [()], [(0, 3)], [(2, 3, 2)]], dtype)]


def _fill_tensor_samples(dtype, rng):
    v = np.asarray(_fill_value(dtype))
    return [Sample(args + (T(v, dtype, grad=False),))
            for args in layouts(rng, [[(3, 4)], [()], [(2, 3, 2)]], dtype)]


def _copy_errors(rng):
    return [ErrorCase(Sample((_f(rng, (3, 4), "float32"), _f(rng, (3,), "float32"))), RuntimeError),
            ErrorCase(Sample((_f(rng, (3,), "float32"), _f(rng, (2, 3), "float32"))), RuntimeError)]


def _fill_errors(rng):
    # A value that is no number; a value the dtype can't hold (RuntimeError "value cannot
    # be converted to type int8_t without overflow"; uint8 takes -1 as torch does, not -300).
    return [ErrorCase(Sample((_f(rng, (3,), "float32"),), {"value": None}), TypeError),
            ErrorCase(Sample((_f(rng, (3,), "float32"),), {"value": "a"}), TypeError),
            ErrorCase(Sample((_f(rng, (3,), "int8"),), {"value": 300}), RuntimeError),
            ErrorCase(Sample((_f(rng, (3,), "uint8"),), {"value": -300}), RuntimeError),
            ErrorCase(Sample((_f(rng, (3,), "float16"),), {"value": 1e6}), RuntimeError)]


def _fill_tensor_errors(rng):
    return [ErrorCase(Sample((_f(rng, (3,), "float32"), _f(rng, (2,), "float32", grad=False))),
                      RuntimeError)]


# ---- factories ---------------------------------------------------------------------------

def _arange_samples(dtype, rng):
    if dtype in FLOATING:
        args = [(0, 5, 1), (1.5, 4, 0.5), (-2, 3.1, 0.7), (5, 0, -1.5), (0, 0, 1), (2, 3, 5)]
    elif dtype == "uint8":
        args = [(0, 5, 1), (3, 40, 7), (20, 4, -3), (0, 0, 1)]
    else:
        args = [(0, 5, 1), (-7, 40, 7), (20, -4, -3), (0, 0, 1), (-3, 3, 2)]
    return [Sample(a, {"dtype": Dtype(dtype)}) for a in args]


def _arange_default_samples(dtype, rng):
    # No dtype: int64 for integer bounds, the default float dtype otherwise.
    return [Sample((5,)), Sample((1, 7, 2)), Sample((0.5, 3)), Sample((1, 3, 0.25)), Sample((0,))]


def _linspace_samples(dtype, rng):
    if dtype in FLOATING:
        args = [(0, 1, 5), (-2.5, 3, 7), (3, -1, 4), (1, 1, 1), (2, 5, 0), (0, 10, 2)]
    elif dtype == "uint8":
        args = [(0, 10, 5), (0, 100, 4), (50, 2, 7), (3, 3, 1), (0, 5, 0)]
    else:
        args = [(0, 10, 5), (-20, 100, 4), (50, -2, 7), (3, 3, 1), (0, 5, 0)]
    return [Sample(a, {"dtype": Dtype(dtype)}) for a in args]


def _eye_samples(dtype, rng):
    return [Sample(a, {"dtype": Dtype(dtype)}) for a in [(3,), (2, 4), (4, 2), (0,), (3, 0), (1,)]]


def _factory_errors(fn_args):
    return lambda rng: [ErrorCase(Sample(a), RuntimeError) for a in fn_args]


# ---- random ops ----------------------------------------------------------------------------

def _gen(m, seed=0, like=None):
    """A seeded generator of like's device (a CUDA tensor samples from a CUDA generator)."""
    device = like.device if like is not None else "cpu"
    return m.Generator(device).manual_seed(seed)


def _values(t):
    t = t.detach()
    if str(t.dtype).split(".")[-1] in ("float16", "bfloat16", "bool"):
        t = t.float()
    return np.asarray(t.numpy(), dtype=np.float64)


def _random_compare(lo, hi, make, mean=None, std=None, integer=False, hi_inclusive=False):
    """compare(ember_out, None, dtype): the shape, dtype and range of the sample's
    output; then make(ember, dtype, generator) on a larger tensor: the mean and standard
    deviation, and that the same seed (by a generator or by manual_seed) gives the same
    values."""
    import ember

    def compare(e_out, t_out, dtype):
        assert isinstance(e_out, ember.Tensor)
        assert str(e_out.dtype).split(".")[-1] == dtype, f"dtype {e_out.dtype}, expected {dtype}"
        v = _values(e_out)
        slack = 0.0 if dtype not in ("float16", "bfloat16") else 1e-2 * max(abs(lo), abs(hi), 1)
        upper_ok = v <= hi + slack if (hi_inclusive or slack) else v < hi
        assert np.all(v >= lo - slack) and np.all(upper_ok), f"values out of [{lo}, {hi}): {v}"
        if integer:
            assert np.all(v == np.round(v)), "non-integer values"
        big = make(ember, dtype, _gen(ember, 7))
        b = _values(big)
        if mean is not None:
            assert abs(b.mean() - mean) < 0.1 * max(1.0, std or 1.0), f"mean {b.mean()}, expected {mean}"
        if std is not None:
            assert abs(b.std() - std) < 0.1 * max(1.0, std), f"std {b.std()}, expected {std}"
        again = make(ember, dtype, _gen(ember, 7))
        np.testing.assert_array_equal(_values(again), b, err_msg="the same generator seed gave other values")
        other = make(ember, dtype, _gen(ember, 8))
        if b.size > 100 and not (lo == hi or (integer and hi - lo <= 1)):
            assert np.any(_values(other) != b), "another seed gave the same values"
        ember.manual_seed(3)
        first = _values(make(ember, dtype, None))
        ember.manual_seed(3)
        second = _values(make(ember, dtype, None))
        np.testing.assert_array_equal(first, second, err_msg="manual_seed(3) twice gave other values")
    return compare


def _empty(m, dtype, n=4000):
    return m.empty(n, dtype=getattr(m, dtype))


def _random_samples(dtype, rng):
    return [Sample(args) for args in layouts(rng, [[(3, 4)], [()], [(0, 3)], [(2, 3, 2)]], dtype)]


def _uniform(m, x, low=-2.0, high=3.0):
    return x.clone().uniform_(low, high, generator=_gen(m, like=x))


def _normal(m, x, mean=1.5, std=2.0):
    return x.clone().normal_(mean, std, generator=_gen(m, like=x))


def _bad_float_call(**kwargs):
    """A float tensor with bad arguments, and an int64 tensor (floating ops only)."""
    def make(rng):
        out = [ErrorCase(Sample((_f(rng, (3,), "float32"),), kwargs), RuntimeError)]
        out.append(ErrorCase(Sample((T(np.zeros(3), "int64"),)), RuntimeError))
        return out
    return make


def _random_range(dtype):
    return (0, 2) if dtype == "bool" else (3, 20)


def _random_from_to(m, x, low=None, high=None):
    lo, hi = _random_range(str(x.dtype).split(".")[-1])
    return x.clone().random_(lo if low is None else low, hi if high is None else high,
                             generator=_gen(m, like=x))


def _bernoulli(m, x, p=0.3):
    return x.clone().bernoulli_(p, generator=_gen(m, like=x))


def _rand_compare_random_from_to():
    def compare(e_out, t_out, dtype):
        lo, hi = _random_range(dtype)
        _random_compare(lo, hi, lambda m, dt, g: _empty(m, dt).random_(lo, hi, generator=g),
                        mean=(lo + hi - 1) / 2, integer=True)(e_out, t_out, dtype)
    return compare


def _random_to_compare():
    def compare(e_out, t_out, dtype):
        hi = 2 if dtype == "bool" else 5
        _random_compare(0, hi, lambda m, dt, g: _empty(m, dt).random_(hi, generator=g),
                        mean=(hi - 1) / 2, integer=True)(e_out, t_out, dtype)
    return compare


_BOUNDS = {"bool": 1, "uint8": 255, "int8": 127, "int16": 32767, "int32": 2**31 - 1, "int64": 2**63 - 1,
           "float16": 2**11, "bfloat16": 2**8, "float32": 2**24, "float64": 2**53}


def _random_full_compare():
    def compare(e_out, t_out, dtype):
        hi = _BOUNDS[dtype]
        _random_compare(0, hi, lambda m, dt, g: _empty(m, dt).random_(generator=g), integer=True,
                        hi_inclusive=True)(e_out, t_out, dtype)
        import ember
        b = _values(_empty(ember, dtype).random_(generator=_gen(ember, 11)))
        assert abs(b.mean() - hi / 2) < 0.05 * hi, f"mean {b.mean()}, expected about {hi / 2}"
    return compare


def _randperm_compare():
    import ember

    def compare(e_out, t_out, dtype):
        assert str(e_out.dtype).split(".")[-1] == dtype
        v = _values(e_out)
        np.testing.assert_array_equal(np.sort(v), np.arange(v.size), err_msg="not a permutation")
        a = _values(ember.randperm(100, generator=_gen(ember, 5), dtype=getattr(ember, dtype)))
        b = _values(ember.randperm(100, generator=_gen(ember, 5), dtype=getattr(ember, dtype)))
        np.testing.assert_array_equal(a, b, err_msg="the same generator seed gave another permutation")
        assert np.any(a != np.arange(100)), "randperm(100) gave the identity"
        ember.manual_seed(4)
        c = _values(ember.randperm(50, dtype=getattr(ember, dtype)))
        ember.manual_seed(4)
        d = _values(ember.randperm(50, dtype=getattr(ember, dtype)))
        np.testing.assert_array_equal(c, d, err_msg="manual_seed(4) twice gave another permutation")
    return compare


def _randperm_samples(dtype, rng):
    return [Sample((n,), {"dtype": Dtype(dtype)}) for n in [0, 1, 5, 17]]


# ---- views ---------------------------------------------------------------------------------

def _view_samples(dtype, rng):
    # (input shape, target shape, a target that the strided layout can view too)
    cases = [((3, 4), (4, 3), (3, 2, 2)), ((3, 4), (2, -1), (3, 4, 1)), ((3, 4), (12,), (1, 3, 4)),
             ((), (1,), (1, 1)), ((), (), ()), ((0, 3), (3, 0), (3, 0)), ((2, 3, 2), (6, 2), (2, 3, 2, 1)),
             ((4,), (2, 2), (4, 1))]
    out = []
    for shape, target, strided_target in cases:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), target)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), strided_target)))
    return out


def _reshape_samples(dtype, rng):
    cases = [((3, 4), (12,)), ((3, 4), (2, 6)), ((2, 3, 2), (3, -1)), ((), (1, 1)), ((0, 4), (2, 0, 2))]
    out = []
    for shape, target in cases:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), target)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), target)))  # a copy then
    return out


def _view_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, (5,))), RuntimeError), ErrorCase(Sample((x, (-1, -1))), RuntimeError),
            ErrorCase(Sample((x, (-1, 5))), RuntimeError), ErrorCase(Sample((x, (2, -2, 3))), RuntimeError)]


def _transposed_view_samples(dtype, rng):
    """(x, shape) for x.t().view(shape): a view that splits or keeps dims of the transpose."""
    out = []
    for shape, target in [((3, 4), (2, 2, 3)), ((3, 4), (4, 3, 1)), ((2, 6), (3, 2, 2))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), target)))
        out.append(Sample((T(v, dtype, noncontig=True), target)))
    return out


def _reshape_storage(m, x, shape, transposed=False):
    """(reshape's result, whether it shares x's storage): a view where one can be made
    (also of the transpose), else a copy, in both libraries alike."""
    y = (x.t() if transposed else x).reshape(shape)
    return y, _shares(x, y)


def _transposed_view_errors(rng):
    # the transpose's dims cannot be merged without a copy
    return [ErrorCase(Sample((_f(rng, (3, 4), "float32"), (12,))), RuntimeError),
            ErrorCase(Sample((_f(rng, (3, 4), "float32", noncontig=True), (2, 6))), RuntimeError)]


def _as_strided_samples(dtype, rng):
    # Inputs with grad: contiguous (where as_strided's gradient is the input's own
    # geometry); the strided ones read the storage beneath a strided view, compared by
    # value only.
    out = []
    x = make_values(rng, (3, 4), dtype)
    y = make_values(rng, (6,), dtype)
    for args in [((2, 2), (1, 2), 1), ((2, 3), (4, 1), 0), ((4, 3), (1, 4)), ((3,), (5,), 0),
                 ((0, 2), (2, 1), 3), ((), (), 5)]:
        out.append(Sample((T(x, dtype),) + args))
    out.append(Sample((T(y, dtype), (3, 3), (1, 1), 0), name="overlapping"))
    out.append(Sample((T(y, dtype), (2, 3), (0, 1), 2), name="stride 0"))
    out.append(Sample((T(x, dtype, noncontig=True, grad=False), (3, 4), (8, 2), 0)))
    out.append(Sample((T(x, dtype, noncontig=True, grad=False), (3, 3), (8, 1), 1)))
    return out


def _as_strided_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, (4, 4), (4, 1))), RuntimeError),
            ErrorCase(Sample((x, (2, 2), (-1, 1))), RuntimeError),
            ErrorCase(Sample((x, (2, 2), (1, 1), -1)), RuntimeError)]


def _transpose_samples(dtype, rng):
    out = []
    for shape, dims in [((3, 4), (0, 1)), ((2, 3, 2), (0, -1)), ((2, 3, 2), (1, 1)), ((0, 3), (1, 0)),
                        ((4,), (0, -1)), ((3, 4), (-1, -2))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype),) + dims))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True),) + dims))
    return out


def _dim_errors(*bad):
    """Out-of-range dims: IndexError."""
    def make(rng):
        return [ErrorCase(Sample((_f(rng, (3, 4), "float32"),) + b), IndexError) for b in bad]
    return make


def _permute_samples(dtype, rng):
    out = []
    for shape, dims in [((3, 4), (1, 0)), ((2, 3, 2), (2, 0, 1)), ((2, 3, 2), (-1, 0, 1)), ((), ()),
                        ((0, 3), (1, 0)), ((2, 3, 2), (0, 1, 2))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), dims)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), dims)))
    return out


def _permute_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, (0, 0))), RuntimeError), ErrorCase(Sample((x, (0,))), RuntimeError),
            ErrorCase(Sample((x, (0, 2))), IndexError)]


def _movedim_samples(dtype, rng):
    out = []
    for shape, src, dst in [((2, 3, 4), 0, -1), ((2, 3, 4), 2, 0), ((3, 4), 1, 1), ((0, 3), 0, 1)]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), src, dst)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), src, dst)))
    return out


def _expand_samples(dtype, rng):
    out = []
    for shape, size in [((3, 1), (3, 4)), ((4,), (2, 3, 4)), ((), (2, 2)), ((1, 4), (-1, 4)),
                        ((0, 1), (0, 3)), ((2, 1, 3), (2, 5, 3)), ((3, 4), (3, 4)), ((1,), (0,))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), size)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), size)))
    return out


def _expand_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, (4,))), RuntimeError), ErrorCase(Sample((x, (3, 5))), RuntimeError),
            ErrorCase(Sample((x, (-1, 3, 4))), RuntimeError)]


def _expand_as_samples(dtype, rng):
    out = []
    for shape, other in [((3, 1), (3, 4)), ((4,), (2, 3, 4)), ((), (2, 2))]:
        v = make_values(rng, shape, dtype)
        o = T(make_values(rng, other, dtype), dtype, grad=False)
        out.append(Sample((T(v, dtype), o)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), o)))
    return out


def _squeeze_samples(dtype, rng):
    """(x, dim): dim None for squeeze()."""
    out = []
    for shape, dim in [((3, 1, 4), 1), ((3, 1, 4), 0), ((1,), 0), ((), 0), ((), None), ((1, 1, 3), None),
                       ((0, 1), -1), ((3, 1, 4), -2), ((2, 3), None), ((1, 3, 1), (0, 2)), ((1, 3, 1), (0, 1))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), dim)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), dim)))
    return out


def _squeeze(m, x, dim):
    return x.squeeze() if dim is None else x.squeeze(dim)


def _unsqueeze_samples(dtype, rng):
    out = []
    for shape, dim in [((3, 4), 0), ((3, 4), 1), ((3, 4), 2), ((3, 4), -1), ((), 0), ((), -1),
                       ((0, 3), 1), ((2, 3, 2), -2)]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype), dim)))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True), dim)))
    return out


def _x_samples(shapes):
    def make(dtype, rng):
        return [Sample(args) for args in layouts(rng, shapes, dtype)]
    return make


SLICES = {
    "rows": lambda x: x[1:3],
    "step": lambda x: x[:, ::2],
    "ellipsis": lambda x: x[..., 1:],
    "negative": lambda x: x[-2:, -3:-1],
    "past_end": lambda x: x[5:],
    "step3": lambda x: x[0:3:3, 1::3],
}


def _slice_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, 0)), ValueError), ErrorCase(Sample((x, -1)), ValueError)]


def _narrow_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, 0, 5, 1)), IndexError), ErrorCase(Sample((x, 0, 1, 5)), RuntimeError),
            ErrorCase(Sample((_f(rng, (), "float32"), 0, 0, 1)), RuntimeError)]


def _narrow_samples(dtype, rng):
    out = []
    for shape, a in [((3, 4), (0, 1, 2)), ((3, 4), (1, 0, 3)), ((3, 4), (-1, -2, 2)), ((3, 4), (0, 3, 0)),
                     ((2, 3, 2), (1, 1, 1))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype),) + a))
        out.append(Sample((T(v, dtype, noncontig=True),) + a))
    return out


def _select_samples(dtype, rng):
    out = []
    for shape, a in [((3, 4), (0, 1)), ((3, 4), (1, -1)), ((2, 3, 2), (-1, 0)), ((4,), (0, 2)), ((3, 0), (0, 2))]:
        v = make_values(rng, shape, dtype)
        out.append(Sample((T(v, dtype),) + a))
        if int(np.prod(shape)) > 1:
            out.append(Sample((T(v, dtype, noncontig=True),) + a))
    return out


def _select_errors(rng):
    x = _f(rng, (3, 4), "float32")
    return [ErrorCase(Sample((x, 0, 5)), IndexError), ErrorCase(Sample((x, 2, 0)), IndexError),
            ErrorCase(Sample((_f(rng, (), "float32"), 0, 0)), IndexError)]


def _backward_samples(shape_fn):
    """(x, g): x gives the input's shape (no grad), g the gradient of the view."""
    def make(dtype, rng):
        out = []
        for shape in [(4, 3), (3, 5), (2, 3, 4), (3, 1)]:
            gshape = shape_fn(shape)
            x = T(make_values(rng, shape, dtype), dtype, grad=False)
            g = make_values(rng, gshape, dtype)
            out.append(Sample((x, T(g, dtype))))
            if int(np.prod(gshape)) > 1:
                out.append(Sample((x, T(g, dtype, noncontig=True))))
        return out
    return make


def _grad_of(view):
    def fn(m, x, g):
        # enable_grad: ember's gradcheck evaluates fn under no_grad for its finite differences
        with m.enable_grad():
            x = x.detach().requires_grad_()
            return m.autograd.grad(view(x), x, g, create_graph=True)[0]
    return fn


def _slice_shape(shape):
    return (min(shape[0], 3) - 1,) + tuple(-(-s // 2) for s in shape[1:2]) + tuple(shape[2:])


def _slice_view(x):
    return x[1:3, ::2]


def _select_shape(shape):
    return (shape[0],) + tuple(shape[2:])


def _select_view(x):
    return x[:, -1]


def _backward_errors(gshape):
    def make(rng):
        return [ErrorCase(Sample((_f(rng, (4, 3), "float32", grad=False), _f(rng, gshape, "float32"))),
                          RuntimeError)]
    return make


def _alias_samples(dtype, rng):
    return [Sample(args) for args in layouts(rng, [[(4,)], [()], [(0,)], [(1,)]], dtype)]


OPS = [
    # ---- copies and fills ----
    OpInfo("copy_", lambda m, x, y: x.clone().copy_(y), _copy_samples, dtypes=ALL_AND_BOOL,
           inplace=lambda m, x, y: x.copy_(y), onnx=True, errors=_copy_errors),
    # src of another dtype: cast to self's
    OpInfo("copy_", lambda m, x, y: x.clone().copy_(y), _copy_cast_samples, dtypes=ALL_AND_BOOL,
           variant="cast", inplace=lambda m, x, y: x.copy_(y), grad=False),
    # into a view of a clone: the destination's gradient outside the view survives
    OpInfo("copy_", _partial(lambda m, v, y: v.copy_(y)),
           _partial_samples(lambda dtype, rng, shape: (T(make_values(rng, shape[-1:], dtype), dtype),)),
           dtypes=ALL_AND_BOOL, variant="partial"),
    # a copy into a fresh tensor: clone, to(dtype), contiguous
    OpInfo("copy_", lambda m, x: x.clone(), unary_samples(), dtypes=ALL_AND_BOOL, variant="clone",
           onnx=True),
    OpInfo("copy_", lambda m, x, dtype: x.to(dtype), _to_samples, dtypes=ALL_AND_BOOL, variant="to",
           grad=False),
    OpInfo("copy_", lambda m, x: x.contiguous(), _x_samples([[(3, 4)], [(2, 3, 2)]]), dtypes=ALL_AND_BOOL,
           variant="contiguous"),
    # grad=False: nothing but the overwritten self to differentiate (the "partial" variant)
    OpInfo("fill_", lambda m, x, value: x.clone().fill_(value), _fill_samples, dtypes=ALL_AND_BOOL,
           inplace=lambda m, x, value: x.fill_(value), onnx=True, grad=False, errors=_fill_errors),
    OpInfo("fill_", _partial(lambda m, v, value: v.fill_(value)),
           _partial_samples(lambda dtype, rng, shape: (_fill_value(dtype),)), dtypes=ALL_AND_BOOL,
           variant="partial"),
    # a 0-dim value tensor that does not require grad: fill_ with its item()
    OpInfo("fill_", lambda m, x, v: x.clone().fill_(v), _fill_tensor_samples, dtypes=ALL_AND_BOOL,
           variant="tensor_value", inplace=lambda m, x, v: x.fill_(v), grad=False, errors=_fill_tensor_errors),
    OpInfo("fill_", _partial(lambda m, v: v.zero_()), _partial_samples(), dtypes=ALL_AND_BOOL, variant="zero_"),
    OpInfo("fill_", lambda m, x: m.full_like(x, 3), unary_samples(), dtypes=ALL_AND_BOOL,
           variant="full_like", grad=False),
    OpInfo("fill_", lambda m, shape, dtype: m.full(shape, 3, dtype=dtype),
           lambda dtype, rng: [Sample((shape, Dtype(dtype))) for shape in [(2, 3), (), (0,)]],
           dtypes=ALL_AND_BOOL, variant="full", grad=False, trace=False),
    OpInfo("fill_", lambda m, shape: (m.zeros(shape), m.ones(shape)),
           lambda dtype, rng: [Sample(((2, 3),)), Sample(((),))], dtypes=("float32",), variant="zeros_ones",
           grad=False, trace=False),

    # ---- factories: no tensor input, so nothing to trace ----
    OpInfo("arange", lambda m, *a, dtype=None: m.arange(*a, dtype=dtype), _arange_samples, dtypes=NUMERIC,
           grad=False, trace=False,
           errors=lambda rng: _factory_errors([(0, 5, 0), (5, 0, 1), (0, -3, 2)])(rng) + [
               ErrorCase(Sample((0, 2), {"dtype": Dtype("bool")}), NotImplementedError)]),  # no bool kernel
    OpInfo("arange", lambda m, *a: m.arange(*a), _arange_default_samples, dtypes=("int64",),
           variant="default_dtype", grad=False, trace=False),
    OpInfo("linspace", lambda m, *a, dtype=None: m.linspace(*a, dtype=dtype), _linspace_samples, dtypes=NUMERIC,
           grad=False, trace=False, errors=_factory_errors([(0, 5, -1)])),
    OpInfo("eye", lambda m, *a, dtype=None: m.eye(*a, dtype=dtype), _eye_samples, dtypes=ALL_AND_BOOL,
           grad=False, trace=False, errors=_factory_errors([(-1,), (2, -3)])),

    # ---- random fills: range, statistics and seeding checked, not values (a seeded
    # generator per call, so the in-place form gives the same values). Their gradient
    # (zero for self) is checked by the deterministic "partial" variants. ----
    OpInfo("uniform_", _uniform, _random_samples, dtypes=FLOATING, grad=False, nondeterministic=True,
           inplace=lambda m, x, low=-2.0, high=3.0: x.uniform_(low, high, generator=_gen(m, like=x)),
           compare=_random_compare(-2, 3, lambda m, dt, g: _empty(m, dt).uniform_(-2, 3, generator=g), mean=0.5,
                                   std=5 / np.sqrt(12)),
           errors=_bad_float_call(low=3.0, high=2.0)),
    OpInfo("uniform_", _partial(lambda m, v: v.uniform_(2.0, 2.0)), _partial_samples(), dtypes=FLOATING,
           variant="partial"),
    OpInfo("uniform_", lambda m, x: m.rand_like(x), _random_samples, dtypes=FLOATING, variant="rand_like",
           grad=False, nondeterministic=True,
           compare=_random_compare(0, 1, lambda m, dt, g: m.rand(4000, generator=g, dtype=getattr(m, dt)),
                                   mean=0.5, std=1 / np.sqrt(12))),
    OpInfo("normal_", _normal, _random_samples, dtypes=FLOATING, grad=False, nondeterministic=True,
           inplace=lambda m, x, mean=1.5, std=2.0: x.normal_(mean, std, generator=_gen(m, like=x)),
           compare=_random_compare(-np.inf, np.inf, lambda m, dt, g: _empty(m, dt).normal_(1.5, 2.0, generator=g),
                                   mean=1.5, std=2.0),
           errors=_bad_float_call(std=-1.0)),
    OpInfo("normal_", _partial(lambda m, v: v.normal_(1.5, 0.0)), _partial_samples(), dtypes=FLOATING,
           variant="partial"),
    OpInfo("normal_", lambda m, x: m.randn_like(x), _random_samples, dtypes=FLOATING, variant="randn_like",
           grad=False, nondeterministic=True,
           compare=_random_compare(-np.inf, np.inf, lambda m, dt, g: m.randn(4000, generator=g, dtype=getattr(m, dt)),
                                   mean=0.0, std=1.0)),
    OpInfo("random_", _random_from_to, _random_samples, dtypes=ALL_AND_BOOL, grad=False, nondeterministic=True,
           inplace=lambda m, x: x.random_(*_random_range(str(x.dtype).split(".")[-1]), generator=_gen(m, like=x)),
           compare=_rand_compare_random_from_to(),
           errors=lambda rng: [ErrorCase(Sample((T(np.zeros(3), "uint8"),), {"low": -1, "high": 3}), RuntimeError),
                               ErrorCase(Sample((T(np.zeros(3), "uint8"),), {"low": 0, "high": 300}), RuntimeError),
                               ErrorCase(Sample((_f(rng, (3,), "float32"),), {"low": 5, "high": 2}), RuntimeError)]),
    OpInfo("random_", lambda m, x: x.clone().random_(2 if x.dtype == m.bool else 5, generator=_gen(m, like=x)),
           _random_samples, dtypes=ALL_AND_BOOL, variant="to", grad=False, nondeterministic=True,
           compare=_random_to_compare()),
    OpInfo("random_", lambda m, x: x.clone().random_(generator=_gen(m, like=x)), _random_samples, dtypes=ALL_AND_BOOL,
           variant="full_range", grad=False, nondeterministic=True, compare=_random_full_compare()),
    OpInfo("random_", _partial(lambda m, v: v.random_(5, 6)), _partial_samples(), dtypes=NUMERIC,
           variant="partial"),
    OpInfo("random_", lambda m, n: m.randint(3, 9, (n,), generator=_gen(m)),
           lambda dtype, rng: [Sample((4000,)), Sample((0,))], dtypes=("int64",), variant="randint",
           grad=False, trace=False, nondeterministic=True,
           compare=_random_compare(3, 9, lambda m, dt, g: m.randint(3, 9, (4000,), generator=g), mean=5.5,
                                   integer=True)),
    OpInfo("randperm", lambda m, n, dtype=None: m.randperm(n, dtype=dtype, generator=_gen(m)), _randperm_samples,
           dtypes=NUMERIC, grad=False, trace=False, nondeterministic=True, compare=_randperm_compare(),
           errors=_factory_errors([(-1,)])),
    OpInfo("bernoulli_", _bernoulli, _random_samples, dtypes=ALL_AND_BOOL, grad=False, nondeterministic=True,
           inplace=lambda m, x, p=0.3: x.bernoulli_(p, generator=_gen(m, like=x)),
           compare=_random_compare(0, 1, lambda m, dt, g: _empty(m, dt).bernoulli_(0.3, generator=g), mean=0.3,
                                   integer=True, hi_inclusive=True),
           errors=lambda rng: [ErrorCase(Sample((_f(rng, (3,), "float32"),), {"p": 1.5}), RuntimeError),
                               ErrorCase(Sample((_f(rng, (3,), "float32"),), {"p": -0.1}), RuntimeError)]),
    OpInfo("bernoulli_", _partial(lambda m, v: v.bernoulli_(1.0)), _partial_samples(), dtypes=ALL_AND_BOOL,
           variant="partial"),
    OpInfo("bernoulli_", lambda m, x: m.bernoulli(x, p=0.7, generator=_gen(m, like=x)), _random_samples, dtypes=FLOATING,
           variant="bernoulli_p", grad=False, nondeterministic=True,
           compare=_random_compare(0, 1, lambda m, dt, g: m.bernoulli(_empty(m, dt), p=0.7, generator=g), mean=0.7,
                                   integer=True, hi_inclusive=True)),

    # ---- views: values, gradients, and the result shares the input's storage ----
    OpInfo("view", _views(lambda m, x, s: x.view(s)), _view_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_view_errors),
    OpInfo("view", _views(lambda m, x, s: x.t().view(s)), _transposed_view_samples, dtypes=FLOAT,
           variant="transposed", errors=_transposed_view_errors),
    OpInfo("view", lambda m, x, s: x.reshape(s), _reshape_samples, dtypes=ALL_AND_BOOL, variant="reshape",
           onnx=True),
    # reshape is a view exactly where torch's is (else a copy): the flag compared too
    OpInfo("view", _reshape_storage,
           lambda dtype, rng: _reshape_samples(dtype, rng) + [
               Sample(s.args, {"transposed": True}) for s in _transposed_view_samples(dtype, rng)] + [
               Sample((_f(rng, (3, 4), dtype, noncontig=nc), (12,)), {"transposed": True}) for nc in (False, True)],
           dtypes=FLOAT, variant="reshape_storage", trace=False),
    OpInfo("view", _views(lambda m, x, o: x.view_as(o)),
           lambda dtype, rng: [Sample((_f(rng, (3, 4), dtype), _f(rng, (2, 6), dtype, grad=False))),
                               Sample((_f(rng, (3, 4), dtype, noncontig=True), _f(rng, (3, 2, 2), dtype, grad=False)))],
           dtypes=FLOAT, variant="view_as"),
    OpInfo("view", _views(lambda m, x: x.flatten(1)), _x_samples([[(3, 4)], [(2, 3, 2)], [(0, 4)]]),
           dtypes=FLOAT, variant="flatten"),
    OpInfo("view", _views(lambda m, x: x.unflatten(1, (2, -1))), _x_samples([[(3, 4)], [(2, 6, 2)]]),
           dtypes=FLOAT, variant="unflatten"),
    OpInfo("as_strided", _views(lambda m, x, *a: x.as_strided(*a)), _as_strided_samples,
           dtypes=ALL_AND_BOOL, errors=_as_strided_errors),
    # ember bug: a traced diagonal (a composite: as_strided) keeps the example input's
    # strides and storage offset, so the loaded trace fails on a contiguous input: trace=False
    OpInfo("as_strided", _views(lambda m, x: m.diagonal(x, 1)), _x_samples([[(3, 4)], [(4, 4)], [(2, 3, 3)]]),
           dtypes=ALL_AND_BOOL, variant="diagonal", trace=False),
    OpInfo("transpose", _views(lambda m, x, a, b: x.transpose(a, b)), _transpose_samples,
           dtypes=ALL_AND_BOOL, onnx=True, errors=_dim_errors((0, 2), (-3, 0))),
    OpInfo("transpose", _views(lambda m, x: m.t(x)), _x_samples([[(3, 4)], [(0, 2)]]), dtypes=FLOAT,
           variant="t", onnx=True),
    OpInfo("transpose", _views(lambda m, x: x.mT), _x_samples([[(3, 4)], [(2, 3, 4)]]), dtypes=FLOAT,
           variant="mT"),
    OpInfo("transpose", _views(lambda m, x: m.swapaxes(x, 0, 1)), _x_samples([[(3, 4)], [(2, 3, 4)]]),
           dtypes=FLOAT, variant="swapaxes"),
    OpInfo("permute", _views(lambda m, x, d: x.permute(d)), _permute_samples, dtypes=ALL_AND_BOOL,
           onnx=True, errors=_permute_errors),
    OpInfo("permute", _views(lambda m, x, a, b: m.movedim(x, a, b)), _movedim_samples, dtypes=FLOAT,
           variant="movedim", onnx=True),
    OpInfo("expand", _views(lambda m, x, s: x.expand(s)), _expand_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_expand_errors),
    OpInfo("expand", _views(lambda m, x, o: x.expand_as(o)), _expand_as_samples, dtypes=FLOAT,
           variant="expand_as"),
    OpInfo("expand", _views(lambda m, x, s: m.broadcast_to(x, s)), _expand_samples, dtypes=FLOAT,
           variant="broadcast_to"),
    OpInfo("squeeze", _views(_squeeze), _squeeze_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=_dim_errors((2,), (-3,))),
    OpInfo("unsqueeze", _views(lambda m, x, d: x.unsqueeze(d)), _unsqueeze_samples, dtypes=ALL_AND_BOOL,
           onnx=True, errors=_dim_errors((3,), (-4,))),
] + [
    OpInfo("slice", _views(lambda m, x, f=f: f(x)), _x_samples([[(3, 4)], [(4, 6)], [(3, 0)]]),
           dtypes=ALL_AND_BOOL if name == "rows" else FLOAT, variant="" if name == "rows" else name, onnx=True,
           errors=(lambda rng: [ErrorCase(Sample((_f(rng, (), "float32"),)), IndexError)]) if name == "rows" else None)
    for name, f in SLICES.items()
] + [
    OpInfo("slice", lambda m, x, step: x[::step], lambda dtype, rng: [Sample((_f(rng, (4,), dtype), 2))],
           dtypes=FLOAT, variant="bad_step", errors=_slice_errors),
    OpInfo("slice", _views(lambda m, x, *a: x.narrow(*a)), _narrow_samples, dtypes=ALL_AND_BOOL,
           variant="narrow", onnx=True, errors=_narrow_errors),
    OpInfo("slice", lambda m, x: x.split(2, 1), _x_samples([[(3, 5)], [(2, 4, 3)]]), dtypes=FLOAT,
           variant="split"),
    OpInfo("slice", lambda m, x: x.chunk(2), _x_samples([[(5, 3)], [(4,)]]), dtypes=FLOAT, variant="chunk"),
    OpInfo("select", _views(lambda m, x, d, i: x.select(d, i)), _select_samples, dtypes=ALL_AND_BOOL,
           onnx=True, errors=_select_errors),
    OpInfo("select", _views(lambda m, x: x[1]), _x_samples([[(3, 4)], [(2, 3, 2)], [(2,)]]),
           dtypes=ALL_AND_BOOL, variant="getitem", onnx=True,
           errors=lambda rng: [ErrorCase(Sample((_f(rng, (1, 4), "float32"),)), IndexError),
                               ErrorCase(Sample((_f(rng, (), "float32"),)), IndexError)]),
    OpInfo("select", _views(lambda m, x: x[:, -1]), _x_samples([[(3, 4)], [(2, 3, 2)], [(0, 2)]]),
           dtypes=FLOAT, variant="getitem_dim1", onnx=True),
    OpInfo("select", lambda m, x: x.unbind(1), _x_samples([[(3, 4)], [(2, 3, 2)]]), dtypes=FLOAT,
           variant="unbind"),
    OpInfo("alias", _views(lambda m, x: m.t(x)), _alias_samples, dtypes=ALL_AND_BOOL, onnx=True,
           errors=lambda rng: [ErrorCase(Sample((_f(rng, (2, 2, 2), "float32"),)), RuntimeError)]),
    OpInfo("alias", _views(lambda m, x: x.detach()), _x_samples([[(3, 4)], [()]]), dtypes=ALL_AND_BOOL,
           variant="detach", grad=False, onnx=True),
    OpInfo("alias", _views(lambda m, x: x.transpose(0, -1)), _x_samples([[()]]), dtypes=FLOAT,
           variant="transpose_0d"),
    OpInfo("alias", _views(lambda m, x: x[...]), _x_samples([[(3, 4)], [()]]), dtypes=FLOAT,
           variant="ellipsis", onnx=True),

    # ---- the views' backward helpers, through autograd (create_graph: their own gradient) ----
    OpInfo("slice_backward", _grad_of(_slice_view), _backward_samples(_slice_shape), dtypes=FLOATING, trace=False,
           errors=_backward_errors((2, 3))),
    OpInfo("slice_backward", _grad_of(lambda x: x.narrow(0, 1, 1)), _backward_samples(lambda s: (1,) + s[1:]),
           dtypes=FLOAT, variant="narrow", trace=False),
    OpInfo("select_backward", _grad_of(_select_view), _backward_samples(_select_shape), dtypes=FLOATING,
           trace=False, errors=_backward_errors((4, 3))),
    OpInfo("select_backward", _grad_of(lambda x: x[0]), _backward_samples(lambda s: s[1:]), dtypes=FLOAT,
           variant="first", trace=False),
]
