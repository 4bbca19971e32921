"""Standard-gamma sampling for Gamma, Beta, Dirichlet, Chi2, StudentT, ...: torch's
torch._standard_gamma, which ember has no kernel for, composed from ember ops.

Sampling is Marsaglia and Tsang's rejection method (2000), vectorized: every pending
entry draws a proposal each round and the accepted ones leave, so a round costs a few
whole-tensor ops and about 1 in 20 entries needs another round. Shapes below 1 use
the boost Gamma(a) = Gamma(a + 1) * U^(1/a), computed in log space so that tiny shapes
do not underflow to exactly 0 before the final exp.

The sample is differentiable w.r.t. the shape by implicit reparameterization (what
torch does): x = F^-1(u; a) gives dx/da = -(dF/da)(x; a) / p(x; a), with F the
regularized lower incomplete gamma function. torch evaluates dF/da with series and
asymptotic approximations; here it is a central difference of ember.special.gammainc
in float64 with a step of 1e-4 * a, accurate to about 1e-8 relative, well below the
noise of any Monte-Carlo gradient.
"""
import ember


def _marsaglia_tsang(alpha, generator):
    """Gamma(alpha, 1) draws for a float64 tensor alpha whose entries are all >= 1."""
    d = alpha - 1.0 / 3.0
    c = (9.0 * d).rsqrt()
    out = ember.empty_like(alpha)
    pending = ember.arange(alpha.numel(), device=alpha.device)
    d_flat, c_flat, out_flat = d.reshape(-1), c.reshape(-1), out.view(-1)
    while pending.numel() > 0:
        d_p, c_p = d_flat[pending], c_flat[pending]
        x = ember.randn(pending.shape, dtype=alpha.dtype, device=alpha.device, generator=generator)
        u = ember.rand(pending.shape, dtype=alpha.dtype, device=alpha.device, generator=generator)
        v = (1 + c_p * x) ** 3
        # v <= 0 is always rejected; the log is only taken where v > 0.
        log_v = ember.where(v > 0, v, ember.ones_like(v)).log()
        accepted = (v > 0) & (u.log() < 0.5 * x * x + d_p - d_p * v + d_p * log_v)
        out_flat[pending[accepted]] = (d_p * v)[accepted]
        pending = pending[~accepted]
    return out


def _sample_standard_gamma(alpha, generator=None):
    """Gamma(alpha, 1) draws of alpha's shape and dtype (no gradient). As torch's kernel:
    draws are clamped to the dtype's smallest normal number, a shape that is not > 0
    (or is NaN) gives that smallest number and an infinite shape gives inf; the
    rejection loop only ever sees finite shapes > 0, so it always terminates."""
    with ember.no_grad():
        a = alpha.detach().to(ember.float64)
        valid = (a > 0) & ember.isfinite(a)
        a = ember.where(valid, a, ember.ones_like(a))
        small = a < 1
        boosted = _marsaglia_tsang(ember.where(small, a + 1, a), generator)
        u = ember.rand(a.shape, dtype=ember.float64, device=a.device, generator=generator)
        log_boost = ember.where(small, u.log() / a, ember.zeros_like(a))
        samples = (boosted.log() + log_boost).exp().to(alpha.dtype)
        tiny = ember.finfo(alpha.dtype).tiny
        samples = ember.where(valid, samples.clamp(min=tiny), ember.full_like(samples, tiny))
        return ember.where(alpha.detach() == float("inf"), alpha.detach(), samples)


def standard_gamma_grad(alpha, x):
    """d x / d alpha of a Gamma(alpha, 1) sample x, by implicit reparameterization
    (torch._standard_gamma_grad's quantity)."""
    with ember.no_grad():
        a = alpha.detach().to(ember.float64)
        xs = x.detach().to(ember.float64)
        h = 1e-4 * a
        dcdf_da = (ember.special.gammainc(a + h, xs) - ember.special.gammainc(a - h, xs)) / (2 * h)
        pdf = ((a - 1) * xs.log() - xs - ember.lgamma(a)).exp()
        grad = -dcdf_da / pdf
        # Where the density under- or overflows (tiny shapes put x next to 0), use the
        # small-x limit F(x; a) ~ x^a / Gamma(a + 1), whose implicit derivative is
        # dx/da = x (digamma(a + 1) - log x) / a.
        near_zero = xs * (ember.digamma(a + 1) - xs.log()) / a
        usable = (pdf > 0) & ember.isfinite(pdf) & ember.isfinite(grad)
        return ember.where(usable, grad, near_zero).to(alpha.dtype)


def standard_gamma(alpha, generator=None):
    """torch._standard_gamma: Gamma(alpha, 1) samples, differentiable w.r.t. alpha."""
    if not isinstance(alpha, ember.Tensor):
        raise TypeError(f"_standard_gamma(): argument 'alpha' must be a Tensor, not {type(alpha).__name__}")
    if not alpha.is_floating_point():
        raise RuntimeError(f"_standard_gamma: expected a floating point alpha, got {alpha.dtype}")
    samples = _sample_standard_gamma(alpha, generator)
    if alpha.requires_grad and ember.is_grad_enabled():
        # The value stays `samples` exactly (alpha - alpha.detach() is 0) while the
        # gradient w.r.t. alpha is the implicit one, as torch's (first order only).
        return samples + (alpha - alpha.detach()) * standard_gamma_grad(alpha, samples)
    return samples
