"""DistributedDataParallel: torch.nn.parallel.DistributedDataParallel on ember.distributed.

Every process holds a full replica of the module and runs it on its own part of the
batch; the gradients are averaged over the process group during backward, so every
replica takes the same optimizer step. As in PyTorch:

- at construction the ranks check that they hold the same parameter list (a digest
  first, the full list only when the digests differ), then rank 0's parameters and
  buffers are broadcast to everyone;
- the gradients are packed into flat buckets (25 MiB by default, the first one 1 MiB)
  in reverse registration order, the order backward usually produces them in; a
  post-accumulate-grad hook on each parameter copies its gradient (divided by the
  world size) into its bucket, and a bucket whose gradients are all there is
  all-reduced asynchronously at once, while backward goes on. Buckets are launched in
  index order on every rank, so the ranks' collectives always match up;
- when the last bucket has been launched the reducer waits for all of them and writes
  the averages back into .grad (or, with gradient_as_bucket_view=True, .grad *is* a
  view into its bucket). PyTorch does this from a callback queued on the autograd
  engine; ember's engine has no such queue, so it happens in the hook that completes
  the last bucket, which is the same point for every gradient DDP reduces;
- no_sync() skips the reduction (gradients accumulate locally and are reduced with the
  next synchronized backward); find_unused_parameters=True walks the output's graph
  after each forward and marks the parameters it does not reach as ready; without
  it an unused parameter leaves a bucket unfinished and the next forward raises
  PyTorch's "Expected to have finished reduction in the prior iteration" error;
- buffers are broadcast from rank 0 before each forward (broadcast_buffers=True);
- join() lets ranks with fewer batches shadow the others' collectives until all are done.
"""
import hashlib
import warnings
import weakref
from contextlib import contextmanager

from ..modules.module import Module

_DEFAULT_BUCKET_CAP_MB = 25
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
_MB = 1024 * 1024


def _ember():
    import ember
    return ember


def _dist():
    import ember.distributed as dist
    return dist


# ---- construction: the same model everywhere, rank 0's values ------------------------------

def _describe(tensors):
    return [f"{tuple(t.shape)}:{str(t.dtype).replace('ember.', '')}" for t in tensors]


def _verify_param_shape_across_processes(process_group, parameters):
    """Raises RuntimeError on every rank when the ranks' parameter lists (count, shapes,
    dtypes) differ: a fixed-size digest is compared first, and only when the digests
    differ are the full lists gathered to say what differs."""
    ember, dist = _ember(), _dist()
    descriptions = _describe(parameters)
    digest = hashlib.sha256("\n".join(descriptions).encode()).digest()
    mine = ember.tensor([len(parameters), int.from_bytes(digest[:7], "little"),
                         int.from_bytes(digest[7:14], "little")], dtype=ember.int64)
    world = dist.get_world_size(process_group)
    gathered = [ember.zeros(3, dtype=ember.int64) for _ in range(world)]
    dist.all_gather(gathered, mine, group=process_group)
    if all(g.tolist() == mine.tolist() for g in gathered):
        return
    everyone = [None] * world
    dist.all_gather_object(everyone, descriptions, group=process_group)
    me = dist.get_rank(process_group)
    for other, theirs in enumerate(everyone):
        if len(theirs) != len(descriptions):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {me} has {len(descriptions)} "
                f"params, while rank {other} has inconsistent {len(theirs)} params.")
    for other, theirs in enumerate(everyone):
        for i, (a, b) in enumerate(zip(descriptions, theirs)):
            if a != b:
                raise RuntimeError(
                    f"DDP expects same model across all ranks: params[{i}] in this process "
                    f"(rank {me}) has shape:dtype {a}, which does not match {b} of the same "
                    f"param in process {other}.")
    raise RuntimeError("DDP expects same model across all ranks, but the ranks' parameter "
                       "lists differ")  # digests differ: a description must too


def _broadcast_coalesced(process_group, tensors, src=0):
    """Broadcasts `tensors` from `src` (a rank of the group) by dtype, in one flat buffer
    per dtype: one collective per dtype rather than one per tensor."""
    ember, dist = _ember(), _dist()
    if not tensors:
        return
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    src_global = dist.get_global_rank(process_group, src) if process_group is not None else src
    with ember.no_grad():
        for group in by_dtype.values():
            flat = ember.cat([t.detach().reshape(-1) for t in group])
            dist.broadcast(flat, src=src_global, group=process_group)
            offset = 0
            for t in group:
                n = t.numel()
                t.copy_(flat[offset:offset + n].view(t.shape))
                offset += n


# ---- buckets ------------------------------------------------------------------------------

def _compute_bucket_assignment_by_size(tensors, size_limits):
    """Indices into `tensors` grouped into buckets, as torch's
    dist._compute_bucket_assignment_by_size: walk the tensors in order, one open bucket
    per dtype and device; a bucket closes once it holds at least its limit, the first
    bucket of each dtype taking size_limits[0], the later ones the next limits."""
    open_buckets = {}
    limit_index = {}
    result = []
    for i, t in enumerate(tensors):
        key = (t.dtype, str(t.device))
        bucket = open_buckets.setdefault(key, [[], 0])
        bucket[0].append(i)
        bucket[1] += t.numel() * t.element_size()
        li = limit_index.setdefault(key, 0)
        if bucket[1] >= size_limits[li]:
            result.append(bucket[0])
            del open_buckets[key]
            limit_index[key] = min(li + 1, len(size_limits) - 1)
    result.extend(b[0] for b in open_buckets.values() if b[0])
    return result


class _Bucket:
    """A flat buffer holding the gradients of some parameters (one dtype) back to back."""

    def __init__(self, index, param_indices, params):
        ember = _ember()
        self.index = index
        self.param_indices = param_indices
        total = sum(params[i].numel() for i in param_indices)
        first = params[param_indices[0]]
        self.buffer = ember.zeros(total, dtype=first.dtype, device=first.device)
        self.views = {}
        offset = 0
        for i in param_indices:
            n = params[i].numel()
            self.views[i] = self.buffer[offset:offset + n].view(params[i].shape)
            offset += n
        self.pending = len(param_indices)
        self.work = None
        self.future = None  # a communication hook's result

    def reset(self):
        self.pending = len(self.param_indices)
        self.work = None
        self.future = None


class GradBucket:
    """What a communication hook receives (torch.distributed.GradBucket): one bucket's
    flat buffer of gradients and the parameters they belong to."""

    def __init__(self, bucket, params, is_last):
        self._bucket, self._params, self._is_last = bucket, params, is_last

    def index(self):
        return self._bucket.index

    def buffer(self):
        """The flat gradients (not yet divided by the world size)."""
        return self._bucket.buffer

    def gradients(self):
        return [self._bucket.views[i] for i in self._bucket.param_indices]

    def parameters(self):
        return [self._params[i] for i in self._bucket.param_indices]

    def is_last(self):
        return self._is_last

    def set_buffer(self, buffer):
        self._bucket.buffer.copy_(buffer)


class _Reducer:
    """Gradient bucketing and the asynchronous all-reduce of each bucket during backward."""

    def __init__(self, params, bucket_indices, process_group, find_unused_parameters,
                 gradient_as_bucket_view):
        self.params = params
        self.process_group = process_group
        self.world_size = _dist().get_world_size(process_group)
        self.div_factor = self.world_size  # join(divide_by_initial_world_size=False) changes it
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.buckets = [_Bucket(b, idx, params) for b, idx in enumerate(bucket_indices)]
        self.bucket_of = {}
        for bucket in self.buckets:
            for i in bucket.param_indices:
                self.bucket_of[i] = bucket
        # Each parameter's AccumulateGrad node, held so that the same node (and the same
        # Python object) serves every graph: the graph walk of find_unused_parameters
        # recognizes the parameters by it.
        with _ember().enable_grad():
            self.grad_accumulators = [p.view_as(p).grad_fn.next_functions[0][0] for p in params]
        self.accumulator_index = {id(a): i for i, a in enumerate(self.grad_accumulators)}
        self.expect_hooks = False
        self.require_finalize = False
        self.next_bucket = 0
        self.ready = set()
        self.unused = []
        self.locally_used = None
        self.has_marked_unused = False
        self.static_unused = None  # static_graph: the unused parameters of the first iteration
        # register_comm_hook's (state, hook): the hook reduces each bucket (and divides by
        # the world size itself), instead of the default all-reduce of divided gradients.
        self.comm_hook = None
        if gradient_as_bucket_view:
            self._point_grads_at_buckets()
        me = weakref.ref(self)
        self.hook_handles = [p.register_post_accumulate_grad_hook(_make_hook(me, i))
                             for i, p in enumerate(params)]

    def _point_grads_at_buckets(self):
        ember = _ember()
        with ember.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is not None:
                    view = self.bucket_of[i].views[i]
                    view.copy_(p.grad)
                    p.grad = view

    # -- forward side

    def ensure_prior_reduction_finished(self):
        if not self.require_finalize:
            return
        not_ready = sorted(set(range(len(self.params))) - self.ready)
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss. You can enable unused parameter detection by passing the keyword "
            "argument `find_unused_parameters=True` to "
            "`ember.nn.parallel.DistributedDataParallel`, and by making sure all `forward` "
            "function outputs participate in calculating loss. If you already have done the "
            "above, then the distributed data parallel module wasn't able to locate the output "
            "tensors in the return value of your module's `forward` function. Please include "
            "the loss function and the structure of the return value of `forward` of your "
            "module when reporting this issue (e.g. list, dict, iterable).\n"
            f"Parameter indices which did not receive grad for rank "
            f"{_dist().get_rank(self.process_group)}: {' '.join(map(str, not_ready))}")

    def prepare_for_backward(self, outputs, search_graph, static_graph):
        self.expect_hooks = True
        self.next_bucket = 0
        self.ready = set()
        self.has_marked_unused = False
        for bucket in self.buckets:
            bucket.reset()
        self.unused = []
        self.locally_used = None
        if not search_graph:
            return
        if static_graph and self.static_unused is not None:
            self.unused = list(self.static_unused)
        else:
            reached = self._reached_parameters(outputs)
            self.unused = [i for i in range(len(self.params)) if i not in reached]
            if static_graph:
                self.static_unused = list(self.unused)
        self.locally_used = [0] * len(self.params)

    def _reached_parameters(self, outputs):
        """The indices of the parameters whose AccumulateGrad the outputs' graph reaches."""
        reached = set()
        seen = set()
        keep_alive = []  # the walk compares node objects by id: none may be freed meanwhile
        stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
        keep_alive.extend(stack)
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            index = self.accumulator_index.get(id(node))
            if index is not None:
                reached.add(index)
                continue
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    keep_alive.append(next_node)
                    stack.append(next_node)
        return reached

    # -- backward side

    def autograd_hook(self, index):
        if not self.expect_hooks:
            return  # a backward of a no_sync() forward, or a second backward: local only
        if self.locally_used is not None:
            self.locally_used[index] = 1
        if not self.has_marked_unused:
            self.has_marked_unused = True
            for i in self.unused:
                self._mark_ready(i)
        self._mark_ready(index)

    def _mark_ready(self, index):
        ember = _ember()
        if index in self.ready:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of the "
                "following reasons: 1) Use of a module parameter outside the `forward` function. "
                "Please make sure model parameters are not shared across multiple concurrent "
                "forward-backward passes, or try to use _set_static_graph() as a workaround if "
                "this module graph does not change during training loop. 2) Reused parameters in "
                "multiple reentrant backward passes. For example, if you use multiple "
                "`checkpoint` functions to wrap the same part of your model, it would result in "
                "the same set of parameters been used by different reentrant backward passes "
                f"multiple times. Parameter at index {index} has been marked as ready twice.")
        self.ready.add(index)
        self.require_finalize = True
        param = self.params[index]
        bucket = self.bucket_of[index]
        view = bucket.views[index]
        with ember.no_grad():
            grad = param.grad
            if grad is None:
                view.zero_()
            elif self.gradient_as_bucket_view and _is_view_of(grad, view):
                self._divide(view)
            else:
                view.copy_(grad)
                self._divide(view)
                if self.gradient_as_bucket_view:
                    param.grad = view
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()

    def _divide(self, view):
        if self.comm_hook is None:
            view.div_(self.div_factor)

    def _launch_ready_buckets(self):
        dist = _dist()
        # In index order on every rank, so that the ranks' collectives match up whatever
        # order their gradients arrived in.
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            if self.comm_hook is not None:
                state, hook = self.comm_hook
                is_last = self.next_bucket == len(self.buckets) - 1
                bucket.future = hook(state, GradBucket(bucket, self.params, is_last))
                if not hasattr(bucket.future, "wait"):
                    raise RuntimeError(f"DDP communication hook must return a "
                                       f"torch.futures.Future object, but got "
                                       f"{type(bucket.future).__name__}")
            else:
                bucket.work = dist.all_reduce(bucket.buffer, group=self.process_group,
                                              async_op=True)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finalize_backward()

    def _finalize_backward(self):
        ember, dist = _ember(), _dist()
        self.expect_hooks = False
        globally_used = None
        if self.locally_used is not None:
            used = ember.tensor(self.locally_used, dtype=ember.int32)
            dist.all_reduce(used, group=self.process_group)
            globally_used = used.tolist()
        for bucket in self.buckets:
            if bucket.future is not None:
                reduced = bucket.future.wait()
                if isinstance(reduced, (list, tuple)) and len(reduced) == 1:
                    reduced = reduced[0]
                if not isinstance(reduced, ember.Tensor) or reduced.shape != bucket.buffer.shape:
                    raise RuntimeError("DDP communication hook's future must hold the reduced "
                                       f"bucket: a tensor of shape {tuple(bucket.buffer.shape)}, "
                                       f"got {reduced!r:.80}")
                if reduced.data_ptr() != bucket.buffer.data_ptr():
                    with ember.no_grad():
                        bucket.buffer.copy_(reduced)
            else:
                bucket.work.wait()
        with ember.no_grad():
            for bucket in self.buckets:
                for i in bucket.param_indices:
                    if globally_used is not None and globally_used[i] == 0:
                        continue  # unused on every rank: .grad stays as it was
                    param, view = self.params[i], bucket.views[i]
                    if self.gradient_as_bucket_view:
                        if param.grad is None or not _is_view_of(param.grad, view):
                            param.grad = view
                    elif param.grad is None:
                        param.grad = view.clone()
                    else:
                        param.grad.copy_(view)
        for bucket in self.buckets:
            bucket.work = bucket.future = None
        self.require_finalize = False

    def remove_hooks(self):
        for handle in self.hook_handles:
            handle.remove()
        self.hook_handles = []

    def __del__(self):
        # The hooks only hold a weak reference: once the DDP module is gone, its hooks go
        # too, and the parameters can be wrapped again or trained alone.
        try:
            self.remove_hooks()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _make_hook(reducer_ref, index):
    def hook(_param):
        reducer = reducer_ref()
        if reducer is not None:
            reducer.autograd_hook(index)
    return hook


def _is_view_of(tensor, view):
    """True when `tensor` is `view`'s memory (same storage, offset and shape)."""
    return (tensor.data_ptr() == view.data_ptr() and tuple(tensor.shape) == tuple(view.shape)
            and tensor.dtype == view.dtype)


def _find_tensors(obj):
    ember = _ember()
    if isinstance(obj, ember.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


# ---- the module ---------------------------------------------------------------------------

class DistributedDataParallel(Module):
    """Data parallelism over the processes of a group (torch.nn.parallel.DistributedDataParallel).

    Call ember.distributed.init_process_group first; every rank wraps the same model.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        from ...distributed._process_group import _is_non_member, _resolve
        if device_mesh is not None:
            raise NotImplementedError("DistributedDataParallel(device_mesh=...): ember has no "
                                      "DeviceMesh; pass process_group=")
        if mixed_precision is not None:
            raise NotImplementedError("DistributedDataParallel(mixed_precision=...) is not "
                                      "supported by ember")
        if delay_all_reduce_named_params is not None or param_to_hook_all_reduce is not None:
            raise NotImplementedError("DistributedDataParallel(delay_all_reduce_named_params=...) "
                                      "is not supported by ember")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel expects an ember.nn.Module, got "
                            f"{type(module).__name__}")
        group = _resolve(process_group)
        if _is_non_member(group):
            raise RuntimeError("DistributedDataParallel: this rank is not a member of "
                               "process_group")
        self.process_group = group
        ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self.parameters_to_ignore = ignore
        self._module_parameters = [p for n, p in module.named_parameters() if n not in ignore]
        if not any(p.requires_grad for p in self._module_parameters):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        device_types = {p.device.type for p in self._module_parameters}
        if len(device_types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of "
                             f"devices, but input module parameters locate in {device_types}.")
        self.device_type = next(iter(device_types))
        if self.device_type != "cpu":
            raise RuntimeError(
                f"DistributedDataParallel: ember reduces gradients over Gloo, which takes CPU "
                f"tensors; the module's parameters are on {self.device_type} (NCCL is not built "
                f"yet, docs/distributed.md)")
        if device_ids or output_device:
            devices = {p.device for p in self._module_parameters}
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is "
                          "deprecated. Please avoid using it.", FutureWarning, stacklevel=2)
        if bucket_cap_mb is not None and not bucket_cap_mb > 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.device = self._module_parameters[0].device
        self.broadcast_buffers = bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.static_graph = bool(static_graph)
        self.skip_all_reduce_unused_params = skip_all_reduce_unused_params
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self._join_enabled = False
        self._join_divide_by_initial_world_size = True
        self._join_throw_on_early_termination = False
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * _MB)
        first_cap = _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        self.modules_buffers = [b for n, b in module.named_buffers() if n not in ignore]

        # The parameters DDP reduces: those that require grad, each once.
        params = []
        seen = set()
        for p in self._module_parameters:
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if init_sync:
            _verify_param_shape_across_processes(group, params)
            states = [p for p in self._module_parameters]
            if self.broadcast_buffers:
                states += self.modules_buffers
            _broadcast_coalesced(group, states, src=0)
        # Reverse registration order approximates the order backward makes the gradients
        # in, so the first (small) bucket fills first.
        order = list(reversed(range(len(params))))
        assignment = _compute_bucket_assignment_by_size([params[i] for i in order],
                                                        [first_cap, self.bucket_bytes_cap])
        bucket_indices = [[order[j] for j in bucket] for bucket in assignment]
        self._params = params
        self.reducer = _Reducer(params, bucket_indices, group, self.find_unused_parameters,
                                self.gradient_as_bucket_view)

    # -- torch's public helpers

    @contextmanager
    def no_sync(self):
        """Gradients computed inside accumulate locally; the first synchronized backward
        after the block reduces them together with its own."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    @contextmanager
    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        """Training with uneven inputs (torch's DDP.join(), torch.distributed.algorithms.Join
        with this one joinable): a rank whose inputs run out leaves the `with` body and then
        shadows the collectives of the ranks still training (zeros for their gradient
        buckets) until every rank is done; finally the parameters and buffers of a rank
        that joined last are broadcast to everyone. With divide_by_initial_world_size=False
        the gradients are averaged over the ranks still training rather than the whole
        world; with throw_on_early_termination=True every rank raises RuntimeError as soon
        as one has run out."""
        if not enable:
            yield
            return
        if self._join_enabled:
            raise RuntimeError("DistributedDataParallel.join() contexts cannot be nested")
        self._join_enabled = True
        self._join_divide_by_initial_world_size = divide_by_initial_world_size
        self._join_throw_on_early_termination = throw_on_early_termination
        try:
            yield
            self._join_shadow_until_all_joined()
        finally:
            self._join_enabled = False
            self.reducer.div_factor = self.reducer.world_size

    def _join_all_reduce(self, value, op=None):
        ember, dist = _ember(), _dist()
        t = ember.tensor([value], dtype=ember.int64)
        dist.all_reduce(t, op=op if op is not None else dist.ReduceOp.SUM, group=self.process_group)
        return int(t.item())

    def _find_common_rank(self, candidate):
        """The highest group rank among those offering themselves (candidate=True)."""
        me = _dist().get_rank(self.process_group)
        rank = self._join_all_reduce(me if candidate else -1, _dist().ReduceOp.MAX)
        if rank < 0:
            raise RuntimeError("DistributedDataParallel.join(): no rank offered itself as the "
                               "source of the model's state")
        return rank

    def _join_notify(self):
        """A rank still training, before its forward: counts itself among the non-joined."""
        active = self._join_all_reduce(1)
        if self._join_throw_on_early_termination:
            if self._join_all_reduce(0):
                raise RuntimeError("Detected at least one rank that exhausted inputs. "
                                   "Throwing across all ranks.")
        if not self._join_divide_by_initial_world_size:
            self.reducer.div_factor = active

    def _sync_buffers(self, joined=False):
        src = self._find_common_rank(not joined) if self._join_enabled else 0
        _broadcast_coalesced(self.process_group, self.modules_buffers, src=src)

    def _join_shadow_until_all_joined(self):
        dist = _dist()
        is_last_joiner = True
        while self._join_all_reduce(0) > 0:
            if self._join_throw_on_early_termination:
                self._join_all_reduce(1)
                raise RuntimeError(f"Rank {dist.get_rank(self.process_group)} exhausted all "
                                   "inputs.")
            # What the ranks still training do in one iteration, with nothing to give.
            if self.will_sync_module_buffers():
                self._sync_buffers(joined=True)
            should_sync = self._join_all_reduce(0) > 0
            self.require_forward_param_sync = should_sync
            if should_sync:
                ember = _ember()
                buckets = self.reducer.buckets
                for k, bucket in enumerate(buckets):
                    if self.reducer.comm_hook is None:
                        dist.all_reduce(ember.zeros_like(bucket.buffer), group=self.process_group)
                        continue
                    # The hook's own collectives on a bucket of zeros, as the ranks still
                    # training run them on theirs (this rank's gradients stay as they are).
                    state, hook = self.reducer.comm_hook
                    shadow = _Bucket(bucket.index, bucket.param_indices, self._params)
                    hook(state, GradBucket(shadow, self._params, k == len(buckets) - 1)).wait()
                if self.find_unused_parameters or self.static_graph:
                    dist.all_reduce(ember.zeros(len(self._params), dtype=ember.int32),
                                    group=self.process_group)
            is_last_joiner = False
        src = self._find_common_rank(is_last_joiner)
        _broadcast_coalesced(self.process_group, self._module_parameters + self.modules_buffers,
                             src=src)

    def register_comm_hook(self, state, hook):
        """Reduces each gradient bucket with hook(state, bucket) -> Future of the reduced
        flat buffer, instead of the all-reduce of averaged gradients (the hook divides by
        the world size itself: ember.distributed.algorithms.ddp_comm_hooks.default_hooks has
        allreduce_hook, fp16_compress_hook, bf16_compress_hook). Once per model, before the
        first backward."""
        if not callable(hook):
            raise TypeError(f"register_comm_hook: hook must be callable, got {type(hook).__name__}")
        import inspect
        try:
            params = list(inspect.signature(hook).parameters)
        except (TypeError, ValueError):
            params = None
        if params is not None and len(params) != 2:
            raise ValueError("Communication hook must take two arguments (state, bucket), got "
                             f"{params}")
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        if self.reducer.require_finalize:
            raise RuntimeError("register_comm_hook must be called before the first backward")
        self.reducer.comm_hook = (state, hook)

    def _register_builtin_comm_hook(self, comm_hook_type):
        """DDPCommHookType.ALLREDUCE / FP16_COMPRESS / BF16_COMPRESS, on the DDP's group."""
        from ...distributed.algorithms.ddp_comm_hooks import DDPCommHookType, default_hooks
        hooks = {DDPCommHookType.ALLREDUCE: default_hooks.allreduce_hook,
                 DDPCommHookType.FP16_COMPRESS: default_hooks.fp16_compress_hook,
                 DDPCommHookType.BF16_COMPRESS: default_hooks.bf16_compress_hook}
        if comm_hook_type not in hooks:
            raise ValueError(f"_register_builtin_comm_hook: unknown hook type {comm_hook_type!r}")
        self.register_comm_hook(self.process_group, hooks[comm_hook_type])

    def _set_static_graph(self):
        self.static_graph = True

    def will_sync_module_buffers(self):
        return self.require_forward_param_sync and self.broadcast_buffers and \
            len(self.modules_buffers) > 0

    def _get_bucket_indices(self):
        """The parameter indices (into the reduced parameters, registration order) of each
        bucket, in reduction order."""
        return [list(b.param_indices) for b in self.reducer.buckets]

    # -- forward

    def forward(self, *inputs, **kwargs):
        ember = _ember()
        grad_on = ember.is_grad_enabled()
        if grad_on:
            self.reducer.ensure_prior_reduction_finished()
        if self._join_enabled:
            self._join_notify()
        if self.will_sync_module_buffers():
            self._sync_buffers()
        if self._join_enabled:
            # Tells the ranks that joined whether this iteration's backward reduces.
            self._join_all_reduce(1 if self.require_backward_grad_sync else 0)
        output = self.module(*inputs, **kwargs)
        if grad_on and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            search = self.find_unused_parameters or self.static_graph
            self.reducer.prepare_for_backward(_find_tensors(output) if search else [], search,
                                              self.static_graph)
        else:
            self.require_forward_param_sync = False
        return output


__all__ = ["DistributedDataParallel"]
