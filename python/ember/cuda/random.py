"""ember.cuda.random: the CUDA generators' functions under torch.cuda.random's module path
(the same functions as ember.cuda's)."""
from . import (get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all,  # noqa: F401
               seed, seed_all, set_rng_state, set_rng_state_all)

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]
