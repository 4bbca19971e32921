"""The exporter's own exception (kept apart so that importing ember.onnx does not need
the onnx package)."""


class UnsupportedOperatorError(RuntimeError):
    """An ember op (or a use of it) that has no ONNX equivalent; the message names the op
    and the graph node."""
