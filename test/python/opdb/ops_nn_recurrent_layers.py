"""Entries of the whole-layer recurrent ops (lib/ops/rnn_layer.h): nn.LSTM / nn.GRU under
no_grad, where each direction of each layer is one lstm_layer_inference /
gru_layer_inference call, and torch.lstm / torch.gru with a graph (lstm_layer /
gru_layer: their gradients, gradcheck and gradgradcheck), against torch's modules and
functions with the same weights. The samples
and module helpers are the fused cells' (ops_nn.py)."""
from .opinfo import FLOAT, OpInfo
from .ops_nn import _gru_module, _lstm_module, _seq_samples


def _without_graph(fn):
    """fn under no_grad: no graph is recorded, so the layer runs as one op."""
    def run(m, *args, **cfg):
        with m.no_grad():
            return fn(m, *args, **cfg)
    return run


def _lstm_fn(m, x, h0, c0, *w, num_layers=1, bidirectional=False, batch_first=False, bias=True, **_sizes):
    """torch.lstm on the sample's weights themselves (so their gradients are compared and
    gradchecked too, unlike a module's copies of them)."""
    return m.lstm(x, (h0, c0), w, bias, num_layers, 0.0, True, bidirectional, batch_first)


def _gru_fn(m, x, h0, *w, num_layers=1, bidirectional=False, batch_first=False, bias=True, **_sizes):
    return m.gru(x, h0, w, bias, num_layers, 0.0, True, bidirectional, batch_first)


OPS = [
    OpInfo("lstm_layer_inference", _without_graph(_lstm_module), _seq_samples(4), dtypes=FLOAT, grad=False),
    # values without a graph run the *_inference ops; gradients (the weights and inputs
    # require grad) run lstm_layer / gru_layer
    OpInfo("lstm_layer", _lstm_fn, _seq_samples(4), dtypes=FLOAT),
    OpInfo("gru_layer", _gru_fn, _seq_samples(3), dtypes=FLOAT),
    OpInfo("gru_layer_inference", _without_graph(_gru_module), _seq_samples(3), dtypes=FLOAT, grad=False),
]
