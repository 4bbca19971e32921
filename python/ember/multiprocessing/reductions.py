"""How a tensor in shared memory travels to another process (torch.multiprocessing.reductions).

A tensor whose memory was moved into shared memory (Tensor.share_memory_,
Module.share_memory) is a memfd mapping. Pickled by multiprocessing (a Queue or Pipe item,
or an argument of a "spawn"/"forkserver" Process) it is sent as that descriptor, passed
the way multiprocessing passes descriptors (multiprocessing.reduction.DupFd), and the
receiver maps the same memory: writes on either side are seen on the other, which is what
Hogwild training (model.share_memory(), then processes that train it) relies on.

Every other tensor is pickled as before, by value: unlike torch, ember does not move a
tensor into shared memory because it was put on a Queue.
"""
import os
from multiprocessing import reduction

from .. import _C

__all__ = ["init_reductions", "rebuild_shared_tensor", "reduce_tensor"]


def rebuild_shared_tensor(dupfd, nbytes, dtype, byte_offset, size, stride, requires_grad):
    """The receiving side: map the sender's block and view it with the sender's geometry."""
    fd = dupfd.detach()
    try:
        block = _C._storage_from_fd(fd, nbytes)  # maps its own duplicate of fd
    finally:
        os.close(fd)
    tensor = _C._storage_view(block, dtype, byte_offset, list(size), list(stride))
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def reduce_tensor(tensor):
    """A shared CPU tensor as its descriptor and geometry; any other tensor by value."""
    fd = _C._storage_shared_fd(tensor) if tensor.device.type == "cpu" else -1
    if fd < 0:
        return tensor.__reduce_ex__(4)  # its ordinary pickling: the bytes, copied
    if tensor.requires_grad and not tensor.is_leaf:
        # torch's refusal: autograd history cannot cross processes.
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the data, "
            "call detach() on the tensor before serializing (e.g., putting it on the queue).")
    return (rebuild_shared_tensor,
            (reduction.DupFd(fd), _C._storage_nbytes(tensor), tensor.dtype,
             tensor.storage_offset() * tensor.element_size(), tuple(tensor.size()),
             tuple(tensor.stride()), tensor.requires_grad))


def init_reductions():
    """Register reduce_tensor with multiprocessing's pickler (done on import)."""
    reduction.ForkingPickler.register(_C.Tensor, reduce_tensor)
