"""ember.backends.mkl: Intel MKL. ember does not use it (its CPU BLAS/LAPACK is OpenBLAS
or its own kernels), so is_available() is False."""


def is_available():
    """False: ember is never built against MKL."""
    return False
