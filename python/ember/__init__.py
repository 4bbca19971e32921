"""ember: an eager tensor library with PyTorch's names and behaviour.

The computing is all in C++ (ember._C); this package only re-exports it and
adds the few pieces that are most natural in Python.
"""
import os as _os
import sys as _sys

# The CUDA backend opens cuBLAS and cuDNN on first use (lib/cuda/dynamic_library.h);
# this lets it find them in pip's nvidia-* wheels of this environment too.
_os.environ.setdefault("EMBER_NVIDIA_WHEEL_PATH", _os.pathsep.join(
    p for p in _sys.path if p and _os.path.isdir(_os.path.join(p, "nvidia"))))

# oneDNN's convolutions run on GNU OpenMP's threads, which spin for a long while after
# each region (GOMP_SPINCOUNT, 300000 by default) and then hold a core that ember's own
# thread pool (lib/cpu/thread_pool.h) wants for the next kernel: the digits CNN's epoch
# took 20% longer. libgomp reads its settings once, when _C loads it, so a shorter spin
# is asked for just around that import (unless the user chose one), and the variable is
# removed again: PyTorch's own libgomp, loaded later, keeps its defaults.
_spin_default = not any(v in _os.environ for v in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY"))
if _spin_default:
    _os.environ["GOMP_SPINCOUNT"] = "1000"
try:
    from . import _C  # noqa: E402
finally:
    if _spin_default:
        del _os.environ["GOMP_SPINCOUNT"]
from ._C import *  # noqa: F401,F403
from ._C import Size, Tensor, dtype, device, _dtype_from_name  # noqa: F401
# The torch.special kernels are bound as _C.special_*; PyTorch has them only in
# torch.special (ember.special wraps them), not at the top level.
for _name in [n for n in globals() if n.startswith("special_")]:
    del globals()[_name]
from ._tensor import _rebuild_tensor, msort  # noqa: F401  (also installs Tensor.__repr__)
from ._tensor_str import get_printoptions, printoptions, set_printoptions  # noqa: F401
from . import autograd  # noqa: E402,F401
from .autograd import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: E402,F401
from . import nn  # noqa: E402,F401  (ember.nn: Module, layers, functional, init)
from .serialization import load, save  # noqa: E402,F401
from . import utils  # noqa: E402,F401  (ember.utils.data)
from . import optim  # noqa: E402,F401
from . import cuda  # noqa: E402,F401  (ember.cuda: devices, streams, events, CUDA memory)
from . import backends  # noqa: E402,F401  (ember.backends: cuBLAS/cuDNN switches, as torch.backends)
from . import jit  # noqa: E402,F401  (ember.jit: trace, load, TracedModule)
from . import export  # noqa: E402,F401  (ember.export: torch.export over ember.jit)
from . import profiler  # noqa: E402,F401  (ember.profiler: op profiler, as torch.profiler)
from . import onnx  # noqa: E402,F401  (ember.onnx.export; needs the onnx package only when called)
from .autograd import is_inference_mode_enabled  # noqa: E402,F401
from .autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled)
from ._discrete_samplers import binomial, poisson  # noqa: E402,F401
from ._type_info import finfo, iinfo  # noqa: E402,F401
from . import special  # noqa: E402,F401  (ember.special: torch.special's names)
from . import linalg  # noqa: E402,F401  (ember.linalg: decompositions, solvers, norms, ...)
from ._linalg_torch import *  # noqa: E402,F401,F403  (torch.det, inverse, svd, ..., and their Tensor methods)
from ._layout import *  # noqa: E402,F401,F403  (layouts, memory formats, the kind flags)
from ._inplace import *  # noqa: E402,F401,F403  (in-place forms, torch.clamp_(x) spellings)
from ._legacy_types import CPU_TYPES as _CPU_TYPES  # noqa: E402  (FloatTensor, LongTensor, ...)
from ._windows import *  # noqa: E402,F401,F403  (hann_window, ...)
from ._sequences import *  # noqa: E402,F401,F403  (logspace, range, isin, unravel_index)
from . import accelerator  # noqa: E402,F401  (ember.accelerator: torch.accelerator's API)
from ._torch_functional_spellings import *  # noqa: E402,F401,F403  (torch.ctc_loss, ...)
from ._surface_names import *  # noqa: E402,F401,F403  (storages, asarray, histogram, ...)
from ._numbers import *  # noqa: E402,F401,F403  (pi, inf, nan, newaxis, sym_int, ...)
from ._higher_order import cond, while_loop  # noqa: E402,F401
from ._copy_ops import *  # noqa: E402,F401,F403  (view_copy, permute_copy, ...)
from ._runtime_info import *  # noqa: E402,F401,F403  (has_lapack, get_num_interop_threads, ...)

globals().update(_CPU_TYPES)

float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

__version__ = "0.1.0"

from . import amp  # noqa: E402,F401  (torch.amp.GradScaler)
from . import memory  # noqa: E402,F401  (ember.memory: a memory budget with rematerialization)
from . import distributions  # noqa: E402,F401  (torch.distributions; docs/distributions.md)
from . import xpu  # noqa: E402,F401  (torch.xpu's queries: no Intel GPU backend)
from ._compile import compile  # noqa: E402,F401,A001  (torch.compile's entry point, running eagerly)
from . import compiler  # noqa: E402,F401
from . import _torch_import_alias  # noqa: E402  (`import torch.nn` after `import ember as torch`)
_torch_import_alias.install()

# Last, once every function exists: PyTorch's out= keyword on the functions that take it.
from . import _out_variants  # noqa: E402
_out_variants.install(_sys.modules[__name__], _out_variants.TORCH_FUNCTIONS)
_out_variants.install(linalg, _out_variants.LINALG_FUNCTIONS, prefix="linalg_")
_out_variants.install(special, _out_variants.SPECIAL_FUNCTIONS, prefix="special_")
# numpy's keyword names (axis, keepdims, x, a, x1, x2), which PyTorch's functions take as
# well (the out= forms above already take them); before the modules below re-export them.
from . import _numpy_arg_names  # noqa: E402
_numpy_arg_names.install_functions(_sys.modules[__name__])
_numpy_arg_names.install_functions(linalg)
_numpy_arg_names.install_functions(special)
from . import func  # noqa: E402,F401  (ember.func: torch.func transforms; torch.vmap is func.vmap)
from .func import vmap  # noqa: E402,F401
from . import futures  # noqa: E402,F401  (ember.futures: torch.futures' Future)
from ._streams import Event, Stream, _register_cuda_kinds  # noqa: E402  (device-generic)
_register_cuda_kinds()
from . import distributed  # noqa: E402,F401  (ember.distributed: process groups, collectives; docs/distributed.md)
from . import cpu  # noqa: E402,F401  (ember.cpu.amp: torch.cpu.amp's autocast spelling)
from .amp.autocast_mode import (  # noqa: E402,F401  (torch.autocast and its state functions; docs/amp.md)
    autocast, autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache,
    get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype, is_autocast_available,
    is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled, set_autocast_cache_enabled,
    set_autocast_cpu_dtype, set_autocast_cpu_enabled, set_autocast_dtype, set_autocast_enabled,
    set_autocast_gpu_dtype)
# torch's top-level submodules (torch.multiprocessing, torch.testing, ...): docs/surface.md "Module paths".
from . import functional, multiprocessing, random, signal, storage, testing, types, version  # noqa: E402,F401
from . import _dynamo  # noqa: E402,F401  (torch._dynamo.reset() / .config in compile tutorials)
from .utils import checkpoint as _utils_checkpoint, hooks as _utils_hooks  # noqa: E402,F401  (torch.utils.checkpoint)

# Last of all, once every method exists: numpy's keyword names on the Tensor methods.
_numpy_arg_names.install_methods(Tensor)
from . import _return_types  # noqa: E402
_return_types.install()  # PyTorch's repr on ember.return_types.* (the C++-made ones too)
