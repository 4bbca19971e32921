"""torch.distributions.Distribution's shared part: shapes, validation, expand, sampling API.

A subclass declares `arg_constraints` (parameter name -> constraint) and `support`;
construction checks every parameter stored on the instance against its constraint,
and log_prob/cdf check values against the support, both with torch's messages.
"""
from numbers import Number

from . import constraints


def _ember():
    import ember
    return ember


def as_tensors(*values):
    """Parameters as broadcast tensors: Python numbers take the dtype and device of the
    tensor arguments, or the default dtype when all are numbers (torch's rule)."""
    ember = _ember()
    tensors = [v for v in values if isinstance(v, ember.Tensor)]
    if not tensors:
        return tuple(ember.tensor(float(v)) for v in values)
    like = tensors[0]
    out = []
    for v in values:
        if isinstance(v, Number):
            v = ember.tensor(float(v), dtype=like.dtype, device=like.device)
        elif not isinstance(v, ember.Tensor):
            raise TypeError(f"distribution parameters must be Tensors or numbers, got {type(v).__name__}")
        out.append(v)
    # Only tensors of another shape are expanded: a parameter already of the batch shape
    # stays the caller's tensor, with no autograd node of ours between them, so a
    # distribution built once can be backpropagated through more than once.
    shape = ember.broadcast_shapes(*(t.shape for t in out))
    return tuple(t if t.shape == shape else t.expand(shape) for t in out)


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    support = None
    # Parameters that are properties (not stored) but still checked at construction.
    _derived_checked = ()
    _validate_args = __debug__  # torch validates by default unless Python runs with -O

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        ember = _ember()
        self._batch_shape = ember.Size(batch_shape)
        self._event_shape = ember.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self):
        for name, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name in self.__dict__:
                value = self.__dict__[name]
            elif name in self._derived_checked:
                value = getattr(self, name)
            else:
                continue  # computed lazily from another parameter, which is checked
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                    f"but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        ember = _ember()
        if not isinstance(sample_shape, ember.Size):
            sample_shape = ember.Size(sample_shape)
        return ember.Size(sample_shape + self._batch_shape + self._event_shape)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with parameters broadcast (as views) to `batch_shape`.
        Every tensor attribute whose leading dims are the batch shape is expanded."""
        ember = _ember()
        batch_shape = ember.Size(batch_shape)
        new = object.__new__(type(self))
        n_old = len(self._batch_shape)
        for key, value in self.__dict__.items():
            if isinstance(value, ember.Tensor) and tuple(value.shape[:n_old]) == tuple(self._batch_shape):
                value = value.expand(tuple(batch_shape) + tuple(value.shape[n_old:]))
            elif isinstance(value, Distribution) and tuple(value.batch_shape[:n_old]) == tuple(self._batch_shape):
                # An inner distribution (Independent's base, Beta's Dirichlet) whose batch
                # starts with ours: expand it too, keeping its extra trailing batch dims.
                value = value.expand(tuple(batch_shape) + tuple(value.batch_shape[n_old:]))
            new.__dict__[key] = value
        new._batch_shape = batch_shape
        return new

    def _validate_sample(self, value):
        ember = _ember()
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        n_event = len(self._event_shape)
        if tuple(value.shape[value.dim() - n_event:]) != tuple(self._event_shape) or value.dim() < n_event:
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        try:
            ember.broadcast_shapes(value.shape, self._batch_shape + self._event_shape)
        except RuntimeError:
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                             f"{value.size()} vs {self._batch_shape + self._event_shape}.") from None
        support = self.support
        if support is None or constraints.is_dependent(support):
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                             f"to be within the support ({support!r}) of the distribution {self!r}, "
                             f"but found invalid values:\n{value}")

    def _checked(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return value

    def sample(self, sample_shape=()):
        """Draws without gradient; distributions with rsample reuse it."""
        if not self.has_rsample:
            raise NotImplementedError(f"{type(self).__name__} does not implement sample")
        with _ember().no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample")

    def sample_n(self, n):
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def cdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def enumerate_support(self, expand=True):
        raise NotImplementedError(f"{type(self).__name__} does not implement enumerate_support")

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def perplexity(self):
        return self.entropy().exp()

    def __repr__(self):
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                v = self.__dict__[name]
                shown.append(f"{name}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"
