"""RNN / LSTM / GRU over a PackedSequence: the recurrence step by step on the shrinking
batch, with the one-step C++ cells (lstm_cell, gru_cell, rnn_*_cell).

Each sequence stops at its own length: at step t only the first batch_sizes[t] rows
(the sequences longer than t) advance, and a row's final state is its state at its last
step. This is a Python loop over time steps (layers x directions x steps cell calls), so
slower than the fused recurrence that padded input uses, and than torch's packed kernel.
"""
from ... import _C
from .. import functional as F

__all__ = ["packed_recurrence"]


def _cell(mode):
    if mode == "LSTM":
        return lambda x, state, w: _C.lstm_cell(x, state, *w)
    fn = {"GRU": _C.gru_cell, "RNN_TANH": _C.rnn_tanh_cell, "RNN_RELU": _C.rnn_relu_cell}[mode]
    return lambda x, state, w: (fn(x, state[0], *w),)


def _split(data, batch_sizes):
    steps, offset = [], 0
    for bs in batch_sizes:
        steps.append(data[offset:offset + bs])
        offset += bs
    return steps


def _forward_direction(cell, steps, batch_sizes, state, weights):
    """Time 0 to T-1; state rows leave as their sequences end. Returns (outputs, final)."""
    outputs, finished = [], []
    for x, bs in zip(steps, batch_sizes):
        if bs < state[0].size(0):
            finished.append(tuple(s[bs:] for s in state))
            state = tuple(s[:bs] for s in state)
        state = cell(x, state, weights)
        outputs.append(state[0])
    # Rows ended in reverse order of their position: the last step holds rows 0..bs_T-1.
    parts = [state] + finished[::-1]
    return outputs, tuple(_C.cat([p[k] for p in parts], 0) for k in range(len(state)))


def _reverse_direction(cell, steps, batch_sizes, initial, weights):
    """Time T-1 down to 0; rows join (from the initial state) as their sequences begin."""
    outputs = [None] * len(steps)
    state = tuple(s[:0] for s in initial)
    for t in range(len(steps) - 1, -1, -1):
        bs = batch_sizes[t]
        have = state[0].size(0)
        if bs > have:
            state = tuple(_C.cat([s, i[have:bs]], 0) for s, i in zip(state, initial))
        state = cell(steps[t], state, weights)
        outputs[t] = state[0]
    return outputs, state


def packed_recurrence(module, data, batch_sizes, hx):
    """(output data, final states as a tuple of (layers*dirs, B, H) tensors) for a module
    of mode module.mode; hx is that tuple of initial states (already in sorted order)."""
    cell = _cell(module.mode)
    num_dirs = 2 if module.bidirectional else 1
    finals = [[] for _ in hx]
    layer_input = data
    weights = module.all_weights
    for layer in range(module.num_layers):
        steps = _split(layer_input, batch_sizes)
        dir_outputs = []
        for d in range(num_dirs):
            idx = layer * num_dirs + d
            w = weights[idx] if module.bias else weights[idx] + [None, None]
            init = tuple(h[idx] for h in hx)
            run = _forward_direction if d == 0 else _reverse_direction
            outs, final = run(cell, steps, batch_sizes, init, w)
            dir_outputs.append(_C.cat(outs, 0))
            for k, f in enumerate(final):
                finals[k].append(f)
        layer_input = dir_outputs[0] if num_dirs == 1 else _C.cat(dir_outputs, 1)
        if module.dropout and module.training and layer < module.num_layers - 1:
            layer_input = F.dropout(layer_input, module.dropout, True)
    return layer_input, tuple(_C.stack(f, 0) for f in finals)
