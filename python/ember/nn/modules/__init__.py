"""ember.nn.modules: Module and the layers built on it."""
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, SiLU, Sigmoid, Softmax, Tanh
from .activation_extra import *  # noqa: F401,F403
from .activation_extra import __all__ as _activation_extra_all
from .attention import MultiheadAttention
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .syncbatchnorm import SyncBatchNorm
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)
from .module import Module
from .normalization import GroupNorm, LayerNorm
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding
from .transformer import TransformerEncoder, TransformerEncoderLayer
from .transformer import Transformer, TransformerDecoder, TransformerDecoderLayer
from .loss_extra import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss,
                         KLDivLoss, MarginRankingLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                         PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss)
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d,
                      ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d,
                      ZeroPad3d)
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .pooling_extra import (AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d,
                            LPPool1d, LPPool2d, MaxPool1d)
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .normalization import LocalResponseNorm, RMSNorm
from .fold import Fold, Unfold
from .conv_extra import Conv3d, ConvTranspose1d, ConvTranspose3d
from .pooling3d import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool3d, MaxPool3d
from .pooling_fractional import FractionalMaxPool2d, FractionalMaxPool3d
from .unpool import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d,
                   LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
                   LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear)

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Bilinear", "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool2d",
    "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm",
    "Dropout", "Embedding", "Flatten", "Unflatten", "ReLU", "LeakyReLU", "GELU", "SiLU",
    "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "L1Loss", "MSELoss", "SmoothL1Loss", "NLLLoss",
    "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "MultiheadAttention", "TransformerEncoderLayer",
    "TransformerEncoder",
    # nnextra
    "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
    "KLDivLoss", "HuberLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
    "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "TripletMarginLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "CosineSimilarity", "PairwiseDistance",
    "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "LocalResponseNorm", "RMSNorm", "Fold", "Unfold",
    # 3-d convolutions / pools, unpooling, fractional pools, lazy modules
    "BatchNorm3d", "Conv3d", "ConvTranspose1d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "FractionalMaxPool2d",
    "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LazyLinear",
    "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]
__all__ += _activation_extra_all

# embedding bags, CTC / multilabel-margin / triplet-with-distance losses, adaptive softmax
# and the cross-map LRN
from .embedding_bag import EmbeddingBag  # noqa: E402
from .loss_extra2 import CTCLoss, MultiLabelMarginLoss, TripletMarginWithDistanceLoss  # noqa: E402
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
from .cross_map_lrn import CrossMapLRN2d  # noqa: E402

__all__ += ["EmbeddingBag", "CTCLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss",
            "AdaptiveLogSoftmaxWithLoss", "CrossMapLRN2d"]
__all__ += ["SyncBatchNorm"]
