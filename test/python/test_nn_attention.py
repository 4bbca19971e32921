"""ember.nn.attention against torch.nn.attention: SDPBackend's members, sdpa_kernel's
selection (nesting, restoring, exceptions, priority), scaled_dot_product_attention inside
sdpa_kernel blocks against torch's values and gradients, and bad arguments."""
import numpy as np
import pytest

import ember
import ember.nn.attention
import ember.nn.functional as F
from ember.nn.attention import SDPBackend, sdpa_kernel

torch = pytest.importorskip("torch")
import torch.nn.attention as torch_attention  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

T = torch_attention.SDPBackend


def _names(backends):
    return [b.name for b in backends]


def test_import_paths():
    from ember.nn import attention
    assert attention is ember.nn.attention
    assert ember.nn.attention.SDPBackend is SDPBackend
    assert set(attention.__all__) <= set(torch_attention.__all__)
    assert {"SDPBackend", "sdpa_kernel"} <= set(attention.__all__)


def test_enum_members_and_values_equal_torchs():
    ours = [(name, int(member)) for name, member in SDPBackend.__members__.items()]
    theirs = [(name, int(member)) for name, member in T.__members__.items()]
    assert ours == theirs
    for name, member in SDPBackend.__members__.items():
        assert member.name == name == getattr(T, name).name
        assert member.value == getattr(T, name).value
        assert hash(member) == hash(getattr(T, name))
        assert SDPBackend(member.value) is member
        assert repr(member) == repr(getattr(T, name)) and str(member) == str(getattr(T, name))
    # members are not ints: they convert, but do not compare equal (as torch's)
    assert (SDPBackend.MATH == 0) is (T.MATH == 0) is False
    assert [10, 20, 30][SDPBackend.FLASH_ATTENTION] == 20
    with pytest.raises(ValueError):
        SDPBackend(7)


def test_default_selection_equals_torchs():
    assert _names(ember.nn.attention._cur_sdpa_kernel_backends()) == \
        _names(torch_attention._cur_sdpa_kernel_backends())
    assert _names(ember.nn.attention._cur_sdpa_kernel_backends(with_priority=True)) == \
        _names(torch_attention._cur_sdpa_kernel_backends(with_priority=True))
    assert ember.nn.attention._get_sdp_priority_order() == torch._C._get_sdp_priority_order()


def _both(fn):
    """fn(sdpa_kernel, SDPBackend, module) for each library; returns both results."""
    return (fn(sdpa_kernel, SDPBackend, ember.nn.attention),
            fn(torch_attention.sdpa_kernel, T, torch_attention))


def _state(module, prio_order):
    return (_names(module._cur_sdpa_kernel_backends()),
            _names(module._cur_sdpa_kernel_backends(with_priority=True)), prio_order())


def _ember_state():
    return _state(ember.nn.attention, ember.nn.attention._get_sdp_priority_order)


def _torch_state():
    return _state(torch_attention, torch._C._get_sdp_priority_order)


def test_nesting_restores_each_level():
    def run(kernel, B, module):
        seen = []
        with kernel(B.MATH) as value:
            seen.append((value, _names(module._cur_sdpa_kernel_backends())))
            with kernel([B.FLASH_ATTENTION, B.EFFICIENT_ATTENTION, B.FLASH_ATTENTION]):
                seen.append(_names(module._cur_sdpa_kernel_backends()))
                with kernel([]):
                    seen.append(_names(module._cur_sdpa_kernel_backends()))
                seen.append(_names(module._cur_sdpa_kernel_backends()))
            seen.append(_names(module._cur_sdpa_kernel_backends()))
        seen.append(_names(module._cur_sdpa_kernel_backends()))
        return seen
    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[0] == ({}, ["MATH"])
    assert ours[1] == ["FLASH_ATTENTION", "EFFICIENT_ATTENTION"] and ours[2] == []
    assert ours[-1] == _names(ember.nn.attention._SWITCHABLE)


def test_exception_inside_the_block_restores_the_selection():
    before = _ember_state()
    with pytest.raises(KeyError):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            with sdpa_kernel([SDPBackend.MATH], set_priority=True):
                assert ember.nn.attention._is_sdp_priority_order_active()
                raise KeyError("boom")
    assert _ember_state() == before
    assert not ember.nn.attention._is_sdp_priority_order_active()


@pytest.mark.parametrize("outer, inner", [
    ([SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH], [SDPBackend.OVERRIDEABLE]),
    ([SDPBackend.MATH], [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]),
    ([SDPBackend.FLASH_ATTENTION], []),
    ([SDPBackend.OVERRIDEABLE, SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION],
     [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]),
])
def test_set_priority_matches_torch(outer, inner):
    def to_torch(backends):
        return [getattr(T, b.name) for b in backends]

    def run(lib):
        kernel = sdpa_kernel if lib == "ember" else torch_attention.sdpa_kernel
        state = _ember_state if lib == "ember" else _torch_state
        conv = (lambda b: b) if lib == "ember" else to_torch
        seen = []
        with kernel(conv(outer), set_priority=True):
            seen.append(state())
            with kernel(conv(inner), set_priority=False):
                seen.append(state())
        with kernel(conv(outer), set_priority=True):
            with kernel(conv(inner), set_priority=True):
                seen.append(state())
        return seen
    # inside the blocks: the same selection and order as torch's
    before = _ember_state()
    assert run("ember") == run("torch")
    # after them: exactly the state before (torch can leave its order changed here)
    assert _ember_state() == before
    with sdpa_kernel(outer, set_priority=True):
        inside = _ember_state()
        with sdpa_kernel(inner, set_priority=True):
            pass
        assert _ember_state() == inside
    assert _ember_state() == before


def test_error_backend_enables_nothing_and_takes_no_priority():
    """torch writes ERROR's -1 into its priority array (and then reports FLASH_ATTENTION
    enabled, an out-of-bounds write); ember leaves ERROR out of the order."""
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.ERROR], set_priority=True):
        assert _names(ember.nn.attention._cur_sdpa_kernel_backends()) == ["MATH"]
        assert ember.nn.attention._get_sdp_priority_order() == [0, 1, 2, 3, 4]
    with sdpa_kernel(SDPBackend.ERROR):
        assert ember.nn.attention._cur_sdpa_kernel_backends() == []
    assert ember.nn.attention._get_sdp_priority_order() == [1, 2, 0, 3, 4]


def test_decorator_form():
    @sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION)
    def selected():
        return _names(ember.nn.attention._cur_sdpa_kernel_backends())
    assert selected() == ["EFFICIENT_ATTENTION"]
    assert selected() == ["EFFICIENT_ATTENTION"]  # a fresh block per call
    assert len(ember.nn.attention._cur_sdpa_kernel_backends()) == 5


@pytest.mark.parametrize("bad", [(SDPBackend.MATH,), "math", 0, None, {SDPBackend.MATH},
                                 SDPBackend.MATH.value])
def test_bad_backends_raise_torchs_assertion(bad):
    with pytest.raises(AssertionError) as torch_error:
        with torch_attention.sdpa_kernel(bad if not isinstance(bad, (tuple, set)) else type(bad)(
                getattr(T, b.name) for b in bad)):
            pass
    with pytest.raises(AssertionError) as ours:
        with sdpa_kernel(bad):
            pass
    assert str(ours.value) == str(torch_error.value)
    assert str(ours.value).startswith("Backend must be an instance of SDPBackend or a list")


def test_torch_backends_are_not_ember_backends():
    # a torch member in a list is not one of ember's: ignored (torch ignores foreign items)
    with sdpa_kernel([T.MATH, SDPBackend.FLASH_ATTENTION]):
        assert _names(ember.nn.attention._cur_sdpa_kernel_backends()) == ["FLASH_ATTENTION"]
    with pytest.raises(AssertionError):
        with sdpa_kernel(T.MATH):
            pass


def test_bad_list_items_with_set_priority_raise_and_restore():
    before = _ember_state()
    with pytest.raises(ValueError) as torch_error:
        with torch_attention.sdpa_kernel(["x"], set_priority=True):
            pass
    with pytest.raises(ValueError) as ours:
        with sdpa_kernel(["x"], set_priority=True):
            pass
    assert str(ours.value) == str(torch_error.value)
    assert _ember_state() == before == _torch_state()
    # without set_priority the unknown item is ignored, as torch does: nothing enabled
    with sdpa_kernel(["math"]):
        assert ember.nn.attention._cur_sdpa_kernel_backends() == []


def _qkv(rng, shapes, dtype):
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


CASES = [
    # (q, k, v shapes, kwargs builder)
    (((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)), {}),
    (((2, 3, 5, 8), (2, 3, 5, 8), (2, 3, 5, 8)), {"is_causal": True}),
    (((2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 8)), {"enable_gqa": True, "scale": 0.3}),
    (((1, 2, 4, 6), (1, 2, 6, 6), (1, 2, 6, 6)), {"mask": "bool"}),
    (((3, 4, 6), (3, 5, 6), (3, 5, 2)), {"mask": "float"}),
]


@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-6), (np.float64, 1e-12)])
@pytest.mark.parametrize("shapes, kwargs", CASES)
@pytest.mark.parametrize("selection", ["math", "flash_then_math", "all"])
def test_sdpa_inside_sdpa_kernel_matches_torch(device, selection, shapes, kwargs, dtype, tol):
    rng = np.random.default_rng(7)
    arrays = _qkv(rng, shapes, dtype)
    kwargs = dict(kwargs)
    mask = kwargs.pop("mask", None)
    L, S = shapes[0][-2], shapes[1][-2]
    mask_array = None
    if mask == "bool":
        mask_array = rng.random((L, S)) > 0.4
        mask_array[:, 0] = True
    elif mask == "float":
        mask_array = rng.standard_normal((L, S)).astype(dtype)

    def inputs(lib, dev):
        ts = [lib.from_numpy(a.copy()).to(dev).requires_grad_() for a in arrays]
        m = None if mask_array is None else lib.from_numpy(mask_array.copy()).to(dev)
        return ts, m

    def selections(B):
        return {"math": B.MATH, "flash_then_math": [B.FLASH_ATTENTION, B.MATH],
                "all": list(B.__members__.values())}[selection]

    e_in, e_mask = inputs(ember, device)
    t_in, t_mask = inputs(torch, "cpu")
    with sdpa_kernel(selections(SDPBackend)):
        e_out = F.scaled_dot_product_attention(*e_in, attn_mask=e_mask, **kwargs)
    with torch_attention.sdpa_kernel(selections(T)):
        t_out = TF.scaled_dot_product_attention(*t_in, attn_mask=t_mask, **kwargs)
    assert tuple(e_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(e_out.detach().cpu().numpy(), t_out.detach().numpy(),
                               rtol=tol, atol=tol)
    seed = rng.standard_normal(tuple(t_out.shape)).astype(dtype)
    e_out.backward(ember.from_numpy(seed.copy()).to(device))
    t_out.backward(torch.from_numpy(seed.copy()))
    for e, t in zip(e_in, t_in):
        np.testing.assert_allclose(e.grad.cpu().numpy(), t.grad.numpy(), rtol=tol * 10,
                                   atol=tol * 10)


def test_sdpa_outside_and_after_blocks_unchanged():
    rng = np.random.default_rng(2)
    q, k, v = (ember.from_numpy(a) for a in _qkv(rng, [(2, 4, 8)] * 3, np.float64))
    plain = F.scaled_dot_product_attention(q, k, v).numpy()
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION],
                     set_priority=True):
        inside = F.scaled_dot_product_attention(q, k, v).numpy()
    after = F.scaled_dot_product_attention(q, k, v).numpy()
    np.testing.assert_array_equal(plain, inside)
    np.testing.assert_array_equal(plain, after)


def test_sdpa_bad_arguments_still_raise_inside_a_block():
    q = ember.randn(2, 3, 4)
    with sdpa_kernel(SDPBackend.MATH):
        with pytest.raises(RuntimeError):
            F.scaled_dot_product_attention(q, ember.randn(2, 3, 5), ember.randn(2, 3, 4))
    with torch_attention.sdpa_kernel(T.MATH):
        tq = torch.randn(2, 3, 4)
        with pytest.raises(RuntimeError):
            TF.scaled_dot_product_attention(tq, torch.randn(2, 3, 5), torch.randn(2, 3, 4))
