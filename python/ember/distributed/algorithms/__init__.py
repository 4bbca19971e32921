"""ember.distributed.algorithms: torch.distributed.algorithms' DDP communication hooks
(ddp_comm_hooks) and Join, for DistributedDataParallel."""
from . import ddp_comm_hooks  # noqa: F401
