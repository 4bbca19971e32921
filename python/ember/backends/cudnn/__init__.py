"""ember.backends.cudnn: switches of the cuDNN kernels, as torch.backends.cudnn.

- allow_tf32 (default True, as in PyTorch): float32 convolutions may use TensorFloat-32.
- benchmark (default False): cuDNN times the candidate algorithms of each new shape
  and keeps the fastest, instead of taking its heuristic's first choice.
"""
import sys
import types

from ... import _C


def _flag(getter, setter, setter_name):
    def get(self):
        return getter()

    def set(self, value):
        from .. import _check_bool
        setter(_check_bool(value, setter_name))

    return property(get, set)


class _CudnnModule(types.ModuleType):
    allow_tf32 = _flag(_C._get_cudnn_allow_tf32, _C._set_cudnn_allow_tf32, "set_allow_tf32_cudnn")
    benchmark = _flag(_C._get_cudnn_benchmark, _C._set_cudnn_benchmark, "set_benchmark_cudnn")


# A module whose attributes are properties: `ember.backends.cudnn.benchmark = True`
# reaches C++ (torch does the same).
sys.modules[__name__].__class__ = _CudnnModule
