"""SyncBatchNorm: batch normalization whose batch statistics span every process of a
group (torch.nn.SyncBatchNorm), for data-parallel training with small per-process
batches.

In training, with a process group of more than one rank initialized, the per-channel
mean and variance are those of the concatenation of every rank's batch: the ranks
all-reduce their sums and counts, then their sums of squared deviations. The
all-reduce is a differentiable op whose backward all-reduces the gradient, so backward
gives each rank the gradient of the sum of every rank's loss with respect to its own
input, exactly as PyTorch's hand-written kernels do (weight and bias get their local
gradients; DistributedDataParallel averages them). Running statistics are updated with
the global statistics (the unbiased variance over the global count), so they stay the
same on every rank. In eval mode, or without an initialized group (or in a group of
one), it is plain BatchNorm, as PyTorch's falls back. Unlike PyTorch's, it runs on CPU
tensors (over Gloo): ember has no NCCL yet.
"""
from ... import _C
from ...autograd.function import Function
from .. import functional as F
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _dist():
    import ember.distributed as dist
    return dist


class _AllReduceSum(Function):
    """The sum of `tensor` over the group; backward sums the gradients the same way."""

    @staticmethod
    def forward(ctx, tensor, group):
        ctx.group = group
        out = tensor.clone()
        _dist().all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous().clone()
        _dist().all_reduce(grad, group=ctx.group)
        return grad, None


def _sync_batch_norm(input, weight, bias, running_mean, running_var, eps, momentum, group):
    low_precision = input.dtype in (_C.float16, _C.bfloat16)
    x = input.float() if low_precision else input
    channels = x.shape[1]
    dims = [0] + list(range(2, x.dim()))
    shape = [1, channels] + [1] * (x.dim() - 2)
    local_count = x.numel() // channels
    count = _C.full((1,), float(local_count), dtype=x.dtype, device=x.device)
    sums = _AllReduceSum.apply(_C.cat([x.sum(dims), count]), group)
    total = sums[channels:]
    total_count = int(round(float(total.item())))
    if total_count <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{list(input.shape)} on every rank together")
    mean = sums[:channels] / total
    centered = x - mean.view(shape)
    var = _AllReduceSum.apply((centered * centered).sum(dims), group) / total
    out = centered * (var + eps).rsqrt().view(shape)
    if weight is not None:
        out = out * weight.view(shape)
    if bias is not None:
        out = out + bias.view(shape)
    if running_mean is not None:
        with _no_grad():
            running_mean.mul_(1 - momentum).add_(mean.detach().to(running_mean.dtype) * momentum)
            unbiased = var.detach() * (total_count / (total_count - 1))
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
    return out.to(input.dtype) if low_precision else out


def _no_grad():
    from ...autograd.grad_mode import no_grad
    return no_grad()


class SyncBatchNorm(_BatchNorm):
    """SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True,
    track_running_stats=True, process_group=None, device=None, dtype=None, *, bias=True)
    over (N, C, ...) input; process_group=None: the default group."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device,
                         dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        running_mean = self.running_mean if not self.training or self.track_running_stats else None
        running_var = self.running_var if not self.training or self.track_running_stats else None
        dist = _dist()
        need_sync = bn_training and self.training and dist.is_available() and \
            dist.is_initialized()
        group = None
        if need_sync:
            group = self.process_group if self.process_group else dist.group.WORLD
            need_sync = dist.get_world_size(group) > 1
        if not need_sync:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                bn_training, factor, self.eps)
        return _sync_batch_norm(input, self.weight, self.bias, running_mean, running_var,
                                self.eps, factor, group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replaces every BatchNorm*d in `module` by a SyncBatchNorm sharing its parameters
        and buffers; returns the module (a new one when `module` is itself a BatchNorm)."""
        output = module
        if isinstance(module, _BatchNorm):
            output = cls(module.num_features, module.eps, module.momentum, module.affine,
                         module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with _no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return output
