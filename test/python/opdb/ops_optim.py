"""Op database entries of the optim group (lib/dispatch/schema/optim.toml): the fused
optimizer updates, reached through ember.optim's classes.

Each entry runs two steps (three with amsgrad) of one optimizer on a fresh copy of the
sample parameter (same layout: strided samples stay strided), with the sample's
gradients, and returns the parameter and its state tensors; torch.optim does the same
steps on the same values. Options that change the kernel's path (momentum, dampening,
nesterov, weight decay, maximize, amsgrad, decoupled decay, centered, lr_decay) each
get a variant."""
import numpy as np

from .opinfo import FLOAT, ErrorCase, OpInfo, Sample, T, make_values

SHAPES = [(3, 4), (5,), (), (2, 3, 2), (0, 3)]


def _fresh(m, t):
    """A new leaf tensor with t's values, shape, dtype, device and strides."""
    if t.dim() > 0 and not t.is_contiguous():
        big = m.zeros(tuple(t.shape[:-1]) + (t.shape[-1] * 2,), dtype=t.dtype, device=t.device)
        out = big[..., ::2]
    else:
        out = m.zeros(tuple(t.shape), dtype=t.dtype, device=t.device)
    out.copy_(t.detach())
    return out


def _state(opt, p, keys):
    st = opt.state[p]
    return tuple(st[k] for k in keys if k in st)


def run_steps(m, cls, p, grads, keys, **options):
    """Runs one optimizer step per gradient on a fresh copy of p; returns the
    parameter followed by the state tensors named in keys (those that exist)."""
    param = _fresh(m, p).requires_grad_(True)
    opt = getattr(m.optim, cls)([param], **options)
    for g in grads:
        param.grad = _fresh(m, g)
        opt.step()
    return (param.detach(),) + tuple(s.detach() for s in _state(opt, param, keys))


def opt_samples(steps=2, low=-2.0, high=2.0):
    """A parameter and `steps` gradients per shape, contiguous and strided."""
    def make(dtype, rng):
        out = []
        for shape in SHAPES:
            vals = [make_values(rng, shape, dtype, low, high) for _ in range(steps + 1)]
            layouts = [False] + ([True] if int(np.prod(shape)) > 1 else [])
            for noncontig in layouts:
                out.append(Sample(tuple(T(v, dtype, noncontig) for v in vals)))
        return out
    return make


def opt_errors(bad_options):
    """Bad calls: a gradient of another shape or dtype (torch refuses the assignment,
    ember the assignment or the step), an integer parameter, a half parameter, and bad
    options (the constructor's ValueError)."""
    def make(rng):
        p = T(make_values(rng, (3, 4), "float32"), "float32")
        g = T(make_values(rng, (3, 4), "float32"), "float32")
        cases = [
            ErrorCase(Sample((p, T(make_values(rng, (4, 3), "float32"), "float32"))), RuntimeError),
            ErrorCase(Sample((p, T(make_values(rng, (3, 4), "float64"), "float64"))), RuntimeError),
            ErrorCase(Sample((T(make_values(rng, (3, 4), "int64"), "int64"),
                              T(make_values(rng, (3, 4), "int64"), "int64"))), RuntimeError),
        ]
        # float16/bfloat16 parameters: torch.optim updates them, ember refuses them
        # (float32 and float64 only, docs/optim.md).
        cases.append(ErrorCase(Sample((T(make_values(rng, (3,), "float16"), "float16"),
                                       T(make_values(rng, (3,), "float16"), "float16"))),
                               TypeError, torch_raises=False))
        for opts in bad_options:
            cases.append(ErrorCase(Sample((p, g), dict(opts)), ValueError))
        return cases
    return make


def optim_infos(row, cls, keys, variants, bad_options, steps=2):
    """One OpInfo per options dict in variants ({label: options}, "_steps": the number
    of steps). fn(m, param, *grads, **overrides); the first OpInfo holds the bad calls."""
    infos = []
    for i, (label, opts) in enumerate(variants.items()):
        opts = dict(opts)
        n = opts.pop("_steps", steps)
        fn = (lambda o, n: lambda m, p, *gs, **kw: run_steps(m, cls, p, gs[:n], keys, **(o | kw)))(opts, n)
        infos.append(OpInfo(row, fn, opt_samples(n), dtypes=FLOAT, variant=label, grad=False,
                            trace=False, errors=opt_errors(bad_options) if i == 0 else None))
    return infos


# ---- SGD ---------------------------------------------------------------------------------

SGD_KEYS = ("momentum_buffer",)
_sgd = optim_infos("sgd_step", "SGD", SGD_KEYS, {
    "": {"lr": 0.1},
    "momentum": {"lr": 0.1, "momentum": 0.9},
    "dampening_decay": {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01},
    "nesterov": {"lr": 0.1, "momentum": 0.8, "nesterov": True},
    "maximize_decay": {"lr": 0.1, "weight_decay": 0.1, "maximize": True},
    "nesterov_maximize_decay": {"lr": 0.2, "momentum": 0.5, "nesterov": True, "maximize": True,
                                "weight_decay": 0.05, "_steps": 3},
}, [{"lr": -1.0}, {"momentum": 0.0, "nesterov": True}, {"momentum": 0.9, "dampening": 0.1, "nesterov": True}])

# ---- Adam, AdamW --------------------------------------------------------------------------

ADAM_KEYS = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step")
# amsgrad with beta2 = 0.5 and three steps, so the running max of v differs from v.
_adam = optim_infos("adam_step", "Adam", ADAM_KEYS, {
    "": {"lr": 0.01},
    "amsgrad": {"lr": 0.01, "amsgrad": True, "betas": (0.9, 0.5), "_steps": 3},
    "weight_decay": {"lr": 0.01, "weight_decay": 0.1},
    "maximize_amsgrad_decay": {"lr": 0.05, "maximize": True, "amsgrad": True, "weight_decay": 0.01,
                               "betas": (0.8, 0.5), "_steps": 3},
    "betas_eps": {"lr": 0.1, "betas": (0.5, 0.75), "eps": 1e-3},
    "decoupled": {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
}, [{"lr": -1.0}, {"betas": (1.0, 0.999)}, {"betas": (0.9, -0.1)}, {"eps": -1e-8}])
_adamw = optim_infos("adam_step", "AdamW", ADAM_KEYS, {
    "adamw": {"lr": 0.01},
    "adamw_amsgrad": {"lr": 0.01, "amsgrad": True, "betas": (0.9, 0.5), "_steps": 3},
    "adamw_maximize_decay": {"lr": 0.05, "maximize": True, "weight_decay": 0.5},
}, [])

# ---- RMSprop ------------------------------------------------------------------------------

RMSPROP_KEYS = ("square_avg", "momentum_buffer", "grad_avg", "step")
_rmsprop = optim_infos("rmsprop_step", "RMSprop", RMSPROP_KEYS, {
    "": {"lr": 0.01},
    "momentum": {"lr": 0.01, "momentum": 0.9},
    "centered": {"lr": 0.01, "centered": True},
    "centered_momentum_decay": {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1,
                                "_steps": 3},
    "maximize_alpha_eps": {"lr": 0.05, "maximize": True, "alpha": 0.9, "eps": 1e-4},
}, [{"lr": -1.0}, {"alpha": -0.5}, {"momentum": -0.1}, {"eps": -1.0}])

# ---- Adagrad ------------------------------------------------------------------------------

ADAGRAD_KEYS = ("sum", "step")
_adagrad = optim_infos("adagrad_step", "Adagrad", ADAGRAD_KEYS, {
    "": {"lr": 0.1},
    "lr_decay": {"lr": 0.1, "lr_decay": 0.5, "_steps": 3},
    "decay_initial": {"lr": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.5},
    "maximize_eps": {"lr": 0.1, "maximize": True, "eps": 1e-3, "lr_decay": 0.1},
}, [{"lr": -1.0}, {"lr_decay": -0.1}, {"initial_accumulator_value": -1.0}])

OPS = _sgd + _adam + _adamw + _rmsprop + _adagrad
