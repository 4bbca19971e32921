"""F.ctc_loss: the connectionist temporal classification loss as a composite of ember ops.

The forward algorithm runs in log space over time on the blank-extended targets
(b, l1, b, l2, ..., b) of every sample at once: each step is a log-sum-exp of the
previous alphas at the same position, one back and (where the label differs from the
one two back) two back, plus the log-probability of the extended label. "Minus
infinity" is a large finite negative number inside the recursion, so that autograd never
meets inf - inf; the result maps back to inf where no alignment exists.

Gradients come from autograd through that recursion, plus the term torch's own backward
adds: PyTorch's ctc_loss gradient with respect to log_probs is exp(log_probs) minus the
alignment posterior (the true gradient when log_probs is a log_softmax output, which is
how it is meant to be used), nan where the loss is infinite (0 with zero_infinity), and
0 past each input length. _CTCTorchGradient adds the exp(log_probs) part so that the
gradients equal torch's.
"""
from .. import _C
from .._type_info import finfo
from ..autograd.function import Function

__all__ = ["ctc_loss"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _check(cond, message):
    if not cond:
        raise RuntimeError(message)


def _lengths(value, name, batch):
    """input_lengths / target_lengths as a list of Python ints."""
    if isinstance(value, _C.Tensor):
        if value.is_floating_point() or value.dtype == _C.bool or value.is_complex():
            raise RuntimeError(f"{name} must be integral")
        values = value.reshape(-1).tolist()
    else:
        values = [int(v) for v in value]
    _check(len(values) == batch, f"{name} must be of size batch_size")
    return values


def _choose(mask, a, b, dtype):
    """where(mask, a, b) for two numbers, in dtype (a float32 detour would turn the large
    negative stand-in for -inf into -inf)."""
    return _C.where(mask, _C.full(tuple(mask.shape), a, dtype=dtype, device=mask.device), b)


class _CTCTorchGradient(Function):
    """Identity on the per-sample losses; its backward adds exp(log_probs) * weight * grad
    to the gradient of log_probs (weight: 1 before each input length, 0 after, nan where
    the loss is infinite and zero_infinity is off), the part of torch's ctc_loss gradient
    that the recursion's own gradient (minus the posterior) lacks."""

    @staticmethod
    def forward(ctx, nll, log_probs, weight):
        ctx.save_for_backward(log_probs, weight)
        return nll.clone()

    @staticmethod
    def backward(ctx, grad):
        log_probs, weight = ctx.saved_tensors
        extra = log_probs.exp() * weight * grad.reshape(1, -1, 1)
        return grad, extra, None


def _ctc_nll(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """Per-sample negative log-likelihoods (N,) of batched (T, N, C) log_probs."""
    T, N, C = log_probs.shape
    dtype, device = log_probs.dtype, log_probs.device
    S = max(target_lengths) if target_lengths else 0
    L = 2 * S + 1
    neg = -finfo(dtype).max / 8  # "minus infinity" that stays finite under + and -

    # padded targets (N, S) as int64, positions past a sample's length set to blank
    positions = _C.arange(S, device=device)
    tl = _C.tensor(target_lengths, dtype=_C.int64, device=device)
    valid = positions.unsqueeze(0) < tl.unsqueeze(1)
    if targets.dim() == 1:  # concatenated
        starts, acc = [], 0
        for n in target_lengths:
            starts.append(acc)
            acc += n
        index = _C.tensor(starts, dtype=_C.int64, device=device).unsqueeze(1) + positions
        index = _C.where(valid, index, 0)
        flat = targets.long() if targets.numel() else _C.zeros(1, dtype=_C.int64, device=device)
        padded = flat.index_select(0, index.reshape(-1)).reshape(N, S)
    else:
        padded = targets[:, :S].long()
    padded = _C.where(valid, padded, blank)
    # blank-extended labels (N, L)
    ext = _C.stack([_C.full((N, S), blank, dtype=_C.int64, device=device), padded], 2)
    ext = _C.cat([ext.reshape(N, 2 * S), _C.full((N, 1), blank, dtype=_C.int64, device=device)],
                 1)
    # the two-back transition: into a label that differs from the label two back
    skip = _C.zeros((N, L), dtype=dtype, device=device)
    if S > 1:
        differs = padded[:, 1:] != padded[:, :-1]  # label k vs label k - 1
        allowed = _C.zeros((N, L), dtype=_C.bool, device=device)
        allowed[:, 3::2] = differs
        skip = _C.where(allowed, skip, neg)
    else:
        skip = skip + neg

    t_max = max(input_lengths)
    lp_ext = log_probs[:t_max].gather(2, ext.unsqueeze(0).expand(t_max, N, L)) if t_max else None
    if t_max:
        lp_ext = lp_ext.clamp(min=neg)
        steps = lp_ext.unbind(0)
        start = _C.full((1, L), neg, dtype=dtype, device=device)
        start[:, :2] = 0
        alpha = steps[0] + start
        alphas = [alpha]
        pad2 = _C.full((N, 2), neg, dtype=dtype, device=device)
        for t in range(1, t_max):
            shifted = _C.cat([pad2, alpha], 1)
            cand = _C.stack([alpha, shifted[:, 1:L + 1], shifted[:, :L] + skip], 0)
            m = cand.detach().amax(0)
            alpha = (cand - m).exp().sum(0).log() + m + steps[t]
            alphas.append(alpha)
        every = _C.stack(alphas, 0)  # (t_max, N, L)
        last = _C.tensor([max(n - 1, 0) for n in input_lengths], dtype=_C.int64, device=device)
        final = every.gather(0, last.reshape(1, N, 1).expand(1, N, L)).squeeze(0)
        ends = _C.stack([2 * tl, (2 * tl - 1).clamp(min=0)], 1)
        end_alpha = final.gather(1, ends)
        end_alpha = end_alpha + _choose(_C.stack([tl >= 0, tl > 0], 1), 0.0, neg, dtype)
        m = end_alpha.detach().amax(1, keepdim=True)
        ll = ((end_alpha - m).exp().sum(1, keepdim=True).log() + m).squeeze(1)
    else:
        ll = _C.zeros((N,), dtype=dtype, device=device)
    # an input of length 0 aligns only to an empty target
    started = _C.tensor([n > 0 for n in input_lengths], dtype=_C.bool, device=device)
    empty_ok = _C.tensor([n == 0 for n in target_lengths], dtype=_C.bool, device=device)
    ll = _C.where(started, ll, _choose(empty_ok, 0.0, neg, dtype))
    feasible = ll > neg / 2
    nll = _C.where(feasible, -ll, float("inf"))

    # torch's gradient: + exp(log_probs) before each input length (nan where infeasible)
    in_len = _C.tensor(input_lengths, dtype=_C.int64, device=device)
    before = _C.arange(T, device=device).unsqueeze(1) < in_len.unsqueeze(0)
    bad = 0.0 if zero_infinity else float("nan")
    weight = _C.where(before, _choose(feasible, 1.0, bad, dtype).unsqueeze(0), 0.0).unsqueeze(2)
    nll = _CTCTorchGradient.apply(nll, log_probs, weight.detach())
    if zero_infinity:
        nll = _C.where(_C.isinf(nll), 0.0, nll)
    return nll


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
              zero_infinity):
    """torch.ctc_loss with the integer reduction (0 none, 1 mean, 2 sum)."""
    if isinstance(input_lengths, _C.Tensor) != isinstance(target_lengths, _C.Tensor) or \
            isinstance(input_lengths, int) or isinstance(target_lengths, int):
        got = ", ".join(type(a).__name__ if not isinstance(a, _C.Tensor) else "Tensor"
                        for a in (log_probs, targets, input_lengths, target_lengths, blank,
                                  reduction, zero_infinity))
        raise TypeError(f"ctc_loss() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n * (Tensor log_probs, Tensor targets, "
                        "tuple of ints input_lengths, tuple of ints target_lengths, int blank, "
                        "int reduction, bool zero_infinity)\n * (Tensor log_probs, Tensor "
                        "targets, Tensor input_lengths, Tensor target_lengths, int blank, int "
                        "reduction, bool zero_infinity)")
    if not log_probs.is_floating_point():
        dtype = str(log_probs.dtype).split(".")[-1]
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool"}
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{names.get(dtype, dtype)}'")
    batched = log_probs.dim() == 3
    if not batched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0)
        if isinstance(input_lengths, _C.Tensor):
            input_lengths = input_lengths.reshape(-1)
        if isinstance(target_lengths, _C.Tensor):
            target_lengths = target_lengths.reshape(-1)
    _check(log_probs.numel() > 0, "log_probs tensor must not be empty")
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    _check(log_probs.dim() == 3, f"Expected 3-dimensional tensor, but got "
           f"{log_probs.dim()}-dimensional tensor for argument #1 'log_probs'{where}")
    batch = log_probs.shape[1] if log_probs.dim() >= 2 else 1
    il = _lengths(input_lengths, "input_lengths", batch)
    tl = _lengths(target_lengths, "target_lengths", batch)
    num_labels = log_probs.shape[-1]
    _check(0 <= blank < num_labels, "blank must be in label range")
    _check(1 <= targets.dim() <= 2, f"Expected 1 to 2 dimensions, but got "
           f"{targets.dim()}-dimensional tensor for argument #2 'targets'{where}")
    T = log_probs.shape[0]
    for n in range(batch):
        _check(il[n] >= 0, f"Expected input_lengths to have value at least 0, but got value "
               f"{il[n]}{where}")
        _check(il[n] <= T, f"Expected input_lengths to have value at most {T}, but got value "
               f"{il[n]}{where}")
        _check(tl[n] >= 0, f"Expected target_lengths to have value at least 0, but got value "
               f"{tl[n]}{where}")
    if targets.dim() == 1:
        total = sum(tl)
        _check(targets.shape[0] == total, f"Expected tensor to have size {total} at dimension 0,"
               f" but got size {targets.shape[0]} for argument #2 'targets'{where}")
    else:
        longest = max(tl) if tl else 0
        _check(targets.shape[1] >= longest, f"Expected tensor to have size at least {longest} "
               f"at dimension 1, but got size {targets.shape[1]} for argument #2 "
               f"'targets'{where}")
    nll = _ctc_nll(log_probs, targets, il, tl, blank, zero_infinity)
    if reduction == 1:
        lengths = _C.tensor(tl, dtype=log_probs.dtype, device=log_probs.device).clamp(min=1)
        return (nll / lengths).mean()
    if reduction == 2:
        return nll.sum()
    return nll if batched else nll.squeeze(0)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """torch.nn.functional.ctc_loss: log_probs (T, N, C) or (T, C), targets (N, S) padded
    or (sum(target_lengths),) concatenated, lengths as tensors or int sequences. 'mean'
    divides each loss by its target length (at least 1) and averages over the batch."""
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                     _reduction_enum(reduction), zero_infinity)
