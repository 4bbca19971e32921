"""Recurrent layers: RNN, LSTM, GRU and their one-step cells RNNCell, LSTMCell, GRUCell.

The modules hold torch's parameters (same names, shapes, order and init) and check
their arguments; the recurrences are ember._C's _lstm / _gru / _rnn_tanh / _rnn_relu
and lstm_cell / gru_cell / rnn_*_cell (lib/ops/rnn.cpp), called with torch._VF's
arguments.
"""
import math
import numbers
import warnings

from ... import _C
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._rnn_packed import packed_recurrence
from .module import Module
from .utils import _factory_kwargs

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_SEQUENCE_FN = {"LSTM": "_lstm", "GRU": "_gru", "RNN_TANH": "_rnn_tanh", "RNN_RELU": "_rnn_relu"}


def _reset_uniform(module):
    """torch's init of every recurrent parameter: U(-1/sqrt(hidden), 1/sqrt(hidden))."""
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


def _check_type(value, kind, name):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")


class RNNBase(Module):
    """Shared parameters, checks and forward of RNN, LSTM and GRU.

    Parameters per layer k and direction: weight_ih_l{k}, weight_hh_l{k} and, with
    bias, bias_ih_l{k}, bias_hh_l{k}; the reverse direction adds the suffix _reverse.
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + str(mode))
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        _check_type(bias, bool, "bias")
        _check_type(batch_first, bool, "batch_first")
        _check_type(input_size, int, "input_size")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type(hidden_size, int, "hidden_size")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size > 0:
            # The C++ recurrence has no projection (weight_hr) step yet.
            raise NotImplementedError("LSTM with projections (proj_size > 0) is not supported "
                                      "by ember yet; use proj_size=0")
        kw = _factory_kwargs(device, dtype)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size

        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else hidden_size * num_directions
            for direction in range(num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input_size),
                          "weight_hh": (gate_size, hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                names = []
                for kind, shape in shapes.items():
                    setattr(self, kind + suffix, Parameter(_C.empty(*shape, **kw)))
                    names.append(kind + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        """The parameters in _VF.lstm's order, looked up now (so replaced ones are seen)."""
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """[[weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0], ...] per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op, as in torch on the CPU: the weights need no packing into one buffer."""

    def reset_parameters(self):
        _reset_uniform(self)

    # ---- argument checks (torch's messages) ------------------------------------------
    def check_input(self, input):
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        self._check_input_shape(input, 3)

    def _check_input_shape(self, input, dims):
        if input.dim() != dims:
            raise RuntimeError(f"input must have {dims} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input):
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    @staticmethod
    def check_hidden_size(hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    # ---- forward ---------------------------------------------------------------------
    # The hidden state as a tuple of tensors: (h,) for RNN and GRU, (h, c) for LSTM.
    _state_names = "hx"

    def _states(self, hx):
        return (hx,)

    def _result(self, states):
        return states[0]

    def _check_states(self, input, states):
        self.check_hidden_size(states[0], self.get_expected_hidden_size(input))

    def _forward_packed(self, packed, hx):
        """A PackedSequence: per-step recurrence (_rnn_packed.py), states in sorted order."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = [int(v) for v in batch_sizes.tolist()]
        num_directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * num_directions, sizes[0], self.hidden_size)
        weight_dtype = self._flat_weights[0].dtype
        if data.dtype != weight_dtype:
            # torch checks dtypes of packed input only in its matmul: RuntimeError, not ValueError.
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {data.dtype} and "
                               f"{weight_dtype}")
        self._check_input_shape(data, 2)
        if hx is None:
            zeros = _C.zeros(expected, dtype=data.dtype, device=data.device)
            states = (zeros,) * (2 if self.mode == "LSTM" else 1)
        else:
            states = tuple(self._states(hx))
            if sorted_indices is not None:
                states = tuple(s.index_select(1, sorted_indices) for s in states)
            names = ("Expected hidden[0] size {}, got {}", "Expected hidden[1] size {}, got {}")
            for k, st in enumerate(states):
                self.check_hidden_size(st, expected, names[k] if len(states) > 1
                                       else "Expected hidden size {}, got {}")
        output, hidden = packed_recurrence(self, data, sizes, states)
        if unsorted_indices is not None:
            hidden = tuple(h.index_select(1, unsorted_indices) for h in hidden)
        return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                self._result(hidden))

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        states = None
        if hx is not None:
            states = tuple(self._states(hx))
            want = 3 if is_batched else 2
            if any(s.dim() != want for s in states):
                dims = ", ".join(f"{s.dim()}-D" for s in states)
                got = f"({dims}) tensors" if len(states) > 1 else f"{dims} tensor"
                raise RuntimeError(f"For {'batched 3-D' if is_batched else 'unbatched 2-D'} "
                                   f"input, {self._state_names} should also be {want}-D but "
                                   f"got {got}")
            if not is_batched:
                states = tuple(s.unsqueeze(1) for s in states)
        self.check_input(input)
        if states is not None:
            self._check_states(input, states)
            if len(states) == 1:
                states = states[0]
        fn = getattr(_C, _SEQUENCE_FN[self.mode])
        output, *hidden = fn(input, states, self._flat_weights, self.bias, self.num_layers,
                             self.dropout, self.training, self.bidirectional, self.batch_first)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = [h.squeeze(1) for h in hidden]
        return output, self._result(tuple(hidden))

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _refuse_proj_size(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


# RNN, LSTM and GRU take (*args, **kwargs) like torch's, whose signatures they share.
class RNN(RNNBase):
    """RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False): h_t = act(x W_ih^T + b_ih +
    h_{t-1} W_hh^T + b_hh) with act tanh or relu. forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        _refuse_proj_size(kwargs)
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0): gates i, f, g, o in torch's layout.
    forward(input, hx=None) with hx = (h_0, c_0) -> (output, (h_n, c_n)).
    proj_size > 0 raises NotImplementedError."""

    _state_names = "hx and cx"

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input):
        return self.get_expected_hidden_size(input)

    def _states(self, hx):
        # Indexed as torch's LSTM does: a lone tensor passed as hx gives its IndexError
        # (or dims error), not a silently split state.
        return (hx[0], hx[1])

    def _result(self, states):
        return states

    def _check_states(self, input, states):
        self.check_hidden_size(states[0], self.get_expected_hidden_size(input),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(states[1], self.get_expected_cell_size(input),
                               "Expected hidden[1] size {}, got {}")


class GRU(RNNBase):
    """GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False): gates r, z, n in torch's layout. forward(input, hx=None) ->
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        _refuse_proj_size(kwargs)
        super().__init__("GRU", *args, **kwargs)


# ---- cells ---------------------------------------------------------------------------

class RNNCellBase(Module):
    """weight_ih [chunks*H, input_size], weight_hh [chunks*H, H], bias_ih / bias_hh
    [chunks*H] (or None), initialized like the sequence layers."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        kw = _factory_kwargs(device, dtype)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(_C.empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batched(self, input, hx, num_states):
        """Checks dims; returns (input [B, in], states [B, H] each, is_batched). Missing
        states are zeros, as torch's."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = None if hx is None else (tuple(hx) if num_states > 1 else (hx,))
        if states is not None:
            for i, s in enumerate(states):
                if s.dim() not in (1, 2):
                    what = f"hx[{i}]" if num_states > 1 else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {s.dim()}D "
                                     "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if states is None:
            zeros = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                             device=input.device)
            states = (zeros,) * num_states
        elif not is_batched:
            states = tuple(s.unsqueeze(0) for s in states)
        return input, states, is_batched

    def _cell_args(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh


class RNNCell(RNNCellBase):
    """RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh'):
    forward(input, hx=None) -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._batched(input, hx, 1)
        if self.nonlinearity == "tanh":
            ret = _C.rnn_tanh_cell(input, h, *self._cell_args())
        elif self.nonlinearity == "relu":
            ret = _C.rnn_relu_cell(input, h, *self._cell_args())
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """LSTMCell(input_size, hidden_size, bias=True): forward(input, hx=None) with
    hx = (h, c) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, is_batched = self._batched(input, hx, 2)
        h, c = _C.lstm_cell(input, states, *self._cell_args())
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """GRUCell(input_size, hidden_size, bias=True): forward(input, hx=None) -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._batched(input, hx, 1)
        ret = _C.gru_cell(input, h, *self._cell_args())
        return ret if is_batched else ret.squeeze(0)
