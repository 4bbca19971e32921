"""The small torch module paths: ember.random, ember.version, ember.types,
ember.functional, ember.storage, ember.utils.hooks and ember.backends.mkldnn / openmp / mkl,
their names against torch's and their behaviour."""
import collections
import warnings

import pytest

import ember

torch = pytest.importorskip("torch")


def test_random_functions_are_embers():
    import ember.random as r
    for name in ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"]:
        assert name in r.__all__ and callable(getattr(r, name))
    assert set(r.__all__) <= set(torch.random.__all__)
    assert isinstance(r.manual_seed(5), ember.Generator)
    assert r.initial_seed() == 5 == ember.initial_seed()
    a = ember.rand(3)
    r.manual_seed(5)
    assert ember.equal(ember.rand(3), a)
    state = r.get_rng_state()
    assert state.dtype == ember.uint8
    x = ember.rand(4)
    r.set_rng_state(state)
    assert ember.equal(ember.rand(4), x)
    s = r.seed()
    assert isinstance(s, int) and r.initial_seed() == s
    assert r.default_generator is ember.default_generator


def test_fork_rng_restores_the_state():
    import ember.random as r
    r.manual_seed(11)
    before = ember.get_rng_state()
    with r.fork_rng(devices=[]):
        ember.rand(10)
        ember.manual_seed(99)
    assert ember.equal(ember.get_rng_state(), before)
    with r.fork_rng(enabled=False):
        ember.rand(10)
    assert not ember.equal(ember.get_rng_state(), before)
    # A generator of devices is traversed once; an exception still restores the state.
    state = ember.get_rng_state()
    with pytest.raises(KeyError):
        with r.fork_rng(devices=iter([])):
            ember.rand(3)
            raise KeyError("inside")
    assert ember.equal(ember.get_rng_state(), state)
    with pytest.raises(RuntimeError, match="torch has no module of `nosuch`"):
        with r.fork_rng(device_type="nosuch"):
            pass


def test_version_fields():
    import ember.version as v
    assert v.__version__ == ember.__version__
    assert set(v.__all__) == set(torch.version.__all__)
    assert v.hip is None and v.rocm is None and v.xpu is None
    assert v.git_version == "Unknown" and v.debug is False
    assert v.cuda is None or isinstance(v.cuda, str)
    # built with CUDA: the toolkit as "major.minor" (torch.version.cuda's form)
    assert (v.cuda is not None) == ember.cuda.is_built()
    if v.cuda is not None:
        major, minor = v.cuda.split(".")
        assert major.isdigit() and minor.isdigit()


def test_types_aliases():
    import typing

    import ember.types as t
    for name in torch.types.__all__:
        assert hasattr(t, name), name
    assert set(typing.get_args(t.Number)) == {int, float, bool}
    assert ember.device in typing.get_args(t.Device) and str in typing.get_args(t.Device)
    assert t._dtype is ember.dtype and t._device is ember.device and t._size is not None
    assert t._Number == (int, float, bool)
    assert isinstance(ember.zeros(1).untyped_storage(), t.Storage)


def test_functional_reexports():
    import ember.functional as F
    for name in F.__all__:
        assert getattr(F, name) is getattr(ember, name), name
        assert name in torch.functional.__all__
    a, b = F.broadcast_tensors(ember.ones(3, 1), ember.ones(1, 4))
    assert a.shape == (3, 4) and F.broadcast_shapes((2, 1), (1, 5)) == (2, 5)
    assert F.einsum("ij,jk->ik", ember.eye(2), ember.ones(2, 2)).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_storage_classes():
    import ember.storage as s
    assert s.UntypedStorage is ember.UntypedStorage and s.TypedStorage is ember.TypedStorage
    t = ember.arange(4.0)
    assert isinstance(t.untyped_storage(), s.UntypedStorage)
    assert t.untyped_storage().nbytes() == 16


def test_utils_hooks():
    import ember.utils.hooks as h
    from ember.nn.modules._hooks import RemovableHandle
    assert h.RemovableHandle is RemovableHandle
    table = collections.OrderedDict()  # (a plain dict cannot be weakly referenced, in torch too)
    handle = h.RemovableHandle(table)
    table[handle.id] = "hook"
    with handle:
        assert handle.id in table
    assert handle.id not in table

    def hook(grad):
        return grad

    assert h.unserializable_hook(hook) is hook and hook.__torch_unserializable__ is True

    class TensorLike:
        _backward_hooks = {0: lambda g: g}

    with pytest.warns(UserWarning, match="will not be serialized"):
        h.warn_if_has_hooks(TensorLike())
    TensorLike._backward_hooks = {0: hook}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h.warn_if_has_hooks(TensorLike())
        h.warn_if_has_hooks(ember.ones(2))


def test_backends_mkldnn_openmp_mkl():
    import ember.backends as b
    assert b.openmp.is_available() is True
    assert b.mkl.is_available() is False
    assert b.mkldnn.enabled is True
    if not hasattr(ember._C, "_onednn_conv_available"):
        assert b.mkldnn.is_available() is False
        return
    assert b.mkldnn.is_available() == bool(ember._C._onednn_conv_available())
    conv = ember.nn.Conv2d(2, 3, 3).double()
    x = ember.randn(1, 2, 6, 6, dtype=ember.float64)
    reference = conv(x)
    try:
        b.mkldnn.enabled = False
        assert b.mkldnn.enabled is False and ember._C._get_conv_backend() == "im2col"
        assert ember.allclose(conv(x), reference)  # the other path, the same values
    finally:
        b.mkldnn.enabled = True
    assert b.mkldnn.enabled is True and ember._C._get_conv_backend() == "auto"
    with pytest.raises(TypeError):
        b.mkldnn.enabled = 1
    assert b.mkldnn.enabled is True


def test_module_paths_under_import_alias():
    ns = {}
    exec("import ember as torch\n"
         "import torch.multiprocessing, torch.random, torch.version, torch.types, torch.functional\n"
         "import torch.storage, torch.testing, torch.signal.windows, torch.utils.hooks\n"
         "import torch.utils.checkpoint, torch.nn.utils.prune\n"
         "import torch.backends.mkldnn, torch.backends.openmp, torch.backends.mkl\n"
         "from torch.testing import assert_close\n"
         "mods = (torch.multiprocessing, torch.random, torch.version, torch.types, torch.functional,\n"
         "        torch.storage, torch.testing, torch.signal)\n", ns)
    assert all(m.__name__.startswith("ember.") for m in ns["mods"])
    assert ns["assert_close"] is ember.testing.assert_close
    for name in ["multiprocessing", "random", "version", "types", "functional", "storage", "testing", "signal"]:
        assert hasattr(torch, name) and hasattr(ember, name)
