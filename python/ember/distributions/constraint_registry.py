"""biject_to(constraint) and transform_to(constraint): a transform from unconstrained
reals onto the constraint's set, for optimizing a constrained parameter through an
unconstrained one. biject_to's transforms are bijections; transform_to's only need to
land in the set (softmax onto the simplex, say). Both look up the constraint's class
in a registry that `register` extends, as torch's do."""
import numbers

from . import constraints, transforms


class ConstraintRegistry:
    def __init__(self):
        self._factories = {}

    def register(self, constraint, factory=None):
        """Register factory(constraint) -> Transform for a constraint class (or the class
        of a constraint object); usable as a decorator when factory is omitted."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, "
                            f"but got {constraint}")
        self._factories[constraint] = factory
        return factory

    def __call__(self, constraint):
        for cls in type(constraint).__mro__:
            # Integer sets subclass the real intervals they lie in, but have no bijection
            # from the reals: only an exact registration serves a discrete constraint.
            if cls in self._factories and (cls is type(constraint) or not constraint.is_discrete):
                return self._factories[cls](constraint)
        raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(constraint):
    return transforms.identity_transform


def _independent(registry):
    def make(constraint):
        base = registry(constraint.base_constraint)
        return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)
    return make


def _above(constraint):
    # exp maps onto (0, inf); the shift puts the boundary at the bound.
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


def _below(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


def _between(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) and low == 0 and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


for _registry in (biject_to, transform_to):
    _registry.register(constraints.RealNumbers, _real)
    _registry.register(constraints.EventwiseConstraint, _independent(_registry))
    _registry.register(constraints.AboveBound, _above)  # also GreaterThanEq (a subclass)
    _registry.register(constraints.BelowBound, _below)
    _registry.register(constraints.ClosedRange, _between)  # also HalfOpenInterval
transform_to.register(constraints.ProbabilityVectors, lambda c: transforms.SoftmaxTransform())
del _registry
