"""ember.nn.parallel: torch.nn.parallel's DataParallel and data_parallel on one device.

With no accelerator DataParallel simply calls its module (as torch does) and
data_parallel raises torch's RuntimeError; with one CUDA device the inputs move to it
and the module runs there. Splitting a batch over several GPUs (replicate/scatter/
gather) is not implemented: asking for more than one device raises NotImplementedError.
"""
from itertools import chain

from ..modules.module import Module


def _ember():
    import ember
    return ember


def _available_device_type():
    ember = _ember()
    if ember.cuda.is_available():
        return "cuda"
    return None  # ember has no MPS or XPU backend


def _device_index(device):
    ember = _ember()
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = ember.device(device)
    if isinstance(device, ember.device):
        return device.index if device.index is not None else ember.cuda.current_device()
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")


def _all_device_indices():
    return list(range(_ember().cuda.device_count()))


def _move_to(obj, device):
    """What torch's scatter does for a single device: every tensor in obj onto it."""
    ember = _ember()
    if isinstance(obj, ember.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple
        return type(obj)(*(_move_to(o, device) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move_to(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _move_to(v, device)) for k, v in obj.items())
    return obj


def _one_device_only(device_ids):
    if len(device_ids) > 1:
        raise NotImplementedError(
            f"DataParallel over {len(device_ids)} devices (device_ids={device_ids}) is not supported "
            "by ember: it runs a module on one device only")


def _check_module_device(module, src_device):
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device:
            raise RuntimeError("module must have its parameters and buffers "
                               f"on device {src_device} (device_ids[0]) but found one of "
                               f"them on device: {t.device}")


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        device_type = _available_device_type()
        if device_type is None:
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = _all_device_indices()
        if not device_ids:
            raise RuntimeError("no available devices were found")
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(x) for x in device_ids]
        _one_device_only(self.device_ids)
        self.output_device = _device_index(output_device)
        self.src_device_obj = _ember().device(device_type, self.device_ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_module_device(self.module, self.src_device_obj)
        return self.module(*_move_to(inputs, self.src_device_obj), **_move_to(kwargs, self.src_device_obj))


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """module(*inputs) on device_ids[0] (one device only); torch's errors without a device."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device_type = _available_device_type()
    if device_type is None:
        raise RuntimeError("device type could not be determined")
    if device_ids is None:
        device_ids = _all_device_indices()
    if not device_ids:
        raise RuntimeError("no available devices were found")
    device_ids = [_device_index(x) for x in device_ids]
    _one_device_only(device_ids)
    src_device = _ember().device(device_type, device_ids[0])
    _check_module_device(module, src_device)
    return module(*_move_to(inputs, src_device), **_move_to(module_kwargs or {}, src_device))


from .distributed import DistributedDataParallel  # noqa: E402

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
