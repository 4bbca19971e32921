"""The op schema: reads lib/dispatch/schema/*.toml into checked OpRow objects.

Used by the build's generator (gen_ops.py) and by the tests (the op database reads
the same rows), so both see one parse of one source. Standard library only.
The row format and the signature language are documented in
lib/dispatch/schema/README.md.
"""
from __future__ import annotations

import re
try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the same parser from PyPI
    import tomli as tomllib
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"

# The groups. Each owns a fixed range of GROUP_ID_RANGE op ids, starting at its
# position here times the range: an op's id is its group's first id plus its position
# in the group's file. A new row shifts only its own group's ids, so only the files
# that use that group's ids recompile (a new group goes at the end).
GROUPS = ["core", "elementwise", "reduce", "linalg", "nn", "shape_index", "nn_backward", "optim"]
GROUP_ID_RANGE = 256

VARIANTS = {"function", "method", "inplace", "out"}
TAGS = {"pointwise", "reduction", "view", "random", "nondeterministic", "inplace", "factory",
        "backward", "optimizer"}
DERIVATIVES = {"formula", "view", "non_differentiable", "none"}
# autocast: the policy on CUDA, autocast_cpu: on the CPU (torch keeps one list per device);
# "banned" refuses the op inside a region (binary_cross_entropy on CUDA, as torch).
AUTOCAST = {"lower_precision", "fp32", "promote", "banned"}
INVOKERS = {"generated", "manual", "none"}
FIELDS = {"func", "doc", "derivative", "grad", "invoker", "variants", "tags", "onnx", "autocast", "autocast_cpu",
          "shape", "kernel", "aliases", "function"}
# A generated ("structured") op: kernel = {kind = ..., formula = ...} makes the
# generator write its declaration, Tensor methods, op function, CPU and CUDA kernels
# and Python bindings from the row; the formula (a function of opmath values,
# EMBER_HOST_DEVICE, in a lib/kernels/*_math.h header) is all that is written by hand.
# Each kind is the signature it takes and what its op function checks:
KERNEL_KINDS = {
    # float result; integer and bool inputs compute in the default float dtype (torch.acos)
    "unary_float": "(Tensor self) -> Tensor",
    # floating inputs only: others raise NotImplementedError naming the dtype (torch's mish)
    "unary_float_only": "(Tensor self) -> Tensor",
    # grad_output * f'(self) of one floating dtype: formula(g, x) (an activation's backward)
    "backward_float": "(Tensor grad_output, Tensor self) -> Tensor",
    # a bool result for any input dtype; in place, the 0/1 result in self's dtype (isnan)
    "predicate": "(Tensor self) -> Tensor",
}

# Non-tensor argument types: the C++ type of the Args member.
ATTR_TYPES = {
    "bool": "bool",
    "int": "int64_t",
    "float": "double",
    "Scalar": "Scalar",
    "int[]": "DimVector",
    "ScalarType": "DType",
    "Device": "Device",
    "str": "std::string",
}
# A variable tail of attrs: all remaining attrs, each a float or None (interpolate's
# per-dim scales). The last non-tensor argument only.
ATTR_TAIL_TYPES = {"float?[]": "SmallVector<std::optional<double>, 3>"}
TENSOR_TYPES = {"Tensor", "Tensor?", "Tensor[]", "Tensor?[]"}
# Names an argument may not have: they are members of the generated Args structs
# (op, from, attrs) or C++ keywords a member cannot be named.
RESERVED_NAMES = {"op", "from", "attrs", "and", "or", "not", "xor", "bool", "int", "float",
                  "double", "char", "class", "struct", "default", "delete", "new", "this",
                  "template", "operator", "register", "return", "switch", "case", "union",
                  "const", "static", "auto", "signed", "unsigned", "long", "short", "void"}


def camel(name: str) -> str:
    """elu_backward -> EluBackward: the generated C++ type names."""
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


class SchemaError(ValueError):
    pass


@dataclass(frozen=True)
class Arg:
    name: str
    type: str              # the base type: "Tensor", "Tensor[]", "int", "int[]", ...
    optional: bool         # Type? (for a tensor: may be undefined)
    default: str | None    # as written in the signature
    mutated: bool = False  # Tensor(a!)

    @property
    def is_tensor(self) -> bool:
        return self.type.startswith("Tensor")

    @property
    def is_list(self) -> bool:
        return self.type in ("Tensor[]", "Tensor?[]")

    @property
    def is_attr_tail(self) -> bool:
        return self.type in ATTR_TAIL_TYPES


@dataclass(frozen=True)
class Return:
    type: str  # "Tensor" or "Tensor[]"
    name: str | None


@dataclass
class OpRow:
    name: str
    group: str
    func: str
    args: list[Arg]
    returns: list[Return]
    doc: str
    derivative: str
    variants: list[str] = field(default_factory=lambda: ["function"])
    tags: list[str] = field(default_factory=list)
    onnx: str | None = None
    autocast: str | None = None
    autocast_cpu: str | None = None
    shape: str | None = None
    # Derivative formulas (derivatives.yaml's): tensor input name -> a C++ expression
    # of its gradient. Empty: the formula row, if any, is hand-written.
    grad: dict = field(default_factory=dict)
    # How a traced node of the op runs (lib/jit/op_invoker.h): "generated" (from the
    # signature: ember::name(args in order), ember::name_ for in-place nodes),
    # "manual" (hand-written in lib/jit/invokers/) or "none" (cannot be traced).
    invoker: str = "none"
    # The OpId's value (GROUP_ID_RANGE above).
    id: int = -1
    # A structured op's kernel family and formula (KERNEL_KINDS), or None.
    kernel: dict | None = None
    # Other names of the same op (numpy's arccos for acos): functions and methods.
    aliases: list = field(default_factory=list)
    # The public function that reaches the row, when its name differs from the row's
    # (max_dim is ember::max(self, dim, keepdim)): what a generated invoker calls.
    function: str | None = None

    @property
    def inputs(self) -> list[Arg]:
        return [a for a in self.args if a.is_tensor]

    @property
    def attrs(self) -> list[Arg]:
        return [a for a in self.args if not a.is_tensor]

    @property
    def variadic(self) -> bool:
        return any(a.is_list for a in self.args)

    @property
    def returns_list(self) -> bool:
        return any(r.type == "Tensor[]" for r in self.returns)


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ARG = re.compile(
    rf"^(?P<type>Tensor(?:\((?P<alias>[a-z])(?P<bang>!?)\))?(?:\?)?(?:\[\])?|{_NAME}\??(?:\[\])?\??)"
    rf"\s+(?P<name>{_NAME})(?:\s*=\s*(?P<default>.+))?$")


def _split_top(text: str) -> list[str]:
    """Splits on commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_arg(text: str, where: str) -> Arg:
    m = _ARG.match(text.strip())
    if not m:
        raise SchemaError(f"{where}: cannot read the argument {text!r}")
    raw_type, name, default = m.group("type"), m.group("name"), m.group("default")
    mutated = bool(m.group("bang"))
    base = re.sub(r"\([a-z]!?\)", "", raw_type)
    if base.startswith("Tensor"):
        if base not in TENSOR_TYPES:
            raise SchemaError(f"{where}: unknown tensor type {raw_type!r}")
        optional = base in ("Tensor?", "Tensor?[]")
        base_type = "Tensor[]" if base.endswith("[]") else "Tensor"
        if base == "Tensor?[]":
            base_type = "Tensor?[]"
        return Arg(name, base_type, optional, default, mutated)
    if base in ATTR_TAIL_TYPES:
        return Arg(name, base, False, default)
    optional = base.endswith("?")
    base_type = base[:-1] if optional else base
    if base_type not in ATTR_TYPES:
        raise SchemaError(f"{where}: unknown type {base_type!r} of argument {name!r} "
                          f"(known: {', '.join(sorted(ATTR_TYPES))}, Tensor, Tensor?, Tensor[])")
    return Arg(name, base_type, optional, default)


def parse_func(func: str, where: str) -> tuple[str, list[Arg], list[Return]]:
    m = re.match(rf"^\s*(?P<name>{_NAME})\((?P<args>.*)\)\s*->\s*(?P<ret>.+?)\s*$", func)
    if not m:
        raise SchemaError(f"{where}: the signature {func!r} is not 'name(args) -> returns'")
    name = m.group("name")
    args = [parse_arg(a, f"{where} ({name})") for a in _split_top(m.group("args"))]
    names = [a.name for a in args]
    reserved = sorted(set(names) & RESERVED_NAMES)
    if reserved:
        raise SchemaError(f"{where} ({name}): argument names {reserved} are reserved "
                          "(Args struct members or C++ keywords)")
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SchemaError(f"{where} ({name}): argument names repeat: {sorted(dup)}")
    tensors = [a for a in args if a.is_tensor]
    for i, a in enumerate(tensors):
        if a.is_list and i != len(tensors) - 1:
            raise SchemaError(f"{where} ({name}): {a.type} must be the last tensor argument")
    attrs = [a for a in args if not a.is_tensor]
    for i, a in enumerate(attrs):
        if a.is_attr_tail and i != len(attrs) - 1:
            raise SchemaError(f"{where} ({name}): {a.type} must be the last non-tensor argument")
    ret_text = m.group("ret").strip()
    if ret_text == "()":
        returns = []
    else:
        if ret_text.startswith("("):
            if not ret_text.endswith(")"):
                raise SchemaError(f"{where} ({name}): bad returns {ret_text!r}")
            items = _split_top(ret_text[1:-1])
        else:
            items = [ret_text]
        returns = []
        for item in items:
            bits = item.split()
            if bits[0] not in ("Tensor", "Tensor[]") or len(bits) > 2:
                raise SchemaError(f"{where} ({name}): bad return {item!r}")
            returns.append(Return(bits[0], bits[1] if len(bits) == 2 else None))
    return name, args, returns


def _row(entry: dict, group: str, index: int) -> OpRow:
    where = f"schema/{group}.toml op #{index + 1}"
    unknown = set(entry) - FIELDS
    if unknown:
        raise SchemaError(f"{where}: unknown fields {sorted(unknown)} (known: {sorted(FIELDS)})")
    for required in ("func", "doc", "derivative", "invoker"):
        if required not in entry:
            raise SchemaError(f"{where}: missing the field {required!r}")
    name, args, returns = parse_func(entry["func"], where)
    where = f"schema/{group}.toml ({name})"
    variants = entry.get("variants", ["function"])
    tags = entry.get("tags", [])
    for value, allowed, what in ((variants, VARIANTS, "variant"), (tags, TAGS, "tag")):
        bad = set(value) - allowed
        if bad:
            raise SchemaError(f"{where}: unknown {what}s {sorted(bad)} (known: {sorted(allowed)})")
    if entry["derivative"] not in DERIVATIVES:
        raise SchemaError(f"{where}: derivative must be one of {sorted(DERIVATIVES)}")
    grad = entry.get("grad", {})
    if grad:
        if entry["derivative"] not in ("formula", "view"):
            raise SchemaError(f"{where}: grad formulas need derivative = \"formula\" or \"view\"")
        tensor_names = {a.name for a in args if a.is_tensor and not a.is_list}
        bad = set(grad) - tensor_names
        if bad:
            raise SchemaError(f"{where}: grad formulas for {sorted(bad)}, which are not tensor "
                              f"arguments (known: {sorted(tensor_names)})")
        if any(a.is_list for a in args):
            raise SchemaError(f"{where}: an op with a tensor list takes a hand-written derivative")
        for k, v in grad.items():
            if not isinstance(v, str) or not v.strip():
                raise SchemaError(f"{where}: grad.{k} must be a C++ expression (a string)")
    if entry["invoker"] not in INVOKERS:
        raise SchemaError(f"{where}: invoker must be one of {sorted(INVOKERS)}")
    if entry["invoker"] == "generated" and "function" not in variants:
        raise SchemaError(f"{where}: a generated invoker calls the function variant, which the row lacks")
    for key in ("autocast", "autocast_cpu"):
        if key in entry and entry[key] not in AUTOCAST:
            raise SchemaError(f"{where}: {key} must be one of {sorted(AUTOCAST)}")
    if "random" in tags:
        last = [a.name for a in args if not a.is_tensor][-2:]
        if last != ["seed", "offset"]:
            raise SchemaError(f"{where}: a random op's last two attrs must be 'int seed, int offset'")
    if not entry["doc"].strip() or "\n" in entry["doc"].strip():
        raise SchemaError(f"{where}: doc must be one line")
    kernel = entry.get("kernel")
    if kernel is not None:
        if not isinstance(kernel, dict) or set(kernel) != {"kind", "formula"}:
            raise SchemaError(f"{where}: kernel must be {{kind = ..., formula = ...}}")
        kind = kernel["kind"]
        if kind not in KERNEL_KINDS:
            raise SchemaError(f"{where}: kernel kind must be one of {sorted(KERNEL_KINDS)}")
        sig = entry["func"].strip()[len(name):].replace(" ", "")
        if sig != KERNEL_KINDS[kind].replace(" ", ""):
            raise SchemaError(f"{where}: a {kind} kernel takes the signature "
                              f"{name}{KERNEL_KINDS[kind]}")
        if not re.fullmatch(r"[A-Za-z_][\w:]*", kernel["formula"]):
            raise SchemaError(f"{where}: kernel formula must be a function name")
        if kind == "backward_float" and set(variants) != {"function"}:
            raise SchemaError(f"{where}: a backward_float op has the function variant only")
    aliases = entry.get("aliases", [])
    if aliases and kernel is None:
        raise SchemaError(f"{where}: aliases are generated for structured rows (kernel = ...) only")
    function = entry.get("function")
    if function is not None and (not re.fullmatch(r"[a-z_][a-z0-9_]*", function) or function == name):
        raise SchemaError(f"{where}: function must be another public name (a C++ identifier), "
                          f"not {function!r}")
    if function is not None and "inplace" in variants:
        raise SchemaError(f"{where}: function cannot rename a row with an in-place variant "
                          "(its in-place node runs name_)")
    if function is not None and entry["invoker"] != "generated":
        raise SchemaError(f"{where}: function names what a generated invoker calls; "
                          "this row's invoker is not generated")
    return OpRow(name=name, group=group, func=entry["func"].strip(), args=args, returns=returns,
                 doc=entry["doc"].strip(), derivative=entry["derivative"], variants=list(variants),
                 tags=list(tags), onnx=entry.get("onnx"), autocast=entry.get("autocast"),
                 autocast_cpu=entry.get("autocast_cpu"),
                 shape=entry.get("shape"), grad=dict(grad), invoker=entry["invoker"],
                 kernel=dict(kernel) if kernel else None, aliases=list(aliases), function=function)


def load(schema_dir: Path = SCHEMA_DIR) -> list[OpRow]:
    """Every row, in OpId order. Raises SchemaError naming the file and row."""
    rows: list[OpRow] = []
    seen: dict[str, str] = {}
    for group in GROUPS:
        path = schema_dir / f"{group}.toml"
        with open(path, "rb") as f:
            try:
                data = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise SchemaError(f"schema/{group}.toml: {e}") from None
        if set(data) - {"op"}:
            raise SchemaError(f"schema/{group}.toml: only [[op]] tables are allowed")
        for i, entry in enumerate(data.get("op", [])):
            row = _row(entry, group, i)
            if row.name in seen:
                raise SchemaError(f"schema/{group}.toml: op {row.name!r} is already a row of "
                                  f"schema/{seen[row.name]}.toml")
            seen[row.name] = group
            row.id = GROUPS.index(group) * GROUP_ID_RANGE + i
            rows.append(row)
        if len(data.get("op", [])) > GROUP_ID_RANGE:
            raise SchemaError(f"schema/{group}.toml: more than {GROUP_ID_RANGE} rows "
                              "(raise GROUP_ID_RANGE in lib/dispatch/codegen/schema.py)")
    return rows


if __name__ == "__main__":
    for r in load():
        print(f"{r.group:12s} {r.func}")
