"""argnums (which positional arguments a transform differentiates) and the checks on
what the transformed function takes and returns, with torch.func's messages."""
from .. import _C
from ..utils._pytree import tree_flatten, tree_unflatten


def check_argnums(argnums, num_args):
    """argnums normalised (negative counted from the end), checked as torch does."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        if not -num_args <= argnums < num_args:
            raise RuntimeError(f"Got argnum={argnums}, but only {num_args} positional inputs")
        return argnums % num_args
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    for argnum in argnums:
        if not isinstance(argnum, int):
            raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    normalised = tuple(check_argnums(argnum, num_args) for argnum in argnums)
    if len(set(normalised)) != len(normalised):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return normalised


def select_args(args, argnums):
    """The differentiated arguments: args[argnums], or a tuple of them for tuple argnums."""
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[i] for i in argnums)


def replace_args(args, argnums, new):
    """args with the differentiated ones replaced by new (shaped as select_args's result)."""
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for i, value in zip(argnums, new):
            args[i] = value
    return tuple(args)


def flat_tensor_inputs(tree):
    """(leaves, spec) of a differentiated argument, every leaf a tensor (ValueError otherwise)."""
    leaves, spec = tree_flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, _C.Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
    return leaves, spec


def split_aux(output, has_aux, api):
    """(output, aux) of the function's result; aux checked to hold only tensors."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    output, aux = output
    for leaf in tree_flatten(aux)[0]:
        if not isinstance(leaf, _C.Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output, aux


def flat_tensor_outputs(output, api):
    """(leaves, spec) of the function's output, every leaf a tensor (RuntimeError otherwise)."""
    leaves, spec = tree_flatten(output)
    for leaf in leaves:
        if not isinstance(leaf, _C.Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(leaf)}")
    return leaves, spec


def release_tree(level, tree, connected):
    """Every tensor of tree as the caller sees it (see GradLevel.release)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([level.release(leaf, connected) for leaf in leaves], spec)
