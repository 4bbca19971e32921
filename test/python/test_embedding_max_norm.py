"""F.embedding / nn.Embedding with max_norm: the rows that the input names are rescaled in
place (no gradient recorded) to norm <= max_norm before the lookup, as in PyTorch."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5])
def test_functional_embedding_max_norm_matches_torch(dtype, norm_type):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    w = (rng.standard_normal((6, 4)) * 3).astype(dtype)
    idx = np.array([[0, 2, 2], [5, 0, 1]], dtype=np.int64)
    seed = rng.standard_normal((2, 3, 4)).astype(dtype)
    ew = ember.from_numpy(w.copy()).requires_grad_()
    tw = torch.from_numpy(w.copy()).requires_grad_()
    eo = ember.nn.functional.embedding(ember.from_numpy(idx), ew, max_norm=1.5, norm_type=norm_type)
    to = torch.nn.functional.embedding(torch.from_numpy(idx), tw, max_norm=1.5, norm_type=norm_type)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), **tol)
    # the weight itself was renormalized in place: rows 0, 1, 2, 5 only
    np.testing.assert_allclose(ew.detach().numpy(), tw.detach().numpy(), **tol)
    np.testing.assert_array_equal(ew.detach().numpy()[3:5], w[3:5])
    eo.backward(ember.from_numpy(seed.copy()))
    to.backward(torch.from_numpy(seed.copy()))
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), **tol)


def test_module_embedding_max_norm_and_padding_idx():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    t = torch.nn.Embedding(5, 3, padding_idx=1, max_norm=0.5)
    e = ember.nn.Embedding(5, 3, padding_idx=1, max_norm=0.5)
    with ember.no_grad():
        e.weight.copy_(ember.from_numpy(t.weight.detach().numpy().copy() * 4))
    with torch.no_grad():
        t.weight.mul_(4)
    idx = np.array([4, 1, 4, 0], dtype=np.int64)
    np.testing.assert_allclose(e(ember.from_numpy(idx)).detach().numpy(),
                               t(torch.from_numpy(idx)).detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_bad_padding_idx_leaves_weight_unchanged():
    w = ember.ones(3, 2) * 5
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        ember.nn.functional.embedding(ember.tensor([0]), w, padding_idx=3, max_norm=1.0)
    assert w.max().item() == 5.0
