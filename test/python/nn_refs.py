"""Shared pieces of the ember.nn.functional tests: float64 numpy references
(written from the definitions, not from ember's kernels), dtype tolerances,
and the optional PyTorch oracle."""
import numpy as np
import pytest

import ember
from _helpers import noncontiguous, to_ember, to_numpy  # noqa: F401 (noncontiguous: re-exported)

try:  # PyTorch is an extra oracle where it is installed.
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover
    torch = None
    TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol) of a float64 reference against an op run in the dtype.
TOL = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-12), "float16": (2e-2, 2e-2),
       "bfloat16": (5e-2, 5e-2)}


def edtype(name):
    return getattr(ember, name)


def make(a, dtype="float32", noncontig=False):
    """An ember tensor of dtype with the values of numpy array a (rounded to the dtype)."""
    t = to_ember(np.asarray(a, dtype=np.float64)).to(edtype(dtype))
    return noncontiguous(t) if noncontig else t


def rounded(a, dtype):
    """a as the op sees it after conversion to dtype, back in float64."""
    return to_numpy(make(a, dtype)).astype(np.float64)


def close(actual, expected, dtype="float64", scale=1.0):
    rtol, atol = TOL[dtype]
    got = to_numpy(actual).astype(np.float64)
    exp = np.asarray(expected, dtype=np.float64)
    assert got.shape == exp.shape, f"shape {got.shape} != {exp.shape}"
    np.testing.assert_allclose(got, exp, rtol=rtol * scale, atol=atol * scale, equal_nan=True)


def torch_of(a, dtype="float32"):
    return torch.tensor(np.asarray(a)).to(getattr(torch, dtype))


# ---- references ------------------------------------------------------------------------

def ref_layer_norm(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def ref_batch_norm(x, rm, rv, w, b, training, momentum, eps):
    """Returns (y, new_running_mean, new_running_var)."""
    axes = (0,) + tuple(range(2, x.ndim))
    cs = channel_shape(x)
    if training:
        m = x.mean(axis=axes)
        v = ((x - m.reshape(cs)) ** 2).mean(axis=axes)
        n = x.size // x.shape[1]
        new_rm = None if rm is None else (1 - momentum) * rm + momentum * m
        new_rv = None if rv is None else (1 - momentum) * rv + momentum * v * n / (n - 1)
    else:
        m, v, new_rm, new_rv = rm, rv, rm, rv
    y = (x - m.reshape(cs)) / np.sqrt(v.reshape(cs) + eps)
    if w is not None:
        y = y * w.reshape(cs)
    if b is not None:
        y = y + b.reshape(cs)
    return y, new_rm, new_rv


def ref_group_norm(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    xg = x.reshape(n, g, -1)
    m = xg.mean(axis=2, keepdims=True)
    v = ((xg - m) ** 2).mean(axis=2, keepdims=True)
    y = ((xg - m) / np.sqrt(v + eps)).reshape(x.shape)
    cs = channel_shape(x)
    if w is not None:
        y = y * w.reshape(cs)
    if b is not None:
        y = y + b.reshape(cs)
    return y


def log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    z = x - m
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _reduce(loss, reduction, denom=None):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.array(loss.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.array(loss.sum() / (loss.size if denom is None else denom))


def ref_nll(logp, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """nll_loss / cross_entropy (on log-probabilities) with class-index targets.
    logp: [N, C, ...] or [C]; target: [N, ...] or []."""
    if logp.ndim == 1:
        logp, target = logp[None], np.asarray(target)[None]
        squeeze = True
    else:
        squeeze = False
    c = logp.shape[1]
    w = np.ones(c) if weight is None else weight
    lp = np.moveaxis(logp, 1, -1)  # [N, ..., C]
    valid = target != ignore_index
    t = np.where(valid, target, 0)
    picked = np.take_along_axis(lp, t[..., None], axis=-1)[..., 0]
    wt = w[t] * valid
    nll = -picked * wt
    loss = nll
    if label_smoothing > 0:
        smooth = -(lp * w).sum(axis=-1) * valid
        loss = (1 - label_smoothing) * nll + label_smoothing / c * smooth
    if squeeze:
        loss = loss[0]
    return _reduce(loss, reduction, wt.sum())


def ref_cross_entropy_probs(x, q, weight=None, reduction="mean", label_smoothing=0.0):
    axis = 0 if x.ndim == 1 else 1
    c = x.shape[axis]
    lp = log_softmax(x, axis)
    q = q * (1 - label_smoothing) + label_smoothing / c
    wshape = [1] * x.ndim
    wshape[axis] = c
    w = np.ones(c) if weight is None else weight
    loss = -(lp * q * w.reshape(wshape)).sum(axis=axis)
    return _reduce(loss, reduction, x.size // c if x.size else 0)


def ref_pointwise(kind, x, y, reduction="mean", param=1.0):
    d = x - y
    z = np.abs(d)
    if kind == "mse":
        loss = d * d
    elif kind == "l1":
        loss = z
    elif kind == "smooth_l1":
        loss = z if param == 0 else np.where(z < param, 0.5 * d * d / (param or 1), z - 0.5 * param)
    else:  # huber
        loss = np.where(z < param, 0.5 * d * d, param * (z - 0.5 * param))
    return _reduce(loss, reduction)


def ref_bce(p, t, w=None, reduction="mean"):
    with np.errstate(divide="ignore"):
        loss = -(t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log(1 - p), -100))
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)


def ref_bce_logits(x, t, w=None, pos_weight=None, reduction="mean"):
    # log(1 + exp(-x)) computed stably in float64
    softplus_neg = np.logaddexp(0.0, -x)
    lw = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * t
    loss = (1 - t) * x + lw * softplus_neg
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)
