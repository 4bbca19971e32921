"""ember._dynamo: the few torch._dynamo names that compile tutorials and training scripts
call (`torch._dynamo.reset()` between benchmarks, `torch._dynamo.config.suppress_errors =
True`, `torch._dynamo.config.cache_size_limit = 64`).

ember.compile runs models eagerly (python/ember/_compile.py): there is no graph capture,
so reset() has no cache to clear and the config values are kept for programs that read
them back, changing nothing. Unknown config names raise AttributeError as torch's do.
"""
from ..compiler import allow_in_graph, disable, is_compiling, reset  # noqa: F401
from . import config  # noqa: F401

__all__ = ["allow_in_graph", "config", "disable", "is_compiling", "reset"]
