"""Generates the op table's C++ from the schema (lib/dispatch/schema/*.toml).

Run by CMake at build time into the build tree (never into the source tree):

    python gen_ops.py --out <build>/generated

emits
    dispatch/op_ids/<group>.h     opid::name for each row of the group (its fixed id range)
    dispatch/op_schema_table.cpp  the rows as data: signature, tags, argument kinds
                                  (op_schema(OpId), lib/dispatch/op_schema.h)
    dispatch/args/<group>.h       one typed argument struct per op with attributes
                                  (EluArgs::from(call), EluArgs{...}.attrs())
    autograd/derivatives_<group>.cpp  the derivative rows of the ops whose schema row
                                  gives grad formulas (derivatives.yaml's role)
    jit/invokers_<group>.cpp      the trace invokers of the rows with invoker = "generated":
                                  ember::name(args in signature order); for an "inplace"
                                  variant, ember::name_(self, ...) on a node that writes
                                  into its first input; for a row tagged "inplace" (it
                                  always writes into its first input), ember::name(self, ...)
                                  on such a node only

and, for the structured rows (kernel = ...), what gen_structured.py lists.

Files are rewritten only when their text changes, so a schema edit recompiles only
what includes the files that changed.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_structured  # noqa: E402
import schema as sch  # noqa: E402

HEADER = "// Generated from lib/dispatch/schema/*.toml by lib/dispatch/codegen/gen_ops.py. Do not edit.\n"

ARG_KIND = {
    "Tensor": "Tensor", "Tensor[]": "TensorList", "Tensor?[]": "OptTensorList",
    "bool": "Bool", "int": "Int", "float": "Float", "Scalar": "Scalar", "int[]": "IntList",
    "ScalarType": "DType", "Device": "Device", "str": "Str", "float?[]": "OptFloatList",
}
# How an Args member is read from its Attr.
READ = {
    "bool": "to_bool()", "int": "to_int()", "float": "to_double()", "Scalar": "to_scalar()",
    "int[]": "to_ints()", "ScalarType": "to_dtype()", "Device": "to_device()", "str": "to_string()",
}


camel = sch.camel


def args_struct_name(row: sch.OpRow) -> str:
    return camel(row.name) + "Args"


def cpp_string(s: str | None) -> str:
    if s is None:
        return "nullptr"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cpp_default(arg: sch.Arg) -> str | None:
    """The C++ initializer of an Args member for the signature's default, or None."""
    d = arg.default
    if d is None:
        return None
    d = d.strip()
    if d == "None":
        return "std::nullopt" if arg.optional else None
    if arg.type == "bool":
        return {"True": "true", "False": "false"}.get(d)
    if arg.type == "str":
        return d if re.fullmatch(r'"[^"\\]*"', d) else None
    if arg.type == "int[]":
        if re.fullmatch(r"\[\s*(-?\d+\s*(,\s*-?\d+\s*)*)?\]", d):
            return "DimVector{" + d[1:-1] + "}"
        return None
    if arg.type in ("int", "float", "Scalar"):
        if re.fullmatch(r"-?\d+", d):
            if arg.type == "float":
                return d + ".0"
            return f"int64_t({d})" if arg.type == "Scalar" else d
        if re.fullmatch(r"-?(\d+\.\d*|\.\d+|\d+)(e-?\d+)?", d):
            return d if arg.type != "int" else None
    return None


def member_type(arg: sch.Arg) -> str:
    if arg.is_attr_tail:
        return sch.ATTR_TAIL_TYPES[arg.type]
    t = sch.ATTR_TYPES[arg.type]
    return f"std::optional<{t}>" if arg.optional else t


def emit_op_ids(group: str, rows: list[sch.OpRow]) -> str:
    out = [HEADER,
           f"// The op ids of the {group} group: opid::name for each row of schema/{group}.toml.\n"
           "// Include it where an op of the group is named (op functions, kernel, derivative and\n"
           "// invoker registrations); the ids of the other groups are in their own headers, so\n"
           "// a new row recompiles only its group's users (lib/dispatch/op_table.h).\n"
           '#pragma once\n#include "dispatch/op_table.h"\n\nnamespace ember::opid {\n\n']
    for r in rows:
        out.append(f"inline constexpr OpId {r.name}{{{r.id}}};\n")
    out.append("\n}  // namespace ember::opid\n")
    return "".join(out)


def emit_table(rows: list[sch.OpRow]) -> str:
    out = [HEADER, '#include "dispatch/op_schema.h"\n\nnamespace ember {\nnamespace {\n\n']
    for r in rows:
        for which, args in (("inputs", r.inputs), ("attrs", r.attrs)):
            if not args:
                continue
            items = ", ".join(
                f"{{{cpp_string(a.name)}, ArgKind::{ARG_KIND[a.type]}, {str(a.optional).lower()}, "
                f"{str(a.mutated).lower()}}}" for a in args)
            out.append(f"const ArgSchema k_{r.name}_{which}[] = {{{items}}};\n")
    out.append("\n}  // namespace\n\n// Read by op_schema() (schema_check.cpp); extern: a namespace-scope const is\n"
               "// otherwise internal to this file.\n"
               f"static_assert(kOpCapacity == {len(sch.GROUPS) * sch.GROUP_ID_RANGE}, \"op_table.h's kOpCapacity "
               "is the groups times their id range (lib/dispatch/codegen/schema.py)\");\n"
               "extern const OpSchema kOpSchemas[kOpCapacity];\n"
               "// Indexed by OpId; the ids no row has are empty entries (name nullptr).\n"
               "const OpSchema kOpSchemas[kOpCapacity] = {\n")
    by_id = {r.id: r for r in rows}
    for i in range(len(sch.GROUPS) * sch.GROUP_ID_RANGE):
        r = by_id.get(i)
        if r is None:
            out.append("  {},\n")
            continue
        tags = " | ".join(f"kTag{camel(t)}" for t in r.tags) or "0"
        variants = " | ".join(f"kVariant{camel(v)}" for v in r.variants) or "0"
        ins = f"k_{r.name}_inputs" if r.inputs else "nullptr"
        ats = f"k_{r.name}_attrs" if r.attrs else "nullptr"
        n_out = -1 if r.returns_list else len(r.returns)
        out.append(
            f"  {{{cpp_string(r.name)}, {cpp_string(r.group)}, {cpp_string(r.func)},\n"
            f"   {cpp_string(r.doc)},\n"
            f"   uint16_t({tags}), uint8_t({variants}), DerivativeKind::{camel(r.derivative)},\n"
            f"   InvokerKind::{camel(r.invoker)},\n"
            f"   {cpp_string(r.onnx)}, {cpp_string(r.autocast)}, {cpp_string(r.autocast_cpu)}, {cpp_string(r.shape)},\n"
            f"   {ins}, {len(r.inputs)}, {ats}, {len(r.attrs)}, {n_out}}},\n")
    out.append("};\n\n}  // namespace ember\n")
    return "".join(out)


def emit_args(group: str, rows: list[sch.OpRow]) -> str:
    out = [HEADER,
           f"// The typed attributes of the {group} ops' calls: one struct per op with\n"
           "// attributes, its members in the row's order. The op function builds the call's\n"
           "// attrs with Args{...}.attrs(); kernels and derivatives read them back with\n"
           "// Args::from(call) (an OpCall or a BackwardCtx: anything with attr(i) and\n"
           "// num_attrs()), never by position.\n"
           "#pragma once\n#include <optional>\n#include <string>\n\n"
           f'#include "dispatch/op_call.h"\n#include "dispatch/op_ids/{group}.h"\n\nnamespace ember {{\n']
    for r in rows:
        if not r.attrs:
            continue
        name = args_struct_name(r)
        out.append(f"\n// {r.func}\nstruct {name} {{\n")
        out.append(f"  static constexpr OpId op = opid::{r.name};\n")
        for a in r.attrs:
            init = cpp_default(a)
            out.append(f"  {member_type(a)} {a.name}" + (f" = {init};\n" if init else "{};\n"))
        reads = []
        for i, a in enumerate(r.attrs):
            if a.is_attr_tail:
                reads.append(f"    for (size_t i = {i}; i < c.num_attrs(); ++i)\n"
                             f"      a.{a.name}.push_back(c.attr(i).is_none() ? std::optional<double>() "
                             f": std::optional<double>(c.attr(i).to_double()));\n")
                continue
            read = f"c.attr({i}).{READ[a.type]}"
            if a.optional:
                read = (f"c.attr({i}).is_none() ? {member_type(a)}() : "
                        f"{member_type(a)}({read})")
            reads.append(f"    a.{a.name} = {read};\n")
        out.append(f"  template <typename Call>\n  static {name} from(const Call& c) {{\n    {name} a;\n" + "".join(reads)
                   + "    return a;\n  }\n")
        # Appended one by one rather than from a braced list of temporaries: GCC's
        # -Wmaybe-uninitialized misreads the list's optional members at -O3.
        pushes = "".join(f"    out.emplace_back({a.name});\n" for a in r.attrs if not a.is_attr_tail)
        for a in r.attrs:
            if a.is_attr_tail:
                pushes += f"    for (const auto& v : {a.name}) out.emplace_back(v);\n"
        out.append(f"  SmallVector<Attr, 4> attrs() const {{\n    SmallVector<Attr, 4> out;\n{pushes}"
                   f"    return out;\n  }}\n}};\n")
    out.append("\n}  // namespace ember\n")
    return "".join(out)


def _uses(expr: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", expr) is not None


def emit_derivative_row(r: sch.OpRow) -> str:
    """EMBER_DERIVATIVE_FULL for a row with grad formulas. A formula may name: grad
    (output 0's gradient; grad1, ... for the others), the op's tensor inputs (saved),
    result (output 0, saved; result1, ...), its attrs (from the Args struct) and ctx."""
    formulas = list(r.grad.values())
    used = lambda name: any(_uses(f, name) for f in formulas)  # noqa: E731
    lines = []
    save_in = [i for i, a in enumerate(r.inputs) if used(a.name)]
    outs = ["result"] + [f"result{i}" for i in range(1, len(r.returns))]
    save_out = [i for i, n in enumerate(outs) if used(n)]
    grads = ["grad"] + [f"grad{i}" for i in range(1, len(r.returns))]
    for i, g in enumerate(grads):
        if used(g):
            lines.append(f"  Tensor {g} = ctx.grad({i});")
    for i in save_in:
        lines.append(f"  Tensor {r.inputs[i].name} = ctx.input({i});")
    for i in save_out:
        lines.append(f"  Tensor {outs[i]} = ctx.output({i});")
    attrs = [a for a in r.attrs if used(a.name)]
    if attrs:
        lines.append(f"  const auto args = {args_struct_name(r)}::from(ctx);")
        for a in attrs:
            lines.append(f"  const auto& {a.name} = args.{a.name};")
    slots = []
    for i, a in enumerate(r.inputs):
        f = r.grad.get(a.name)
        slots.append(f"ctx.needs_grad({i}) ? Tensor({f}) : Tensor()" if f else "Tensor()")
    mask = lambda idx: f"save_inputs({{{', '.join(map(str, idx))}}})" if idx else "save_none()"  # noqa: E731
    body = "\n".join(lines + ["  return {" + ",\n          ".join(slots) + "};"])
    comment = "".join(f"// grad.{k}: {v}\n" for k, v in r.grad.items())
    return (f"\n// {r.func}\n{comment}EMBER_DERIVATIVE_FULL({r.name}, {mask(save_in)}, {mask(save_out)}, {{\n"
            f"{body}\n}});\n")


def emit_view_derivative_row(r: sch.OpRow) -> str:
    """EMBER_VIEW_DERIVATIVE for a view row with a grad formula. A view saves nothing:
    its formula may name grad, the input's sizes (<input>_sizes), the attrs and ctx,
    but not the input's values."""
    if len(r.inputs) != 1 or set(r.grad) != {r.inputs[0].name}:
        raise ValueError(f"{r.name}: a view's grad formula is for its one tensor input")
    name = r.inputs[0].name
    f = r.grad[name]
    if _uses(f, name) or _uses(f, "result"):
        raise ValueError(f"{r.name}: a view's grad formula reads {name}_sizes, not {name} or result "
                         "(a view saves no values)")
    lines = ["  Tensor grad = ctx.grad(0);"] if _uses(f, "grad") else []
    if _uses(f, f"{name}_sizes"):
        lines.append(f"  const DimVector& {name}_sizes = ctx.input_sizes(0);")
    attrs = [a for a in r.attrs if _uses(f, a.name)]
    if attrs:
        lines.append(f"  const auto args = {args_struct_name(r)}::from(ctx);")
        lines += [f"  const auto& {a.name} = args.{a.name};" for a in attrs]
    body = "\n".join(lines + [f"  return {{Tensor({f})}};"])
    return f"\n// {r.func}\n// grad.{name}: {f}\nEMBER_VIEW_DERIVATIVE({r.name}, {{\n{body}\n}});\n"


def emit_derivatives(group: str, rows: list[sch.OpRow]) -> str:
    formulas = [r for r in rows if r.grad and r.derivative == "formula"]
    views = [r for r in rows if r.grad and r.derivative == "view"]
    inert = [r for r in rows if r.derivative == "non_differentiable"]
    if not formulas and not views and not inert:  # nothing to compile: no includes either
        return HEADER + f"// No {group} op has grad formulas or is non-differentiable in its schema row.\n"
    out = [HEADER,
           f"// The derivative rows the {group} ops' schema rows define: the grad formulas\n"
           "// (lib/dispatch/schema/README.md) and the rows marked non_differentiable (their\n"
           "// outputs never require grad). The rest are hand-written in lib/autograd/derivatives/.\n"
           '#include "autograd/derivatives.h"\n', f'#include "dispatch/op_ids/{group}.h"\n']
    if formulas or views:
        out.append('#include "autograd/derivatives/formulas.h"\n#include "autograd/grad_utils.h"\n'
                   f'#include "dispatch/args/{group}.h"\n#include "ember/ember.h"\n'
                   '#include "ember/ops/view_backward.h"\n')
    out.append("\nnamespace ember::autograd {\nnamespace {\n")
    out += [emit_derivative_row(r) for r in formulas]
    out += [emit_view_derivative_row(r) for r in views]
    if inert:
        out.append("\n" + "".join(f"EMBER_NON_DIFFERENTIABLE({r.name});\n" for r in inert))
    out.append("\n}  // namespace\n}  // namespace ember::autograd\n")
    return "".join(out)


# How a generated invoker reads each argument from the node (InvokeArgs: every
# accessor checks the position and the kind, so a malformed node is a clear error).
def _invoke_arg(a: sch.Arg, i: int) -> str:
    if a.is_list:  # every input from position i on
        return f"a.opt_tensors_from({i})" if a.type == "Tensor?[]" else f"a.tensors_from({i})"
    if a.is_tensor:
        return f"a.opt_tensor({i})" if a.optional else f"a.tensor({i})"
    if a.optional:
        read = {"int": "a.opt_integer", "float": "a.opt_real", "Scalar": "a.opt_scalar",
                "ScalarType": "a.opt_dtype"}.get(a.type)
        if read:
            return f"{read}({i})"
        t = sch.ATTR_TYPES[a.type]
        plain = _invoke_arg(sch.Arg(a.name, a.type, False, None), i)
        return f"(a.is_none({i}) ? std::optional<{t}>() : std::optional<{t}>({plain}))"
    return {"bool": f"a.flag({i})", "int": f"a.integer({i})", "float": f"a.real({i})",
            "Scalar": f"a.scalar({i})", "int[]": f"as_list(a.ints({i}))",
            "ScalarType": f"a.dtype({i})", "Device": f"a.device_attr({i})",
            "str": f"a.string({i})"}[a.type]


def emit_invoker(r: sch.OpRow) -> str:
    if any(a.is_attr_tail for a in r.args):
        raise ValueError(f"{r.name}: a generated invoker takes no attribute lists "
                         "(write it by hand: invoker = \"manual\")")
    if len(r.returns) > 1 and ("inplace" in r.tags or "inplace" in r.variants):
        raise ValueError(f"{r.name}: a generated invoker of several outputs has no in-place form "
                         "(write it by hand: invoker = \"manual\")")
    # The arguments in signature order, each read from its position among the node's
    # inputs or attrs; the in-place form passes the written tensor as `self`.
    call_args, inplace_args = [], []
    n_inputs = n_attrs = 0
    for arg in r.args:
        if arg.is_tensor:
            x = _invoke_arg(arg, n_inputs)
            inplace_args.append("self" if n_inputs == 0 else x)
            n_inputs += 1
        else:
            x = _invoke_arg(arg, n_attrs)
            inplace_args.append(x)
            n_attrs += 1
        call_args.append(x)
    lines = [f"\n// {r.func}", f"EMBER_REGISTER_INVOKER({r.name}, [](const InvokeArgs& a) -> std::vector<Tensor> {{"]
    if "inplace" in r.tags:
        # The op always writes into its first input (scatter_, masked_fill_): the node
        # must be the x.op_() form, run as ember::op_(self, ...) (the row's name).
        lines += ["  Tensor self = inplace_self(a);",
                  f"  return {{ember::{r.function or r.name}({', '.join(inplace_args)})}};"]
    elif "inplace" in r.variants:
        lines += [f"  if (a.node().preset.empty()) return {{ember::{r.name}({', '.join(call_args)})}};",
                  "  Tensor self = inplace_self(a);",
                  f"  return {{ember::{r.name}_({', '.join(inplace_args)})}};"]
    else:
        # Several outputs come back as a tuple (max_dim: values, indices).
        fn = f"ember::{r.function or r.name}({', '.join(call_args)})"
        result = f"as_outputs({fn})" if len(r.returns) > 1 else f"{{{fn}}}"
        lines += ["  check_out_of_place(a);", f"  return {result};"]
    lines.append("});")
    return "\n".join(lines) + "\n"


def emit_invokers(group: str, rows: list[sch.OpRow]) -> str:
    rows = [r for r in rows if r.invoker == "generated"]
    if not rows:
        return HEADER + f"// No {group} op has a generated invoker.\n"
    out = [HEADER,
           f"// The trace invokers of the {group} ops whose schema row says invoker = \"generated\":\n"
           "// each node runs through the op's public function (its checks guard nodes read from\n"
           "// a model file), x.op_() for a node that writes into its first input.\n"
           f'#include "dispatch/op_ids/{group}.h"\n#include "ember/ember.h"\n#include "jit/invokers/invoke_util.h"\n\n'
           "namespace ember::jit {\n"]
    out += [emit_invoker(r) for r in rows]
    out.append("\n}  // namespace ember::jit\n")
    return "".join(out)


def write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=Path, help="the build tree's generated/ folder")
    opts = p.parse_args()
    try:
        rows = sch.load()
    except sch.SchemaError as e:
        print(f"gen_ops.py: {e}", file=sys.stderr)
        return 1
    structs = {}
    for r in rows:
        if r.attrs:
            n = args_struct_name(r)
            if n in structs:
                print(f"gen_ops.py: ops {structs[n]!r} and {r.name!r} both give the struct {n}",
                      file=sys.stderr)
                return 1
            structs[n] = r.name
    write_if_changed(opts.out / "dispatch" / "op_schema_table.cpp", emit_table(rows))
    for group in sch.GROUPS:
        group_rows = [r for r in rows if r.group == group]
        write_if_changed(opts.out / "dispatch" / "op_ids" / f"{group}.h", emit_op_ids(group, group_rows))
        write_if_changed(opts.out / "dispatch" / "args" / f"{group}.h", emit_args(group, group_rows))
        write_if_changed(opts.out / "autograd" / f"derivatives_{group}.cpp",
                         emit_derivatives(group, group_rows))
        try:
            invokers = emit_invokers(group, group_rows)
        except ValueError as e:
            print(f"gen_ops.py: {e}", file=sys.stderr)
            return 1
        write_if_changed(opts.out / "jit" / f"invokers_{group}.cpp", invokers)
        write_if_changed(opts.out / "include" / "ember" / "generated" / f"{group}_ops.h",
                         gen_structured.emit_declarations(group, group_rows))
    # The structured ops (gen_structured.py).
    write_if_changed(opts.out / "include" / "ember" / "generated" / "ops.h",
                     gen_structured.emit_declarations_umbrella(sch.GROUPS))
    write_if_changed(opts.out / "include" / "ember" / "generated" / "methods.inc",
                     gen_structured.emit_methods(rows))
    write_if_changed(opts.out / "ops" / "structured_ops.cpp", gen_structured.emit_op_functions(rows))
    write_if_changed(opts.out / "cpu" / "structured_kernels.cpp", gen_structured.emit_cpu_kernels(rows))
    write_if_changed(opts.out / "cuda" / "structured_kernels.cu", gen_structured.emit_cuda_kernels(rows))
    write_if_changed(opts.out / "python" / "structured_bindings.cpp", gen_structured.emit_bindings(rows))
    write_if_changed(opts.out / "cpu" / "fused_structured_formulas.inc", gen_structured.emit_fusion_formulas(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
