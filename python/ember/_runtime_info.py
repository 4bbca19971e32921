"""torch's build and runtime queries that describe ember's own: which CPU libraries it
was built with, the inter-op thread setting, the module of a device type."""
from . import _C

has_lapack = True     # ember.linalg's decompositions and solvers use LAPACK (lib/cpu/lapack.cpp)
has_mkl = False       # ember's CPU BLAS is oneDNN and OpenBLAS (lib/cpu/blas.cpp), not MKL
has_openmp = True     # the CPU kernels parallelize with OpenMP
has_spectral = False  # no FFTs (ember has no complex dtypes)

_interop_threads = None


def compiled_with_cxx11_abi():
    """Whether ember was built with the C++11 ABI of libstdc++ (always, with g++)."""
    return True


def get_num_interop_threads():
    """The inter-op thread setting. ember runs one op at a time per Python thread (its
    kernels parallelize inside each op), so this is the value set, or the intra-op count."""
    return _interop_threads if _interop_threads is not None else _C.get_num_threads()


def set_num_interop_threads(num):
    global _interop_threads
    if not isinstance(num, int) or isinstance(num, bool):
        raise TypeError(f"set_num_interop_threads(): argument 'num' must be int, not "
                        f"{type(num).__name__}")
    if num <= 0:
        raise RuntimeError("Expected number of threads to be positive")
    _interop_threads = num


def get_device_module(device=None):
    """The module of a device type: ember.cuda for "cuda", ember.cpu for "cpu"."""
    import ember
    if device is None:
        return ember.cuda if ember.cuda.is_available() else ember.cpu
    kind = device.type if isinstance(device, ember.device) else str(device).split(":")[0]
    module = {"cuda": ember.cuda, "cpu": ember.cpu, "xpu": ember.xpu}.get(kind)
    if module is None:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered "
                           f"as 'ember.{kind}'.")
    return module


__all__ = ["has_lapack", "has_mkl", "has_openmp", "has_spectral", "compiled_with_cxx11_abi",
           "get_num_interop_threads", "set_num_interop_threads", "get_device_module"]
