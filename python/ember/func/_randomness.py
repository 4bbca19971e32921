"""vmap's and jacfwd's `randomness` argument, for a vmap that runs the function per slice.

torch raises in "error" mode as soon as a random operation runs under vmap. Here the
function runs on each slice in turn, so a draw is seen as a change of the random number
generators' states (the default CPU generator, and the CUDA ones once CUDA is in use);
the states are then put back and the same RuntimeError is raised. A draw from a
Generator object passed explicitly (generator=g) is not seen. "same" puts the states
back before each slice, so every slice draws the same numbers; "different" lets the
draws go on, so every slice draws its own.
"""
from .. import _C

RANDOMNESS_CHOICES = ("error", "different", "same")

RANDOM_IN_ERROR_MODE = ("vmap: called random operation while in randomness error mode. Please either use "
                        "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                        "operation out of vmap")


def check_randomness_arg(randomness):
    if randomness not in RANDOMNESS_CHOICES:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")


def _cuda_in_use():
    from .. import cuda
    return cuda.is_available() and cuda.is_initialized()


def get_states():
    from .. import cuda, default_generator
    states = [default_generator.get_state()]
    if _cuda_in_use():
        states.append(cuda.get_rng_state_all())
    return states


def set_states(states):
    from .. import cuda, default_generator
    default_generator.set_state(states[0])
    if len(states) > 1:
        cuda.set_rng_state_all(states[1])


def _same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return tuple(a.shape) == tuple(b.shape) and bool(_C.equal(a, b))


def states_changed(before):
    after = get_states()
    return len(after) != len(before) or not all(_same(a, b) for a, b in zip(before, after))


class PerSlice:
    """Applies one randomness mode around each call of the function (slice b of a batch)."""

    def __init__(self, randomness):
        self.randomness = randomness
        self.start = None

    def before(self, index):
        if self.randomness == "error":
            self.start = get_states()
        elif self.randomness == "same":
            if index == 0:
                self.start = get_states()
            else:
                set_states(self.start)

    def after(self):
        if self.randomness == "error" and states_changed(self.start):
            set_states(self.start)
            raise RuntimeError(RANDOM_IN_ERROR_MODE)
