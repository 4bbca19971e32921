"""ember.version: torch.version's fields for this build of ember.

cuda: ember's CUDA backend is compiled in when nvcc was found at build time
(ember.cuda.is_built()), but the build records no toolkit version that Python can
read, so `cuda` is None in every build; code that asks "was this built with CUDA?"
should call ember.cuda.is_built(). git_version is "Unknown": the build records no
commit. hip/rocm/xpu are None: ember has no such backends.
"""
from typing import Optional

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"  # pyproject.toml's version, as ember.__version__
debug = False          # the Python package is built in Release (pyproject.toml)
cuda: Optional[str] = None
git_version = "Unknown"
hip: Optional[str] = None
rocm: Optional[str] = None
xpu: Optional[str] = None
