"""The standard DDP communication hooks: the plain average, and the average computed in
float16 or bfloat16 to halve the bytes sent (gradients lose precision accordingly).

Each takes (process_group, bucket): the group to reduce over (None: the default group)
and the GradBucket, and returns a Future of the reduced flat buffer."""
from ... import _collectives
from ..._process_group import get_world_size

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


def _group_size(process_group):
    return get_world_size(process_group)


def allreduce_hook(process_group, bucket):
    """The gradients' average: the buffer divided by the world size, then summed."""
    buffer = bucket.buffer()
    buffer.div_(_group_size(process_group))
    work = _collectives.all_reduce(buffer, group=process_group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


def _compressed(dtype, process_group, bucket):
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(_group_size(process_group))
    work = _collectives.all_reduce(compressed, group=process_group, async_op=True)

    def decompress(fut):
        buffer.copy_(fut.value()[0])
        return buffer

    return work.get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """The average, reduced in float16 (half the bytes on the wire), written back in the
    gradients' dtype."""
    import ember
    return _compressed(ember.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """The average, reduced in bfloat16, written back in the gradients' dtype."""
    import ember
    return _compressed(ember.bfloat16, process_group, bucket)
