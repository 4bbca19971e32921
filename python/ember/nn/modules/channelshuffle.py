"""torch.nn.modules.channelshuffle's path; the module itself is in pixelshuffle.py."""
from .pixelshuffle import ChannelShuffle

__all__ = ["ChannelShuffle"]
