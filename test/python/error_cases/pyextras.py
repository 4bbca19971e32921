"""Bad calls of the Python-only extras: autograd.functional, Module hooks and helpers,
WeightedRandomSampler / StackDataset, nn.utils.rnn and weight_norm (torch's types and
messages; test_autograd_functional.py etc. check the same calls against torch)."""
import ember
import ember.autograd.functional as AF
from ember.nn.utils import rnn as R
from ember.utils import data as D


def _hooked_linear(hook, pre=False):
    m = ember.nn.Linear(2, 2)
    (m.register_full_backward_pre_hook if pre else m.register_full_backward_hook)(hook)
    m(ember.ones(1, 2, requires_grad=True)).sum().backward()


def _inplace_on_hooked_output():
    m = ember.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    out = m(ember.ones(1, 2, requires_grad=True))
    out += 1


CASES = [
    ("vjp without v for a vector output", lambda: AF.vjp(lambda x: x * 2, ember.ones(3)), RuntimeError,
     r"The vector v can only be None if the user-provided function returns a single Tensor with a single"),
    ("jvp with v of the wrong shape", lambda: AF.jvp(lambda x: x * 2, ember.ones(3), ember.ones(2)),
     RuntimeError, r"v has invalid size: should be \(3,\) but got \(2,\)"),
    ("jacobian of a non-tensor input", lambda: AF.jacobian(lambda x: x, [ember.ones(1), 2.0]), TypeError,
     r"The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the value at index 1"),
    ("jacobian strict with an unused input",
     lambda: AF.jacobian(lambda x, y: x * 2, (ember.ones(2), ember.ones(2)), strict=True), RuntimeError,
     r"independent of input 1"),
    ("hessian of a vector function", lambda: AF.hessian(lambda x: x * 2, ember.ones(2)), RuntimeError,
     r"should contain a single element"),
    ("backward hook returning too many gradients",
     lambda: _hooked_linear(lambda mod, gi, go: (gi[0], gi[0])), RuntimeError,
     r"Backward hook returned an invalid number of grad_input, got 2, but expected 1"),
    ("backward pre-hook returning too many gradients",
     lambda: _hooked_linear(lambda mod, go: (go[0], go[0]), pre=True), RuntimeError,
     r"Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"),
    ("in-place change of a backward-hooked module's output", _inplace_on_hooked_output, RuntimeError,
     r"is a view and is being modified inplace"),
    ("set_submodule with an empty target", lambda: ember.nn.Linear(1, 1).set_submodule("", ember.nn.ReLU()),
     ValueError, r"Cannot set the submodule without a target name!"),
    ("set_submodule strict on a missing name",
     lambda: ember.nn.Sequential().set_submodule("a", ember.nn.ReLU(), strict=True), AttributeError,
     r"Sequential has no attribute `a`"),
    ("WeightedRandomSampler with num_samples 0", lambda: D.WeightedRandomSampler([1.0], 0), ValueError,
     r"num_samples should be a positive integer value, but got num_samples=0"),
    ("WeightedRandomSampler with negative weights", lambda: list(D.WeightedRandomSampler([1.0, -1.0], 2)),
     RuntimeError, r"invalid multinomial distribution \(encountering probability entry < 0\)"),
    ("WeightedRandomSampler drawing more than it has without replacement",
     lambda: list(D.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)), RuntimeError,
     r"cannot sample n_sample > prob_dist.size\(-1\) samples without replacement"),
    ("StackDataset of different lengths", lambda: D.StackDataset([1, 2], [1]), ValueError,
     r"Size mismatch between datasets"),
    ("pad_sequence of nothing", lambda: R.pad_sequence([]), RuntimeError, r"received an empty list of sequences"),
    ("pack_padded_sequence with unsorted lengths", lambda: R.pack_padded_sequence(ember.ones(3, 2), [1, 2]),
     RuntimeError, r"`lengths` array must be sorted in decreasing order"),
    ("pack_padded_sequence with a zero length",
     lambda: R.pack_padded_sequence(ember.ones(3, 2), [2, 0], enforce_sorted=False), RuntimeError,
     r"Length of all samples has to be greater than 0"),
    ("pad_packed_sequence with too short a total_length",
     lambda: R.pad_packed_sequence(R.pack_sequence([ember.ones(3)]), total_length=2), ValueError,
     r"Expected total_length to be at least the length of the longest sequence"),
    ("remove_weight_norm without weight_norm",
     lambda: ember.nn.utils.remove_weight_norm(ember.nn.Linear(1, 1)), ValueError,
     r"weight_norm of 'weight' not found in"),
]
