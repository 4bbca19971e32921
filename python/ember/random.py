"""ember.random: torch.random's seeding functions and fork_rng.

manual_seed, seed, initial_seed, get_rng_state and set_rng_state are ember's top-level
ones (the CPU generator; manual_seed and seed reach the CUDA generators too);
fork_rng saves the CPU generator and the chosen CUDA devices' generators and restores
them when the block ends.
"""
import contextlib
import warnings

from . import _C
from ._C import Generator  # noqa: F401

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]

from ._C import default_generator  # noqa: F401,E402


def _top():
    import ember
    return ember


def set_rng_state(new_state):
    """Set the CPU generator's state (a uint8 tensor from get_rng_state)."""
    return _top().set_rng_state(new_state)


def get_rng_state():
    """The CPU generator's state as a uint8 tensor."""
    return _top().get_rng_state()


def manual_seed(seed):
    """Seed every generator (CPU and CUDA) with `seed`; returns the CPU Generator."""
    return _top().manual_seed(seed)


def seed():
    """Seed every generator with a non-deterministic number and return it."""
    return _top().seed()


def initial_seed():
    """The CPU generator's initial seed."""
    return _top().initial_seed()


_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Fork the RNG: on leaving the block, the CPU generator (always) and the generators
    of `devices` (CUDA device indices; all visible ones when None) are back in the state
    they had on entering. enabled=False makes it a no-op."""
    global _fork_rng_warned_already
    ember = _top()
    if device_type == "meta" or not enabled:
        yield
        return
    if device_type is None:
        device_type = "cuda"
    device_mod = getattr(ember, device_type, None)
    if device_mod is None or not hasattr(device_mod, "get_rng_state"):
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register "
                           "a module by `torch._register_device_module`.")
    if devices is None:
        num_devices = device_mod.device_count() if device_mod.is_available() else 0
        if num_devices > 1 and not _fork_rng_warned_already:
            upper = device_type.upper()
            warnings.warn(
                f"{upper} reports that you have {num_devices} available devices, and you have used "
                f"{_caller} without explicitly specifying which devices are being used. For safety, we "
                f"initialize *every* {upper} device by default, which can be quite slow if you have a lot "
                f"of {upper}s. If you know that you are only making use of a few {upper} devices, set the "
                f"environment variable {upper}_VISIBLE_DEVICES or the '{_devices_kw}' keyword argument of "
                f"{_caller} with the set of devices you are actually using. To initialize all devices and "
                f"suppress this warning, set the '{_devices_kw}' keyword argument to "
                f"`range(torch.{device_type}.device_count())`.", stacklevel=3)
            _fork_rng_warned_already = True
        devices = list(range(num_devices))
    else:
        # A generator would be exhausted by the first traversal.
        devices = list(devices)
    cpu_rng_state = ember.get_rng_state()
    device_rng_states = [device_mod.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        ember.set_rng_state(cpu_rng_state)
        for device, state in zip(devices, device_rng_states):
            device_mod.set_rng_state(state, device)
