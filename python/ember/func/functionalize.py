"""functionalize and debug_unwrap (torch.func.functionalize, torch.func.debug_unwrap).

torch's functionalize rewrites a function's in-place operations and views into
out-of-place ones while keeping its semantics (outputs, and mutations of its inputs,
which it copies back): its use is graph capture. ember runs eagerly and has no graph to
rewrite, so the function is run as written, which gives the same outputs and the same
input mutations. ember has no functorch wrapper tensors either, so debug_unwrap returns
its argument.
"""
import functools

__all__ = ["functionalize", "debug_unwrap"]


def functionalize(func, *, remove="mutations"):
    """func, which ember runs eagerly as written (see this module's doc)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}."
                           " Valid options are:\n     remove='mutations': all inplace and out= operators will be"
                           " removed from the program, and replaced with their out-of-place equivalents.\n"
                           "     remove='mutations_and_views': In addition to the above, all aliasing operators "
                           "{view} will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """tensor itself: ember has no functorch wrapper tensors to unwrap."""
    del recurse
    return tensor
