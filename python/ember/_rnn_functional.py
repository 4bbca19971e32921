"""torch.lstm / torch.gru / torch.rnn_tanh / torch.rnn_relu: the functional recurrences
under nn.LSTM/GRU/RNN, with torch's two signatures:

  lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
  lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)

The first runs ember's fused recurrence (ember._C._lstm, ...); the second is the packed
form (a PackedSequence's data and batch_sizes), run step by step as nn's packed path.
hx is [h_0, c_0] for lstm and h_0 for the others; params are the flat weights in nn's
order (w_ih, w_hh[, b_ih, b_hh] per layer and direction)."""
import types

from . import _C
from ._C import Tensor

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu"]

_FUSED = {"LSTM": "_lstm", "GRU": "_gru", "RNN_TANH": "_rnn_tanh", "RNN_RELU": "_rnn_relu"}
_NAMES = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def _check_tensors(name, what, values):
    for v in values:
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): {what} must be tensors, got {type(v).__name__}")


def _states(mode, hx):
    name = _NAMES[mode]
    if mode == "LSTM":
        if not isinstance(hx, (list, tuple)) or len(hx) != 2:
            raise RuntimeError(f"{name}(): hx must be a list of two tensors (h_0, c_0), got "
                               f"{type(hx).__name__}")
        _check_tensors(name, "hx", hx)
        return list(hx)
    if not isinstance(hx, Tensor):
        raise TypeError(f"{name}(): argument 'hx' must be Tensor, not {type(hx).__name__}")
    return hx


def _padded(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_first):
    _check_tensors(_NAMES[mode], "params", params)
    return tuple(getattr(_C, _FUSED[mode])(input, _states(mode, hx), list(params),
                                           bool(has_biases), int(num_layers), float(dropout),
                                           bool(train), bool(bidirectional), bool(batch_first)))


def _packed(mode, data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
            bidirectional):
    from .nn.modules._rnn_packed import packed_recurrence
    name = _NAMES[mode]
    _check_tensors(name, "params", params)
    directions = 2 if bidirectional else 1
    per_group = 4 if has_biases else 2
    if len(params) != num_layers * directions * per_group:
        raise RuntimeError(f"{name}(): expected {num_layers * directions * per_group} "
                           f"parameters for {num_layers} layer(s), {directions} direction(s) "
                           f"and has_biases={bool(has_biases)}, got {len(params)}")
    states = _states(mode, hx)
    states = tuple(states) if mode == "LSTM" else (states,)
    sizes = [int(v) for v in batch_sizes.tolist()]
    if not sizes:
        raise RuntimeError(f"{name}(): batch_sizes is empty")
    expected = (num_layers * directions, sizes[0])
    for s in states:
        if tuple(s.shape[:2]) != expected:
            raise RuntimeError(f"{name}(): expected hidden size {expected + tuple(s.shape[2:])}, "
                               f"got {tuple(s.shape)}")
    # The few fields packed_recurrence reads from an nn module.
    module = types.SimpleNamespace(
        mode=mode, num_layers=int(num_layers), bidirectional=bool(bidirectional),
        bias=bool(has_biases), dropout=float(dropout), training=bool(train),
        all_weights=[list(params[i:i + per_group]) for i in range(0, len(params), per_group)])
    output, finals = packed_recurrence(module, data, sizes, states)
    return (output, *finals)


def _make(mode):
    def recurrence(input, *args):  # noqa: A002
        # Packed: args[0] is batch_sizes (a 1-D integer tensor); padded: args[0] is hx (a
        # 3-D floating tensor, or a list of two for lstm).
        packed = (isinstance(args[0], Tensor) and args[0].dim() == 1
                  and not args[0].is_floating_point()) if args else False
        if len(args) == 8 and packed:
            return _packed(mode, input, *args)
        if len(args) == 8:
            return _padded(mode, input, *args)
        raise TypeError(f"{_NAMES[mode]}() received an invalid combination of arguments: "
                        f"expected (input, hx, params, has_biases, num_layers, dropout, train, "
                        f"bidirectional, batch_first) or (data, batch_sizes, hx, params, "
                        f"has_biases, num_layers, dropout, train, bidirectional), got "
                        f"{1 + len(args)} arguments")
    recurrence.__name__ = recurrence.__qualname__ = _NAMES[mode]
    recurrence.__doc__ = f"torch.{_NAMES[mode]}: see the module docstring of ember._rnn_functional."
    return recurrence


lstm = _make("LSTM")
gru = _make("GRU")
rnn_tanh = _make("RNN_TANH")
rnn_relu = _make("RNN_RELU")
