"""Small helpers that ember.save / ember.load's modules share for their messages."""


def type_name(obj):
    """How a message names the type of a value: 'int', 'numpy.ndarray'."""
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def damaged(source, why):
    """The error for a checkpoint whose bytes do not make a valid file of its format."""
    return RuntimeError(f"ember.load: {source} is not a valid PyTorch checkpoint: {why}")


class NotAFileError(AttributeError, TypeError):
    """`f` is neither a path nor a file object. torch.save / torch.load raise AttributeError
    for it (they look for its write / seek attribute); it is also a TypeError, the kind of
    mistake it is."""
