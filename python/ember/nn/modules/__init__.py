"""ember.nn.modules: Module and the layers built on it."""
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, SiLU, Sigmoid, Softmax, Tanh
from .activation_extra import *  # noqa: F401,F403
from .activation_extra import __all__ as _activation_extra_all
from .attention import MultiheadAttention
from .batchnorm import BatchNorm1d, BatchNorm2d
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
]
__all__ += _activation_extra_all
