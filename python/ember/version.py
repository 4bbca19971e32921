"""ember.version: torch.version's fields for this build of ember.

cuda: the CUDA toolkit ("major.minor") ember's CUDA backend was compiled against, or
None for a build without it (nvcc not found at build time), as torch.version.cuda.
git_version is "Unknown": the build records no commit. hip/rocm/xpu are None: ember has no such backends.
"""
from typing import Optional

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"  # pyproject.toml's version, as ember.__version__
debug = False          # the Python package is built in Release (pyproject.toml)
from ._C import _cuda as _cuda_module  # noqa: E402

cuda: Optional[str] = getattr(_cuda_module, "toolkit_version", None)
git_version = "Unknown"
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
