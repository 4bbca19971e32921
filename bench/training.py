"""Issue 3's benchmark cases: one forward+backward step of an MLP and of a small
CNN, written with the functional API in both libraries on the same weights and
inputs. Gradients are cleared by setting them to None before each step (what
`zero_grad(set_to_none=True)` does), so each call does the full work of a
training step minus the optimizer update."""
import numpy as np

import ember
import ember.nn.functional as F
import torch
import torch.nn.functional as TF

from harness import Case

rng = np.random.default_rng(0)


def _params(*shapes):
    """The same Kaiming-scaled float32 values as leaf tensors in both libraries."""
    arrays = [(rng.standard_normal(s) * np.sqrt(2.0 / np.prod(s[1:]) if len(s) > 1 else 0.1)).astype(np.float32)
              for s in shapes]
    return ([ember.from_numpy(a.copy()).requires_grad_() for a in arrays],
            [torch.from_numpy(a.copy()).requires_grad_() for a in arrays])


def _step(params, loss_fn):
    def run():
        for p in params:
            p.grad = None
        loss_fn().backward()
    return run


def mlp(batch=64, sizes=(784, 512, 512, 10)):
    shapes = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        shapes += [(fan_out, fan_in), (fan_out,)]
    ep, tp = _params(*shapes)
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], batch)
    ex, ey, tx, ty = ember.from_numpy(x), ember.from_numpy(y), torch.from_numpy(x), torch.from_numpy(y)

    def forward(lib_f, params, h):
        for i in range(0, len(params), 2):
            h = lib_f.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = lib_f.relu(h)
        return h

    flops = 6.0 * batch * sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))  # fwd + 2 bwd GEMMs
    name = "-".join(map(str, sizes)) + f", batch {batch}"
    return Case("training step", f"MLP {name} fwd+bwd",
                _step(ep, lambda: F.cross_entropy(forward(F, ep, ex), ey)),
                _step(tp, lambda: TF.cross_entropy(forward(TF, tp, tx), ty)), flops, "GFLOP/s")


def cnn(batch=64, image=28):
    """conv(1->16) relu pool, conv(16->32) relu pool, linear: the digits CNN's shape."""
    flat = 32 * (image // 4) ** 2
    ep, tp = _params((16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (10, flat), (10,))
    x = rng.standard_normal((batch, 1, image, image)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    ex, ey, tx, ty = ember.from_numpy(x), ember.from_numpy(y), torch.from_numpy(x), torch.from_numpy(y)

    def forward(lib_f, p, h):
        h = lib_f.max_pool2d(lib_f.relu(lib_f.conv2d(h, p[0], p[1], padding=1)), 2)
        h = lib_f.max_pool2d(lib_f.relu(lib_f.conv2d(h, p[2], p[3], padding=1)), 2)
        return lib_f.linear(h.reshape(h.shape[0], -1), p[4], p[5])

    return Case("training step", f"CNN [{batch},1,{image},{image}] conv16-conv32-linear fwd+bwd",
                _step(ep, lambda: F.cross_entropy(forward(F, ep, ex), ey)),
                _step(tp, lambda: TF.cross_entropy(forward(TF, tp, tx), ty)))


def training():
    return [mlp(), mlp(batch=1, sizes=(64, 32, 10)), cnn(), cnn(image=8)]
