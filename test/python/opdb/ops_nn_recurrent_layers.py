"""Entries of the whole-layer recurrent ops (lib/ops/rnn_layer.h): nn.LSTM / nn.GRU under
no_grad, where each direction of each layer is one lstm_layer_inference /
gru_layer_inference call, against torch's modules with the same weights. The samples
and module helpers are the fused cells' (ops_nn.py)."""
from .opinfo import FLOAT, OpInfo
from .ops_nn import _gru_module, _lstm_module, _seq_samples


def _without_graph(fn):
    """fn under no_grad: no graph is recorded, so the layer runs as one op."""
    def run(m, *args, **cfg):
        with m.no_grad():
            return fn(m, *args, **cfg)
    return run


OPS = [
    OpInfo("lstm_layer_inference", _without_graph(_lstm_module), _seq_samples(4), dtypes=FLOAT, grad=False),
    OpInfo("gru_layer_inference", _without_graph(_gru_module), _seq_samples(3), dtypes=FLOAT, grad=False),
]
