"""torch.distributions.Chi2: the sum of `df` squared standard normals, Gamma(df / 2, 1 / 2)."""
from . import constraints
from .distribution import as_tensors
from .gamma import Gamma


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}
    _derived_checked = ("df",)

    def __init__(self, df, validate_args=None):
        (df,) = as_tensors(df)
        super().__init__(0.5 * df, 0.5 * df.new_ones(()), validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2
