"""ember.utils.tensorboard: `SummaryWriter` writing TensorBoard event files directly
(no tensorboard or protobuf package needed to write them)."""
from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
