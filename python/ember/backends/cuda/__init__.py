"""ember.backends.cuda: switches of cuBLAS, as torch.backends.cuda.

`matmul.allow_tf32` (default False, as in PyTorch): float32 matrix products on CUDA
may round their inputs to TensorFloat-32 inside the tensor cores (about 1e-3
relative error, several times faster). The same setting as
ember.set_float32_matmul_precision("high") / ("highest").
"""
from ... import _C


class cuBLASModule:
    """The object behind ember.backends.cuda.matmul (torch's cuBLASModule)."""

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _C._get_matmul_allow_tf32()
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            from .. import _check_bool
            return _C._set_matmul_allow_tf32(_check_bool(value, "set_allow_tf32_cublas"))
        raise AttributeError("Unknown attribute " + name)

    def __dir__(self):
        return ["allow_tf32"]


matmul = cuBLASModule()


def is_built():
    """Whether ember was compiled with the CUDA backend (torch.backends.cuda.is_built)."""
    return _C._cuda.is_built()
