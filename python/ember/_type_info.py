"""ember.finfo and ember.iinfo: the numeric limits of a dtype, as torch.finfo/iinfo."""
import math

from . import _C

# dtype name -> (total bits, mantissa bits without the implicit one, max exponent)
_FLOATS = {"float16": (16, 10, 15), "bfloat16": (16, 7, 127), "float32": (32, 23, 127),
           "float64": (64, 52, 1023)}
_INTS = {"uint8": (8, False), "int8": (8, True), "int16": (16, True), "int32": (32, True),
         "int64": (64, True)}


def _name(dtype):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"expected an ember.dtype, got {type(dtype).__name__}")
    return str(dtype).split(".")[-1]


class finfo:
    """Limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type=None):  # noqa: A002  (torch's argument name)
        name = _name(_C.get_default_dtype() if type is None else type)
        if name not in _FLOATS:
            raise TypeError("ember.finfo() requires a floating point input type. "
                            "Use ember.iinfo to handle 'ember.finfo'")
        bits, mant, emax = _FLOATS[name]
        self.bits = bits
        self.eps = 2.0 ** -mant
        self.max = (2.0 - 2.0 ** -mant) * 2.0 ** emax
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** (1 - emax)
        self.resolution = 10.0 ** -int(-math.log10(self.eps))
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype."""

    def __init__(self, type):  # noqa: A002  (torch's argument name)
        name = _name(type)
        if name == "bool":
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if name not in _INTS:
            raise TypeError("ember.iinfo() requires an integer input type. "
                            "Use ember.finfo to handle 'ember.iinfo'")
        bits, signed = _INTS[name]
        self.bits = bits
        self.min = -(2 ** (bits - 1)) if signed else 0
        self.max = 2 ** (bits - 1) - 1 if signed else 2 ** bits - 1
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # %g, as torch prints it
