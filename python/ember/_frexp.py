"""ember.frexp / Tensor.frexp: x = mantissa * 2**exponent with |mantissa| in [0.5, 1),
as C's frexp and torch.frexp (0, inf and nan give themselves and exponent 0).

The exponent comes from floor(log2|x|) + 1, corrected by one where log2 rounds across a
power of two; the work is done in float64, where every float32/float16/bfloat16 value
(subnormals included) is normal. 2**-exponent is applied as two factors because for
float64 subnormals it alone would overflow. mantissa = x * (a constant), so its gradient
is grad / 2**exponent, as torch's."""
from . import _C
from ._C import Tensor
from ._return_types import named_tuple

__all__ = ["frexp"]


frexp_type = named_tuple("frexp", ["mantissa", "exponent"])


def _scale_by_pow2(x, k):
    """x * 2**k (float64, k integral float64), exact: in two factors that cannot overflow."""
    half = _C.floor(k / 2)
    return x * _C.exp2(half) * _C.exp2(k - half)


def frexp(input, *, out=None):  # noqa: A002 (torch's name)
    if not isinstance(input, Tensor):
        raise TypeError(f"frexp(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with _NoGrad():
        x = input.detach().to(_C.float64)
        regular = _C.isfinite(x) & (x != 0)
        magnitude = _C.where(regular, x.abs(), _C.ones_like(x))
        exponent = _C.floor(_C.log2(magnitude)) + 1
        mantissa = _scale_by_pow2(magnitude, -exponent)
        exponent = exponent - (mantissa < 0.5).to(_C.float64) + (mantissa >= 1).to(_C.float64)
        exponent = _C.where(regular, exponent, _C.zeros_like(exponent))
        half = _C.floor(-exponent / 2)
        factor_a, factor_b = _C.exp2(half), _C.exp2(-exponent - half)
    mantissa = (input.to(_C.float64) * factor_a * factor_b).to(input.dtype)
    exponent = exponent.to(_C.int32)
    if out is not None:
        from ._out_variants import write_outputs
        return write_outputs("frexp", frexp_type(mantissa, exponent), out)
    return frexp_type(mantissa, exponent)


class _NoGrad:
    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
