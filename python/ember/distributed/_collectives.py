"""The tensor collectives and point-to-point operations of torch.distributed, on
ember's process groups: same signatures, same results, async_op=True returns a
Work (wait(), is_completed()). src=/dst= are global ranks (group_src=/group_dst=
ranks within the group). A call made on a rank outside `group` does nothing and
returns None, as torch's does. Checks run before anything is sent, so a call that
raises has written no tensor.
"""
from ._process_group import GroupMember, ReduceOp, _is_non_member, _resolve, get_group_rank


def _tensor_class():
    import ember
    return ember.Tensor


def _check_tensor(value, name):
    if not isinstance(value, _tensor_class()):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"ember.Tensor but got {type(value)} instead.")


def _check_tensor_list(value, name):
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, _tensor_class()) for t in value):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[ember.Tensor] but got {type(value)} instead.")


def _check_op(op):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be an ember.distributed.ReduceOp, got {type(op).__name__}")


def _finish(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _group_peer(pg, global_rank, group_rank, what, default=None):
    """The group rank for src=/dst= (a global rank) or group_src=/group_dst=; default:
    the global rank used when neither is given (None: one must be)."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can't specify both {what} and group_{what}")
    if group_rank is not None:
        return int(group_rank)
    if global_rank is None:
        if default is None:
            raise ValueError(f"Must specify {what} or group_{what}")
        global_rank = default
    global_rank = int(global_rank)
    if pg is GroupMember.WORLD:
        return global_rank  # the same numbering; the backend names a bad rank and the range
    return get_group_rank(pg, global_rank)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor, "tensor")
    _check_op(op)
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    return _finish(pg._pg.all_reduce(tensor, op), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    root = _group_peer(pg, src, group_src, "src")
    return _finish(pg._pg.broadcast(tensor, root), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "tensor")
    _check_op(op)
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    root = _group_peer(pg, dst, group_dst, "dst")
    return _finish(pg._pg.reduce(tensor, root, op), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    return _finish(pg._pg.all_gather(list(tensor_list), tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    return _finish(pg._pg.all_gather_into_tensor(output_tensor, input_tensor), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    _check_op(op)
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    return _finish(pg._pg.reduce_scatter_tensor(output, input, op), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "output")
    _check_tensor_list(input_list, "input_list")
    _check_op(op)
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    return _finish(pg._pg.reduce_scatter(output, list(input_list), op), async_op)


def _split_sizes(sizes):
    return [] if sizes is None else [int(s) for s in sizes]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    work = pg._pg.all_to_all_single(output, input, _split_sizes(output_split_sizes),
                                    _split_sizes(input_split_sizes))
    return _finish(work, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Each rank sends input_tensor_list[j] to rank j and receives output_tensor_list[j]
    from it (shapes may differ between pairs; one dtype throughout)."""
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    n = pg.size()
    for name, tensors in (("input_tensor_list", input_tensor_list),
                          ("output_tensor_list", output_tensor_list)):
        if len(tensors) != n:
            raise RuntimeError(f"ProcessGroupGloo::alltoall: {name} has {len(tensors)} tensors for "
                               f"a group of {n}")
    dtypes = {t.dtype for t in list(input_tensor_list) + list(output_tensor_list)}
    if len(dtypes) != 1:
        raise ValueError(f"Invalid usage of tensors with different dtypes. Found {sorted(map(str, dtypes))}")
    import ember
    flat_in = ember.cat([t.reshape(-1) for t in input_tensor_list])
    flat_out = ember.empty(sum(t.numel() for t in output_tensor_list), dtype=flat_in.dtype)
    work = pg._pg.all_to_all_single(flat_out, flat_in, [t.numel() for t in output_tensor_list],
                                    [t.numel() for t in input_tensor_list])
    work.wait()
    offset = 0
    with ember.no_grad():
        for t in output_tensor_list:
            t.copy_(flat_out[offset:offset + t.numel()].view(t.shape))
            offset += t.numel()
    return work if async_op else None


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    root = _group_peer(pg, dst, group_dst, "dst", default=0)
    if pg.rank() == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_tensor_list(gather_list, "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    outputs = list(gather_list) if pg.rank() == root else []
    return _finish(pg._pg.gather(outputs, tensor, root), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    root = _group_peer(pg, src, group_src, "src", default=0)
    if pg.rank() == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_tensor_list(scatter_list, "scatter_list")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    inputs = list(scatter_list) if pg.rank() == root else []
    return _finish(pg._pg.scatter(tensor, inputs, root), async_op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor, "tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    peer = _group_peer(pg, dst, group_dst, "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    return pg._pg.send(tensor, peer, int(tag))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """src=None (and no group_src): from any rank."""
    _check_tensor(tensor, "tensor")
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    peer = -1 if src is None and group_src is None else _group_peer(pg, src, group_src, "src")
    if peer == pg.rank():
        raise ValueError("Invalid source rank: source rank should not be the same as the rank of "
                         "the current process.")
    return pg._pg.recv(tensor, peer, int(tag))


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Returns the global rank the tensor came from (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    pg = _resolve(group)
    return pg._global_ranks[work._source_rank()]


def barrier(group=None, async_op=False, device_ids=None):
    pg = _resolve(group)
    if _is_non_member(pg):
        return None
    return _finish(pg._pg.barrier(), async_op)


class P2POp:
    """One send or receive for batch_isend_irecv: op is isend or irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``ember.distributed.isend`` "
                             "or ``ember.distributed.irecv``.")
        _check_tensor(tensor, "tensor")
        if peer is None and group_peer is None:
            raise ValueError("Must specify peer or group_peer")
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer

    def __repr__(self):
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list):
    """Posts every send and receive of the list at once; returns their Works."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``ember.distributed.P2POp``.")
    groups = {id(p.group) for p in p2p_op_list}
    if len(groups) > 1:
        raise ValueError("All ops need to use the same group.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            work = isend(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        else:
            work = irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if work is not None:
            works.append(work)
    return works
