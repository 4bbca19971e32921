"""ember.backends: switches of the libraries behind ember's CUDA kernels (torch.backends).

    ember.backends.cuda.matmul.allow_tf32 = True   # float32 matmul may use TensorFloat-32
    ember.backends.cudnn.allow_tf32               # True by default, as in PyTorch
    ember.backends.cudnn.benchmark = True          # let cuDNN time its algorithms

The settings live in C++ (ember/cuda.h), so the kernels read them and a C++ program
sets the same ones; they can be read and set in a build without CUDA too.
"""


def _check_bool(value, setter):
    """torch's type check of the backend flags: bools only (1 and None raise TypeError)."""
    if not isinstance(value, bool):
        raise TypeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return value


from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: E402,F401
