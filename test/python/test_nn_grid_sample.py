"""F.affine_grid / F.grid_sample and torch.affine_grid_generator / torch.grid_sampler against
torch: values and gradients (input, grid, theta) in float64, 2-d and 3-d, every mode,
padding mode and align_corners, grids reaching outside the input, and torch's errors."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

from _torch_compare import check_same

torch = pytest.importorskip("torch")

rng = np.random.default_rng(3)


def grid(*shape, spread=1.4):
    return (rng.random(shape) * 2 - 1) * spread


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode, padding_mode, align_corners):
    x = rng.standard_normal((2, 3, 5, 6))
    g = grid(2, 4, 7, 2)
    check_same(torch, lambda F, a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode,
                                                    align_corners=align_corners),
               x, g, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])  # bicubic: tricubic
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_3d(mode, padding_mode, align_corners):
    x = rng.standard_normal((2, 2, 3, 4, 5))
    g = grid(2, 2, 3, 4, 3)
    check_same(torch, lambda F, a, b: F.grid_sample(a, b, mode=mode, padding_mode=padding_mode,
                                                    align_corners=align_corners),
               x, g, rtol=1e-9, atol=1e-10)


def test_grid_sample_edge_cases():
    x = rng.standard_normal((1, 2, 4, 4))
    # points exactly on pixel centres and borders (the clip's gradient is 0 there, as torch)
    g = np.array([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [-1.0, 1.0], [3.0, -2.5]]]])
    for padding_mode in ("zeros", "border", "reflection"):
        for align_corners in (False, True):
            for mode in ("bilinear", "nearest", "bicubic"):
                check_same(torch, lambda F, a, b: F.grid_sample(
                    a, b, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
                    x, g, rtol=1e-9, atol=1e-10)
    # a unit-size input dimension, batch size 1, one output point
    check_same(torch, lambda F, a, b: F.grid_sample(a, b, padding_mode="reflection",
                                                    align_corners=True),
               rng.standard_normal((1, 1, 1, 3)), grid(1, 1, 1, 2))


def test_grid_sample_noncontiguous_and_float32():
    x = rng.standard_normal((2, 3, 6, 5))  # transposed to (2, 3, 5, 6) below
    g = grid(2, 3, 4, 2)
    check_same(torch, lambda F, a, b: F.grid_sample(a.transpose(2, 3), b.flip(1),
                                                    align_corners=False),
               x, g, rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, a, b: F.grid_sample(a, b, mode="bicubic", align_corners=True),
               rng.standard_normal((1, 2, 5, 5)).astype(np.float32),
               grid(1, 3, 3, 2).astype(np.float32), rtol=1e-4, atol=1e-5)


def test_grid_sample_default_align_corners_warns():
    x, g = ember.zeros(1, 1, 2, 2), ember.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False"):
        EF.grid_sample(x, g)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(align_corners):
    check_same(torch, lambda F, t: F.affine_grid(t, [2, 3, 4, 5], align_corners=align_corners),
               rng.standard_normal((2, 2, 3)), rtol=1e-9, atol=1e-10)
    check_same(torch, lambda F, t: F.affine_grid(t, [2, 3, 2, 4, 5],
                                                 align_corners=align_corners),
               rng.standard_normal((2, 3, 4)), rtol=1e-9, atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_same(torch, lambda F, t: F.affine_grid(t, [1, 1, 1, 3],
                                                     align_corners=align_corners),
                   rng.standard_normal((1, 2, 3)), rtol=1e-9, atol=1e-10)


def test_affine_grid_then_grid_sample():
    theta = np.array([[[0.9, -0.3, 0.1], [0.2, 1.1, -0.2]]])
    x = rng.standard_normal((1, 2, 6, 6))
    check_same(torch, lambda F, t, a: F.grid_sample(a, F.affine_grid(t, [1, 2, 5, 7], False),
                                                    align_corners=False),
               theta, x, rtol=1e-9, atol=1e-10)


def test_torch_level_spellings():
    x = rng.standard_normal((2, 3, 5, 6))
    g = grid(2, 4, 7, 2)
    for mode in (0, 1, 2):
        for padding in (0, 1, 2):
            e = ember.grid_sampler(ember.from_numpy(x), ember.from_numpy(g), mode, padding, True)
            t = torch.grid_sampler(torch.from_numpy(x), torch.from_numpy(g), mode, padding, True)
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-10)
    x3, g3 = rng.standard_normal((1, 2, 3, 4, 5)), grid(1, 2, 2, 3, 3)
    e = ember.grid_sampler_3d(ember.from_numpy(x3), ember.from_numpy(g3), 0, 2, False)
    t = torch.grid_sampler_3d(torch.from_numpy(x3), torch.from_numpy(g3), 0, 2, False)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-10)
    e = ember.grid_sampler_2d(ember.from_numpy(x), ember.from_numpy(g), 2, 1, False)
    t = torch.grid_sampler_2d(torch.from_numpy(x), torch.from_numpy(g), 2, 1, False)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-10)
    theta = rng.standard_normal((2, 2, 3))
    e = ember.affine_grid_generator(ember.from_numpy(theta), [2, 1, 3, 4], False)
    t = torch.affine_grid_generator(torch.from_numpy(theta), [2, 1, 3, 4], False)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


X = np.zeros((2, 3, 4, 5))
G = np.zeros((2, 6, 7, 2))


@pytest.mark.parametrize("case,exc", [
    (lambda F, L, x, g: F.grid_sample(x, g[:1], align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x, g[..., :1], align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x, g.float(), align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x[0], g[0], align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x, g[:, 0], align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x.unsqueeze(2), g, align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x, g, mode="foo", align_corners=False), ValueError),
    (lambda F, L, x, g: F.grid_sample(x, g, padding_mode="foo", align_corners=False),
     ValueError),
    (lambda F, L, x, g: F.grid_sample(x[:, :, :0], g, align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.grid_sample(x.long(), g, align_corners=False), NotImplementedError),
    (lambda F, L, x, g: F.grid_sample(x, g.long(), align_corners=False), RuntimeError),
    (lambda F, L, x, g: F.affine_grid(x[0, 0, :2, :3].long()[None], [1, 3, 4, 5],
                                      align_corners=False), ValueError),
    (lambda F, L, x, g: F.affine_grid(x[0, :, :3, :3], [3, 3, 4, 5], align_corners=False),
     ValueError),
    (lambda F, L, x, g: F.affine_grid(x[0, :, :3, :4], [3, 3, 4], align_corners=False),
     NotImplementedError),
    (lambda F, L, x, g: F.affine_grid(x[0, :, :2, :3], [3, 3, 0, 5], align_corners=False),
     ValueError),
    (lambda F, L, x, g: L.affine_grid_generator(x[0, :, :2, :3], [3, 3, 4], False),
     RuntimeError),
    (lambda F, L, x, g: L.grid_sampler_3d(x, g, 0, 0, False), RuntimeError),
    (lambda F, L, x, g: L.grid_sampler_2d(x.unsqueeze(2), L.zeros(2, 1, 6, 7, 3,
                                                                  dtype=L.float64), 0, 0, False),
     RuntimeError),
])
def test_grid_errors(case, exc):
    msgs = []
    for F, L in ((torch.nn.functional, torch), (EF, ember)):
        with pytest.raises(exc) as info:
            case(F, L, L.from_numpy(X), L.from_numpy(G))
        msgs.append(str(info.value))
    if "torch" not in msgs[0]:
        assert msgs[1] == msgs[0]


def test_grid_sample_empty():
    for F, L in ((torch.nn.functional, torch), (EF, ember)):
        out = F.grid_sample(L.zeros(0, 3, 4, 5, dtype=L.float64),
                            L.zeros(0, 2, 2, 2, dtype=L.float64), align_corners=False)
        assert tuple(out.shape) == (0, 3, 2, 2)
        out = F.grid_sample(L.zeros(2, 3, 4, 5, dtype=L.float64),
                            L.zeros(2, 0, 2, 2, dtype=L.float64), align_corners=False)
        assert tuple(out.shape) == (2, 3, 0, 2)
