"""L-BFGS: torch.optim.LBFGS's arguments, defaults, checks, state and algorithm.

Composed of ember tensor ops in Python. The two-loop recursion and the strong-Wolfe
line search (bracketing, then zooming with safeguarded cubic interpolation, as in
minFunc and torch/optim's lswolfe.lua) follow PyTorch's documented algorithm with
the same arithmetic in the same order, and the same mix of Python numbers and 0-dim
tensors (a step length may be either, as in torch), so runs agree with PyTorch's
step by step.
"""
from .. import _C
from ..autograd import enable_grad, no_grad
from .optimizer import Optimizer, _check_lr, _scalar

__all__ = ["LBFGS"]


def _over(num, den):
    """num / den as torch evaluates it: a Python number over a tensor is the tensor's
    reciprocal times the number (Tensor.__rtruediv__), which can round differently
    from a division."""
    if isinstance(den, _C.Tensor) and not isinstance(num, _C.Tensor):
        return den.reciprocal() * num
    return num / den


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2,
    clamped to bounds (default: the interval between x1 and x2); the interval's
    midpoint when the cubic has no minimizer."""
    if bounds is None:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    else:
        lo, hi = bounds
    d1 = g1 + g2 - _over(3 * (f1 - f2), x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if not d2_square >= 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    # Written from the point farther along, so the same formula serves both orders.
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step length t along d satisfying the strong Wolfe conditions
    (f(x + t d) <= f + c1 t gtd and |g(x + t d) . d| <= -c2 gtd), or the best point
    found within max_ls evaluations. Returns (loss, flat gradient, t, evaluations)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)

    # Phase 1: grow t until [t_prev, t] brackets an acceptable point (or t is one).
    # A bracket is four parallel lists: step lengths, losses, gradients, slopes.
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    br_t = br_f = br_g = br_gtd = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            # Not enough decrease (or worse than before): the minimum lies behind t.
            br_t, br_f = [t_prev, t], [f_prev, f_new]
            br_g, br_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            # The curvature condition holds too: t is acceptable as it is.
            br_t, br_f, br_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            # The slope turned positive: a minimum lies between t_prev and t.
            br_t, br_f = [t_prev, t], [f_prev, f_new]
            br_g, br_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        # Still descending: extrapolate to a longer step, at most 10 t.
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

    if ls_iter == max_ls:  # out of evaluations: bracket from the start to the last point
        br_t, br_f, br_g = [0, t], [f, f_new], [g, g_new]

    # Phase 2 (zoom): shrink the bracket around a point that satisfies the conditions.
    insuf_progress = False
    low, high = (0, 1) if br_f[0] <= br_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(br_t[1] - br_t[0]) * d_norm < tolerance_change:
            break  # the bracket is too small to matter
        t = _cubic_interpolate(br_t[0], br_f[0], br_gtd[0], br_t[1], br_f[1], br_gtd[1])

        # A trial point within 10% of the bracket's ends makes little progress: if the
        # previous one did too, or this one is at (or past) an end, move it to 10%
        # of the bracket's length from the nearer end.
        t_max, t_min = max(br_t), min(br_t)
        eps = 0.1 * (t_max - t_min)
        if min(t_max - t, t - t_min) < eps:
            if insuf_progress or t >= t_max or t <= t_min:
                t = t_max - eps if abs(t - t_max) < abs(t - t_min) else t_min + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= br_f[low]:
            # Not enough decrease, or no better than the low end: t becomes the high end.
            br_t[high], br_f[high] = t, f_new
            br_g[high], br_gtd[high] = g_new.clone(), gtd_new
            low, high = (0, 1) if br_f[0] <= br_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True  # the strong Wolfe conditions hold at t
            elif gtd_new * (br_t[high] - br_t[low]) >= 0:
                # The minimum lies on the other side of t: the old low end becomes the high.
                br_t[high], br_f[high] = br_t[low], br_f[low]
                br_g[high], br_gtd[high] = br_g[low], br_gtd[low]
            br_t[low], br_f[low] = t, f_new
            br_g[low], br_gtd[low] = g_new.clone(), gtd_new

    return br_f[low], br_g[low], br_t[low], evals


class LBFGS(Optimizer):
    """L-BFGS (limited-memory BFGS), as torch.optim.LBFGS (after minFunc).

    step(closure) runs up to max_iter iterations (max_eval closure evaluations): the
    direction is -H g, with H g from the two-loop recursion over the last
    history_size pairs (s = t d, y = change of gradient; pairs with y.s <= 1e-10 are
    skipped) and H's initial diagonal y.s / y.y; the step length is lr (the first
    iteration ever: min(1, 1 / |g|_1) * lr), or with line_search_fn="strong_wolfe"
    the result of a strong-Wolfe line search started at it. It stops early when
    max |g| <= tolerance_grad, or the step or the change of loss falls below
    tolerance_change. Only one parameter group; the closure is required (it is
    evaluated several times). maximize negates the loss and the gradient.
    The state, kept under the first parameter: func_evals, n_iter, d, t, old_dirs,
    old_stps, ro, H_diag, prev_flat_grad, prev_loss, al.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None, *,
                 maximize=False):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn,
                    "maximize": maximize}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # ---- the parameters as one flat vector -------------------------------------------

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _maximize(self):
        return self.param_groups[0].get("maximize", False)

    def _gather_flat_grad(self):
        """All gradients in one new vector (zeros for a parameter without one), negated
        when maximizing."""
        views = [_C.zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None
                 else p.grad.reshape(-1) for p in self._params]
        flat_grad = _C.cat(views, 0)  # always a copy: the negation leaves p.grad alone
        if self._maximize():
            flat_grad.neg_()
        return flat_grad

    def _add_grad(self, step_size, update):
        """param += step_size * update, update being the flat vector of all parameters."""
        step_size = _scalar(step_size)
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p.copy_(data)

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and flat gradient at x + t d; the parameters are put back to x."""
        self._add_grad(t, d)
        loss = float(closure())
        if self._maximize():
            loss = -loss
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---- the step ----------------------------------------------------------------------

    def step(self, closure):
        """Up to max_iter L-BFGS iterations; returns the closure's first loss."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        if len(self.param_groups) != 1:
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}")

        user_closure = closure

        def closure():  # always evaluated with grad mode on
            with enable_grad():
                return user_closure()

        if len(self._params) == 0:  # nothing to optimize, but the caller gets a loss
            return closure()

        group = self.param_groups[0]
        lr = _scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        maximize = group.get("maximize", False)

        # The optimizer's state is global; it is kept under the first parameter (so
        # that load_state_dict casts it like a parameter's state).
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = -float(orig_loss) if maximize else float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:  # already optimal
            return orig_loss

        # What the previous step() left (None on the first).
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # ---- the descent direction ----
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                # Remember the last step's curvature pair, if it has positive curvature.
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:  # forget the oldest pair
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(_over(1.0, ys))
                    H_diag = ys / y.dot(y)  # the initial inverse Hessian's scale

                # The two-loop recursion: d = -H g, in one buffer.
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=_scalar(-al[i]))
                d = r = q.mul(H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=_scalar(al[i] - be_i))

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # ---- the step length ----
            if state["n_iter"] == 1:
                t = min(1.0, _over(1.0, flat_grad.abs().sum())) * lr
            else:
                t = lr

            gtd = flat_grad.dot(d)  # the directional derivative
            if gtd > -tolerance_change:
                break  # not a descent direction (any more)

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)  # a fixed step
                if n_iter != max_iter:
                    # Re-evaluate, except after the last iteration (the next step()
                    # evaluates anyway, and with stochastic losses this one would be
                    # wasted).
                    loss = float(closure())
                    if maximize:
                        loss = -loss
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1

            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # ---- stop? ----
            if n_iter == max_iter or current_evals >= max_eval:
                break
            if opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break  # the step no longer moves the parameters
            if abs(loss - prev_loss) < tolerance_change:
                break  # the loss no longer changes

        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss
