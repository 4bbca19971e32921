"""torch.distributions.Distribution's shared part: shapes and argument validation."""


def _ember():
    import ember
    return ember


class Distribution:
    has_rsample = False
    has_enumerate_support = False
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
            for param, check in self._parameter_checks().items():
                value = getattr(self, param)
                valid = check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} to satisfy the constraint {self._constraint_names[param]}, "
                        f"but found invalid values:\n{value}")

    def _parameter_checks(self):
        return {}

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _validate_sample(self, value):
        """The checks of a value every distribution makes (its support is the subclass's):
        a tensor, broadcastable with the batch shape."""
        ember = _ember()
        if not isinstance(value, ember.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        try:
            ember.broadcast_shapes(value.shape, self.batch_shape)
        except RuntimeError:
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                             f"{tuple(value.shape)} vs {tuple(self.batch_shape)}.") from None

    def _extended_shape(self, sample_shape=()):
        ember = _ember()
        if not isinstance(sample_shape, ember.Size):
            sample_shape = ember.Size(sample_shape)
        return ember.Size(sample_shape + self._batch_shape + self._event_shape)

    def sample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} does not implement sample")

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def perplexity(self):
        return self.entropy().exp()

    def __repr__(self):
        names = [k for k in self._constraint_names if k in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names)
        return f"{type(self).__name__}({args})"
