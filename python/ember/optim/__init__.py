"""ember.optim: torch.optim's optimizers and learning-rate schedulers.

The classes are Python (as PyTorch's). SGD, Adam/AdamW, RMSprop and Adagrad run
their update as one fused C++ op per parameter (ember._C._sgd_step_, ...), the
same ops the C++ front end's ember::optim classes call. Adadelta, Adamax, NAdam,
RAdam, ASGD, Rprop and LBFGS compose ember tensor ops (add_, addcmul_, lerp_,
dot, ...) in the order of torch.optim's single-tensor code, so they run wherever
those ops do; they have no C++ front-end counterpart.
"""
from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS", "lr_scheduler", "swa_utils"]
