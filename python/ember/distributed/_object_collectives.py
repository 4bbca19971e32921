"""Collectives of picklable Python objects, as torch.distributed's: each object is
pickled into a uint8 tensor and moved with the tensor collectives (lengths first,
then the padded bytes). Unpickling runs code chosen by the sender: use them only
between trusted ranks, as torch warns too.
"""
import io
import pickle

import numpy as np

from ._collectives import all_gather, broadcast, gather, scatter, _group_peer
from ._process_group import _is_non_member, _resolve


def _to_tensor(obj):
    import ember
    buffer = io.BytesIO()
    pickle.Pickler(buffer).dump(obj)
    data = np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()
    return ember.from_numpy(data), len(data)


def _to_object(tensor, size):
    return pickle.loads(tensor[:size].numpy().tobytes())


def _ember():
    import ember
    return ember


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces object_list's items on every rank with those of rank src."""
    ember = _ember()
    pg = _resolve(group)
    if _is_non_member(pg):
        return
    root = _group_peer(pg, src, group_src, "src", default=0)
    if not isinstance(object_list, list):
        raise TypeError(f"object_list must be a list, got {type(object_list).__name__}")
    n = len(object_list)
    sizes = ember.zeros(n, dtype=ember.int64)
    if pg.rank() == root:
        pieces = [_to_tensor(obj) for obj in object_list]
        sizes = ember.tensor([size for _, size in pieces], dtype=ember.int64) if n else sizes
    broadcast(sizes, group=pg, group_src=root)
    total = int(sizes.sum().item()) if n else 0
    if pg.rank() == root:
        data = ember.cat([t for t, _ in pieces]) if n else ember.empty(0, dtype=ember.uint8)
    else:
        data = ember.empty(total, dtype=ember.uint8)
    broadcast(data, group=pg, group_src=root)
    if pg.rank() != root:
        offset = 0
        for i, size in enumerate(sizes.tolist()):
            object_list[i] = _to_object(data[offset:offset + size], size)
            offset += size


def _padded(tensor, size, max_size):
    ember = _ember()
    out = ember.zeros(max_size, dtype=ember.uint8)
    out[:size] = tensor
    return out


def _gathered_sizes(pg, size):
    ember = _ember()
    mine = ember.tensor([size], dtype=ember.int64)
    sizes = [ember.zeros(1, dtype=ember.int64) for _ in range(pg.size())]
    all_gather(sizes, mine, group=pg)
    return [int(s.item()) for s in sizes]


def all_gather_object(object_list, obj, group=None):
    """object_list[i] becomes rank i's obj (object_list has the group's size)."""
    pg = _resolve(group)
    if _is_non_member(pg):
        return
    if not isinstance(object_list, list) or len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list must be a list of {pg.size()} items "
                         f"(the group's size), got {object_list!r:.80}")
    ember = _ember()
    tensor, size = _to_tensor(obj)
    sizes = _gathered_sizes(pg, size)
    max_size = max(sizes)
    outputs = [ember.empty(max_size, dtype=ember.uint8) for _ in range(pg.size())]
    all_gather(outputs, _padded(tensor, size, max_size), group=pg)
    for i, (out, n) in enumerate(zip(outputs, sizes)):
        object_list[i] = _to_object(out, n)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """On dst, object_gather_list[i] becomes rank i's obj; other ranks pass None."""
    pg = _resolve(group)
    if _is_non_member(pg):
        return
    root = _group_peer(pg, dst, group_dst, "dst", default=0)
    is_root = pg.rank() == root
    if is_root:
        if not isinstance(object_gather_list, list) or len(object_gather_list) != pg.size():
            raise ValueError(f"gather_object: object_gather_list must be a list of {pg.size()} "
                             f"items on the destination rank")
    elif object_gather_list is not None:
        raise ValueError("Argument ``object_gather_list`` must NOT be specified on "
                         "non-destination ranks.")
    ember = _ember()
    tensor, size = _to_tensor(obj)
    sizes = _gathered_sizes(pg, size)
    max_size = max(sizes)
    outputs = [ember.empty(max_size, dtype=ember.uint8) for _ in range(pg.size())] if is_root else None
    gather(_padded(tensor, size, max_size), outputs, group=pg, group_dst=root)
    if is_root:
        for i, (out, n) in enumerate(zip(outputs, sizes)):
            object_gather_list[i] = _to_object(out, n)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """scatter_object_output_list[0] becomes src's scatter_object_input_list[rank]."""
    pg = _resolve(group)
    if _is_non_member(pg):
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    root = _group_peer(pg, src, group_src, "src", default=0)
    ember = _ember()
    is_root = pg.rank() == root
    if is_root:
        if (not isinstance(scatter_object_input_list, list)
                or len(scatter_object_input_list) != pg.size()):
            raise ValueError(f"scatter_object_list: scatter_object_input_list must be a list of "
                             f"{pg.size()} items on the source rank")
        pieces = [_to_tensor(obj) for obj in scatter_object_input_list]
        max_size = ember.tensor([max(n for _, n in pieces)], dtype=ember.int64)
    else:
        max_size = ember.zeros(1, dtype=ember.int64)
    broadcast(max_size, group=pg, group_src=root)
    width = int(max_size.item())
    out = ember.empty(width, dtype=ember.uint8)
    out_size = ember.zeros(1, dtype=ember.int64)
    if is_root:
        scatter(out, [_padded(t, n, width) for t, n in pieces], group=pg, group_src=root)
        scatter(out_size, [ember.tensor([n], dtype=ember.int64) for _, n in pieces], group=pg,
                group_src=root)
    else:
        scatter(out, None, group=pg, group_src=root)
        scatter(out_size, None, group=pg, group_src=root)
    scatter_object_output_list[0] = _to_object(out, int(out_size.item()))
