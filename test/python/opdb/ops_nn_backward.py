"""Op database entries of the nn_backward group (lib/dispatch/schema/nn_backward.toml):
the fused backward primitives of the nn, convolution and pooling ops, each reached
through autograd of its forward op (m.autograd.grad) and compared with torch's
gradients.

Rows with a derivative formula are called with create_graph=True, so their own
gradients (the double backward of the forward op) are compared too. The
normalizations' and the fused cells' primitives (derivative "none") run only when
the backward itself is not recorded: create_graph=False, and grad=False here.
"""
import numpy as np

from .opinfo import FLOAT, FLOATING, HALF, ErrorCase, OpInfo, Sample, T, make_values


def _F(m):
    return m.nn.functional


def _t(rng, shape, dtype, low=-3.0, high=3.0, noncontig=False, grad=True):
    return T(make_values(rng, shape, dtype, low, high), dtype, noncontig, grad)


def _np(t):
    t = t.detach()
    if str(t.dtype).split(".")[-1] in ("float16", "bfloat16"):
        t = t.float()
    return np.asarray(t.numpy())


def _leaf(t):
    """t as a tensor that requires grad: itself if it does already (the outer gradient
    checks differentiate through it), else a detached leaf."""
    return t if t.requires_grad else t.detach().requires_grad_()


def vjp(forward, wrt, n_out=1, create_graph=True):
    """fn(m, *args, **kw): the gradients of forward(m, *inputs, **kw) with respect to
    the inputs at positions wrt, for the n_out grad_outputs passed as the last args
    (one per output of forward)."""
    def fn(m, *args, **kw):
        ins, gos = list(args[:len(args) - n_out]), args[len(args) - n_out:]
        with m.enable_grad():  # also under gradcheck's no_grad
            for i in wrt:
                ins[i] = _leaf(ins[i])
            out = forward(m, *ins, **kw)
            outs = out if isinstance(out, tuple) else (out,)
            return m.autograd.grad(outs, [ins[i] for i in wrt], list(gos), create_graph=create_graph)
    return fn


def _grad_out(rng, shape, dtype, noncontig=False, grad=True):
    return _t(rng, shape, dtype, -2.0, 2.0, noncontig, grad)


def _conv_out_shape(x, w, stride=1, padding=0, dilation=1, groups=1, transposed=False, output_padding=0):
    """The output shape of conv2d / conv_transpose2d, by torch's formulas."""
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    st, pd, dl, op = pair(stride), pair(padding), pair(dilation), pair(output_padding)
    batch = x[:-3]
    size = []
    for d in range(2):
        k = w[2 + d]
        if transposed:
            size.append((x[-2 + d] - 1) * st[d] - 2 * pd[d] + dl[d] * (k - 1) + op[d] + 1)
        else:
            size.append((x[-2 + d] + 2 * pd[d] - dl[d] * (k - 1) - 1) // st[d] + 1)
    c = w[1] * groups if transposed else w[0]
    return batch + (c,) + tuple(size)


# ---- normalizations (derivative "none": create_graph=False) -------------------------------------

def _bn_forward(m, x, rm, rv, *params, **kw):
    rm = None if rm is None else rm.clone()
    rv = None if rv is None else rv.clone()
    return _F(m).batch_norm(x, rm, rv, *params, **kw)


def _bn_backward_samples(dtype, rng):
    s = []
    stats = lambda c: (_t(rng, (c,), dtype, grad=False), _t(rng, (c,), dtype, 0.5, 2.0, grad=False))  # noqa: E731
    for training in (True, False):
        kw = dict(training=training)
        for shape in [(6, 3), (3, 2, 4), (2, 3, 2, 3)]:
            c = shape[1]
            for nc in (False, True):
                s.append(Sample((_t(rng, shape, dtype, noncontig=nc),) + stats(c)
                                + (_t(rng, (c,), dtype), _t(rng, (c,), dtype), _grad_out(rng, shape, dtype, nc)), kw))
    return s


def _bn_backward_noaffine_samples(dtype, rng):
    stats = lambda c: (_t(rng, (c,), dtype, grad=False), _t(rng, (c,), dtype, 0.5, 2.0, grad=False))  # noqa: E731
    return [Sample((_t(rng, (3, 2, 4), dtype),) + stats(2) + (_grad_out(rng, (3, 2, 4), dtype),),
                   dict(training=t)) for t in (True, False)]


def _ln_forward(m, x, w, b, ns=None, **kw):
    return _F(m).layer_norm(x, ns, w, b, **kw)


def _ln_backward_samples(dtype, rng):
    s = []
    # at least 4 values per normalized group: over 2 values, x_hat is +-1 whatever x, and
    # the input gradient is a cancellation of rounding noise
    for shape, ns in [((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((2, 2, 3, 5), (5,)), ((5,), (5,))]:
        for nc in (False, True):
            s.append(Sample((_t(rng, shape, dtype, noncontig=nc), _t(rng, ns, dtype), _t(rng, ns, dtype),
                             _grad_out(rng, shape, dtype, nc)), dict(ns=ns)))
    # long rows (several blocks of a row reduction)
    s.append(Sample((_t(rng, (3, 1100), dtype), _t(rng, (1100,), dtype), _t(rng, (1100,), dtype),
                     _grad_out(rng, (3, 1100), dtype)), dict(ns=(1100,)), "long-rows"))
    if dtype == "float64":  # a mean far above the spread (float32 rounds such inputs to 1e-3)
        x = T(1e4 + make_values(rng, (4, 300), dtype), dtype)
        s.append(Sample((x, _t(rng, (300,), dtype), _t(rng, (300,), dtype), _grad_out(rng, (4, 300), dtype)),
                        dict(ns=(300,)), "mean-offset"))
    return s


def _gn_forward(m, x, w, b, groups=None, **kw):
    return _F(m).group_norm(x, groups, w, b, **kw)


def _gn_backward_samples(dtype, rng):
    s = []
    for shape, g in [((2, 4, 3), 2), ((2, 6, 2, 2), 3), ((3, 4, 5), 1), ((2, 4, 6), 4), ((3, 8), 2)]:
        c = shape[1]
        for nc in (False, True):
            s.append(Sample((_t(rng, shape, dtype, noncontig=nc), _t(rng, (c,), dtype), _t(rng, (c,), dtype),
                             _grad_out(rng, shape, dtype, nc)), dict(groups=g)))
    return s


# ---- embedding ---------------------------------------------------------------------------------

def _emb_forward(m, idx, w, **kw):
    return _F(m).embedding(idx, w, **kw)


def _emb_backward_samples(dtype, rng):
    s = []
    for ishape, rows, dim, kw in [((2, 3), 5, 3, {}), ((6,), 4, 2, dict(padding_idx=1)),
                                  ((2, 2, 2), 3, 2, dict(padding_idx=-1)), ((), 4, 3, {})]:
        # (no empty indices: torch's double backward of embedding fails on them)
        idx = rng.integers(0, rows, ishape).astype(np.int64)
        if idx.size > 1:
            idx.reshape(-1)[:2] = idx.reshape(-1)[-1]  # a row looked up several times
        for itype in ("int64", "int32"):
            s.append(Sample((T(idx, itype), _t(rng, (rows, dim), dtype, grad=False),
                             _grad_out(rng, ishape + (dim,), dtype, noncontig=itype == "int32")), kw))
    return s


# ---- pad, interpolate --------------------------------------------------------------------------

def _pad_forward(m, x, **kw):
    return _F(m).pad(x, **kw)


def _pad_backward_samples(dtype, rng):
    s = []
    out_shape = lambda shape, pad: shape[:len(shape) - len(pad) // 2] + tuple(  # noqa: E731
        shape[len(shape) - 1 - i] + pad[2 * i] + pad[2 * i + 1] for i in reversed(range(len(pad) // 2)))
    for mode in ("reflect", "replicate", "circular"):
        cases = [((1, 2, 3), (1, 2)), ((1, 2, 3, 4), (1, 1, 2, 0)), ((3, 4), (2, 1)),
                 ((1, 1, 3, 3, 3), (1, 1, 1, 0, 2, 1)), ((2, 3, 4), (3, 2))]
        cases += [((2, 3, 5), (-1, 2)), ((2, 3, 5), (-2, -1, 1, 0))]  # negative pads crop
        if mode != "circular":
            cases += [((2, 3, 5), (-2, 4)), ((1, 2, 4, 5), (2, -3, -1, 2)), ((1, 1, 3, 4, 4), (-1, 1, 2, -1, 1, -2))]
        for shape, pad in cases:
            if mode == "reflect" and max(pad) >= min(shape[-1], shape[-2] if len(pad) > 2 else 99):
                continue
            for nc in (False, True):
                s.append(Sample((_t(rng, shape, dtype, grad=False, noncontig=nc),
                                 _grad_out(rng, out_shape(shape, pad), dtype, nc)), dict(pad=pad, mode=mode),
                                mode))
    return s


def _interp_forward(m, x, **kw):
    return _F(m).interpolate(x, **kw)


def _interp_out(shape, kw):
    spatial = shape[2:]
    if "size" in kw:
        size = kw["size"]
        size = (size,) * len(spatial) if isinstance(size, int) else tuple(size)
    else:
        sf = kw["scale_factor"]
        sf = (sf,) * len(spatial) if not isinstance(sf, tuple) else sf
        size = tuple(int(np.floor(n * f)) for n, f in zip(spatial, sf))
    return shape[:2] + size


def _interp_backward_samples(dtype, rng):
    cases = [((1, 1, 3, 4), dict(size=(5, 7), mode="nearest")),
             ((1, 2, 4, 4), dict(scale_factor=2, mode="nearest")),
             ((1, 2, 5, 7), dict(size=(2, 3), mode="nearest")),
             ((1, 2, 5), dict(scale_factor=1.5, mode="nearest")),
             ((1, 1, 2, 2, 3), dict(size=(3, 4, 4), mode="nearest")),
             ((1, 2, 5), dict(size=8, mode="linear")),
             ((1, 2, 5), dict(scale_factor=0.5, mode="linear", align_corners=True)),
             ((1, 1, 3, 4), dict(size=(5, 7), mode="bilinear")),
             ((1, 2, 3, 4), dict(scale_factor=(1.5, 0.6), mode="bilinear")),
             ((1, 2, 4, 4), dict(scale_factor=2, mode="bilinear", align_corners=True)),
             ((1, 2, 4, 4), dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
             ((1, 1, 2, 2, 3), dict(scale_factor=2, mode="trilinear")),
             ((1, 1, 2, 3, 2), dict(size=(3, 3, 3), mode="trilinear", align_corners=True)),
             # a spatial size of 1 (in, out), an empty batch, a large upsampling ratio
             ((1, 2, 1), dict(size=5, mode="nearest")),
             ((1, 2, 1), dict(size=5, mode="linear")),
             ((2, 1, 5), dict(size=1, mode="linear", align_corners=True)),
             ((1, 1, 1, 1), dict(size=(3, 4), mode="bilinear", align_corners=True)),
             ((1, 2, 4, 5), dict(size=(1, 3), mode="bilinear")),
             ((1, 2, 4, 5), dict(size=(1, 1), mode="bilinear", align_corners=True)),
             ((1, 1, 3, 2, 2), dict(size=(1, 1, 1), mode="trilinear", align_corners=True)),
             ((0, 2, 3, 4), dict(size=(5, 7), mode="bilinear")),
             ((1, 2, 3, 3), dict(size=(64, 64), mode="bilinear"))]
    s = []
    for shape, kw in cases:
        for nc in (False, True):
            s.append(Sample((_t(rng, shape, dtype, grad=False, noncontig=nc),
                             _grad_out(rng, _interp_out(shape, kw), dtype, nc)), kw, kw["mode"]))
    return s


# ---- losses ------------------------------------------------------------------------------------

REDUCTIONS = ("mean", "sum", "none")


def _target(rng, shape, c, ignore=None, dtype="int64"):
    vals = rng.integers(0, c, size=shape).astype(np.int64)
    if ignore is not None and vals.size:
        vals.reshape(-1)[::3] = ignore
    return T(vals, dtype)


def _probs(rng, shape, dtype, cdim=1, grad=True):
    e = np.exp(rng.uniform(-2, 2, size=shape))
    return T(e / e.sum(axis=cdim, keepdims=True), dtype, grad=grad)


def _loss_out(shape, red, class_dim=True):
    if red != "none":
        return ()
    if class_dim:
        return shape[:1] + shape[2:] if len(shape) > 1 else ()
    return shape


def _class_backward_samples(probs_ok, smoothing_ok, input_grad):
    def make(dtype, rng):
        x = lambda shape: _t(rng, shape, dtype, grad=input_grad)  # noqa: E731
        w = lambda c: _t(rng, (c,), dtype, 0.2, 2.0, grad=False)  # noqa: E731
        g = lambda shape, red: _grad_out(rng, _loss_out(shape, red), dtype)  # noqa: E731
        s = []
        for red in REDUCTIONS:
            s.append(Sample((x((3, 4)), _target(rng, (3,), 4), g((3, 4), red)), dict(reduction=red)))
            s.append(Sample((x((5, 4)), _target(rng, (5,), 4, ignore=1), g((5, 4), red)),
                            dict(reduction=red, ignore_index=1, weight=w(4)), "weight-ignore"))
            s.append(Sample((x((2, 3, 2)), _target(rng, (2, 2), 3), g((2, 3, 2), red)), dict(reduction=red), "3-d"))
            s.append(Sample((x((4,)), _target(rng, (), 4), g((4,), red)), dict(reduction=red), "unbatched"))
            if smoothing_ok:
                s.append(Sample((x((4, 3)), _target(rng, (4,), 3, ignore=0), g((4, 3), red)),
                                dict(reduction=red, label_smoothing=0.2, ignore_index=0, weight=w(3)), "smoothing"))
            if probs_ok:
                s.append(Sample((x((3, 4)), _probs(rng, (3, 4), dtype), g((3, 4), red)), dict(reduction=red),
                                "probs"))
                s.append(Sample((x((2, 3, 2)), _probs(rng, (2, 3, 2), dtype), g((2, 3, 2), red)),
                                dict(reduction=red, label_smoothing=0.3, weight=w(3)), "probs-smoothing"))
        s.append(Sample((x((4, 3)), _target(rng, (4,), 3, dtype="uint8"), g((4, 3), "mean")), {}, "uint8-target"))
        return s
    return make


def _ce_forward(m, x, t, **kw):
    return _F(m).cross_entropy(x, t, **kw)


def _nll_forward(m, x, t, **kw):
    return _F(m).nll_loss(x, t, **kw)


def _pair_backward_samples(low=-3.0, high=3.0, tlow=None, thigh=None, input_grad=True, **extra):
    """input_grad=False: input and target are not differentiated (only grad_output)."""
    tlow = low if tlow is None else tlow
    thigh = high if thigh is None else thigh

    def make(dtype, rng):
        s = []
        for red in REDUCTIONS:
            kw = dict(extra, reduction=red)
            for shape in [(3, 4), (2, 3, 2), ()]:
                for nc in ((False, True) if shape else (False,)):
                    s.append(Sample((_t(rng, shape, dtype, low, high, nc, input_grad),
                                     _t(rng, shape, dtype, tlow, thigh, grad=input_grad),
                                     _grad_out(rng, shape if red == "none" else (), dtype)), kw))
            s.append(Sample((_t(rng, (0, 3), dtype, grad=input_grad),
                             _t(rng, (0, 3), dtype, tlow, thigh, grad=input_grad),
                             _grad_out(rng, (0, 3) if red == "none" else (), dtype)), kw, "empty"))
        return s
    return make


def _pair_forward(name):
    def forward(m, x, t, **kw):
        return getattr(_F(m), name)(x, t, **kw)
    return forward


def _bce_backward_samples(logits):
    def make(dtype, rng):
        lo, hi = (-3.0, 3.0) if logits else (0.05, 0.95)
        s = []
        for red in REDUCTIONS:
            g = lambda shape: _grad_out(rng, shape if red == "none" else (), dtype)  # noqa: E731
            for nc in (False, True):
                s.append(Sample((_t(rng, (3, 4), dtype, lo, hi, nc), _t(rng, (3, 4), dtype, 0, 1), g((3, 4))),
                                dict(reduction=red)))
            s.append(Sample((_t(rng, (2, 3, 4), dtype, lo, hi), _t(rng, (2, 3, 4), dtype, 0, 1), g((2, 3, 4))),
                            dict(reduction=red, weight=_t(rng, (4,), dtype, 0.2, 2, grad=False)), "weight"))
            if logits:
                s.append(Sample((_t(rng, (3, 4), dtype, lo, hi), _t(rng, (3, 4), dtype, 0, 1), g((3, 4))),
                                dict(reduction=red, pos_weight=_t(rng, (4,), dtype, 0.2, 2, grad=False),
                                     weight=_t(rng, (3, 1), dtype, 0.2, 2, grad=False)), "pos_weight"))
            s.append(Sample((_t(rng, (), dtype, lo, hi), _t(rng, (), dtype, 0, 1), g(())), dict(reduction=red),
                            "0-dim"))
        return s
    return make


def _bce_edge_backward_samples(logits):
    """Probabilities exactly 0 and 1 (binary_cross_entropy), logits of +-100 and +-1000
    (with logits): the saturated ends, with a grad_output per reduction."""
    def make(dtype, rng):
        if logits:
            x = np.array([[100.0, -100.0, 1000.0, -1000.0], [1000.0, -1000.0, 100.0, -100.0], [30.0, -30.0, 0.0, 50.0]])
        else:
            x = np.array([[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.5, 0.25], [1.0, 0.0, 0.9, 0.0]])
        t = np.array([[0.0, 1.0, 1.0, 0.0], [0.3, 0.7, 1.0, 0.0], [1.0, 0.0, 0.5, 1.0]])
        s = []
        for red in REDUCTIONS:
            g = _grad_out(rng, (3, 4) if red == "none" else (), dtype)
            s.append(Sample((T(x, dtype), T(t, dtype), g), dict(reduction=red), "saturated"))
        return s
    return make


# ---- dropout (random) --------------------------------------------------------------------------

def _dropout_grad(p):
    """(y, x's gradient for grad_output g, g): seeded, so the mask is drawn once."""
    def fn(m, x, g):
        m.manual_seed(0)
        with m.enable_grad():
            x = _leaf(x)
            y = _F(m).dropout(x, p)
            (gx,) = m.autograd.grad(y, x, g)
        return y, gx, g
    return fn


def _dropout_grad_check(p):
    def compare(e_out, t_out, dtype):
        y, gx, g = (_np(t) for t in e_out)
        assert gx.shape == g.shape
        kept = y != 0  # the inputs are never 0
        rtol = 1e-2 if dtype in HALF else 1e-6
        np.testing.assert_allclose(gx[kept], g[kept] / (1 - p), rtol=rtol,
                                   err_msg="dropout_backward: kept gradients are not g / (1 - p)")
        np.testing.assert_array_equal(gx[~kept], 0, err_msg="dropout_backward: a dropped element has a gradient")
    return compare


def _dropout_backward_samples(dtype, rng):
    vals = lambda shape: np.where(rng.random(shape) < 0.5, -1, 1) * rng.uniform(0.5, 3, shape)  # noqa: E731
    return [Sample((T(vals(shape), dtype, nc), _grad_out(rng, shape, dtype, nc)))
            for shape, nc in [((20, 30), False), ((10, 20), True), ((3, 4), False), ((), False), ((0, 3), False)]]


# ---- convolutions, pools -----------------------------------------------------------------------

CONV_CASES = [  # input, weight, kwargs (conv2d)
    ((1, 2, 3, 3), (2, 2, 2, 2), {}),
    ((2, 2, 5, 6), (3, 2, 3, 3), dict(stride=2, padding=1)),
    ((1, 2, 6, 7), (2, 2, 2, 3), dict(padding=(1, 2), dilation=2)),
    ((1, 4, 4, 4), (6, 2, 3, 3), dict(groups=2, padding=1)),
    ((1, 2, 5, 6), (2, 2, 2, 4), dict(padding="same")),
    ((2, 4, 4), (4, 1, 3, 3), dict(groups=2)),  # unbatched
    ((0, 2, 4, 4), (3, 2, 3, 3), {}),
]
CONVT_CASES = [  # input, weight, kwargs (conv_transpose2d)
    ((1, 1, 2, 2), (1, 2, 2, 2), {}),
    ((1, 2, 3, 3), (2, 2, 2, 2), {}),
    ((2, 2, 3, 3), (2, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ((1, 4, 3, 4), (4, 1, 2, 3), dict(stride=(2, 1), dilation=2, groups=2, output_padding=(1, 0))),
]


def _conv_forward(m, x, w, **kw):
    return _F(m).conv2d(x, w, **kw)


def _convt_forward(m, x, w, **kw):
    return _F(m).conv_transpose2d(x, w, **kw)


def _conv_backward_samples(transposed, x_grad, w_grad):
    def make(dtype, rng):
        s = []
        for x, w, kw in (CONVT_CASES if transposed else CONV_CASES):
            if kw.get("padding") == "same":
                out = x[:-3] + (w[0],) + x[-2:]
            else:
                out = _conv_out_shape(x, w, transposed=transposed, **kw)
            for nc in (False, True):
                s.append(Sample((_t(rng, x, dtype, -2, 2, nc, grad=x_grad), _t(rng, w, dtype, -2, 2, nc, grad=w_grad),
                                 _grad_out(rng, out, dtype, nc)), kw))
        return s
    return make


def _pool_out(shape, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, **_):
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    k, st, pd, dl = pair(kernel_size), pair(stride or kernel_size), pair(padding), pair(dilation)
    size = []
    for d in range(2):
        n = shape[-2 + d] + 2 * pd[d] - dl[d] * (k[d] - 1) - 1
        o = (-(-n // st[d]) if ceil_mode else n // st[d]) + 1
        if ceil_mode and (o - 1) * st[d] >= shape[-2 + d] + pd[d]:
            o -= 1
        size.append(o)
    return tuple(shape[:-2]) + tuple(size)


def _distinct(rng, shape, dtype, noncontig=False):
    n = int(np.prod(shape))
    return T(((rng.permutation(n) - n / 2) * 0.05).reshape(shape), dtype, noncontig, grad=False)


POOL_CASES = [
    ((1, 1, 4, 4), dict(kernel_size=2)),
    ((2, 3, 5, 5), dict(kernel_size=3, stride=2, padding=1)),
    ((1, 2, 5, 5), dict(kernel_size=2, ceil_mode=True)),
    ((1, 2, 6, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((1, 2, 4, 6), dict(kernel_size=(2, 3), stride=(1, 2))),
    ((2, 4, 4), dict(kernel_size=2)),
    ((1, 2, 4, 4), dict(kernel_size=3, stride=1, padding=1)),  # overlapping windows
]


def _max_pool_backward_samples(dtype, rng):
    s = []
    for shape, kw in POOL_CASES + [((1, 2, 6, 6), dict(kernel_size=2, dilation=2))]:
        for nc in (False, True):
            s.append(Sample((_distinct(rng, shape, dtype, nc), _grad_out(rng, _pool_out(shape, **kw), dtype, nc)), kw))
    return s


def _avg_pool_backward_samples(dtype, rng):
    s = []
    extra = [((2, 3, 5, 5), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
             ((1, 2, 6, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
             ((1, 2, 5, 5), dict(kernel_size=3, stride=2, padding=1, divisor_override=2))]
    for shape, kw in POOL_CASES + extra:
        for nc in (False, True):
            s.append(Sample((_t(rng, shape, dtype, grad=False, noncontig=nc),
                             _grad_out(rng, _pool_out(shape, **kw), dtype, nc)), kw))
    return s


def _adaptive_backward_samples(dtype, rng):
    s = []
    for shape, out in [((1, 1, 4, 4), (2, 2)), ((2, 3, 5, 7), (3, 3)), ((1, 2, 3, 3), (5, 4)),
                       ((2, 6, 5), (2, 3)), ((1, 2, 5, 7), (1, 1))]:
        for nc in (False, True):
            s.append(Sample((_t(rng, shape, dtype, grad=False, noncontig=nc),
                             _grad_out(rng, tuple(shape[:-2]) + out, dtype, nc)), dict(output_size=out)))
    return s


def _pool_forward(name):
    def forward(m, x, **kw):
        return getattr(_F(m), name)(x, **kw)
    return forward


# ---- LSTM / GRU cells (derivative "none": create_graph=False) -----------------------------------

def _rnn_weights(rng, dtype, gates, inp, hid, bias=True):
    ws = (_t(rng, (gates * hid, inp), dtype, -0.6, 0.6), _t(rng, (gates * hid, hid), dtype, -0.6, 0.6))
    if bias:
        ws += (_t(rng, (gates * hid,), dtype, -0.6, 0.6), _t(rng, (gates * hid,), dtype, -0.6, 0.6))
    return ws


def _lstm_cell_forward(m, x, h, c, *w):
    return m.lstm_cell(x, (h, c), *w)


def _gru_cell_forward(m, x, h, *w):
    return m.gru_cell(x, h, *w)


def _lstm_backward(both, bias=True):
    """Gradients wrt input, state and weights of one lstm_cell step for grad_outputs
    (g_h, g_c), or g_h only (the cell state's gradient left out)."""
    def fn(m, x, h, c, *rest):
        n_w = 4 if bias else 2
        w, gos = list(rest[:n_w]), rest[n_w:]
        with m.enable_grad():
            ins = [_leaf(t) for t in [x, h, c] + w]
            h1, c1 = m.lstm_cell(ins[0], (ins[1], ins[2]), *ins[3:])
            outs = [h1, c1] if both else [h1]
            return m.autograd.grad(outs, ins, list(gos))
    return fn


def _gru_backward(bias=True):
    def fn(m, x, h, *rest):
        n_w = 4 if bias else 2
        w, go = list(rest[:n_w]), rest[n_w]
        with m.enable_grad():
            ins = [_leaf(t) for t in [x, h] + w]
            h1 = m.gru_cell(ins[0], ins[1], *ins[2:])
            return m.autograd.grad(h1, ins, go)
    return fn


def _cell_backward_samples(gates, n_grads, bias=True):
    lstm = gates == 4

    def make(dtype, rng):
        s = []
        for b, inp, hid in [(2, 3, 2), (3, 4, 5), (0, 3, 2)]:
            for nc in (False, True):
                state = (_t(rng, (b, hid), dtype, noncontig=nc),) + ((_t(rng, (b, hid), dtype),) if lstm else ())
                gos = tuple(_grad_out(rng, (b, hid), dtype, nc) for _ in range(n_grads))
                s.append(Sample((_t(rng, (b, inp), dtype, noncontig=nc),) + state
                                + _rnn_weights(rng, dtype, gates, inp, hid, bias) + gos))
        return s
    return make


def _lstm_layer_backward(m, x, h0, c0, *rest, num_layers, bidirectional, bias, batch_first):
    """Gradients wrt input, initial state and every weight of torch.lstm (one lstm_layer
    per layer and direction on the CPU) for grad_outputs (g_out, g_h, g_c)."""
    ins, gos = [x, h0, c0] + list(rest[:-3]), rest[-3:]
    with m.enable_grad():
        ins = [_leaf(t) for t in ins]
        out, h, c = m.lstm(ins[0], (ins[1], ins[2]), ins[3:], bias, num_layers, 0.0, True, bidirectional,
                           batch_first)
        return m.autograd.grad((out, h, c), ins, list(gos))


def _gru_layer_backward(m, x, h0, *rest, num_layers, bidirectional, bias, batch_first):
    """Gradients wrt input, initial state and every weight of torch.gru (one gru_layer
    per layer and direction on the CPU) for grad_outputs (g_out, g_h)."""
    ins, gos = [x, h0] + list(rest[:-2]), rest[-2:]
    with m.enable_grad():
        ins = [_leaf(t) for t in ins]
        out, h = m.gru(ins[0], ins[1], ins[2:], bias, num_layers, 0.0, True, bidirectional, batch_first)
        return m.autograd.grad((out, h), ins, list(gos))


def _layer_backward_samples(gates):
    """x, the initial state(s), the weights of every layer and direction, and the
    output's and the final state(s)' gradients."""
    n_states = 2 if gates == 4 else 1

    def make(dtype, rng):
        s = []
        for steps, b, inp, hid, layers, d, bias, bf in [(3, 2, 3, 2, 1, 1, True, False),
                                                        (4, 3, 2, 5, 2, 2, True, True),
                                                        (2, 2, 3, 4, 2, 1, False, False)]:
            cfg = dict(num_layers=layers, bidirectional=d == 2, bias=bias, batch_first=bf)
            state = tuple(_t(rng, (layers * d, b, hid), dtype) for _ in range(n_states))
            w = ()
            for layer in range(layers):
                for _ in range(d):
                    w += _rnn_weights(rng, dtype, gates, inp if layer == 0 else hid * d, hid, bias)
            out_shape = (b, steps, d * hid) if bf else (steps, b, d * hid)
            gos = (_grad_out(rng, out_shape, dtype),) + tuple(_grad_out(rng, (layers * d, b, hid), dtype)
                                                               for _ in range(n_states))
            x = _t(rng, (b, steps, inp) if bf else (steps, b, inp), dtype)
            s.append(Sample((x,) + state + w + gos, cfg))
        return s
    return make


# ---- errors ------------------------------------------------------------------------------------

def _bad_grad(samples, index=0):
    """errors(rng): a float32 sample whose (last) grad_output has a wrong shape (one
    more element in its first dim, or a [2] vector for a 0-dim one): autograd.grad
    raises RuntimeError, as torch's does."""
    def make(rng):
        good = samples("float32", rng)[index]
        g = good.args[-1]
        shape = g.values.shape
        bad = (shape[0] + 1,) + shape[1:] if shape else (2,)
        return [ErrorCase(Sample(good.args[:-1] + (_grad_out(rng, bad, "float32"),), dict(good.kwargs)),
                          RuntimeError)]
    return make


# half-type tolerances: torch's CPU backward kernels round intermediates to the half
# type (ember's accumulate in float32 and round once)
HALF_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)}
# The normalizations' input gradients are a cancellation (g - mean(g) - x_hat mean(g x_hat))
# of terms several times their size, so the half-type intermediates torch's kernels keep
# move them more: on batch_norm's float16 / bfloat16 samples torch's is 3x / 5x further
# from the float64 gradient than ember's.
NORM_TOL = {"float16": (1.5e-2, 1.5e-2), "bfloat16": (1e-1, 1e-1)}


# Gradients that sum several terms (the cells' weight gradients over the batch, the
# gradients of a reflect / replicate pad at the positions copied several times): torch's
# CPU kernels in the half types round after each term, ember's sum in float32.
SUM_TOL = {"float16": (1e-2, 1e-2), "bfloat16": (6e-2, 6e-2)}


def _op(name, forward, samples, wrt, *, create_graph=True, n_out=1, dtypes=FLOATING, variant="",
        errors=True, tol=None, **kw):
    """An OpInfo reaching a backward row through the gradients of forward wrt the
    args at positions wrt (grad=True with create_graph: its double backward is
    compared too); errors: a wrong-shaped grad_output."""
    fn = vjp(forward, wrt, n_out, create_graph)
    return OpInfo(name, fn, samples, dtypes=dtypes, variant=variant, grad=create_graph, trace=False,
                  errors=_bad_grad(samples) if errors is True else errors,
                  tol=dict(HALF_TOL if tol is None else tol), **kw)


def _norm(name, forward, samples, wrt, variant=""):
    """A normalization's backward primitive: create_graph=False (derivative "none");
    errors on the main entry only."""
    return _op(name, forward, samples, wrt, create_graph=False, tol=NORM_TOL, variant=variant,
               errors=None if variant else True)


def _sdpa_forward(m, q, k, v, **kw):
    return m.nn.functional.scaled_dot_product_attention(q, k, v, **kw)


def _sdpa_backward_samples(dtype, rng):
    """q, k, v and the output's gradient: plain, strided, causal, gqa."""
    s = []
    for qs, ks, vs, kw in [((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 3), {}),
                           ((2, 2, 7, 4), (2, 2, 5, 4), (2, 2, 5, 3), {"is_causal": True}),
                           ((1, 4, 5, 4), (1, 2, 6, 4), (1, 2, 6, 2), {"enable_gqa": True})]:
        for nc in (False, True):
            ins = tuple(_t(rng, sh, dtype, -2.0, 2.0, noncontig=nc) for sh in (qs, ks, vs))
            s.append(Sample(ins + (_grad_out(rng, qs[:-1] + vs[-1:], dtype, nc),), dict(kw)))
    return s


OPS = [
    # ---- normalizations: create_graph=False reaches the fused primitives ----
    _norm("batch_norm_backward", _bn_forward, _bn_backward_samples, (0, 3, 4)),
    # the gradients wrt some of input, weight, bias only (output_mask), no weight and bias
    _norm("batch_norm_backward", _bn_forward, _bn_backward_samples, (0,), "input_only"),
    _norm("batch_norm_backward", _bn_forward, _bn_backward_samples, (3, 4), "params_only"),
    _norm("batch_norm_backward", _bn_forward, _bn_backward_noaffine_samples, (0,), "no_affine"),
    _norm("layer_norm_backward", _ln_forward, _ln_backward_samples, (0, 1, 2)),
    _norm("layer_norm_backward", _ln_forward, _ln_backward_samples, (0,), "input_only"),
    _norm("layer_norm_backward", _ln_forward, _ln_backward_samples, (1,), "weight_only"),
    _norm("group_norm_backward", _gn_forward, _gn_backward_samples, (0, 1, 2)),
    _norm("group_norm_backward", _gn_forward, _gn_backward_samples, (0,), "input_only"),
    _norm("group_norm_backward", _gn_forward, _gn_backward_samples, (2,), "bias_only"),
    # ---- embedding, pad, interpolate ----
    _op("embedding_backward", _emb_forward, _emb_backward_samples, (1,)),
    # reflect, replicate, circular (a constant pad's gradient is a pad by -pad)
    _op("pad_backward", _pad_forward, _pad_backward_samples, (0,), tol=SUM_TOL),
    _op("interpolate_backward", _interp_forward, _interp_backward_samples, (0,)),
    # ---- losses ----
    # nll_loss's gradient is constant in the input: its double backward is wrt grad_output
    _op("nll_loss_backward", _nll_forward, _class_backward_samples(False, False, False), (0,)),
    _op("cross_entropy_backward", _ce_forward, _class_backward_samples(True, True, True), (0,)),
    # The element-wise losses: the gradients wrt the input and the target.
    _op("mse_loss_backward", _pair_forward("mse_loss"), _pair_backward_samples(), (0, 1)),
    # l1's gradient is constant in input and target (torch returns a ZeroTensor for its
    # derivative, which test_opdb cannot convert): only grad_output is differentiated
    _op("l1_loss_backward", _pair_forward("l1_loss"), _pair_backward_samples(input_grad=False), (0,)),
    _op("smooth_l1_loss_backward", _pair_forward("smooth_l1_loss"), _pair_backward_samples(beta=0.7), (0, 1)),
    _op("huber_loss_backward", _pair_forward("huber_loss"), _pair_backward_samples(delta=0.6), (0, 1)),
    _op("binary_cross_entropy_backward", _pair_forward("binary_cross_entropy"), _bce_backward_samples(False),
        (0, 1)),
    _op("binary_cross_entropy_with_logits_backward", _pair_forward("binary_cross_entropy_with_logits"),
        _bce_backward_samples(True), (0, 1)),
    # probabilities exactly 0 and 1 (no finite differences: the log's domain ends there). Not
    # float16: torch's CPU kernel divides by max(x (1 - x), 1e-12), and 1e-12 is 0 in float16,
    # so where x = t = 0 or 1 it gives 0 / 0 = NaN (ember: 0, the float32 and float64 value).
    _op("binary_cross_entropy_backward", _pair_forward("binary_cross_entropy"), _bce_edge_backward_samples(False),
        (0, 1), variant="saturated", errors=None, gradcheck=False, dtypes=FLOAT + ("bfloat16",)),
    _op("binary_cross_entropy_with_logits_backward", _pair_forward("binary_cross_entropy_with_logits"),
        _bce_edge_backward_samples(True), (0, 1), variant="large_logits", errors=None),
    # ---- dropout ----
    # Random: the gradient is grad_output times the drawn mask, scaled by 1 / (1 - p).
    OpInfo("dropout_backward", _dropout_grad(0.5), _dropout_backward_samples, dtypes=FLOATING, grad=False,
           trace=False, nondeterministic=True, compare=_dropout_grad_check(0.5),
           errors=_bad_grad(_dropout_backward_samples)),
    OpInfo("dropout_backward", _dropout_grad(0.25), _dropout_backward_samples, dtypes=FLOAT, variant="p0.25",
           grad=False, trace=False, nondeterministic=True, compare=_dropout_grad_check(0.25)),
    # p = 1: deterministic (all dropped, a zero gradient): compared with torch's, with its
    # double backward
    _op("dropout_backward", lambda m, x: _F(m).dropout(x, 1.0), _dropout_backward_samples, (0,), variant="p1",
        errors=None),
    # ---- convolutions ----
    _op("conv2d_backward_input", _conv_forward, _conv_backward_samples(False, False, True), (0,)),
    _op("conv2d_backward_weight", _conv_forward, _conv_backward_samples(False, True, False), (1,)),
    # conv_transpose2d's gradients: wrt its input a conv2d, wrt its weight conv2d_backward_weight
    _op("conv2d_backward_weight", _convt_forward, _conv_backward_samples(True, True, False), (1,),
        variant="conv_transpose2d", errors=None),
    # both at once (the double backward mixes them)
    _op("conv2d_backward_input", _conv_forward, _conv_backward_samples(False, True, True), (0, 1),
        variant="both", errors=None),
    # ---- pools ----
    _op("max_pool2d_backward", _pool_forward("max_pool2d"), _max_pool_backward_samples, (0,)),
    _op("avg_pool2d_backward", _pool_forward("avg_pool2d"), _avg_pool_backward_samples, (0,)),
    _op("adaptive_avg_pool2d_backward", _pool_forward("adaptive_avg_pool2d"), _adaptive_backward_samples, (0,)),
    # ---- fused cells: create_graph=False reaches the fused backward ----
    OpInfo("lstm_cell_fused_backward", _lstm_backward(True), _cell_backward_samples(4, 2), dtypes=FLOATING,
           grad=False, trace=False, tol=SUM_TOL, errors=_bad_grad(_cell_backward_samples(4, 2))),
    # only h' gets a gradient: grad_c is zeros
    OpInfo("lstm_cell_fused_backward", _lstm_backward(False), _cell_backward_samples(4, 1), dtypes=FLOATING,
           variant="h_only", grad=False, trace=False, tol=SUM_TOL),
    OpInfo("lstm_cell_fused_backward", _lstm_backward(True, bias=False), _cell_backward_samples(4, 2, False),
           dtypes=FLOAT, variant="no_bias", grad=False, trace=False),
    OpInfo("lstm_layer_backward", _lstm_layer_backward, _layer_backward_samples(4), dtypes=FLOAT, grad=False,
           trace=False, errors=_bad_grad(_layer_backward_samples(4))),
    OpInfo("gru_layer_backward", _gru_layer_backward, _layer_backward_samples(3), dtypes=FLOAT, grad=False,
           trace=False, errors=_bad_grad(_layer_backward_samples(3))),
    OpInfo("gru_cell_fused_backward", _gru_backward(), _cell_backward_samples(3, 1), dtypes=FLOATING, grad=False,
           trace=False, tol=SUM_TOL, errors=_bad_grad(_cell_backward_samples(3, 1))),
    OpInfo("gru_cell_fused_backward", _gru_backward(bias=False), _cell_backward_samples(3, 1, False),
           dtypes=FLOAT, variant="no_bias", grad=False, trace=False),
    # ---- attention: create_graph=False reaches the fused backward ----
    _op("scaled_dot_product_flash_attention_backward", _sdpa_forward, _sdpa_backward_samples, (0, 1, 2),
        create_graph=False, dtypes=FLOAT),
]
