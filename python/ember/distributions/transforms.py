"""torch.distributions.transforms: invertible maps y = f(x) with log|det df/dx|, used by
TransformedDistribution (LogNormal = exp of a Normal; SAC's tanh-squashed Gaussian).

Each transform says which set it maps from (`domain`) and to (`codomain`), how many
rightmost dims form one event (`event_dim`), and its `sign` (+1 increasing, -1
decreasing). With cache_size=1 it remembers its last (x, y) pair, so inverting a
sample it produced returns the exact x (tanh's inverse is ill-conditioned near +-1).
"""
import math

import ember

from . import constraints

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
           "TanhTransform", "identity_transform"]


def _event_sum(x, n):
    return x.sum(tuple(range(-n, 0))) if n > 0 else x


def _with_event_dim(constraint, event_dim):
    extra = event_dim - constraint.event_dim
    return constraints.independent(constraint, extra) if extra > 0 else constraint


def _same_value(a, b):
    """Whether two affine parameters (numbers or tensors) are everywhere equal."""
    if isinstance(a, ember.Tensor) or isinstance(b, ember.Tensor):
        a, b = ember.as_tensor(a), ember.as_tensor(b)
        try:
            return bool((a == b).all())
        except RuntimeError:  # shapes that do not broadcast
            return False
    return a == b


class Transform:
    bijective = False
    sign = 1
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError(f"a transform caches its last 0 or 1 results, not cache_size={cache_size}")
        self._cache_size = cache_size
        self._last = None  # (x, y) of the last call, when caching
        self._inverse = None

    @property
    def event_dim(self):
        return self.domain.event_dim

    @property
    def inv(self):
        if self._inverse is None:
            self._inverse = _Inverse(self)
        return self._inverse

    def __call__(self, x):
        if self._cache_size and self._last is not None and self._last[0] is x:
            return self._last[1]
        y = self._forward(x)
        if self._cache_size:
            self._last = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size and self._last is not None and self._last[1] is y:
            return self._last[0]
        x = self._inverse_of(y)
        if self._cache_size:
            self._last = (x, y)
        return x

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} does not implement its forward map")

    def _inverse_of(self, y):
        raise NotImplementedError(f"{type(self).__name__} is not invertible")

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError(f"{type(self).__name__} does not implement log_abs_det_jacobian")

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __eq__(self, other):
        # Parameterless transforms are the same map whenever they are the same kind.
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return f"{type(self).__name__}()"


class _Inverse(Transform):
    """f^-1 of a transform, sharing its cache; inv of it is the original object."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inverse = transform

    @property
    def domain(self):
        return self._inverse.codomain

    @property
    def codomain(self):
        return self._inverse.domain

    @property
    def bijective(self):
        return self._inverse.bijective

    @property
    def sign(self):
        return self._inverse.sign

    @property
    def inv(self):
        return self._inverse

    def __call__(self, y):
        return self._inverse._inv_call(y)

    def __eq__(self, other):
        return isinstance(other, _Inverse) and self._inverse == other._inverse

    def __hash__(self):
        return hash((_Inverse, self._inverse))

    def log_abs_det_jacobian(self, x, y):
        return -self._inverse.log_abs_det_jacobian(y, x)

    def __repr__(self):
        return f"_InverseTransform({self._inverse!r})"


class ExpTransform(Transform):
    domain = constraints.real
    codomain = constraints.positive
    bijective = True

    def _forward(self, x):
        return x.exp()

    def _inverse_of(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x  # d exp(x)/dx = exp(x)


class SigmoidTransform(Transform):
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True

    def _forward(self, x):
        finfo = ember.finfo(x.dtype)
        return ember.sigmoid(x).clamp(min=finfo.tiny, max=1.0 - finfo.eps)

    def _inverse_of(self, y):
        finfo = ember.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        # sigmoid' = sigmoid(x) sigmoid(-x); in log space both factors are -softplus.
        softplus = ember.nn.functional.softplus
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True

    def _forward(self, x):
        return x.tanh()

    def _inverse_of(self, y):
        return 0.5 * ((1 + y).log() - (1 - y).log())

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|.
        return 2.0 * (math.log(2.0) - x - ember.nn.functional.softplus(-2.0 * x))


class AffineTransform(Transform):
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return _with_event_dim(constraints.real, self._event_dim)

    @property
    def codomain(self):
        return _with_event_dim(constraints.real, self._event_dim)

    @property
    def sign(self):
        if isinstance(self.scale, (int, float)):
            return 1 if self.scale > 0 else -1 if self.scale < 0 else 0
        return self.scale.sign()

    def __eq__(self, other):
        if not isinstance(other, AffineTransform) or self._event_dim != other._event_dim:
            return False
        return _same_value(self.loc, other.loc) and _same_value(self.scale, other.scale)

    def __hash__(self):
        return hash((AffineTransform, self._event_dim))

    def _forward(self, x):
        return self.loc + self.scale * x

    def _inverse_of(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, (int, float)):
            log_scale = ember.full_like(x, math.log(abs(self.scale)))
        else:
            log_scale = self.scale.abs().log().expand(ember.broadcast_shapes(x.shape, self.scale.shape))
        return _event_sum(log_scale, self._event_dim)


class ComposeTransform(Transform):
    """parts[-1](...parts[0](x)); the log-Jacobian adds up the parts', each summed over
    the event dims it does not itself treat as one event."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)

    @property
    def event_dim(self):
        return max([p.event_dim for p in self.parts], default=0)

    @property
    def domain(self):
        return _with_event_dim(self.parts[0].domain, self.event_dim) if self.parts else constraints.real

    @property
    def codomain(self):
        return _with_event_dim(self.parts[-1].codomain, self.event_dim) if self.parts else constraints.real

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def __hash__(self):
        return hash((ComposeTransform, len(self.parts)))

    def _forward(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def _inverse_of(self, y):
        for p in reversed(self.parts):
            y = p.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return ember.zeros_like(x)
        total = 0
        for i, p in enumerate(self.parts):
            nxt = y if i == len(self.parts) - 1 else p(x)
            total = total + _event_sum(p.log_abs_det_jacobian(x, nxt), self.event_dim - p.event_dim)
            x = nxt
        return total

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"ComposeTransform(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class AbsTransform(Transform):
    """|x|: not injective; its "inverse" picks the nonnegative preimage."""
    domain = constraints.real
    codomain = constraints.positive

    def _forward(self, x):
        return x.abs()

    def _inverse_of(self, y):
        return y


class PowerTransform(Transform):
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent

    @property
    def sign(self):
        e = self.exponent
        if isinstance(e, (int, float)):
            return 1 if e > 0 else -1 if e < 0 else 0
        return e.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and _same_value(self.exponent, other.exponent)

    def __hash__(self):
        return hash(PowerTransform)

    def _forward(self, x):
        return x.pow(self.exponent)

    def _inverse_of(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        # d x^e / dx = e x^(e-1) = e y / x.
        return (self.exponent * y / x).abs().log()


class SoftplusTransform(Transform):
    domain = constraints.real
    codomain = constraints.positive
    bijective = True

    def _forward(self, x):
        return ember.nn.functional.softplus(x)

    def _inverse_of(self, y):
        # log(e^y - 1) = y + log(1 - e^-y), accurate for large and small y alike.
        return y + (-ember.expm1(-y)).log()

    def log_abs_det_jacobian(self, x, y):
        return -ember.nn.functional.softplus(-x)  # log sigmoid(x)


class SoftmaxTransform(Transform):
    """Unconstrained vectors to the simplex; the inverse is the log (up to a constant)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _forward(self, x):
        return ember.softmax(x, dim=-1)

    def _inverse_of(self, y):
        return y.log()


class IndependentTransform(Transform):
    """A transform whose rightmost `reinterpreted_batch_ndims` dims become one event:
    the log-Jacobian is summed over them."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform = base_transform
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def __eq__(self, other):
        return (isinstance(other, IndependentTransform) and self.base_transform == other.base_transform
                and self.reinterpreted_batch_ndims == other.reinterpreted_batch_ndims)

    def __hash__(self):
        return hash((IndependentTransform, self.reinterpreted_batch_ndims))

    def _forward(self, x):
        return self.base_transform(x)

    def _inverse_of(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _event_sum(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)
