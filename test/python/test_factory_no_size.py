"""A factory called without a size raises TypeError as torch's does; a 0-dim tensor is
asked for with an empty size."""
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factory_without_size_is_a_type_error(name):
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            getattr(lib, name)()
        assert tuple(getattr(lib, name)(()).shape) == ()
        assert tuple(getattr(lib, name)([]).shape) == ()
        assert tuple(getattr(lib, name)(size=(2,)).shape) == (2,)
