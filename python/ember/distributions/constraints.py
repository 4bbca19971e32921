"""torch.distributions.constraints: the sets that parameters and samples must lie in.

A constraint answers `check(value)` with a boolean tensor of value's shape less its
last `event_dim` dims (a vector/matrix-valued constraint judges a whole event), and
says whether its set is discrete. The names and reprs are torch's, since error
messages and `str(dist.support)` show them.
"""
import ember

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than", "greater_than_eq",
    "half_open_interval", "independent", "integer_interval", "interval", "less_than", "lower_cholesky",
    "lower_triangular", "multinomial", "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_definite",
    "positive_integer", "real", "real_vector", "simplex", "unit_interval", "is_dependent",
]


class Constraint:
    is_discrete = False
    event_dim = 0
    torch_name = "Constraint"  # the class name torch prints for this set

    def check(self, value):
        raise NotImplementedError

    def _fields(self):
        """(name, value) pairs that the repr shows."""
        return ()

    def __repr__(self):
        fields = ", ".join(f"{k}={v}" for k, v in self._fields())
        return f"{self.torch_name}({fields})"


class RealNumbers(Constraint):
    torch_name = "Real"

    def check(self, value):
        return value == value  # NaN is the only float not equal to itself


class AboveBound(Constraint):
    torch_name = "GreaterThan"

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def _fields(self):
        return (("lower_bound", self.lower_bound),)


class AtLeastBound(AboveBound):
    torch_name = "GreaterThanEq"

    def check(self, value):
        return value >= self.lower_bound


class BelowBound(Constraint):
    torch_name = "LessThan"

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def _fields(self):
        return (("upper_bound", self.upper_bound),)


class ClosedRange(Constraint):
    torch_name = "Interval"

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def _fields(self):
        return (("lower_bound", self.lower_bound), ("upper_bound", self.upper_bound))


class HalfOpenRange(ClosedRange):
    torch_name = "HalfOpenInterval"

    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class ZeroOrOne(Constraint):
    torch_name = "Boolean"
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class IntegerRange(ClosedRange):
    torch_name = "IntegerInterval"
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & super().check(value)


class IntegerAtLeast(AtLeastBound):
    torch_name = "IntegerGreaterThan"
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class ProbabilityVectors(Constraint):
    torch_name = "Simplex"
    event_dim = 1

    def check(self, value):
        nonneg = ember.all(value >= 0, dim=-1)
        return nonneg & ((value.sum(-1) - 1).abs() < 1e-6)


class OneHotVectors(Constraint):
    torch_name = "OneHot"
    is_discrete = True
    event_dim = 1

    def check(self, value):
        zero_or_one = ember.all((value == 0) | (value == 1), dim=-1)
        return zero_or_one & (value.sum(-1) == 1)


class EventwiseConstraint(Constraint):
    """A base constraint whose rightmost `reinterpreted_batch_ndims` dims become event dims."""
    torch_name = "IndependentConstraint"

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(f"independent: reinterpreted_batch_ndims must be an int >= 0, "
                             f"got {reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if ok.dim() < n:
            raise ValueError(f"{self!r}: a value with {self.event_dim} event dims needs at least that many "
                             f"dims, got shape {tuple(value.shape)}")
        for _ in range(n):  # dim by dim, which also works when a dim is empty
            ok = ok.all(-1)
        return ok

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSupport(Constraint):
    """A mixture's support: the union of its components' supports (the component index
    is the dim just left of the event dims)."""
    torch_name = "MixtureSameFamilyConstraint"

    def __init__(self, base_constraint, event_dim):
        self.base_constraint = base_constraint
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self._event_dim

    def check(self, value):
        per_component = self.base_constraint.check(value.unsqueeze(-1 - self._event_dim))
        return per_component.any(-1)

    def __repr__(self):
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


def mixture_support(base_constraint, event_dim):
    return MixtureSupport(base_constraint, event_dim)


class CountVectors(Constraint):
    """Count vectors of at most `upper_bound` draws (torch's set: nonnegative entries
    whose sum does not exceed the bound)."""
    torch_name = "Multinomial"
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


def multinomial(upper_bound):
    return CountVectors(upper_bound)


def _square_all(mask):
    """Reduce a (..., n, n) boolean mask to (...)."""
    return mask.flatten(-2).all(-1)


class LowerTriangularMatrices(Constraint):
    torch_name = "LowerTriangular"
    event_dim = 2

    def check(self, value):
        return _square_all(value.tril() == value)


class CholeskyFactors(Constraint):
    torch_name = "LowerCholesky"
    event_dim = 2

    def check(self, value):
        diagonal_positive = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _square_all(value.tril() == value) & diagonal_positive


class PositiveDefiniteMatrices(Constraint):
    torch_name = "PositiveDefinite"
    event_dim = 2

    def check(self, value):
        symmetric = _square_all(ember.isclose(value, value.mT, atol=1e-6))
        # A Cholesky factorization exists exactly for (numerically) positive-definite matrices.
        factorizes = ember.linalg.cholesky_ex(value).info == 0
        return symmetric & factorizes


class DependsOnParameters(Constraint):
    """A placeholder for a constraint that depends on other parameters (checked by hand)."""
    torch_name = "Dependent"

    def __init__(self, is_discrete=False, event_dim=0):
        self._discrete, self._event = is_discrete, event_dim

    @property
    def is_discrete(self):
        return self._discrete

    @property
    def event_dim(self):
        return self._event

    def check(self, value):
        raise ValueError("a dependent constraint has no check of its own: it is checked by its distribution")


def is_dependent(constraint):
    return isinstance(constraint, DependsOnParameters)


class dependent_property(property):
    """A property of a distribution that also names a dependent constraint (torch API)."""

    def __init__(self, fget=None, *, is_discrete=False, event_dim=0):
        super().__init__(fget)
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, fget):
        return dependent_property(fget, is_discrete=self.is_discrete, event_dim=self.event_dim)


dependent = DependsOnParameters()
real = RealNumbers()
real_vector = EventwiseConstraint(real, 1)
positive = AboveBound(0.0)
nonnegative = AtLeastBound(0.0)
unit_interval = ClosedRange(0.0, 1.0)
boolean = ZeroOrOne()
simplex = ProbabilityVectors()
one_hot = OneHotVectors()
nonnegative_integer = IntegerAtLeast(0)
positive_integer = IntegerAtLeast(1)
lower_triangular = LowerTriangularMatrices()
lower_cholesky = CholeskyFactors()
positive_definite = PositiveDefiniteMatrices()
greater_than = AboveBound
greater_than_eq = AtLeastBound
less_than = BelowBound
interval = ClosedRange
half_open_interval = HalfOpenRange
integer_interval = IntegerRange
independent = EventwiseConstraint
