"""torch.amp.GradScaler over ember tensors, step for step as PyTorch's.

Loss scaling multiplies the loss by a large factor so float16 gradients do not underflow;
before the optimizer step the gradients are divided back ("unscaled") and checked for
inf/NaN; a step with non-finite gradients is skipped and the scale backs off, and after
`growth_interval` clean steps the scale grows. Scale and growth tracker are 0-dim tensors
on the device of the first scaled output (float32 and int32, as in torch), so a
state_dict/load_state_dict round trip and the values of get_scale() match torch's.
"""
import warnings
from collections import abc, defaultdict
from enum import Enum

from .. import _C


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _ember():
    import ember
    return ember


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not _ember().cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made by the first scale() call, on its output's device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, device):
        ember = _ember()
        self._scale = ember.full((), self._init_scale, dtype=ember.float32, device=device)
        self._growth_tracker = ember.full((), self._init_growth_tracker, dtype=ember.int32, device=device)

    def scale(self, outputs):
        """outputs (a tensor, or nested lists/tuples/iterables of tensors) times the scale."""
        if not self._enabled:
            return outputs

        def apply_scale(value):
            if isinstance(value, _C.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                return value * self._scale.to(device=value.device)
            if isinstance(value, abc.Iterable):
                scaled = map(apply_scale, value)
                if isinstance(value, (list, tuple)):
                    return type(value)(scaled)
                return scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        ember = _ember()
        per_device_found_inf = {}
        grads = []
        # Check every gradient before writing any, so a refused call leaves them unchanged.
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == ember.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grads.append(param.grad)
        with ember.no_grad():
            for grad in grads:
                device = grad.device
                if device not in per_device_found_inf:
                    per_device_found_inf[device] = found_inf.to(device=device, copy=True)
                if not bool(ember.isfinite(grad).all()):
                    per_device_found_inf[device].fill_(1.0)
                grad.mul_(inv_scale.to(device=device, dtype=grad.dtype))
        return per_device_found_inf

    def unscale_(self, optimizer):
        """Divide optimizer's gradients by the scale (once per step) and record inf/NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        ember = _ember()
        # The reciprocal in double, then float32, as torch computes it.
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = ember.full((), 0.0, dtype=ember.float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """unscale_ (unless done), then optimizer.step(...) unless a gradient was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back the scale off after a skipped step, grow it after growth_interval clean ones."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, _C.Tensor) or new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1 or new_scale.requires_grad is True:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [found_inf for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(float(found_inf.item()) for found_inf in found_infs) > 0:
                # torch's _amp_update_scale_: scale * backoff in double, stored as float32.
                scale.fill_(float(scale.item()) * self._backoff_factor)
                growth_tracker.fill_(0)
            else:
                successful = int(growth_tracker.item()) + 1
                if successful == self._growth_interval:
                    new_value = float(scale.item()) * self._growth_factor
                    # torch grows only while the grown scale stays finite in float32.
                    if bool(_ember().isfinite(_ember().tensor(new_value, dtype=_ember().float32))):
                        scale.fill_(new_value)
                    growth_tracker.fill_(0)
                else:
                    growth_tracker.fill_(successful)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self):
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
