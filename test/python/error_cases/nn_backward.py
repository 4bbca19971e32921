"""Bad calls of the nn backward primitives (ember._C._<name>_backward)."""
import ember

C = ember._C


def _z(*shape, dtype=None):
    return ember.zeros(shape, dtype=dtype or ember.float32)


def _i(values):
    t = ember.zeros(len(values), dtype=ember.int64)
    for k, v in enumerate(values):
        t.select(0, k).fill_(v)
    return t


_ALL = [True, True, True]

CASES = [
    # normalizations
    ("layer_norm_backward grad shape", lambda: C._native_layer_norm_backward(
        _z(2, 4), _z(2, 5), [5], _z(2, 1), _z(2, 1), None, None, _ALL), RuntimeError,
     r"native_layer_norm_backward: expected grad_output of shape \[2, 5\]"),
    ("layer_norm_backward normalized_shape", lambda: C._native_layer_norm_backward(
        _z(2, 5), _z(2, 5), [4], _z(2, 1), _z(2, 1), None, None, _ALL), RuntimeError,
     r"native_layer_norm_backward: normalized_shape \[4\] is not the trailing shape"),
    ("layer_norm_backward rstd size", lambda: C._native_layer_norm_backward(
        _z(2, 5), _z(2, 5), [5], _z(2, 1), _z(3, 1), None, None, _ALL), RuntimeError,
     r"native_layer_norm_backward: expected rstd to hold 2 values"),
    ("layer_norm_backward weight size", lambda: C._native_layer_norm_backward(
        _z(2, 5), _z(2, 5), [5], _z(2, 1), _z(2, 1), _z(4), None, _ALL), RuntimeError,
     r"native_layer_norm_backward: expected weight to hold 5 values"),
    ("layer_norm_backward int input", lambda: C._native_layer_norm_backward(
        _z(2, 5), _z(2, 5, dtype=ember.int64), [5], _z(2, 1), _z(2, 1), None, None, _ALL), NotImplementedError,
     r"native_layer_norm_backward: not implemented for input of dtype int64"),
    ("batch_norm_backward train without saved stats", lambda: C._native_batch_norm_backward(
        _z(4, 3), _z(4, 3), None, None, None, None, None, True, 1e-5, _ALL), RuntimeError,
     r"native_batch_norm_backward: save_mean is an undefined tensor"),
    ("batch_norm_backward eval without running stats", lambda: C._native_batch_norm_backward(
        _z(4, 3), _z(4, 3), None, None, None, _z(3), _z(3), False, 1e-5, _ALL), RuntimeError,
     r"native_batch_norm_backward: running_mean is an undefined tensor"),
    ("batch_norm_backward 1-d input", lambda: C._native_batch_norm_backward(
        _z(4), _z(4), None, None, None, _z(1), _z(1), True, 1e-5, _ALL), RuntimeError,
     r"native_batch_norm_backward: expected an input of at least 2 dims"),
    ("batch_norm_backward weight size", lambda: C._native_batch_norm_backward(
        _z(4, 3), _z(4, 3), _z(4), None, None, _z(3), _z(3), True, 1e-5, _ALL), RuntimeError,
     r"native_batch_norm_backward: expected weight to hold 3 values"),
    ("batch_norm_backward float64 weight for float32 input", lambda: C._native_batch_norm_backward(
        _z(4, 3), _z(4, 3), _z(3, dtype=ember.float64), None, None, _z(3), _z(3), True, 1e-5, _ALL), RuntimeError,
     r"native_batch_norm_backward: mixed dtype"),
    ("group_norm_backward sizes", lambda: C._native_group_norm_backward(
        _z(2, 4, 3), _z(2, 4, 3), _z(2, 2), _z(2, 2), None, 2, 4, 5, 2, _ALL), RuntimeError,
     r"native_group_norm_backward: N=2, C=4, HxW=5 do not describe input"),
    ("group_norm_backward groups", lambda: C._native_group_norm_backward(
        _z(2, 4, 3), _z(2, 4, 3), _z(2, 3), _z(2, 3), None, 2, 4, 3, 3, _ALL), RuntimeError,
     r"native_group_norm_backward: expected the number of channels \(4\) to be divisible by group \(3\)"),
    # embedding, dropout
    ("embedding_dense_backward index out of range", lambda: C._embedding_dense_backward(
        _z(2, 3), _i([0, 5]), 5), IndexError, r"embedding_dense_backward: index 5 is out of range"),
    ("embedding_dense_backward negative index", lambda: C._embedding_dense_backward(
        _z(2, 3), _i([-1, 2]), 5), IndexError, r"embedding_dense_backward: index -1 is out of range"),
    ("embedding_dense_backward float indices", lambda: C._embedding_dense_backward(
        _z(2, 3), _z(2), 5), RuntimeError, r"embedding_dense_backward: expected indices of dtype int64 or int32"),
    ("embedding_dense_backward grad shape", lambda: C._embedding_dense_backward(
        _z(3, 3), _i([0, 1]), 5), RuntimeError,
     r"embedding_dense_backward: expected grad_output of shape indices.shape \+ \[embedding_dim\]"),
    ("dropout_backward float mask", lambda: C._native_dropout_backward(_z(3), _z(3), 2.0), RuntimeError,
     r"native_dropout_backward: mask should be a bool tensor"),
    ("dropout_backward mask shape", lambda: C._native_dropout_backward(
        _z(3), _z(4, dtype=ember.bool), 2.0), RuntimeError, r"native_dropout_backward: mask of shape \[4\]"),
    # pad, interpolate
    ("pad_backward grad shape", lambda: C._pad_backward(_z(2, 3, 7), [2, 3, 4], [1, 1], "reflect"),
     RuntimeError, r"pad_backward: grad_output .* is not input_size \[2, 3, 4\] padded by \[1, 1\]"),
    ("pad_backward reflect pad too wide", lambda: C._pad_backward(_z(1, 1, 10), [1, 1, 4], [4, 2], "reflect"),
     RuntimeError, r"pad_backward: padding \(4, 2\) at dimension 2 should be less than the input size 4"),
    ("pad_backward circular wraps twice", lambda: C._pad_backward(_z(1, 1, 12), [1, 1, 3], [5, 4], "circular"),
     RuntimeError, r"pad_backward: padding \(5, 4\) at dimension 2 wraps around more than once"),
    ("pad_backward unknown mode", lambda: C._pad_backward(_z(1, 1, 5), [1, 1, 3], [1, 1], "mirror"),
     NotImplementedError, r"pad_backward: unrecognised padding mode mirror"),
    ("pad_backward odd pad", lambda: C._pad_backward(_z(1, 1, 5), [1, 1, 3], [1, 1, 1], "constant"),
     RuntimeError, r"pad_backward: expected an even number of pads"),
    ("interpolate_backward rank", lambda: C._interpolate_backward(_z(2, 6), [2, 3], "nearest"), RuntimeError,
     r"interpolate_backward: expected grad_output and input_size of 3 to 5 dims"),
    ("interpolate_backward batch mismatch", lambda: C._interpolate_backward(_z(2, 3, 6), [3, 3, 4], "linear"),
     RuntimeError, r"interpolate_backward: grad_output .* and input_size \[3, 3, 4\] differ in N or C"),
    ("interpolate_backward mode", lambda: C._interpolate_backward(_z(2, 3, 6), [2, 3, 4], "bicubic"),
     NotImplementedError, r"interpolate_backward: mode 'bicubic' is not supported"),
    ("interpolate_backward nearest align_corners", lambda: C._interpolate_backward(
        _z(2, 3, 6), [2, 3, 4], "nearest", True), ValueError, r"interpolate_backward: align_corners option"),
    ("interpolate_backward scales count", lambda: C._interpolate_backward(
        _z(2, 3, 6, 6), [2, 3, 4, 4], "bilinear", False, [2.0]), RuntimeError,
     r"interpolate_backward: expected 2 scales"),
    # losses
    ("cross_entropy_backward target out of range", lambda: C._cross_entropy_backward(
        _z(), _z(3, 5), _i([0, 5, 1]), None, 1), IndexError, r"cross_entropy_backward: Target 5 is out of bounds"),
    ("nll_loss_backward target out of range", lambda: C._nll_loss_backward(
        _z(), _z(3, 5), _i([0, 7, 1]), None, 1, -100), IndexError, r"nll_loss_backward: Target 7 is out of bounds"),
    ("nll_loss_backward reduction", lambda: C._nll_loss_backward(
        _z(), _z(3, 5), _i([0, 1, 1]), None, 3, -100), ValueError, r"nll_loss_backward: reduction must be 0"),
    ("nll_loss_backward grad for none", lambda: C._nll_loss_backward(
        _z(2), _z(3, 5), _i([0, 1, 1]), None, 0, -100), RuntimeError,
     r"nll_loss_backward: expected grad_output of shape \[3\]"),
    ("nll_loss_backward reduced grad", lambda: C._nll_loss_backward(
        _z(3), _z(3, 5), _i([0, 1, 1]), None, 1, -100), RuntimeError,
     r"nll_loss_backward: expected a grad_output of one value"),
    ("cross_entropy_backward weight size", lambda: C._cross_entropy_backward(
        _z(), _z(3, 5), _i([0, 1, 1]), _z(4), 1), RuntimeError,
     r"cross_entropy_backward: weight tensor should be defined either for all 5 classes"),
    ("cross_entropy_backward label_smoothing", lambda: C._cross_entropy_backward(
        _z(), _z(3, 5), _i([0, 1, 1]), None, 1, -100, 1.5), RuntimeError,
     r"cross_entropy_backward: label_smoothing must be between 0.0 and 1.0"),
    ("cross_entropy_backward target shape", lambda: C._cross_entropy_backward(
        _z(), _z(3, 5), _i([0, 1]), None, 1), RuntimeError, r"cross_entropy_backward: expected target of shape \[3\]"),
    ("mse_loss_backward shapes", lambda: C._mse_loss_backward(_z(), _z(3, 4), _z(5, 4), 1), RuntimeError,
     r"mse_loss_backward"),
    ("l1_loss_backward int inputs", lambda: C._l1_loss_backward(
        _z(), _z(3, dtype=ember.int64), _z(3, dtype=ember.int64), 1), NotImplementedError,
     r"l1_loss_backward: not implemented for dtype int64"),
    ("smooth_l1_loss_backward negative beta", lambda: C._smooth_l1_loss_backward(_z(), _z(3), _z(3), 1, -1.0),
     RuntimeError, r"smooth_l1_loss_backward: beta must be non-negative"),
    ("huber_loss_backward zero delta", lambda: C._huber_loss_backward(_z(), _z(3), _z(3), 1, 0.0), RuntimeError,
     r"huber_loss_backward: delta must be positive"),
    ("binary_cross_entropy_backward target shape", lambda: C._binary_cross_entropy_backward(
        _z(), _z(3), _z(4), None, 1), ValueError, r"binary_cross_entropy_backward: target size \(\[4\]\)"),
    ("binary_cross_entropy_with_logits_backward pos_weight", lambda: C._binary_cross_entropy_with_logits_backward(
        _z(), _z(3, 4), _z(3, 4), None, _z(5), 1), RuntimeError,
     r"binary_cross_entropy_with_logits_backward: pos_weight of shape \[5\] does not broadcast"),
]
