"""torch.poisson and torch.binomial: exact samplers of the two discrete distributions,
written as vectorized loops over ember's uniform draws, so they run on every device
that has uniform_ and use the caller's generator.

Each element is drawn by one of two classic algorithms, chosen by its mean:
  - a small mean by counting (Poisson: Knuth's product of uniforms; binomial: inversion
    of the distribution function from k = 0), a handful of rounds;
  - a large mean by Hormann's transformed rejection (PTRS for Poisson, BTRS for the
    binomial, as NumPy and PyTorch use): each round proposes a value for every element
    still pending and accepts about nine in ten, so a few rounds settle a tensor of any
    size.
Every round of the loops runs on the whole pending set at once; the loops end when no
element is pending (a host read of one flag per round). The arithmetic is in float64.
"""
import math

from . import _C

# The mean below which the counting methods are used (they take about mean + 3 rounds).
_SMALL_MEAN = 10.0


def _uniform(shape, like, generator):
    u = _C.empty(shape, dtype=_C.float64, device=like.device)
    return u.uniform_(0.0, 1.0, generator=generator)


def _check_floating(op, name, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not t.is_floating_point():
        return False
    return True


def _knuth_poisson(lam, generator):
    """Poisson(lam) for lam < _SMALL_MEAN: the number of uniforms whose running product
    stays above exp(-lam)."""
    limit = _C.exp(-lam)
    count = _C.zeros_like(lam)
    product = _C.ones_like(lam)
    pending = _C.ones_like(lam, dtype=_C.bool)
    while bool(pending.any()):
        product = product * _C.where(pending, _uniform(lam.shape, lam, generator), 1.0)
        above = _C.logical_and(pending, product > limit)
        count = count + above.to(_C.float64)
        pending = above
    return count


def _ptrs_poisson(lam, generator):
    """Poisson(lam) for lam >= _SMALL_MEAN by transformed rejection with squeeze (Hormann,
    1993), on a 1-d tensor of rates."""
    out = _C.zeros_like(lam)
    todo = _C.arange(lam.shape[0], device=lam.device)
    while todo.numel():
        rate = lam[todo]
        slam, loglam = _C.sqrt(rate), _C.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        u = _uniform(rate.shape, rate, generator) - 0.5
        v = _uniform(rate.shape, rate, generator)
        us = 0.5 - _C.abs(u)
        k = _C.floor((2 * a / us + b) * u + rate + 0.43)
        quick = _C.logical_and(us >= 0.07, v <= vr)
        bound = -rate + k * loglam - _C.lgamma(k + 1)
        test = _C.log(v) + _C.log(inv_alpha) - _C.log(a / (us * us) + b)
        possible = _C.logical_and(k >= 0, _C.logical_not(_C.logical_and(us < 0.013, v > us)))
        accept = _C.logical_or(quick, _C.logical_and(possible, test <= bound))
        out[todo[accept]] = k[accept]
        todo = todo[_C.logical_not(accept)]
    return out


def poisson(input, generator=None):
    """Draws from Poisson(rate) for every rate in input (a floating tensor of
    non-negative rates); the result has input's dtype and shape. Its gradient with
    respect to the rates is zero, as in PyTorch."""
    if not _check_floating("poisson", "input", input):
        raise NotImplementedError(f'"poisson" not implemented for '
                                  f"'{str(input.dtype).split('.')[-1]}'")
    if input.numel() == 0:
        return _C.empty_like(input)
    lam = input.detach().to(_C.float64)
    if not bool((lam >= 0).all()):  # also refuses NaN
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    flat = lam.reshape(-1)
    finite = _C.isfinite(flat)
    small = _C.logical_and(flat < _SMALL_MEAN, finite)
    large = _C.logical_and(flat >= _SMALL_MEAN, finite)
    out = _C.where(finite, 0.0, math.inf)  # an infinite rate draws infinity
    if bool(small.any()):
        out[small] = _knuth_poisson(flat[small], generator)
    if bool(large.any()):
        out[large] = _ptrs_poisson(flat[large], generator)
    sample = out.reshape(input.shape).to(input.dtype)
    if input.requires_grad:  # zero gradient, as PyTorch's PoissonBackward
        sample = _C.where(_C.zeros_like(input, dtype=_C.bool), input, sample)
    return sample


def _inversion_binomial(n, p, generator):
    """Binomial(n, p) for n * p < _SMALL_MEAN and p <= 1/2, by walking the distribution
    function up from k = 0 until it passes a uniform draw."""
    q = 1 - p
    s = p / q
    a = (n + 1) * s
    r = _C.pow(q, n)  # P(k = 0)
    u = _uniform(n.shape, n, generator)
    k = _C.zeros_like(n)
    pending = _C.logical_and(u > r, n > 0)
    while bool(pending.any()):
        u = _C.where(pending, u - r, u)
        k = k + pending.to(_C.float64)
        r = _C.where(pending, r * (a / _C.clamp(k, min=1) - s), r)
        # Rounding can leave u above the last probabilities: stop at n.
        pending = _C.logical_and(_C.logical_and(pending, u > r), k < n)
    return k


def _btrs_binomial(n, p, generator):
    """Binomial(n, p) for n * p >= _SMALL_MEAN and p <= 1/2 by transformed rejection
    (Hormann, 1993), accepting with the exact ratio of probabilities, on 1-d tensors."""
    out = _C.zeros_like(n)
    todo = _C.arange(n.shape[0], device=n.device)
    while todo.numel():
        nn, pp = n[todo], p[todo]
        q = 1 - pp
        spq = _C.sqrt(nn * pp * q)
        b = 1.15 + 2.53 * spq
        a = -0.0873 + 0.0248 * b + 0.01 * pp
        c = nn * pp + 0.5
        vr = 0.92 - 4.2 / b
        alpha = (2.83 + 5.1 / b) * spq
        lpq = _C.log(pp / q)
        m = _C.floor((nn + 1) * pp)
        h = _C.lgamma(m + 1) + _C.lgamma(nn - m + 1)
        u = _uniform(nn.shape, nn, generator) - 0.5
        v = _uniform(nn.shape, nn, generator)
        us = 0.5 - _C.abs(u)
        k = _C.floor((2 * a / us + b) * u + c)
        inside = _C.logical_and(k >= 0, k <= nn)
        quick = _C.logical_and(us >= 0.07, v <= vr)
        kk = _C.minimum(_C.clamp(k, min=0), nn)  # k where it is a possible value
        log_ratio = h - _C.lgamma(kk + 1) - _C.lgamma(nn - kk + 1) + (kk - m) * lpq
        test = _C.log(v * alpha / (a / (us * us) + b))
        accept = _C.logical_and(inside, _C.logical_or(quick, test <= log_ratio))
        out[todo[accept]] = k[accept]
        todo = todo[_C.logical_not(accept)]
    return out


def binomial(count, prob, generator=None):
    """Draws from Binomial(count, prob) elementwise (count and prob broadcast; both
    floating tensors of one dtype). prob is clamped to [0, 1], count is floored and
    negative counts draw 0, as in PyTorch; a NaN count or prob draws NaN."""
    for name, t in (("count", count), ("prob", prob)):
        if not _check_floating("binomial", name, t):
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{str(t.dtype).split('.')[-1].capitalize()}")
    if count.dtype != prob.dtype:
        raise RuntimeError(f"binomial(): expected count and prob to have the same dtype, got "
                           f"{count.dtype} and {prob.dtype}")
    shape = _C.broadcast_shapes(count.shape, prob.shape)
    n = _C.floor(count.detach().to(_C.float64).expand(shape)).reshape(-1)
    p = prob.detach().to(_C.float64).expand(shape).reshape(-1)
    nan = _C.logical_or(_C.isnan(n), _C.isnan(p))
    n = _C.where(nan, 0.0, _C.clamp(n, min=0))
    p = _C.where(nan, 0.0, _C.clamp(p, 0.0, 1.0))
    flip = p > 0.5  # draw the failures of the complementary probability, then flip back
    p_low = _C.where(flip, 1 - p, p)
    out = _C.zeros_like(n)
    if out.numel():
        small = n * p_low < _SMALL_MEAN
        if bool(small.any()):
            out[small] = _inversion_binomial(n[small], p_low[small], generator)
        large = _C.logical_not(small)
        if bool(large.any()):
            out[large] = _btrs_binomial(n[large], p_low[large], generator)
    out = _C.where(flip, n - out, out)
    out = _C.where(nan, math.nan, out)
    return out.reshape(shape).to(count.dtype)
