"""Op database entries of the nn group (lib/dispatch/schema/nn.toml): normalizations,
dropout, embedding, one_hot, pad, interpolate, the losses and the fused LSTM / GRU
cells (reached through torch.lstm_cell / gru_cell and the nn.LSTM / GRU / LSTMCell /
GRUCell modules)."""
import numpy as np

from .opinfo import (ALL, ALL_AND_BOOL, FLOAT, FLOATING, HALF, ErrorCase, OpInfo, Sample, T,
                     make_values)


def _F(m):
    return m.nn.functional


def _t(rng, shape, dtype, low=-3.0, high=3.0, noncontig=False, grad=True):
    return T(make_values(rng, shape, dtype, low, high), dtype, noncontig, grad)


def _both(args_fn, kwargs=None, name=""):
    """A sample built contiguous and strided: args_fn(noncontig) -> args."""
    kwargs = kwargs or {}
    return [Sample(args_fn(False), dict(kwargs), name), Sample(args_fn(True), dict(kwargs), name + "-strided")]


def _np(t):
    t = t.detach()
    if str(t.dtype).split(".")[-1] in ("float16", "bfloat16"):
        t = t.float()
    return np.asarray(t.numpy())


# ---- batch_norm, layer_norm, group_norm --------------------------------------------------------

def _batch_norm(m, x, rm, rv, *params, **kw):
    """F.batch_norm on copies of the running statistics; in training, returns them too
    (updated in place by the op) so that they are compared with torch's."""
    rm = None if rm is None else rm.clone()
    rv = None if rv is None else rv.clone()
    y = _F(m).batch_norm(x, rm, rv, *params, **kw)
    if kw.get("training") and rm is not None:
        return y, rm, rv
    return y


def _bn_samples(training, param_dtype=None):
    def make(dtype, rng):
        pd = param_dtype or dtype
        stats = lambda c: (_t(rng, (c,), pd, grad=False), _t(rng, (c,), pd, 0.5, 2.0, grad=False))  # noqa: E731
        kw = dict(training=training)
        s = []
        # small first (gradcheck): [N, C], weight and bias
        s.append(Sample((_t(rng, (4, 3), dtype),) + stats(3) + (_t(rng, (3,), pd), _t(rng, (3,), pd)), kw, "small"))
        for shape in [(3, 2, 4), (2, 3, 2, 3), (2, 2, 2, 2, 2)]:
            c = shape[1]
            s += _both(lambda nc, shape=shape, c=c: (_t(rng, shape, dtype, noncontig=nc),) + stats(c)
                       + (_t(rng, (c,), pd, noncontig=nc), _t(rng, (c,), pd)), kw)
        s.append(Sample((_t(rng, (3, 2, 4), dtype),) + stats(2), kw, "no-affine"))
        s.append(Sample((_t(rng, (3, 2, 4), dtype),) + stats(2) + (_t(rng, (2,), pd),), kw, "weight-only"))
        s.append(Sample((_t(rng, (3, 2, 4), dtype),) + stats(2) + (_t(rng, (2,), pd), _t(rng, (2,), pd)),
                        dict(kw, momentum=0.3, eps=1e-3), "momentum-eps"))
        s.append(Sample((_t(rng, (0, 3), dtype),) + stats(3) + (_t(rng, (3,), pd), _t(rng, (3,), pd)),
                        dict(training=False), "empty-eval"))
        if training:  # no running statistics: batch statistics only
            s.append(Sample((_t(rng, (3, 2, 4), dtype), None, None, _t(rng, (2,), pd), _t(rng, (2,), pd)), kw,
                            "no-stats"))
        return s
    return make


def _bn_errors(rng):
    f = "float32"
    return [
        # running_mean of the wrong size
        ErrorCase(Sample((_t(rng, (4, 3), f), _t(rng, (2,), f), _t(rng, (3,), f, 0.5, 2)), dict(training=True)),
                  RuntimeError),
        # one value per channel in training
        ErrorCase(Sample((_t(rng, (1, 3), f), _t(rng, (3,), f), _t(rng, (3,), f, 0.5, 2)), dict(training=True)),
                  ValueError),
        ErrorCase(Sample((_t(rng, (4, 3), "int64"), _t(rng, (3,), f), _t(rng, (3,), f, 0.5, 2))), RuntimeError),
        ErrorCase(Sample((_t(rng, (4, 3), f), _t(rng, (3,), f), _t(rng, (3,), f, 0.5, 2), _t(rng, (4,), f))),
                  RuntimeError),
    ]


def _layer_norm_samples(dtype, rng, param_dtype=None):
    pd = param_dtype or dtype
    s = [Sample((_t(rng, (3, 4), dtype), (4,), _t(rng, (4,), pd), _t(rng, (4,), pd)), {}, "small")]
    for shape, ns in [((3, 5), (5,)), ((2, 3, 4), (3, 4)), ((2, 2, 3, 2), (2,))]:
        s += _both(lambda nc, shape=shape, ns=ns: (_t(rng, shape, dtype, noncontig=nc), ns,
                                                    _t(rng, ns, pd, noncontig=nc), _t(rng, ns, pd)))
    s.append(Sample((_t(rng, (3, 4), dtype), (4,)), {}, "no-affine"))
    s.append(Sample((_t(rng, (2, 3, 4), dtype), (3, 4), _t(rng, (3, 4), pd)), dict(eps=1e-3), "weight-only"))
    s.append(Sample((_t(rng, (2, 3, 4), dtype), (2, 3, 4), None, _t(rng, (2, 3, 4), pd)), {}, "bias-only"))
    s.append(Sample((_t(rng, (4,), dtype), (4,), _t(rng, (4,), pd), _t(rng, (4,), pd)), {}, "1-d"))
    s.append(Sample((_t(rng, (0, 4), dtype), (4,), _t(rng, (4,), pd), _t(rng, (4,), pd)), {}, "empty"))
    # long rows (several blocks of a row reduction)
    s.append(Sample((_t(rng, (3, 1500), dtype), (1500,), _t(rng, (1500,), pd), _t(rng, (1500,), pd)), {},
                    "long-rows"))
    s.append(Sample((_t(rng, (2, 2, 1030), dtype, noncontig=True), (1030,), _t(rng, (1030,), pd)), {},
                    "long-rows-strided"))
    return s


def _layer_norm_offset_samples(dtype, rng):
    """Values around 1e4 spread over +-3: a mean far above the spread (a one-pass
    E[x^2] - E[x]^2 variance cancels to noise there), short and long rows."""
    x = lambda shape: T(1e4 + make_values(rng, shape, dtype), dtype)  # noqa: E731
    return [Sample((x((3, 5)), (5,), _t(rng, (5,), dtype), _t(rng, (5,), dtype)), {}, "small-mean-offset"),
            Sample((x((4, 64)), (64,), _t(rng, (64,), dtype), _t(rng, (64,), dtype)), {}, "mean-offset"),
            Sample((x((2, 3, 8)), (3, 8)), {}, "mean-offset-2d"),
            Sample((x((2, 1100)), (1100,), _t(rng, (1100,), dtype)), {}, "mean-offset-long-rows")]


# Values around 1e4 in float32 are 1e-3 apart (one ulp): the mean is that far from its
# exact value and the normalized values ulp / std * |weight| (measured: torch's and
# ember's results are each up to 3e-3 from the float64 result of the same inputs, and
# up to 4e-3 from each other; a one-pass variance would be off by O(1)).
LN_OFFSET_TOL = {"float32": (1e-3, 6e-3)}


def _layer_norm_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (3, 4), f), (5,))), RuntimeError),
            ErrorCase(Sample((_t(rng, (3, 4), f), (4,), _t(rng, (3,), f))), RuntimeError),
            ErrorCase(Sample((_t(rng, (3, 4), "int64"), (4,))), RuntimeError)]


def _group_norm_samples(dtype, rng, param_dtype=None):
    pd = param_dtype or dtype
    s = [Sample((_t(rng, (2, 4, 3), dtype), 2, _t(rng, (4,), pd), _t(rng, (4,), pd)), {}, "small")]
    # (at least 3 values per group: over 2, x_hat is +-1 whatever x, the gradient noise)
    for shape, g in [((2, 6, 2, 2), 3), ((3, 4, 5), 1), ((2, 4, 3), 4), ((2, 2, 2, 2, 2), 2)]:
        c = shape[1]
        s += _both(lambda nc, shape=shape, g=g, c=c: (_t(rng, shape, dtype, noncontig=nc), g,
                                                       _t(rng, (c,), pd, noncontig=nc), _t(rng, (c,), pd)))
    s.append(Sample((_t(rng, (2, 4, 3), dtype), 2), {}, "no-affine"))
    s.append(Sample((_t(rng, (2, 4, 3), dtype), 2, _t(rng, (4,), pd)), dict(eps=1e-3), "weight-only"))
    s.append(Sample((_t(rng, (3, 6), dtype), 2, _t(rng, (6,), pd), _t(rng, (6,), pd)), {}, "2-d"))
    s.append(Sample((_t(rng, (0, 4, 3), dtype), 2, _t(rng, (4,), pd), _t(rng, (4,), pd)), {}, "empty"))
    return s


def _group_norm_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (2, 6, 3), f), 4)), RuntimeError),  # 6 channels, 4 groups
            ErrorCase(Sample((_t(rng, (1, 4), f), 4)), ValueError),  # one value per group
            ErrorCase(Sample((_t(rng, (2, 4, 3), f), 2, _t(rng, (3,), f))), RuntimeError),
            ErrorCase(Sample((_t(rng, (2, 4, 3), "int64"), 2)), RuntimeError)]


# ---- dropout -----------------------------------------------------------------------------------

def _dropout_twice(p):
    """Two calls with the same seed, and the input: (x, first, second)."""
    def fn(m, x, p=p):
        m.manual_seed(0)
        a = _F(m).dropout(x, p)
        m.manual_seed(0)
        b = _F(m).dropout(x, p)
        return x, a, b
    return fn


def _dropout_check(p):
    def compare(e_out, t_out, dtype):
        x, a, b = e_out
        assert tuple(a.shape) == tuple(x.shape) and a.dtype == x.dtype
        xa, aa, ba = _np(x), _np(a), _np(b)
        np.testing.assert_array_equal(aa, ba, err_msg="dropout: the same seed gave another mask")
        kept = aa != 0  # the inputs are never 0
        rtol = 1e-2 if dtype in HALF else 1e-6
        np.testing.assert_allclose(aa[kept], xa[kept] / (1 - p), rtol=rtol,
                                   err_msg="dropout: kept values are not input / (1 - p)")
        if xa.size >= 1000:
            dropped = 1 - kept.mean()
            assert abs(dropped - p) < 0.06, f"dropout: {dropped:.3f} of the elements dropped, p = {p}"
    return compare


def _dropout_samples(dtype, rng):
    # values away from 0, so that a kept element is never 0
    vals = lambda shape: np.where(rng.random(shape) < 0.5, -1, 1) * rng.uniform(0.5, 3, shape)  # noqa: E731
    return [Sample((T(vals((40, 50)), dtype),)), Sample((T(vals((30, 40)), dtype, noncontig=True),)),
            Sample((T(vals((3, 4)), dtype),)), Sample((T(vals(()), dtype),)), Sample((T(vals((0, 3)), dtype),))]


def _shape_only(e_out, t_out, dtype):
    assert str(e_out.dtype).split(".")[-1] == dtype


def _seeded_dropout(m, x):
    m.manual_seed(0)
    return _F(m).dropout(x, 0.5)


def _seeded_dropout_(m, x):
    m.manual_seed(0)
    return _F(m).dropout(x, 0.5, inplace=True)


def _dropout_errors(rng):
    return [ErrorCase(Sample((_t(rng, (3, 4), "float32"),), dict(p=1.5)), ValueError),
            ErrorCase(Sample((_t(rng, (3, 4), "int64"),)), RuntimeError)]


# ---- embedding, one_hot ------------------------------------------------------------------------

def _idx(rng, shape, n, dtype="int64", noncontig=False):
    return T(rng.integers(0, n, size=shape).astype(np.int64), dtype, noncontig)


def _embedding_samples(dtype, rng):
    w = lambda shape, nc=False: _t(rng, shape, dtype, noncontig=nc)  # noqa: E731
    s = [Sample((_idx(rng, (2, 3), 5), w((5, 3))), {}, "small"),
         Sample((_idx(rng, (2, 3), 5), w((5, 3), True))),
         Sample((_idx(rng, (4,), 6, noncontig=True), w((6, 2)))),
         Sample((_idx(rng, (2, 2, 2), 4, "int32"), w((4, 3))), {}, "int32"),
         Sample((_idx(rng, (), 4), w((4, 3))), {}, "0-dim"),
         Sample((_idx(rng, (0,), 4), w((4, 3))), {}, "empty"),
         Sample((_idx(rng, (3,), 4), w((4, 0))), {}, "empty-rows")]
    pad_idx = _idx(rng, (6,), 5)
    pad_idx.values[::2] = 1  # the padding row is looked up too
    s.append(Sample((pad_idx, w((5, 3))), dict(padding_idx=1), "padding_idx"))
    s.append(Sample((pad_idx, w((5, 3))), dict(padding_idx=-4), "padding_idx-negative"))
    return s


def _embedding_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((T(np.array([0, 5]), "int64"), _t(rng, (3, 2), f))), IndexError),
            ErrorCase(Sample((T(np.array([0, -1]), "int64"), _t(rng, (3, 2), f))), IndexError),
            ErrorCase(Sample((T(np.array([0.0, 1.0]), "float32"), _t(rng, (3, 2), f))), RuntimeError)]


def _one_hot_samples(dtype, rng):
    return [Sample((_idx(rng, (3, 4), 5),), dict(num_classes=5)),
            Sample((_idx(rng, (3, 4), 5, noncontig=True),), dict(num_classes=7)),
            Sample((_idx(rng, (6,), 4),)),  # num_classes inferred from the data
            Sample((_idx(rng, (), 3),), dict(num_classes=3)),
            Sample((_idx(rng, (0, 2), 3),), dict(num_classes=3))]


def _one_hot_errors(rng):
    return [ErrorCase(Sample((T(np.array([0, -1]), "int64"),)), RuntimeError),
            ErrorCase(Sample((T(np.array([0, 5]), "int64"),), dict(num_classes=3)), RuntimeError),
            ErrorCase(Sample((T(np.array([0, 1]), "int32"),)), RuntimeError),
            ErrorCase(Sample((T(np.zeros((0,), np.int64), "int64"),)), RuntimeError)]


# ---- pad, interpolate --------------------------------------------------------------------------

def _pad_samples(mode):
    def make(dtype, rng):
        cases = [((1, 2, 3), (1, 2)), ((1, 2, 3, 4), (1, 1, 2, 0)), ((2, 3, 4), (2, 1)), ((3, 4), (1, 2)),
                 ((1, 1, 3, 3, 3), (1, 1, 1, 0, 2, 1)), ((2, 3, 4), (1, 2, 2, 1))]
        cases += [((2, 3, 5), (-1, 2)), ((2, 3, 5), (-1, -2, 1, 0))]  # negative pads crop
        if mode in ("reflect", "replicate"):
            # cropping one side while padding the other past the crop; a 3-d pad
            cases += [((2, 3, 5), (-2, 4)), ((1, 2, 4, 5), (2, -3, -1, 2)), ((1, 1, 3, 4, 4), (-1, 1, 2, -1, 1, -2))]
        if mode == "constant":
            cases += [((2, 3, 4), (1, 0, 0, 1, 1, 1)), ((3,), (2, 1)), ((0, 3), (1, 1)), ((3, 0), (1, 2)),
                      ((2, 3), ())]
        s = []
        for i, (shape, pad) in enumerate(cases):
            s += _both(lambda nc, shape=shape: (_t(rng, shape, dtype, noncontig=nc),),
                       dict(pad=pad, mode=mode), "small" if i == 0 else "")
        if mode == "constant":
            value = 1 if dtype == "bool" else 2.5 if dtype in FLOATING else 2
            s.append(Sample((_t(rng, (2, 3), dtype),), dict(pad=(1, 2, 0, 1), value=value), "value"))
        return s
    return make


def _pad_errors(mode):
    def make(rng):
        f = "float32"
        out = [ErrorCase(Sample((_t(rng, (2, 3), f),), dict(pad=(1, 2, 3), mode=mode)), RuntimeError)]
        if mode == "constant":
            out.append(ErrorCase(Sample((_t(rng, (2, 3), f),), dict(pad=(-2, -2))), RuntimeError))
        if mode == "reflect":
            out.append(ErrorCase(Sample((_t(rng, (1, 2, 3), f),), dict(pad=(3, 0), mode=mode)), RuntimeError))
        if mode == "circular":
            out.append(ErrorCase(Sample((_t(rng, (1, 2, 3), f),), dict(pad=(4, 0), mode=mode)), RuntimeError))
        if mode != "constant":
            out.append(ErrorCase(Sample((_t(rng, (2, 3), f),), dict(pad=(1, 1), mode=mode, value=1.0)),
                                 RuntimeError))
        return out
    return make


def _interp_samples(mode):
    def make(dtype, rng):
        low = 0.0 if dtype == "uint8" else -3.0
        x = lambda shape, nc=False: _t(rng, shape, dtype, low, 3.0, nc)  # noqa: E731
        nd = {"nearest": None, "linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        cases = []
        if nd in (None, 4):
            cases += [((1, 1, 3, 4), dict(size=(5, 7)), "small"), ((2, 2, 3, 4), dict(scale_factor=2)),
                      ((1, 2, 5, 7), dict(size=(2, 3))), ((1, 2, 3, 4), dict(scale_factor=(1.5, 0.6))),
                      ((1, 2, 4, 4), dict(scale_factor=1.7, recompute_scale_factor=True)),
                      ((1, 2, 3, 3), dict(size=4))]
        if nd in (None, 3):
            cases += [((1, 2, 5), dict(size=8), "small-1d"), ((2, 1, 6), dict(scale_factor=0.5)),
                      ((1, 2, 4), dict(scale_factor=2.5))]
        if nd in (None, 5):
            cases += [((1, 1, 2, 2, 3), dict(size=(3, 4, 4)), "small-3d"), ((1, 2, 2, 3, 2), dict(scale_factor=2))]
        # a spatial size of 1: in (out > 1), out (align_corners: no scale, the first
        # element), both; an empty batch
        if nd in (None, 3):
            cases += [((1, 2, 1), dict(size=5), "size1-in"), ((2, 1, 5), dict(size=1), "size1-out"),
                      ((0, 2, 3), dict(size=5), "empty-batch")]
        if nd in (None, 4):
            cases += [((1, 1, 1, 1), dict(size=(3, 4)), "size1-in"), ((1, 2, 4, 5), dict(size=(1, 1)), "size1-out"),
                      ((1, 2, 1, 5), dict(size=(4, 1)), "size1-mixed"), ((1, 2, 4, 5), dict(size=(1, 3)), "size1-out"),
                      ((1, 1, 1, 1), dict(scale_factor=3), "size1-in"),
                      ((0, 2, 3, 4), dict(size=(5, 7)), "empty-batch")]
        if nd in (None, 5):
            cases += [((1, 1, 1, 2, 1), dict(size=(2, 1, 3)), "size1-in"), ((1, 1, 3, 2, 2), dict(size=1), "size1-out"),
                      ((0, 1, 2, 2, 3), dict(size=(3, 4, 4)), "empty-batch")]
        s = []
        for shape, kw, *name in cases:
            kw = dict(kw, mode=mode)
            s += _both(lambda nc, shape=shape: (x(shape, nc),), kw, name[0] if name else "")
            if mode != "nearest" and "small" not in (name[0] if name else ""):
                s.append(Sample((x(shape),), dict(kw, align_corners=True), "align_corners"))
        # a large upsampling ratio (3 -> 64), one sample
        large = {None: ((1, 2, 3, 3), dict(size=(64, 64))), 3: ((1, 2, 3), dict(size=64)),
                 4: ((1, 2, 3, 3), dict(size=(64, 64))), 5: ((1, 1, 2, 3, 3), dict(size=(4, 64, 64)))}[nd]
        s.append(Sample((x(large[0]),), dict(large[1], mode=mode), "large-ratio"))
        return s
    return make


INTERP_TOL = {"float16": (3e-3, 3e-3), "bfloat16": (2e-2, 2e-2)}


def _interp_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (1, 2, 4), f),), dict(size=8, mode="bilinear")), NotImplementedError),
            ErrorCase(Sample((_t(rng, (1, 2, 4, 4), f),), dict(size=8, align_corners=True)), ValueError),
            ErrorCase(Sample((_t(rng, (1, 2, 4, 4), f),), dict(size=8, scale_factor=2)), ValueError),
            ErrorCase(Sample((_t(rng, (1, 2, 4, 4), f),), dict(size=(8, 8, 8))), ValueError),
            ErrorCase(Sample((_t(rng, (1, 2, 4, 4), "int64"),), dict(size=8)), NotImplementedError)]


# ---- losses -----------------------------------------------------------------------------------

REDUCTIONS = ("mean", "sum", "none")
# float16/bfloat16: torch's CPU kernels of these losses round intermediates to the half
# type (input - target before squaring it, the unweighted loss before weighting it),
# ember's compute in float32 and round once.
LOSS_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)}


def _target(rng, shape, c, dtype="int64", ignore=None, noncontig=False):
    vals = rng.integers(0, c, size=shape).astype(np.int64)
    if ignore is not None and vals.size:
        vals.reshape(-1)[::3] = ignore
    return T(vals, dtype, noncontig)


def _probs(rng, shape, dtype, cdim=1, noncontig=False):
    e = np.exp(rng.uniform(-2, 2, size=shape))
    return T(e / e.sum(axis=cdim, keepdims=True), dtype, noncontig)


def _class_loss_samples(probs_ok, smoothing_ok):
    """cross_entropy / nll_loss: class-index targets (every reduction, weights,
    ignore_index, label smoothing, extra dims, unbatched, empty) and, for
    cross_entropy, class-probability targets."""
    def make(dtype, rng):
        x = lambda shape, nc=False: _t(rng, shape, dtype, noncontig=nc)  # noqa: E731
        w = lambda c: _t(rng, (c,), dtype, 0.2, 2.0, grad=False)  # noqa: E731
        s = [Sample((x((3, 4)), _target(rng, (3,), 4)), {}, "small")]
        for red in REDUCTIONS:
            s += _both(lambda nc: (x((5, 4), nc), _target(rng, (5,), 4, noncontig=nc)), dict(reduction=red))
            s.append(Sample((x((5, 4)), _target(rng, (5,), 4)), dict(reduction=red, weight=w(4)), "weight"))
            s.append(Sample((x((6, 4)), _target(rng, (6,), 4, ignore=1)), dict(reduction=red, ignore_index=1,
                                                                               weight=w(4)), "ignore_index"))
            s.append(Sample((x((6, 4)), _target(rng, (6,), 4, ignore=-100)), dict(reduction=red),
                            "ignore_index-default"))
            s.append(Sample((x((2, 4, 3)), _target(rng, (2, 3), 4)), dict(reduction=red), "3-d"))
            s.append(Sample((x((2, 3, 2, 2)), _target(rng, (2, 2, 2), 3, ignore=0)),
                            dict(reduction=red, ignore_index=0, weight=w(3)), "4-d"))
            s.append(Sample((x((4,)), _target(rng, (), 4)), dict(reduction=red), "unbatched"))
            s.append(Sample((x((0, 4)), _target(rng, (0,), 4)), dict(reduction=red), "empty"))
            if smoothing_ok:
                s.append(Sample((x((5, 4)), _target(rng, (5,), 4, ignore=2)),
                                dict(reduction=red, label_smoothing=0.2, ignore_index=2, weight=w(4)), "smoothing"))
                s.append(Sample((x((2, 4, 3)), _target(rng, (2, 3), 4)), dict(reduction=red, label_smoothing=0.1),
                                "smoothing-3d"))
        # every target ignored: a mean of nothing is NaN
        s.append(Sample((x((3, 4)), T(np.full((3,), 2), "int64")), dict(ignore_index=2), "all-ignored"))
        s.append(Sample((x((4, 3)), _target(rng, (4,), 3, "uint8")), {}, "uint8-target"))
        if probs_ok:
            for red in REDUCTIONS:
                s += _both(lambda nc: (x((4, 5), nc), _probs(rng, (4, 5), dtype, noncontig=nc)), dict(reduction=red),
                           "probs")
                s.append(Sample((x((4, 5)), _probs(rng, (4, 5), dtype)), dict(reduction=red, weight=w(5)),
                                "probs-weight"))
                s.append(Sample((x((2, 3, 2)), _probs(rng, (2, 3, 2), dtype)),
                                dict(reduction=red, label_smoothing=0.3, weight=w(3)), "probs-smoothing-3d"))
            s.append(Sample((x((3,)), _probs(rng, (3,), dtype, cdim=0)), {}, "probs-unbatched"))
        return s
    return make


def _class_loss_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (3, 4), f), T(np.array([0, 1, 7]), "int64"))), IndexError),
            ErrorCase(Sample((_t(rng, (3, 4), f), T(np.array([0, 1]), "int64"))), ValueError),
            ErrorCase(Sample((_t(rng, (3, 4), f), T(np.array([0, 1, 2]), "int64")), dict(reduction="avg")),
                      ValueError),
            ErrorCase(Sample((_t(rng, (3, 4), f), T(np.array([0, 1, 2]), "int64")),
                             dict(weight=_t(rng, (3,), f))), RuntimeError)]


def _pair_loss_samples(**extra):
    def make(dtype, rng):
        x = lambda shape, nc=False: _t(rng, shape, dtype, noncontig=nc)  # noqa: E731
        s = [Sample((x((3, 4)), x((3, 4))), dict(extra), "small")]
        for red in REDUCTIONS:
            kw = dict(extra, reduction=red)
            s += _both(lambda nc: (x((3, 5), nc), x((3, 5), nc)), kw)
            s.append(Sample((x(()), x(())), kw, "0-dim"))
            s.append(Sample((x((0, 3)), x((0, 3))), kw, "empty"))
            s.append(Sample((x((2, 3, 2)), x((2, 3, 2), True)), kw))
            # broadcast both ways (torch warns about it)
            s.append(Sample((x((3, 4)), x((4,))), kw, "broadcast"))
            s.append(Sample((x((3, 1)), x((2, 1, 4))), kw, "broadcast"))
        return s
    return make


def _mixed_pair_samples(dtype, rng):
    """input and target of different floating dtypes: both cast to the promoted one."""
    return [Sample((_t(rng, (3, 4), dtype), _t(rng, (3, 4), "float64")), {}, "small"),
            Sample((_t(rng, (3, 4), "float64"), _t(rng, (3, 4), dtype)), dict(reduction="none")),
            Sample((_t(rng, (2, 3), dtype), _t(rng, (2, 3), "float32", grad=False)), dict(reduction="sum"))]


def _pair_loss_errors(**extra):
    def make(rng):
        f = "float32"
        return [ErrorCase(Sample((_t(rng, (3, 4), f), _t(rng, (3, 5), f)), dict(extra)), RuntimeError),
                ErrorCase(Sample((_t(rng, (3, 4), f), _t(rng, (3, 4), f)), dict(extra, reduction="avg")),
                          ValueError)]
    return make


def _bce_samples(logits):
    def make(dtype, rng):
        lo, hi = (-3.0, 3.0) if logits else (0.05, 0.95)
        x = lambda shape, nc=False: _t(rng, shape, dtype, lo, hi, nc)  # noqa: E731
        t = lambda shape, nc=False: _t(rng, shape, dtype, 0.0, 1.0, nc)  # noqa: E731
        w = lambda shape: _t(rng, shape, dtype, 0.2, 2.0, grad=False)  # noqa: E731
        s = [Sample((x((3, 4)), t((3, 4))), {}, "small")]
        for red in REDUCTIONS:
            s += _both(lambda nc: (x((3, 5), nc), t((3, 5), nc)), dict(reduction=red))
            s.append(Sample((x((3, 5)), t((3, 5))), dict(reduction=red, weight=w((3, 5))), "weight"))
            s.append(Sample((x((2, 3, 4)), t((2, 3, 4))), dict(reduction=red, weight=w((4,))), "weight-broadcast"))
            s.append(Sample((x(()), t(())), dict(reduction=red), "0-dim"))
            s.append(Sample((x((0, 3)), t((0, 3))), dict(reduction=red), "empty"))
            if logits:
                s.append(Sample((x((3, 4)), t((3, 4))), dict(reduction=red, pos_weight=w((4,))), "pos_weight"))
                s.append(Sample((x((2, 3, 4)), t((2, 3, 4))),
                                dict(reduction=red, weight=w((3, 1)), pos_weight=w((4,))), "both-weights"))
        # hard 0/1 targets
        s.append(Sample((x((3, 4)), T(rng.integers(0, 2, (3, 4)).astype(np.float64), dtype)), {}, "hard-targets"))
        return s
    return make


def _bce_saturated_samples(dtype, rng):
    """Probabilities exactly 0 and 1 (log clamped at -100: a loss of 100 where the
    target disagrees), against hard and soft targets."""
    x = np.array([[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.5, 0.25], [1.0, 0.0, 0.9, 0.0]])
    t = np.array([[0.0, 1.0, 1.0, 0.0], [0.3, 0.7, 1.0, 0.0], [1.0, 0.0, 0.5, 1.0]])
    s = []
    for red in REDUCTIONS:
        s += _both(lambda nc: (T(x, dtype, nc), T(t, dtype, nc)), dict(reduction=red), "saturated")
    s.append(Sample((T(x, dtype), T(t, dtype)), dict(weight=_t(rng, (4,), dtype, 0.2, 2.0, grad=False)),
                    "saturated-weight"))
    return s


def _bce_large_logits_samples(dtype, rng):
    """Logits of +-100 and +-1000 (exp overflows: the loss is |x| or 0, its gradient
    sigmoid(x) - t saturates), with pos_weight too."""
    x = np.array([[100.0, -100.0, 1000.0, -1000.0], [1000.0, -1000.0, 100.0, -100.0], [30.0, -30.0, 0.0, 50.0]])
    t = np.array([[0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.5, 0.2], [1.0, 0.0, 0.5, 0.7]])
    s = [Sample((T(x[:2, :2], dtype), T(t[:2, :2], dtype)), {}, "small-large-logits")]
    for red in REDUCTIONS:
        s += _both(lambda nc: (T(x, dtype, nc), T(t, dtype, nc)), dict(reduction=red), "large-logits")
        s.append(Sample((T(x, dtype), T(t, dtype)), dict(reduction=red, pos_weight=_t(rng, (4,), dtype, 0.2, 2.0,
                                                                                       grad=False)),
                        "large-logits-pos_weight"))
    return s


def _bce_errors(rng):
    f = "float32"
    return [ErrorCase(Sample((_t(rng, (3, 4), f, 0.1, 0.9), _t(rng, (3, 1), f, 0, 1))), ValueError),
            ErrorCase(Sample((_t(rng, (3, 4), f, 0.1, 0.9), _t(rng, (3, 4), f, 0, 1)), dict(reduction="avg")),
                      ValueError)]


# ---- LSTM / GRU --------------------------------------------------------------------------------

def _rnn_weights(rng, dtype, gates, input_size, hidden, layers=1, directions=1, bias=True, grad=True, nc=False):
    """Weights in the order of torch's _flat_weights: per layer and direction
    w_ih [G*H, in], w_hh [G*H, H] (and b_ih, b_hh [G*H])."""
    ws = []
    for layer in range(layers):
        in_size = input_size if layer == 0 else hidden * directions
        for _ in range(directions):
            ws += [_t(rng, (gates * hidden, in_size), dtype, -0.6, 0.6, nc, grad),
                   _t(rng, (gates * hidden, hidden), dtype, -0.6, 0.6, nc, grad)]
            if bias:
                ws += [_t(rng, (gates * hidden,), dtype, -0.6, 0.6, False, grad),
                       _t(rng, (gates * hidden,), dtype, -0.6, 0.6, False, grad)]
    return tuple(ws)


def _lstm_cell_fn(m, x, h, c, *w):
    return m.lstm_cell(x, (h, c), *w)


def _gru_cell_fn(m, x, h, *w):
    return m.gru_cell(x, h, *w)


def _cell_samples(gates):
    lstm = gates == 4

    def make(dtype, rng):
        s = []
        for i, (b, inp, hid, bias) in enumerate([(2, 3, 2, True), (3, 4, 3, True), (2, 3, 2, False), (0, 3, 2, True)]):
            def args(nc, b=b, inp=inp, hid=hid, bias=bias):
                state = (_t(rng, (b, hid), dtype, noncontig=nc),)
                if lstm:
                    state += (_t(rng, (b, hid), dtype),)
                return (_t(rng, (b, inp), dtype, noncontig=nc),) + state + _rnn_weights(
                    rng, dtype, gates, inp, hid, bias=bias, nc=nc)
            s += _both(args, {}, "small" if i == 0 else ("no-bias" if not bias else ""))
        return s
    return make


def _cell_errors(gates):
    def make(rng):
        f = "float32"
        state = (_t(rng, (2, 2), f),) * (2 if gates == 4 else 1)
        return [ErrorCase(Sample((_t(rng, (2, 5), f),) + state + _rnn_weights(rng, f, gates, 3, 2)), RuntimeError),
                ErrorCase(Sample((_t(rng, (2, 3), "float64"),) + state + _rnn_weights(rng, f, gates, 3, 2)),
                          RuntimeError)]
    return make


def _load(m, module, weights, like):
    """module with the given weights, on like's device and in its dtype."""
    module = module.to(like.device).to(like.dtype)
    with m.no_grad():
        for p, w in zip(module.parameters(), weights):
            p.copy_(w)
    return module


def _lstm_module(m, x, h0, c0, *w, **cfg):
    """nn.LSTM with the sample's weights (copied into its parameters)."""
    mod = _load(m, m.nn.LSTM(**cfg), w, x)
    out, (h, c) = mod(x, (h0, c0))
    return out, h, c


def _gru_module(m, x, h0, *w, **cfg):
    mod = _load(m, m.nn.GRU(**cfg), w, x)
    return mod(x, h0)


def _lstm_cell_module(m, x, h, c, *w, **cfg):
    mod = _load(m, m.nn.LSTMCell(**cfg), w, x)
    return mod(x, (h, c))


def _gru_cell_module(m, x, h, *w, **cfg):
    mod = _load(m, m.nn.GRUCell(**cfg), w, x)
    return mod(x, h)


def _seq_samples(gates):
    lstm = gates == 4

    def make(dtype, rng):
        s = []
        configs = [dict(steps=2, batch=2, input_size=3, hidden_size=2, num_layers=1, bidirectional=False),
                   dict(steps=3, batch=2, input_size=3, hidden_size=4, num_layers=2, bidirectional=True),
                   dict(steps=3, batch=1, input_size=2, hidden_size=3, num_layers=1, bidirectional=True,
                        batch_first=True),
                   dict(steps=2, batch=3, input_size=4, hidden_size=3, num_layers=2, bias=False)]
        for i, cfg in enumerate(configs):
            cfg = dict(cfg)
            steps, batch = cfg.pop("steps"), cfg.pop("batch")
            d = 2 if cfg.get("bidirectional") else 1
            layers, hid = cfg["num_layers"], cfg["hidden_size"]
            xs = (batch, steps, cfg["input_size"]) if cfg.get("batch_first") else (steps, batch, cfg["input_size"])
            state = tuple(_t(rng, (layers * d, batch, hid), dtype) for _ in range(2 if lstm else 1))
            w = _rnn_weights(rng, dtype, gates, cfg["input_size"], hid, layers, d, cfg.get("bias", True), grad=False)
            s.append(Sample((_t(rng, xs, dtype),) + state + w, cfg, "small" if i == 0 else ""))
        return s
    return make


def _cell_module_samples(gates):
    lstm = gates == 4

    def make(dtype, rng):
        s = []
        for b, inp, hid, bias in [(2, 3, 2, True), (3, 4, 3, False)]:
            state = tuple(_t(rng, (b, hid), dtype) for _ in range(2 if lstm else 1))
            w = _rnn_weights(rng, dtype, gates, inp, hid, bias=bias, grad=False)
            s.append(Sample((_t(rng, (b, inp), dtype),) + state + w, dict(input_size=inp, hidden_size=hid, bias=bias)))
        # unbatched input and state
        state = tuple(_t(rng, (2,), dtype) for _ in range(2 if lstm else 1))
        s.append(Sample((_t(rng, (3,), dtype),) + state + _rnn_weights(rng, dtype, gates, 3, 2, grad=False),
                        dict(input_size=3, hidden_size=2), "unbatched"))
        return s
    return make


# float16/bfloat16: torch's CPU batch_norm rounds intermediates (the folded scale and
# shift) to the half type, ember keeps them in float32: where x * scale + shift cancels,
# the results are a few half ulps of the intermediates apart (ember's mean error
# against float64 is the smaller one).
BN_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (2e-2, 4e-2)}


def _leaf0(out):
    """The first output (batch_norm's normalized input without the running statistics)."""
    return out[0] if isinstance(out, tuple) else out


# float16/bfloat16 steps: the gates go through a matmul rounded to the half type, then
# sigmoid/tanh; torch's CPU cell rounds between its ops in other places.
CELL_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)}


OPS = [
    # ---- normalizations ----
    # training: the running statistics are updated in place; fn returns them (cloned
    # before the call) to compare them with torch's.
    # No finite differences there: the running statistics depend on the input without
    # autograd, and gradcheck's numerical Jacobian counts every floating output.
    OpInfo("batch_norm", _batch_norm, _bn_samples(True), dtypes=FLOATING, errors=_bn_errors, tol=BN_TOL,
           gradcheck=False),
    OpInfo("batch_norm", lambda m, *a, **kw: _leaf0(_batch_norm(m, *a, **kw)), _bn_samples(True),
           dtypes=FLOAT, variant="output"),
    # eval: normalized with the running statistics (exportable)
    OpInfo("batch_norm", _batch_norm, _bn_samples(False), dtypes=FLOATING, variant="eval", onnx=True,
           tol=BN_TOL),
    # float16/bfloat16 input with float32 parameters and statistics (PyTorch's mixed dtype rule)
    OpInfo("batch_norm", _batch_norm, _bn_samples(True, "float32"), dtypes=HALF, variant="mixed", grad=False),
    OpInfo("batch_norm", lambda m, x, rm, rv, *p, **kw: _batch_norm(m, x, rm, rv, *p, **kw),
           _bn_samples(False, "float32"), dtypes=HALF, variant="mixed_eval", grad=False),
    OpInfo("layer_norm", lambda m, x, ns, *p, **kw: _F(m).layer_norm(x, ns, *p, **kw), _layer_norm_samples,
           dtypes=FLOATING, onnx=True, errors=_layer_norm_errors),
    OpInfo("layer_norm", lambda m, x, ns, *p, **kw: _F(m).layer_norm(x, ns, *p, **kw),
           lambda dtype, rng: _layer_norm_samples(dtype, rng, "float32"), dtypes=HALF, variant="mixed",
           grad=False),
    # a mean far above the spread (float16 / bfloat16 left out: around 1e4 their inputs
    # are 8 / 64 apart, and torch's CPU kernel is 0.08 / 0.06 off the float64 result)
    OpInfo("layer_norm", lambda m, x, ns, *p, **kw: _F(m).layer_norm(x, ns, *p, **kw), _layer_norm_offset_samples,
           dtypes=FLOAT, variant="mean_offset", tol=LN_OFFSET_TOL),
    OpInfo("group_norm", lambda m, x, g, *p, **kw: _F(m).group_norm(x, g, *p, **kw), _group_norm_samples,
           dtypes=FLOATING, onnx=True, errors=_group_norm_errors),
    OpInfo("group_norm", lambda m, x, g, *p, **kw: _F(m).group_norm(x, g, *p, **kw),
           lambda dtype, rng: _group_norm_samples(dtype, rng, "float32"), dtypes=HALF, variant="mixed",
           grad=False),
    # ---- dropout ----
    # Random: the same seed gives the same mask, kept values are input / (1 - p), about p
    # of them are dropped. The masks are not torch's, so gradients are compared on the p=1
    # variant (and checked against the mask in dropout_backward). Its ONNX converter
    # refuses training-mode dropout (export in eval mode, where no node is recorded).
    OpInfo("dropout", _dropout_twice(0.5), _dropout_samples, dtypes=FLOATING, grad=False,
           nondeterministic=True, compare=_dropout_check(0.5), errors=_dropout_errors),
    OpInfo("dropout", _dropout_twice(0.2), _dropout_samples, dtypes=FLOAT, variant="p0.2", grad=False,
           nondeterministic=True, compare=_dropout_check(0.2)),
    # the in-place form against the out-of-place one under the same seed
    OpInfo("dropout", _seeded_dropout, _dropout_samples, dtypes=FLOATING, variant="inplace", grad=False,
           inplace=_seeded_dropout_, nondeterministic=True, compare=_shape_only),
    # p = 1 drops everything: deterministic, so values and gradients compare with torch's
    OpInfo("dropout", lambda m, x: _F(m).dropout(x, 1.0), _dropout_samples, dtypes=FLOATING, variant="p1"),
    # p = 0 keeps everything: the input's values, an identity gradient (as in torch, the
    # input itself comes back before any kernel runs: no dropout node in a trace)
    OpInfo("dropout", lambda m, x: _F(m).dropout(x, 0.0), _dropout_samples, dtypes=FLOATING, variant="p0"),
    # ---- embedding, one_hot ----
    OpInfo("embedding", lambda m, i, w, **kw: _F(m).embedding(i, w, **kw), _embedding_samples,
           dtypes=ALL_AND_BOOL, onnx=True, errors=_embedding_errors),
    # the weight's gradient rows divided by how often their index occurs (compared with
    # torch's; not the forward's derivative, so no finite differences)
    OpInfo("embedding", lambda m, i, w, **kw: _F(m).embedding(i, w, scale_grad_by_freq=True, **kw),
           _embedding_samples, dtypes=FLOAT, variant="scale_grad_by_freq", gradcheck=False),
    # nn.Embedding: its weight is a Parameter aliasing w (a new leaf: no gradient reaches w)
    OpInfo("embedding", lambda m, i, w: m.nn.Embedding.from_pretrained(w, freeze=False)(i),
           lambda dtype, rng: _embedding_samples(dtype, rng)[:3], dtypes=FLOAT, variant="module", grad=False),
    OpInfo("one_hot", lambda m, i, **kw: _F(m).one_hot(i, **kw), _one_hot_samples, dtypes=("int64",),
           grad=False, onnx=True, errors=_one_hot_errors),
    # ---- pad ----
    OpInfo("pad", lambda m, x, **kw: _F(m).pad(x, **kw), _pad_samples("constant"), dtypes=ALL_AND_BOOL,
           onnx=True, errors=_pad_errors("constant")),
    OpInfo("pad", lambda m, x, **kw: _F(m).pad(x, **kw), _pad_samples("reflect"), dtypes=ALL,
           variant="reflect", onnx=True, errors=_pad_errors("reflect")),
    OpInfo("pad", lambda m, x, **kw: _F(m).pad(x, **kw), _pad_samples("replicate"), dtypes=ALL,
           variant="replicate", onnx=True, errors=_pad_errors("replicate")),
    # no ONNX Pad mode for circular
    OpInfo("pad", lambda m, x, **kw: _F(m).pad(x, **kw), _pad_samples("circular"), dtypes=ALL_AND_BOOL,
           variant="circular", errors=_pad_errors("circular")),
    # ---- interpolate ----
    OpInfo("interpolate", lambda m, x, **kw: _F(m).interpolate(x, **kw), _interp_samples("nearest"),
           dtypes=FLOATING + ("uint8",), onnx=True, errors=_interp_errors),
    # float16/bfloat16: torch's CPU linear kernels round the weighted terms to the half
    # type before adding them, ember's add in float32 and round once
    OpInfo("interpolate", lambda m, x, **kw: _F(m).interpolate(x, **kw), _interp_samples("linear"),
           dtypes=FLOATING, variant="linear", onnx=True, tol=INTERP_TOL),
    OpInfo("interpolate", lambda m, x, **kw: _F(m).interpolate(x, **kw), _interp_samples("bilinear"),
           dtypes=FLOATING, variant="bilinear", onnx=True, tol=INTERP_TOL),
    OpInfo("interpolate", lambda m, x, **kw: _F(m).interpolate(x, **kw), _interp_samples("trilinear"),
           dtypes=FLOATING, variant="trilinear", onnx=True, tol=INTERP_TOL),
    # ---- losses ----
    OpInfo("cross_entropy", lambda m, x, t, **kw: _F(m).cross_entropy(x, t, **kw),
           _class_loss_samples(True, True), dtypes=FLOATING, errors=_class_loss_errors, tol=LOSS_TOL),
    OpInfo("nll_loss", lambda m, x, t, **kw: _F(m).nll_loss(x, t, **kw), _class_loss_samples(False, False),
           dtypes=FLOATING, errors=_class_loss_errors, tol=LOSS_TOL),
    OpInfo("mse_loss", lambda m, x, t, **kw: _F(m).mse_loss(x, t, **kw), _pair_loss_samples(), dtypes=FLOATING,
           errors=_pair_loss_errors(), tol=LOSS_TOL),
    OpInfo("mse_loss", lambda m, x, t, **kw: _F(m).mse_loss(x, t, **kw), _mixed_pair_samples, dtypes=FLOATING,
           variant="mixed_dtypes"),
    OpInfo("l1_loss", lambda m, x, t, **kw: _F(m).l1_loss(x, t, **kw), _pair_loss_samples(), dtypes=FLOATING,
           errors=_pair_loss_errors(), tol=LOSS_TOL),
    OpInfo("l1_loss", lambda m, x, t, **kw: _F(m).l1_loss(x, t, **kw), _mixed_pair_samples, dtypes=FLOATING,
           variant="mixed_dtypes"),
    OpInfo("smooth_l1_loss", lambda m, x, t, **kw: _F(m).smooth_l1_loss(x, t, **kw), _pair_loss_samples(),
           dtypes=FLOATING, errors=_pair_loss_errors(), tol=LOSS_TOL),
    OpInfo("smooth_l1_loss", lambda m, x, t, **kw: _F(m).smooth_l1_loss(x, t, **kw), _mixed_pair_samples,
           dtypes=FLOATING, variant="mixed_dtypes"),
    OpInfo("smooth_l1_loss", lambda m, x, t, **kw: _F(m).smooth_l1_loss(x, t, **kw),
           _pair_loss_samples(beta=0.5), dtypes=FLOATING, variant="beta", tol=LOSS_TOL),
    # beta = 0: the L1 loss
    OpInfo("smooth_l1_loss", lambda m, x, t, **kw: _F(m).smooth_l1_loss(x, t, **kw),
           _pair_loss_samples(beta=0.0), dtypes=FLOAT, variant="beta0"),
    OpInfo("huber_loss", lambda m, x, t, **kw: _F(m).huber_loss(x, t, **kw), _pair_loss_samples(),
           dtypes=FLOATING, errors=_pair_loss_errors(), tol=LOSS_TOL),
    OpInfo("huber_loss", lambda m, x, t, **kw: _F(m).huber_loss(x, t, **kw), _pair_loss_samples(delta=0.4),
           dtypes=FLOATING, variant="delta", tol=LOSS_TOL),
    # torch's huber_loss keeps the input's dtype with a target of another dtype (the other
    # pointwise losses promote); values only: torch's own backward fails on mixed dtypes.
    OpInfo("huber_loss", lambda m, x, t, **kw: _F(m).huber_loss(x, t, **kw), _mixed_pair_samples,
           dtypes=FLOATING, variant="mixed_dtypes", grad=False),
    OpInfo("binary_cross_entropy", lambda m, x, t, **kw: _F(m).binary_cross_entropy(x, t, **kw),
           _bce_samples(False), dtypes=FLOATING, errors=_bce_errors, tol=LOSS_TOL),
    OpInfo("binary_cross_entropy_with_logits",
           lambda m, x, t, **kw: _F(m).binary_cross_entropy_with_logits(x, t, **kw), _bce_samples(True),
           dtypes=FLOATING, errors=_bce_errors, tol=LOSS_TOL),
    # probabilities exactly 0 and 1: no finite differences (the log's domain ends there)
    OpInfo("binary_cross_entropy", lambda m, x, t, **kw: _F(m).binary_cross_entropy(x, t, **kw),
           _bce_saturated_samples, dtypes=FLOATING, variant="saturated", tol=LOSS_TOL, gradcheck=False),
    OpInfo("binary_cross_entropy_with_logits",
           lambda m, x, t, **kw: _F(m).binary_cross_entropy_with_logits(x, t, **kw), _bce_large_logits_samples,
           dtypes=FLOATING, variant="large_logits", tol=LOSS_TOL),
    # ---- fused LSTM / GRU cells ----
    OpInfo("lstm_cell_fused", _lstm_cell_fn, _cell_samples(4), dtypes=FLOATING, tol=CELL_TOL, onnx=True,
           errors=_cell_errors(4)),
    OpInfo("lstm_cell_fused", _lstm_module, _seq_samples(4), dtypes=FLOAT, variant="LSTM"),
    OpInfo("lstm_cell_fused", _lstm_cell_module, _cell_module_samples(4), dtypes=FLOAT, variant="LSTMCell"),
    OpInfo("gru_cell_fused", _gru_cell_fn, _cell_samples(3), dtypes=FLOATING, tol=CELL_TOL, onnx=True,
           errors=_cell_errors(3)),
    OpInfo("gru_cell_fused", _gru_module, _seq_samples(3), dtypes=FLOAT, variant="GRU"),
    OpInfo("gru_cell_fused", _gru_cell_module, _cell_module_samples(3), dtypes=FLOAT, variant="GRUCell"),
]
