"""ember.optim: torch.optim's optimizers and learning-rate schedulers.

The classes are Python (as PyTorch's), their updates one fused C++ op per
parameter (ember._C._sgd_step_, ...), the same ops the C++ front end's
ember::optim classes call.
"""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
