"""ember.backends.openmp: ember's CPU kernels are parallelized with OpenMP (CMake requires it)."""


def is_available():
    """True: ember is always built with OpenMP."""
    return True
