"""A computed-once attribute: probs from logits (or the reverse), a covariance from its
Cholesky factor. The first read stores the value in the instance's __dict__, which then
shadows this (non-data) descriptor, so later reads are plain attribute reads."""


class cached_attribute:
    def __init__(self, compute):
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, instance, owner):
        if instance is None:
            return self
        value = self._compute(instance)
        instance.__dict__[self._name] = value
        return value
