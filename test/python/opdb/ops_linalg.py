"""Op database entries of the linalg group (lib/dispatch/schema/linalg.toml): the
matrix products (also reached through matmul / linear), the convolutions and the
pools."""
import numpy as np

from .opinfo import (ALL, FLOAT, FLOATING, INTEGRAL, ErrorCase, OpInfo, Sample, T, layouts,
                     make_values)


def _F(m):
    return m.nn.functional


def _t(rng, shape, dtype, low=-3.0, high=3.0, noncontig=False, grad=True):
    return T(make_values(rng, shape, dtype, low, high), dtype, noncontig, grad)


def _distinct(rng, shape, dtype, noncontig=False):
    """Values without ties (so that argmax indices are unique whatever the dtype):
    a permutation, spread over about [-3.75, 3.75] for floats (0.05 apart, distinct
    after bfloat16 rounding), over [-n/2, n/2) or [0, n) for integers."""
    n = int(np.prod(shape))
    perm = rng.permutation(n).astype(np.float64)
    if dtype in INTEGRAL:
        vals = perm if dtype == "uint8" else perm - n // 2
        assert n <= 200, "too many elements for distinct 8-bit values"
        return T(vals.reshape(shape).astype(np.int64), dtype, noncontig)
    return T(((perm - n / 2) * 0.05).reshape(shape), dtype, noncontig)


def _both(args_fn, kwargs=None, name=""):
    """A sample built contiguous and strided: args_fn(noncontig) -> args."""
    kwargs = kwargs or {}
    return [Sample(args_fn(False), dict(kwargs), name), Sample(args_fn(True), dict(kwargs), name + "-strided")]


def _pair_samples(shapes):
    def make(dtype, rng):
        return [Sample(a) for a in layouts(rng, shapes, dtype)]
    return make


def _bad_dtype_pair(rng, sa, sb):
    return Sample((_t(rng, sa, "float32"), _t(rng, sb, "float64")))


# ---- matrix products -----------------------------------------------------------------------

MM_SHAPES = [[(3, 4), (4, 5)], [(1, 1), (1, 1)], [(0, 3), (3, 2)], [(3, 0), (0, 2)], [(2, 3), (3, 0)]]
BMM_SHAPES = [[(2, 3, 4), (2, 4, 2)], [(1, 2, 2), (1, 2, 3)], [(0, 2, 3), (0, 3, 2)],
              [(2, 3, 0), (2, 0, 2)], [(2, 0, 3), (2, 3, 1)]]
MV_SHAPES = [[(3, 4), (4,)], [(1, 1), (1,)], [(0, 3), (3,)], [(3, 0), (0,)]]
DOT_SHAPES = [[(5,), (5,)], [(1,), (1,)], [(0,), (0,)]]
# matmul's batched case (one bmm over the broadcast batch): batch dims broadcast
# both ways, a vector on either side, a strided batch that does not fold.
MATMUL_BMM_SHAPES = [[(2, 1, 3, 4), (3, 4, 2)], [(2, 3, 4), (1, 4, 2)], [(4,), (2, 4, 3)],
                     [(1, 3, 4), (2, 4, 2)], [(3, 4), (2, 4, 2)], [(0, 2, 3), (3, 2)]]
# matmul's folded cases: a batch of matrices times one matrix (mm) or vector (mv).
MATMUL_MM_SHAPES = [[(2, 3, 4), (4, 2)], [(4,), (4, 3)], [(2, 2, 1, 3), (3, 2)]]
MATMUL_MV_SHAPES = [[(2, 3, 4), (4,)], [(3, 4), (4,)]]


def _addmm_samples(beta_alpha=None):
    def make(dtype, rng):
        kw = dict(beta_alpha or {})
        out = []
        # self of the product's shape, a row, a column, a 0-dim, a [p] vector.
        for s_shape in [(3, 5), (1, 5), (3, 1), (), (5,)]:
            out += _both(lambda nc, s=s_shape: (_t(rng, s, dtype, noncontig=nc),
                                                 _t(rng, (3, 4), dtype, noncontig=nc),
                                                 _t(rng, (4, 5), dtype, noncontig=nc)), kw)
        out.append(Sample((_t(rng, (2, 2), dtype), _t(rng, (2, 3), dtype), _t(rng, (3, 2), dtype)), kw))
        out.append(Sample((_t(rng, (0, 2), dtype), _t(rng, (0, 3), dtype), _t(rng, (3, 2), dtype)), kw))
        out.append(Sample((_t(rng, (2, 3), dtype), _t(rng, (2, 0), dtype), _t(rng, (0, 3), dtype)), kw))
        return out
    return make


def _addmm_alpha_samples(dtype, rng):
    """beta = 1 (the bias added as it is), alpha != 1: every self of _addmm_samples, the
    [p] vector bias among them."""
    alpha = 3 if dtype in INTEGRAL else -2.5
    return _addmm_samples(dict(beta=1, alpha=alpha))(dtype, rng)


def _addmm_nan_self_samples(dtype, rng):
    """beta = 0 with NaN and infinities in self: the result must not propagate them."""
    out = []
    for sample in _addmm_samples(dict(beta=0))(dtype, rng):
        s = sample.args[0]
        v = np.array(s.values, dtype=np.float64)
        flat = v.reshape(-1)
        flat[0::3] = np.nan
        flat[1::3] = np.inf
        out.append(Sample((T(v, dtype, s.noncontig),) + sample.args[1:], dict(sample.kwargs), "nan-self"))
    return out


def _linear_samples(dtype, rng):
    out = []
    for x, w, b in [((3, 4), (5, 4), (5,)), ((2, 3, 4), (2, 4), (2,)), ((4,), (3, 4), (3,)),
                    ((2, 4), (3, 4), (1,)), ((0, 4), (3, 4), (3,))]:
        out += _both(lambda nc, x=x, w=w, b=b: (_t(rng, x, dtype, noncontig=nc),
                                                 _t(rng, w, dtype, noncontig=nc),
                                                 _t(rng, b, dtype, noncontig=nc)))
    return out


def _linear_nobias_samples(dtype, rng):
    return [Sample(a) for a in layouts(rng, [[(3, 4), (5, 4)], [(2, 3, 4), (2, 4)], [(0, 4), (3, 4)]],
                                       dtype)]


def _bool_pair(sa, sb):
    return Sample((T(np.ones(sa, bool), "bool"), T(np.ones(sb, bool), "bool")))


def _mm_errors(rng):
    return [ErrorCase(Sample((_t(rng, (3, 4), "float32"), _t(rng, (5, 2), "float32"))), RuntimeError),
            ErrorCase(_bool_pair((2, 2), (2, 2)), RuntimeError),
            ErrorCase(_bad_dtype_pair(rng, (3, 4), (4, 2)), RuntimeError),
            ErrorCase(Sample((_t(rng, (4,), "float32"), _t(rng, (4, 2), "float32"))), RuntimeError)]


def _bmm_errors(rng):
    return [ErrorCase(Sample((_t(rng, (2, 3, 4), "float32"), _t(rng, (3, 4, 2), "float32"))), RuntimeError),
            ErrorCase(Sample((_t(rng, (2, 3, 4), "float32"), _t(rng, (2, 5, 2), "float32"))), RuntimeError),
            ErrorCase(_bad_dtype_pair(rng, (2, 3, 4), (2, 4, 2)), RuntimeError),
            ErrorCase(_bool_pair((1, 2, 2), (1, 2, 2)), RuntimeError),
            ErrorCase(Sample((_t(rng, (3, 4), "float32"), _t(rng, (4, 2), "float32"))), RuntimeError)]


def _addmm_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (3, 5), f), _t(rng, (3, 4), f), _t(rng, (3, 5), f))), RuntimeError),
            ErrorCase(Sample((_t(rng, (2, 5), f), _t(rng, (3, 4), f), _t(rng, (4, 5), f))), RuntimeError),
            ErrorCase(Sample((_t(rng, (3, 5), "float64"), _t(rng, (3, 4), f), _t(rng, (4, 5), f))),
                      RuntimeError)]


def _mv_errors(rng):
    return [ErrorCase(Sample((_t(rng, (3, 4), "float32"), _t(rng, (5,), "float32"))), RuntimeError),
            ErrorCase(Sample((_t(rng, (3, 4), "float32"), _t(rng, (4, 1), "float32"))), RuntimeError),
            ErrorCase(_bad_dtype_pair(rng, (3, 4), (4,)), RuntimeError),
            ErrorCase(_bool_pair((2, 2), (2,)), RuntimeError)]


def _dot_errors(rng):
    return [ErrorCase(Sample((_t(rng, (3,), "float32"), _t(rng, (4,), "float32"))), RuntimeError),
            ErrorCase(Sample((_t(rng, (3, 1), "float32"), _t(rng, (3, 1), "float32"))), RuntimeError),
            ErrorCase(_bad_dtype_pair(rng, (3,), (3,)), RuntimeError),
            ErrorCase(_bool_pair((2,), (2,)), RuntimeError)]


def _matmul_errors(rng):
    return [ErrorCase(Sample((_t(rng, (2, 3, 4), "float32"), _t(rng, (3, 4, 2), "float32"))), RuntimeError),
            ErrorCase(Sample((_t(rng, (2, 3, 4), "float32"), _t(rng, (5, 2), "float32"))), RuntimeError)]


# ---- operands that are views: sub-blocks, expanded (stride 0), permuted and sliced batches ----

def _view(t, how):
    """The sample's tensor t seen through a view (how: None, or (kind, arg)): "cols" a
    column range t[..., a:b] of a wider matrix (row stride above its width), "col" a
    column t[:, j] of a matrix (a vector of stride > 1), "expand" t.expand(shape) (stride 0
    where t has size 1), "perm" t.permute(dims), "step" t[::k] along dim 0."""
    if how is None:
        return t
    kind, arg = how
    if kind == "cols":
        return t[..., arg[0]:arg[1]]
    if kind == "col":
        return t[:, arg]
    if kind == "expand":
        return t.expand(*arg)
    if kind == "perm":
        return t.permute(*arg)
    if kind == "step":
        return t[::arg]
    raise ValueError(kind)


def _viewed(op):
    """fn(m, a, b, va=None, vb=None): op(m, a, b) on the views va of a and vb of b."""
    return lambda m, a, b, va=None, vb=None: op(m, _view(a, va), _view(b, vb))


def _view_samples(cases):
    """cases: (shape of a, view of a, shape of b, view of b[, name]); small ones first
    (gradcheck takes the first small samples)."""
    def make(dtype, rng):
        out = []
        for sa, va, sb, vb, *name in cases:
            kw = {k: v for k, v in (("va", va), ("vb", vb)) if v is not None}
            out.append(Sample((_t(rng, sa, dtype), _t(rng, sb, dtype)), kw, name[0] if name else ""))
        return out
    return make


# big[:, 1:4] (a [3, 3] block of a [3, 6] matrix), a row / column broadcast along the other dim.
MM_VIEW_CASES = [((3, 6), ("cols", (1, 4)), (3, 2), None, "block"),
                 ((3, 2), None, (2, 7), ("cols", (2, 5)), "block"),
                 ((1, 4), ("expand", (3, 4)), (4, 2), None, "expanded"),
                 ((3, 4), None, (4, 1), ("expand", (4, 3)), "expanded"),
                 ((3, 1), ("expand", (3, 4)), (1, 2), ("expand", (4, 2)), "expanded"),
                 ((64, 33), None, (33, 17), None, "large"),
                 ((64, 40), ("cols", (3, 36)), (1, 17), ("expand", (33, 17)), "large-views")]
MV_VIEW_CASES = [((3, 6), ("cols", (1, 4)), (3,), None, "block"),
                 ((1, 4), ("expand", (3, 4)), (4,), None, "expanded"),
                 ((3, 4), None, (1,), ("expand", (4,)), "expanded"),
                 ((3, 4), None, (4, 3), ("col", 1), "column"),
                 ((40, 50), ("cols", (5, 38)), (33,), None, "large")]
DOT_VIEW_CASES = [((5, 3), ("col", 1), (5,), None, "column"),
                  ((4,), None, (4, 6), ("col", 5), "column"),
                  ((1,), ("expand", (5,)), (5,), None, "expanded"),
                  ((1,), ("expand", (4,)), (1,), ("expand", (4,)), "expanded")]
# batch strides below a matrix: x.permute(1, 0, 2) of a [3, 2, 4] tensor is [2, 3, 4]
# with batch stride 4; x[::2]: every other matrix of the batch; an expanded batch.
BMM_VIEW_CASES = [((3, 2, 4), ("perm", (1, 0, 2)), (2, 4, 2), None, "permuted"),
                  ((2, 3, 4), None, (4, 2, 3), ("perm", (1, 0, 2)), "permuted"),
                  ((4, 3, 4), ("step", 2), (4, 4, 2), ("step", 2), "sliced"),
                  ((1, 3, 4), ("expand", (2, 3, 4)), (2, 4, 2), None, "expanded"),
                  ((2, 3, 6), ("cols", (1, 5)), (2, 4, 2), None, "block")]
# matmul of a batched operand of 3 or more dims and a matrix or vector: a sub-block batch
# still folds into the rows (one mm / mv on a [-1, k] view with row stride above k)...
MATMUL_MM_VIEW_CASES = [((2, 2, 3), ("cols", (0, 2)), (2, 3), None, "block-folds"),
                        ((2, 3, 6), ("cols", (1, 5)), (4, 2), None, "block-folds")]
MATMUL_MV_VIEW_CASES = [((2, 2, 3), ("cols", (1, 3)), (2,), None, "block-folds"),
                        ((2, 3, 6), ("cols", (1, 5)), (4,), None, "block-folds")]
# ...a transposed or sliced batch does not (one bmm over the batch, the other operand
# expanded to it), nor does a permuted batch against a batch
MATMUL_BMM_VIEW_CASES = [((3, 2, 4), ("perm", (1, 0, 2)), (4, 2), None, "permuted"),
                         ((4, 3, 4), ("step", 2), (4, 3), None, "sliced"),
                         ((3, 2, 2, 4), ("perm", (1, 0, 2, 3)), (4, 3), None, "permuted-4d"),
                         ((3, 2, 4), ("perm", (1, 0, 2)), (4,), None, "permuted-vector"),
                         ((3, 2, 4), ("perm", (1, 0, 2)), (2, 4, 2), None, "permuted"),
                         ((3, 2, 4), ("perm", (1, 0, 2)), (1, 4, 2), None, "permuted-broadcast"),
                         ((4,), None, (4, 2, 3), ("perm", (1, 0, 2)), "vector-permuted")]
# outer(a, b): mm of a column and a row
OUTER_SHAPES = [[(3,), (4,)], [(1,), (1,)], [(0,), (3,)], [(3,), (0,)], [(5,), (2,)]]


# float16/bfloat16 addmm: ember adds beta * self to the float32 product and rounds once,
# torch's CPU kernel rounds the product to the half type first (one ulp more).
ADDMM_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}


# ---- convolutions ---------------------------------------------------------------------------

# PyTorch's float16 conv_transpose2d on the CPU rounds more than once (on an AMD EPYC, torch
# 2.15: up to 0.009 from the float64 result on values near 6, where ember's single rounding
# stays within 0.004), so float16 is held to float16's few ulps at that magnitude.
CONV_TRANSPOSE_TOL = {"float16": (3e-3, 1e-2)}

# Integer convolutions wrap around in 8 bits: values in [-2, 2] keep every sum in range.
CONV_LOW, CONV_HIGH = -2.0, 2.0


def _conv_sample(rng, dtype, x, w, b, kw, name=""):
    def args(nc):
        out = (_t(rng, x, dtype, CONV_LOW, CONV_HIGH, nc), _t(rng, w, dtype, CONV_LOW, CONV_HIGH, nc))
        return out + ((_t(rng, b, dtype, CONV_LOW, CONV_HIGH, nc),) if b else ())
    return _both(args, kw, name)


def _conv2d_samples(dtype, rng):
    s = []
    # small first: gradcheck / gradgradcheck run on the first small samples.
    s += _conv_sample(rng, dtype, (1, 2, 3, 3), (2, 2, 2, 2), (2,), {}, "small")
    s += _conv_sample(rng, dtype, (1, 2, 3, 3), (2, 1, 2, 2), None, dict(groups=2, padding=1), "small-groups")
    s += _conv_sample(rng, dtype, (2, 2, 5, 5), (3, 2, 3, 3), (3,), {})
    s += _conv_sample(rng, dtype, (2, 2, 5, 6), (3, 2, 3, 3), (3,), dict(stride=2, padding=1))
    # PyTorch's dilated CPU convolution runs no integer dtype but int64.
    dilated = dtype in FLOATING or dtype == "int64"
    if dilated:
        s += _conv_sample(rng, dtype, (1, 2, 6, 7), (2, 2, 2, 3), (2,), dict(padding=(1, 2), dilation=2))
    s += _conv_sample(rng, dtype, (1, 2, 5, 5), (2, 2, 3, 3), (2,), dict(padding="same"))
    # an even kernel: an odd total "same" padding (the extra zero at the end).
    s += _conv_sample(rng, dtype, (1, 2, 5, 6), (2, 2, 2, 4), (2,), dict(padding="same"))
    if dilated:
        s += _conv_sample(rng, dtype, (1, 2, 6, 6), (2, 2, 2, 3), None, dict(padding="same", dilation=(2, 1)))
    s += _conv_sample(rng, dtype, (1, 2, 5, 5), (2, 2, 3, 3), (2,), dict(padding="valid"))
    s += _conv_sample(rng, dtype, (2, 4, 4, 4), (6, 2, 3, 3), (6,), dict(groups=2))
    s += _conv_sample(rng, dtype, (1, 4, 4, 4), (4, 1, 3, 3), None, dict(groups=4, padding=1))  # depthwise
    s += _conv_sample(rng, dtype, (2, 3, 4, 5), (4, 3, 1, 1), None, dict(stride=(1, 2)))  # 1x1
    s += _conv_sample(rng, dtype, (2, 4, 4), (3, 2, 3, 3), (3,), {}, "unbatched")
    s += _conv_sample(rng, dtype, (0, 2, 4, 4), (3, 2, 3, 3), (3,), {}, "empty-batch")
    return s


def _conv_transpose2d_samples(dtype, rng):
    s = []
    s += _conv_sample(rng, dtype, (1, 2, 3, 3), (2, 2, 2, 2), (2,), {}, "small")
    s += _conv_sample(rng, dtype, (1, 2, 2, 3), (2, 1, 2, 2), None, dict(groups=2, stride=2), "small-groups")
    s += _conv_sample(rng, dtype, (2, 2, 3, 3), (2, 3, 3, 3), (3,), dict(stride=2, padding=1, output_padding=1))
    s += _conv_sample(rng, dtype, (1, 2, 3, 4), (2, 2, 2, 3), (2,),
                      dict(stride=(2, 1), output_padding=(1, 0), dilation=2))
    s += _conv_sample(rng, dtype, (1, 2, 3, 3), (2, 2, 3, 3), (2,), dict(stride=3, output_padding=2, padding=(1, 2)))
    s += _conv_sample(rng, dtype, (2, 4, 3, 3), (4, 1, 2, 2), (2,), dict(groups=2))
    s += _conv_sample(rng, dtype, (1, 3, 3, 3), (3, 2, 3, 3), None, {})
    s += _conv_sample(rng, dtype, (2, 3, 3), (2, 3, 2, 2), (3,), {}, "unbatched")
    s += _conv_sample(rng, dtype, (0, 2, 3, 3), (2, 3, 2, 2), (3,), {}, "empty-batch")
    return s


def _conv2d_errors(rng):
    f = "float32"
    return [
        # channels of input and weight disagree
        ErrorCase(Sample((_t(rng, (1, 3, 4, 4), f), _t(rng, (2, 2, 3, 3), f))), RuntimeError),
        # kernel larger than the padded input
        ErrorCase(Sample((_t(rng, (1, 2, 2, 2), f), _t(rng, (2, 2, 3, 3), f))), RuntimeError),
        # groups does not divide the output channels
        ErrorCase(Sample((_t(rng, (1, 4, 4, 4), f), _t(rng, (3, 2, 3, 3), f)), dict(groups=2)), RuntimeError),
        ErrorCase(Sample((_t(rng, (1, 2, 4, 4), f), _t(rng, (2, 2, 3, 3), "float64"))), RuntimeError),
        ErrorCase(Sample((_t(rng, (1, 2, 4, 4), f), _t(rng, (2, 2, 3, 3), f), _t(rng, (3,), f))), RuntimeError),
        ErrorCase(Sample((_t(rng, (1, 2, 5, 5), f), _t(rng, (2, 2, 3, 3), f)), dict(padding="same", stride=2)),
                  RuntimeError),
        ErrorCase(Sample((_t(rng, (2, 4), f), _t(rng, (2, 2, 3, 3), f))), RuntimeError),
    ]


def _conv_transpose2d_errors(rng):
    f = "float32"
    return [
        ErrorCase(Sample((_t(rng, (1, 3, 3, 3), f), _t(rng, (2, 2, 3, 3), f))), RuntimeError),
        # output_padding must be smaller than stride or dilation
        ErrorCase(Sample((_t(rng, (1, 2, 3, 3), f), _t(rng, (2, 2, 3, 3), f)), dict(output_padding=1)),
                  RuntimeError),
        ErrorCase(Sample((_t(rng, (1, 2, 3, 3), f), _t(rng, (2, 2, 3, 3), "float64"))), RuntimeError),
    ]


# ---- pools ---------------------------------------------------------------------------------

def _pool_sample(rng, dtype, shape, kw, name="", distinct=False):
    def args(nc):
        if distinct:
            return (_distinct(rng, shape, dtype, nc),)
        return (_t(rng, shape, dtype, noncontig=nc),)
    return _both(args, kw, name)


def _max_pool_samples(distinct):
    def make(dtype, rng):
        s = []
        p = lambda shape, kw, name="": _pool_sample(rng, dtype, shape, kw, name, distinct)  # noqa: E731
        s += p((1, 1, 4, 4), dict(kernel_size=2), "small")
        s += p((1, 2, 3, 4), dict(kernel_size=2, stride=1, padding=1), "small-padded")
        s += p((2, 3, 5, 5), dict(kernel_size=3, stride=2, padding=1))
        s += p((1, 2, 5, 5), dict(kernel_size=2, ceil_mode=True))
        s += p((1, 2, 6, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True))
        s += p((1, 2, 6, 6), dict(kernel_size=2, dilation=2))
        s += p((1, 2, 7, 6), dict(kernel_size=(3, 2), stride=(2, 1), dilation=(1, 2), padding=(1, 0)))
        s += p((1, 2, 4, 6), dict(kernel_size=(2, 3), stride=(1, 2)))
        s += p((2, 4, 4), dict(kernel_size=2), "unbatched")
        s += p((0, 2, 4, 4), dict(kernel_size=2), "empty-batch")
        return s
    return make


def _max_pool_ties_samples(dtype, rng):
    """Ties (few distinct values: the index is the first maximum's) and, for the floating
    dtypes, NaN (a window holding one gives NaN, at the index of its last NaN)."""
    s = []
    nan = dtype not in INTEGRAL
    for i, (shape, kw) in enumerate([((1, 1, 4, 4), dict(kernel_size=2)),
                                     ((1, 2, 4, 5), dict(kernel_size=2, stride=1, padding=1)),
                                     ((2, 2, 5, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
                                     ((1, 2, 6, 6), dict(kernel_size=2, dilation=2)),
                                     ((1, 1, 4, 4), dict(kernel_size=4))]):
        lo = 0.0 if dtype == "uint8" else -1.0  # -1, 0, 1 (0, 1, 2 in uint8): ties in every window
        v = np.round(rng.uniform(lo - 0.4, lo + 2.4, shape))
        s += _both(lambda nc, v=v: (T(v, dtype, nc),), kw, "ties")
        if nan:
            w = rng.uniform(-3, 3, shape)
            w[rng.random(shape) < 0.25] = np.nan
            if i == 0:
                w.reshape(-1)[:2] = np.nan  # a window of NaN and numbers, another all NaN
                w[0, 0, 2:, 2:] = np.nan
            s += _both(lambda nc, w=w: (T(w, dtype, nc),), kw, "nan")
    s.append(Sample((T(np.ones((1, 2, 3, 3)), dtype),), dict(kernel_size=2, stride=1), "all-equal"))
    return s


def _avg_pool2d_samples(dtype, rng):
    s = []
    p = lambda shape, kw, name="": _pool_sample(rng, dtype, shape, kw, name)  # noqa: E731
    s += p((1, 1, 4, 4), dict(kernel_size=2), "small")
    s += p((1, 2, 3, 4), dict(kernel_size=2, stride=1, padding=1, count_include_pad=False), "small-padded")
    s += p((2, 3, 5, 5), dict(kernel_size=3, stride=2, padding=1))
    s += p((2, 3, 5, 5), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False))
    s += p((1, 2, 5, 5), dict(kernel_size=2, ceil_mode=True))
    # ceil_mode windows that start in the padding or run past it
    s += p((1, 2, 6, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True))
    s += p((1, 2, 6, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False))
    s += p((1, 2, 5, 5), dict(kernel_size=3, stride=2, padding=1, divisor_override=2))
    s += p((1, 2, 4, 6), dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 0)))
    s += p((2, 4, 4), dict(kernel_size=2), "unbatched")
    s += p((0, 2, 4, 4), dict(kernel_size=2), "empty-batch")
    return s


def _adaptive_avg_pool2d_samples(dtype, rng):
    s = []
    p = lambda shape, kw, name="": _pool_sample(rng, dtype, shape, kw, name)  # noqa: E731
    s += p((1, 1, 4, 4), dict(output_size=2), "small")  # divides: exportable
    s += p((1, 1, 5, 4), dict(output_size=(3, 3)), "small-uneven")
    s += p((2, 3, 5, 7), dict(output_size=(3, 3)))
    s += p((2, 3, 5, 7), dict(output_size=(None, 2)))
    s += p((2, 3, 5, 7), dict(output_size=1))
    s += p((1, 2, 3, 3), dict(output_size=(5, 4)))  # larger than the input: windows overlap
    s += p((2, 6, 5), dict(output_size=(2, 3)), "unbatched")
    s += p((0, 2, 4, 4), dict(output_size=2), "empty-batch")
    return s


def _adaptive_no_channels_samples(dtype, rng):
    return _pool_sample(rng, dtype, (1, 0, 4, 4), dict(output_size=2), "no-channels")


def _pool_errors(fn_kw):
    def make(rng):
        f = "float32"
        return [
            # output size below 1
            ErrorCase(Sample((_t(rng, (1, 1, 2, 2), f),), dict(kernel_size=3, **fn_kw)), RuntimeError),
            # padding above half the kernel
            ErrorCase(Sample((_t(rng, (1, 1, 4, 4), f),), dict(kernel_size=2, padding=2, **fn_kw)), RuntimeError),
            ErrorCase(Sample((_t(rng, (1, 0, 4, 4), f),), dict(kernel_size=2, **fn_kw)), RuntimeError),
            ErrorCase(Sample((T(np.ones((1, 1, 4, 4), bool), "bool"),), dict(kernel_size=2, **fn_kw)),
                      RuntimeError),
        ]
    return make


def _max_pool2d_errors(rng):
    # a 2-d input (RuntimeError here; avg_pool2d raises IndexError, as torch)
    return _pool_errors({})(rng) + [
        ErrorCase(Sample((_t(rng, (4, 4), "float32"),), dict(kernel_size=2)), RuntimeError)]


def _avg_pool2d_errors(rng):
    # a 2-d input: IndexError in both (torch reads input.size(-3) first)
    return _pool_errors({})(rng) + [
        ErrorCase(Sample((_t(rng, (4, 4), "float32"),), dict(kernel_size=2)), IndexError),
        ErrorCase(Sample((_t(rng, (1, 1, 4, 4), "float32"),), dict(kernel_size=2, divisor_override=0)),
                  RuntimeError)]


def _adaptive_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (4, 4), f),), dict(output_size=2)), RuntimeError),
            ErrorCase(Sample((_t(rng, (1, 1, 4, 4), "int64"),), dict(output_size=2)), RuntimeError),
            ErrorCase(Sample((_t(rng, (1, 1, 4, 4), f),), dict(output_size=(1, 2, 3))), RuntimeError)]


OPS = [
    # ---- mm ----
    OpInfo("mm", lambda m, a, b: m.mm(a, b), _pair_samples(MM_SHAPES), dtypes=ALL, onnx=True,
           errors=_mm_errors),
    OpInfo("mm", lambda m, a, b: a.mm(b), _pair_samples(MM_SHAPES[:2]), dtypes=FLOAT, variant="method"),
    # operands that are transposed views (handed to BLAS with the transpose flag)
    OpInfo("mm", lambda m, a, b: m.mm(a.t(), b.t()), _pair_samples([[(4, 3), (5, 4)], [(3, 0), (2, 3)]]),
           dtypes=ALL, variant="transposed"),
    OpInfo("mm", lambda m, a, b: m.matmul(a, b), _pair_samples([[(3, 4), (4, 5)]] + MATMUL_MM_SHAPES),
           dtypes=ALL, variant="matmul", onnx=True, errors=_matmul_errors),
    # views: a sub-block (row stride above the width), expanded (stride 0) operands, 64x33 @ 33x17
    OpInfo("mm", _viewed(lambda m, a, b: m.mm(a, b)), _view_samples(MM_VIEW_CASES), dtypes=FLOATING,
           variant="views"),
    OpInfo("mm", _viewed(lambda m, a, b: m.matmul(a, b)), _view_samples(MATMUL_MM_VIEW_CASES), dtypes=FLOATING,
           variant="matmul_views"),
    # outer: a composite, mm(a.unsqueeze(1), b.unsqueeze(0))
    OpInfo("mm", lambda m, a, b: m.outer(a, b), _pair_samples(OUTER_SHAPES), dtypes=ALL, variant="outer"),
    # F.linear without a bias: mm(x, w.t()) (a reshape for more than 2 dims)
    OpInfo("mm", lambda m, x, w: _F(m).linear(x, w), _linear_nobias_samples, dtypes=FLOATING,
           variant="linear", onnx=True),
    # ---- bmm ----
    OpInfo("bmm", lambda m, a, b: m.bmm(a, b), _pair_samples(BMM_SHAPES), dtypes=ALL, onnx=True,
           errors=_bmm_errors),
    OpInfo("bmm", lambda m, a, b: a.bmm(b), _pair_samples(BMM_SHAPES[:2]), dtypes=FLOAT, variant="method"),
    OpInfo("bmm", lambda m, a, b: m.bmm(a.transpose(1, 2), b),
           _pair_samples([[(2, 4, 3), (2, 4, 2)], [(3, 2, 2), (3, 2, 5)]]), dtypes=ALL, variant="transposed"),
    # matmul with broadcast batch dims (one bmm over the expanded batch)
    OpInfo("bmm", lambda m, a, b: m.matmul(a, b), _pair_samples(MATMUL_BMM_SHAPES), dtypes=ALL,
           variant="matmul", onnx=True),
    OpInfo("bmm", lambda m, a, b: a @ b, _pair_samples(MATMUL_BMM_SHAPES[:2]), dtypes=FLOAT,
           variant="matmul_operator"),
    OpInfo("bmm", _viewed(lambda m, a, b: m.bmm(a, b)), _view_samples(BMM_VIEW_CASES), dtypes=FLOATING,
           variant="views"),
    OpInfo("bmm", _viewed(lambda m, a, b: m.matmul(a, b)), _view_samples(MATMUL_BMM_VIEW_CASES), dtypes=FLOATING,
           variant="matmul_views"),
    # ---- addmm ----
    OpInfo("addmm", lambda m, s, a, b: m.addmm(s, a, b), _addmm_samples(), dtypes=ALL, onnx=True,
           errors=_addmm_errors, tol=ADDMM_TOL),
    OpInfo("addmm", lambda m, s, a, b, **kw: m.addmm(s, a, b, **kw), _addmm_samples(dict(beta=2, alpha=3)),
           dtypes=ALL, variant="beta_alpha", onnx=True, tol=ADDMM_TOL),
    OpInfo("addmm", lambda m, s, a, b, **kw: m.addmm(s, a, b, **kw),
           _addmm_samples(dict(beta=0.5, alpha=-1.5)), dtypes=FLOATING, variant="float_beta_alpha", tol=ADDMM_TOL),
    # beta = 0: self is ignored (its NaNs do not propagate), its gradient is zero
    OpInfo("addmm", lambda m, s, a, b, **kw: m.addmm(s, a, b, **kw), _addmm_samples(dict(beta=0)),
           dtypes=FLOAT, variant="beta0"),
    OpInfo("addmm", lambda m, s, a, b, **kw: m.addmm(s, a, b, **kw), _addmm_nan_self_samples,
           dtypes=FLOATING, variant="beta0_nan"),
    OpInfo("addmm", lambda m, s, a, b, **kw: m.addmm(s, a, b, **kw), _addmm_alpha_samples, dtypes=ALL,
           variant="alpha", tol=ADDMM_TOL),
    OpInfo("addmm", lambda m, s, a, b: s.addmm(a, b, beta=2, alpha=0.5), _addmm_samples(), dtypes=FLOAT,
           variant="method"),
    # F.linear with a bias: addmm(b, x, w.t())
    OpInfo("addmm", lambda m, x, w, b: _F(m).linear(x, w, b), _linear_samples, dtypes=FLOATING,
           variant="linear", onnx=True, tol=ADDMM_TOL),
    # ---- mv, dot ----
    OpInfo("mv", lambda m, a, v: m.mv(a, v), _pair_samples(MV_SHAPES), dtypes=ALL, onnx=True,
           errors=_mv_errors),
    OpInfo("mv", lambda m, a, v: a.mv(v), _pair_samples(MV_SHAPES[:2]), dtypes=FLOAT, variant="method"),
    OpInfo("mv", lambda m, a, v: m.mv(a.t(), v), _pair_samples([[(4, 3), (4,)]]), dtypes=ALL,
           variant="transposed"),
    OpInfo("mv", lambda m, a, v: m.matmul(a, v), _pair_samples(MATMUL_MV_SHAPES), dtypes=ALL,
           variant="matmul", onnx=True),
    OpInfo("mv", _viewed(lambda m, a, v: m.mv(a, v)), _view_samples(MV_VIEW_CASES), dtypes=FLOATING,
           variant="views"),
    OpInfo("mv", _viewed(lambda m, a, v: m.matmul(a, v)), _view_samples(MATMUL_MV_VIEW_CASES), dtypes=FLOATING,
           variant="matmul_views"),
    OpInfo("dot", lambda m, a, b: m.dot(a, b), _pair_samples(DOT_SHAPES), dtypes=ALL, onnx=True,
           errors=_dot_errors),
    OpInfo("dot", lambda m, a, b: a.dot(b), _pair_samples(DOT_SHAPES[:1]), dtypes=FLOAT, variant="method"),
    OpInfo("dot", lambda m, a, b: m.matmul(a, b), _pair_samples(DOT_SHAPES), dtypes=FLOAT, variant="matmul"),
    OpInfo("dot", _viewed(lambda m, a, b: m.dot(a, b)), _view_samples(DOT_VIEW_CASES), dtypes=FLOATING,
           variant="views"),
    # ---- convolutions ----
    # PyTorch's CPU conv2d runs every integer dtype; conv_transpose2d only int64.
    OpInfo("conv2d", lambda m, x, w, *b, **kw: _F(m).conv2d(x, w, *b, **kw), _conv2d_samples,
           dtypes=ALL, onnx=True, errors=_conv2d_errors),
    # conv1d: a conv2d over a height of 1
    OpInfo("conv2d", lambda m, x, w, *b, **kw: _F(m).conv1d(x, w, *b, **kw),
           lambda dtype, rng: (_conv_sample(rng, dtype, (1, 2, 5), (2, 2, 2), (2,), {}, "small")
                               + _conv_sample(rng, dtype, (2, 4, 7), (4, 2, 3), None, dict(stride=2, padding=1,
                                                                                           groups=2))
                               + _conv_sample(rng, dtype, (2, 2, 6), (3, 2, 2), (3,), dict(padding="same",
                                                                                           dilation=3))
                               + _conv_sample(rng, dtype, (2, 5), (3, 2, 3), (3,), {}, "unbatched")),
           dtypes=FLOATING, variant="conv1d"),
    OpInfo("conv_transpose2d", lambda m, x, w, *b, **kw: _F(m).conv_transpose2d(x, w, *b, **kw),
           _conv_transpose2d_samples, dtypes=FLOATING + ("int64",), onnx=True,
           errors=_conv_transpose2d_errors, tol=CONV_TRANSPOSE_TOL),
    # ---- pools ----
    OpInfo("max_pool2d", lambda m, x, **kw: _F(m).max_pool2d(x, **kw), _max_pool_samples(False),
           dtypes=FLOATING + INTEGRAL, onnx=True, errors=_max_pool2d_errors),
    OpInfo("max_pool2d_with_indices", lambda m, x, **kw: _F(m).max_pool2d(x, return_indices=True, **kw),
           _max_pool_samples(True), dtypes=FLOATING + INTEGRAL, onnx=True,
           errors=_pool_errors({})),
    OpInfo("max_pool2d_with_indices", lambda m, x, **kw: _F(m).max_pool2d_with_indices(x, **kw),
           _max_pool_samples(True), dtypes=FLOAT, variant="function"),
    OpInfo("max_pool2d", lambda m, x, **kw: _F(m).max_pool2d(x, **kw), _max_pool_ties_samples,
           dtypes=FLOATING + INTEGRAL, variant="ties_nan", gradcheck=False),
    # ties and NaN: no finite differences (not differentiable where a window ties)
    OpInfo("max_pool2d_with_indices", lambda m, x, **kw: _F(m).max_pool2d(x, return_indices=True, **kw),
           _max_pool_ties_samples, dtypes=FLOATING + INTEGRAL, variant="ties_nan", gradcheck=False),
    # PyTorch's CPU avg_pool2d runs int64 only among the integers (integer averages truncate).
    OpInfo("avg_pool2d", lambda m, x, **kw: _F(m).avg_pool2d(x, **kw), _avg_pool2d_samples,
           dtypes=FLOATING + ("int64",), onnx=True, errors=_avg_pool2d_errors),
    OpInfo("adaptive_avg_pool2d", lambda m, x, **kw: _F(m).adaptive_avg_pool2d(x, **kw),
           _adaptive_avg_pool2d_samples, dtypes=FLOATING, onnx=True, errors=_adaptive_errors),
    # no channels: an empty result (torch's backward refuses it, so values only)
    OpInfo("adaptive_avg_pool2d", lambda m, x, **kw: _F(m).adaptive_avg_pool2d(x, **kw),
           _adaptive_no_channels_samples, dtypes=FLOAT, variant="no_channels", grad=False,
           trace=False),
]

# The CUDA kernels of the products (cuBLAS), the convolutions (cuDNN) and the pools
# (lib/cuda/norm/pool.cu) take the floating dtypes only; the integer dtypes the CPU
# takes raise NotImplementedError on CUDA, which the device check asserts.
CUDA_FLOATING_ONLY = {"mm", "bmm", "addmm", "mv", "dot", "conv2d", "conv_transpose2d", "max_pool2d",
                      "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d"}
OPS = [info.replace(device_dtypes={"cuda": tuple(d for d in info.dtypes if d in FLOATING)})
       if info.name in CUDA_FLOATING_ONLY else info for info in OPS]
