"""ember.utils._pytree: nested Python containers of leaves (torch.utils._pytree).

A pytree is a leaf or a container node (tuple, list, dict, OrderedDict, defaultdict,
deque, namedtuple, or a type given to register_pytree_node) whose children are
pytrees. tree_flatten turns one into (leaves, TreeSpec); tree_unflatten rebuilds it from
leaves and the spec. As in torch (2.x), None is a leaf, dict children follow the dict's
own order, and a namedtuple keeps its class as context.
ember.func uses these to match in_dims/out_dims and argnums to arguments and outputs.
"""
import collections
from typing import Any, Callable, NamedTuple

__all__ = ["TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_unflatten",
           "tree_leaves", "tree_structure", "tree_map", "tree_map_", "tree_map_only",
           "tree_iter", "tree_all", "tree_any", "tree_is_leaf", "treespec_pprint"]


class NodeDef(NamedTuple):
    type: type
    flatten_fn: Callable  # node -> (children, context)
    unflatten_fn: Callable  # (children, context) -> node


SUPPORTED_NODES: dict = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Makes instances of cls pytree nodes: flatten_fn(node) -> (children, context),
    unflatten_fn(children, context) -> node. The serialization arguments are accepted
    for torch's signature; ember does not serialize tree specs."""
    del serialized_type_name, to_dumpable_context, from_dumpable_context, flatten_with_keys_fn
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


class _NamedTupleNode:
    """The node type of every namedtuple class (the class itself is the context)."""


def _is_namedtuple_instance(tree):
    return isinstance(tree, tuple) and hasattr(type(tree), "_fields") and type(tree) is not tuple


register_pytree_node(tuple, lambda t: (list(t), None), lambda children, _: tuple(children))
register_pytree_node(list, lambda t: (list(t), None), lambda children, _: list(children))
register_pytree_node(dict, lambda d: (list(d.values()), list(d.keys())),
                     lambda children, keys: dict(zip(keys, children)))
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), list(d.keys())),
                     lambda children, keys: collections.OrderedDict(zip(keys, children)))
register_pytree_node(collections.defaultdict,
                     lambda d: (list(d.values()), (d.default_factory, list(d.keys()))),
                     lambda children, ctx: collections.defaultdict(ctx[0], zip(ctx[1], children)))
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen),
                     lambda children, maxlen: collections.deque(children, maxlen=maxlen))
register_pytree_node(_NamedTupleNode, lambda t: (list(t), type(t)),
                     lambda children, cls: cls(*children))


def _node_type(tree):
    if _is_namedtuple_instance(tree):
        return _NamedTupleNode
    return type(tree)


def tree_is_leaf(tree, is_leaf=None):
    """True when tree is a leaf: not a registered container (or is_leaf(tree) says so)."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


class TreeSpec:
    """The structure of a pytree: node type, context (dict keys, namedtuple class, ...)
    and one spec per child. A LeafSpec stands for one leaf."""

    def __init__(self, type, context, children_specs):  # noqa: A002  (torch's names)
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_nodes = 1 + sum(spec.num_nodes for spec in self.children_specs)
        self.num_leaves = sum(spec.num_leaves for spec in self.children_specs)
        self.num_children = len(self.children_specs)

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type == other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash((self.type, self.num_nodes, self.num_leaves))

    def __repr__(self, indent=0):
        type_name = "namedtuple" if self.type is _NamedTupleNode else self.type.__name__
        repr_prefix = f"TreeSpec({type_name}, {self.context}, ["
        children = ""
        if self.children_specs:
            indent += 2
            children = self.children_specs[0].__repr__(indent)
            children += "," if len(self.children_specs) > 1 else ""
            children += ",".join(["\n" + " " * indent + spec.__repr__(indent)
                                  for spec in self.children_specs[1:]])
        return f"{repr_prefix}{children}])"

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)

    def flatten_up_to(self, tree):
        """The subtrees of tree at this spec's leaves (tree must have this structure above them)."""
        out = []
        _flatten_up_to(self, tree, out)
        return out


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])
        self.num_nodes = 1
        self.num_leaves = 1

    def __repr__(self, indent=0):
        return "*"


def treespec_pprint(treespec):
    return repr(treespec)


def _flatten(tree, leaves, is_leaf):
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return LeafSpec()
    node_type = _node_type(tree)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    return TreeSpec(node_type, context, [_flatten(child, leaves, is_leaf) for child in children])


def tree_flatten(tree, is_leaf=None):
    """(list of leaves, TreeSpec)."""
    leaves = []
    spec = _flatten(tree, leaves, is_leaf)
    return leaves, spec


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_iter(tree, is_leaf=None):
    yield from tree_leaves(tree, is_leaf)


def tree_unflatten(leaves, treespec):
    """The pytree of structure treespec holding leaves (in flatten order)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of "
                        f"TreeSpec but got item of type {type(treespec)}.")
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"tree_unflatten(leaves, treespec): `leaves` has length {len(leaves)} but the "
                         f"spec refers to a pytree that holds {treespec.num_leaves} items ({treespec}).")
    iterator = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(iterator)
        children = [build(child) for child in spec.children_specs]
        return SUPPORTED_NODES[spec.type].unflatten_fn(children, spec.context)

    return build(treespec)


def _flatten_up_to(spec, tree, out):
    if spec.is_leaf():
        out.append(tree)
        return
    node_type = _node_type(tree)
    if node_type is not spec.type:
        raise ValueError(f"Node type mismatch; expected {spec.type}, but got {node_type}.")
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    if len(children) != spec.num_children:
        raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
    if context != spec.context:
        raise ValueError(f"Node context mismatch for custom node type {node_type}.")
    for child_spec, child in zip(spec.children_specs, children):
        _flatten_up_to(child_spec, child, out)


def tree_map(func, tree, *rests, is_leaf=None):
    """The pytree of func(leaf, *matching leaves of rests) (rests have tree's structure)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(*flat_args)], spec)


def tree_map_(func, tree, *rests, is_leaf=None):
    """Calls func on every leaf (for its effect) and returns tree."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat_args = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for xs in zip(*flat_args):
        func(*xs)
    return tree


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """tree_map applying func only to the leaves that are instances of type_or_types."""
    return tree_map(lambda x: func(x) if isinstance(x, type_or_types) else x, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_leaves(tree, is_leaf)))


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    """tree (a prefix of treespec's structure: a leaf stands for a whole subtree) expanded
    to one value per leaf of treespec, or None when tree is not such a prefix."""
    assert isinstance(treespec, TreeSpec)
    if tree_is_leaf(tree, is_leaf):
        return [tree] * treespec.num_leaves
    if treespec.is_leaf():
        return None
    node_type = _node_type(tree)
    if node_type is not treespec.type:
        return None
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    if len(children) != treespec.num_children or context != treespec.context:
        return None
    result: list[Any] = []
    for child, child_spec in zip(children, treespec.children_specs):
        flat = _broadcast_to_and_flatten(child, child_spec, is_leaf)
        if flat is None:
            return None
        result += flat
    return result
