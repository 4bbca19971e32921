"""ember.backends.mps: torch.backends.mps's queries. ember has no Metal (Apple GPU)
backend, so it is neither built nor available; programs ask before choosing "mps"."""


def is_built():
    """False: this ember was not built with Metal Performance Shaders."""
    return False


def is_available():
    """False: ember cannot run on an Apple GPU (no MPS backend)."""
    return False

