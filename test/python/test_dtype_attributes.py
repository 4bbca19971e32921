"""The attributes of ember's dtypes against torch's: itemsize, is_floating_point,
is_signed, is_complex (always False: ember has no complex dtypes), abbr, to_real()."""
import pytest

import ember

torch = pytest.importorskip("torch")

NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes_match_torch(name):
    e, t = getattr(ember, name), getattr(torch, name)
    for attr in ("itemsize", "is_floating_point", "is_signed", "is_complex", "abbr"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert e.to_real() == e and str(t.to_real()).split(".")[-1] == name
