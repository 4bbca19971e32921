"""Bad calls of the fused optimizer updates (ember._C._<name>_step_) and of ember.optim."""
import ember
import ember.optim as optim

C = ember._C


def _z(*shape, dtype=ember.float32):
    return ember.zeros(shape, dtype=dtype)


def _sgd(param, grad, buf=None, momentum=0.0):
    return C._sgd_step_(param, grad, buf, lr=0.1, momentum=momentum, dampening=0.0,
                        weight_decay=0.0, nesterov=False, maximize=False, init_buffer=False)


def _adam(param, grad, m, v, step=1.0):
    return C._adam_step_(param, grad, m, v, None, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8,
                         weight_decay=0.0, step=step, maximize=False, decoupled_weight_decay=False)


def _in_place_on_leaf():
    w = _z(3).requires_grad_()
    _sgd(w, _z(3))


CASES = [
    ("sgd_step grad shape", lambda: _sgd(_z(3), _z(4)), RuntimeError,
     r"sgd_step: expected grad of shape \[3\] like the parameter, got \[4\]"),
    ("sgd_step grad dtype", lambda: _sgd(_z(3), _z(3, dtype=ember.float64)), RuntimeError,
     r"sgd_step: expected grad of dtype float32 like the parameter, got float64"),
    ("sgd_step integer param", lambda: _sgd(_z(3, dtype=ember.int64), _z(3, dtype=ember.int64)),
     TypeError, r"sgd_step: expected a float32 or float64 parameter"),
    ("sgd_step float16 param", lambda: _sgd(_z(3, dtype=ember.float16), _z(3, dtype=ember.float16)),
     TypeError, r"sgd_step: expected a float32 or float64 parameter"),
    ("sgd_step momentum without buffer", lambda: _sgd(_z(3), _z(3), momentum=0.9), RuntimeError,
     r"sgd_step: momentum_buffer is needed when momentum != 0"),
    ("sgd_step in place on a leaf with grad on", _in_place_on_leaf, RuntimeError,
     r"a leaf Variable that requires grad is being used in an in-place operation \(sgd_step\)"),
    ("adam_step state shape", lambda: _adam(_z(3), _z(3), _z(3), _z(2)), RuntimeError,
     r"adam_step: expected exp_avg_sq of shape \[3\] like the parameter, got \[2\]"),
    ("adam_step step 0", lambda: _adam(_z(3), _z(3), _z(3), _z(3), step=0.0), ValueError,
     r"adam_step: step counts the current step and must be >= 1, got 0"),
    ("rmsprop_step grad_avg dtype", lambda: C._rmsprop_step_(
        _z(2), _z(2), _z(2), None, _z(2, dtype=ember.float64), lr=0.1, alpha=0.9, eps=1e-8,
        weight_decay=0.0, momentum=0.0, maximize=False), RuntimeError,
     r"rmsprop_step: expected grad_avg of dtype float32"),
    ("adagrad_step sum shape", lambda: C._adagrad_step_(
        _z(2), _z(2), _z(1), lr=0.1, lr_decay=0.0, weight_decay=0.0, eps=1e-10, step=1.0,
        maximize=False), RuntimeError, r"adagrad_step: expected sum of shape \[2\]"),
    ("SGD negative lr", lambda: optim.SGD([_z(2).requires_grad_()], lr=-1), ValueError,
     r"Invalid learning rate: -1"),
    ("Adam beta out of range", lambda: optim.Adam([_z(2).requires_grad_()], betas=(0.9, 1.0)),
     ValueError, r"Invalid beta parameter at index 1: 1.0"),
    ("optimizer of a tensor", lambda: optim.Adagrad(_z(2).requires_grad_()), TypeError,
     r"params argument given to the optimizer should be an iterable of Tensors or dicts"),
]
