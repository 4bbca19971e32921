"""The structured ops: everything about a row with kernel = {kind, formula}, written
from the row (gen_ops.py calls these). For such an op the hand-written part is its row,
its formula (a function of opmath values in a lib/kernels/*_math.h header, shared by the
CPU and the CUDA kernel) and its op database samples; this file writes the rest:

    include/ember/generated/<group>_ops.h   the C++ declarations (ember::name, name_,
                                            the aliases), included by ember/ember.h
    include/ember/generated/methods.inc     the Tensor methods (inside class Tensor)
    ops/structured_ops.cpp                  the op functions and the methods' forwarders
    cpu/structured_kernels.cpp              the CPU kernels and their registrations
    cuda/structured_kernels.cu              the CUDA kernels (compiled in CUDA builds)
    python/structured_bindings.cpp          the Python bindings (ember.name, name_,
                                            Tensor.name, name_), with PyTorch's names
    cpu/fused_structured_formulas.inc      the unary float formulas, for pointwise
                                            fusion's table (lib/cpu/fused_pointwise_ops.cpp)

The kinds (schema.py's KERNEL_KINDS) decide the signature, the op function's checks
(lib/ops/elementwise_common.h) and the kernel's loop (cpu/unary_helpers.h,
cuda/elementwise/helpers.cuh).
"""
from __future__ import annotations

from pathlib import Path

import schema as sch

HEADER = "// Generated from lib/dispatch/schema/*.toml by lib/dispatch/codegen/gen_structured.py. Do not edit.\n"
KERNELS_DIR = Path(__file__).resolve().parent.parent.parent / "kernels"

# Per kind: the op function's body (out of place, in place), the CPU and CUDA kernel
# helpers, and the formula's arity.
KINDS = {
    "unary_float": dict(
        call="return unary(opid::{name}, self);",
        call_="return unary_float_(\"{name}_\", opid::{name}, self);",
        helper="float_unary", arity=1),
    "unary_float_only": dict(
        call="return unary_float_only(\"{name}\", opid::{name}, self);",
        call_="return unary_float_only_(\"{name}_\", opid::{name}, self);",
        helper="float_unary", arity=1),
    "backward_float": dict(
        call="return float_unary_backward(opid::{name}, grad_output, self);",
        call_=None, helper="float_unary_backward", arity=2),
    "predicate": dict(
        call="return unary(opid::{name}, self);",
        call_="return unary_(opid::{name}, self, kBool);",
        helper="predicate_unary", cuda_helper="predicate_unary<DTypes::All>", result="bool", arity=1),
}


def structured(rows: list[sch.OpRow]) -> list[sch.OpRow]:
    return [r for r in rows if r.kernel]


def _id_includes(rows: list[sch.OpRow]) -> list[str]:
    """The op id headers of the groups the rows belong to."""
    groups = sorted({r.group for r in rows}, key=sch.GROUPS.index)
    return [f'#include "dispatch/op_ids/{g}.h"\n' for g in groups]


def _params(r: sch.OpRow) -> str:
    return ", ".join(f"const Tensor& {a.name}" for a in r.args)


def _names(r: sch.OpRow) -> list[str]:
    return [r.name] + list(r.aliases)


def emit_declarations(group: str, rows: list[sch.OpRow]) -> str:
    out = [HEADER, f"// The structured ops of the {group} group (their schema rows say kernel = ...).\n"
           '#pragma once\n#include "ember/tensor.h"\n\nnamespace ember {\n']
    for r in structured(rows):
        out.append(f"\n// {r.func}: {r.doc}\n")
        for n in _names(r):
            if "function" in r.variants:
                out.append(f"Tensor {n}({_params(r)});\n")
            if "inplace" in r.variants:
                out.append(f"Tensor& {n}_(Tensor& self);\n")
    out.append("\n}  // namespace ember\n")
    return "".join(out)


def emit_declarations_umbrella(groups: list[str]) -> str:
    return HEADER + "// Every group's structured ops (ember/ember.h includes this).\n#pragma once\n" + "".join(
        f'#include "ember/generated/{g}_ops.h"\n' for g in groups)


def emit_methods(rows: list[sch.OpRow]) -> str:
    out = [HEADER, "// The Tensor methods of the structured ops; included inside class Tensor\n"
           "// (ember/tensor.h). Each forwards to the function of the same name.\n"]
    for r in structured(rows):
        if "method" not in r.variants:
            continue
        for n in _names(r):
            out.append(f"  Tensor {n}() const;\n")
            if "inplace" in r.variants:
                out.append(f"  Tensor& {n}_();\n")
    return "".join(out)


def emit_op_functions(rows: list[sch.OpRow]) -> str:
    rows = structured(rows)
    out = [HEADER, "// The op functions of the structured ops: the kind's checks, then the row's call.\n"
           '#include "ember/generated/ops.h"\n#include "ops/elementwise_common.h"\n']
    out += _id_includes(rows)
    out.append("\nnamespace ember {\n\nusing namespace elementwise_detail;\n")
    for r in rows:
        k = KINDS[r.kernel["kind"]]
        out.append(f"\n// {r.func}\n")
        if "function" in r.variants:
            out.append(f"Tensor {r.name}({_params(r)}) {{ {k['call'].format(name=r.name)} }}\n")
        if "inplace" in r.variants:
            out.append(f"Tensor& {r.name}_(Tensor& self) {{ {k['call_'].format(name=r.name)} }}\n")
        for alias in r.aliases:
            args = ", ".join(a.name for a in r.args)
            out.append(f"Tensor {alias}({_params(r)}) {{ return {r.name}({args}); }}\n")
            if "inplace" in r.variants:
                out.append(f"Tensor& {alias}_(Tensor& self) {{ return {r.name}_(self); }}\n")
        if "method" in r.variants:
            for n in _names(r):
                out.append(f"Tensor Tensor::{n}() const {{ return ember::{r.name}(*this); }}\n")
                if "inplace" in r.variants:
                    out.append(f"Tensor& Tensor::{n}_() {{ return ember::{r.name}_(*this); }}\n")
    out.append("\n}  // namespace ember\n")
    return "".join(out)


def _formula_headers() -> str:
    return "".join(f'#include "kernels/{p.name}"\n' for p in sorted(KERNELS_DIR.glob("*_math.h")))


def emit_cpu_kernels(rows: list[sch.OpRow]) -> str:
    rows = structured(rows)
    out = [HEADER, "// The CPU kernels of the structured ops: each row's formula in its kind's loop.\n"
           "#include <cmath>\n\n", _formula_headers(), '#include "cpu/unary_helpers.h"\n']
    out += _id_includes(rows)
    out.append("\nnamespace ember::cpu {\nnamespace {\n\n")
    for r in rows:
        k = KINDS[r.kernel["kind"]]
        f = r.kernel["formula"]
        lam = "[](auto x) { return %s(x); }" % f if k["arity"] == 1 else "[](auto g, auto x) { return %s(g, x); }" % f
        out.append(f"void {r.name}_kernel(OpCall& c) {{ {k['helper']}(c, {lam}); }}\n")
    out.append("\n}  // namespace\n\n")
    out += [f"EMBER_REGISTER_KERNEL({r.name}, CPU, {r.name}_kernel);\n" for r in rows]
    out.append("\n}  // namespace ember::cpu\n")
    return "".join(out)


def emit_cuda_kernels(rows: list[sch.OpRow]) -> str:
    """One functor per kind with the op a launch argument (a switch on a value every
    thread shares, so no divergence): one kernel per kind and dtype, not per op,
    which keeps nvcc's time down, as cuda/elementwise/special.cu does by hand."""
    rows = structured(rows)
    out = [HEADER, "// The CUDA kernels of the structured ops: each kind's formulas in one functor, the\n"
           "// op a launch argument (the twins of cpu/structured_kernels.cpp).\n"
           "#include <cmath>\n\n", _formula_headers(), '#include "cuda/elementwise/helpers.cuh"\n']
    out += _id_includes(rows)
    by_kind = {kind: [r for r in rows if r.kernel["kind"] == kind] for kind in KINDS}
    out.append("\nnamespace ember::cuda {\nnamespace {\n")
    for kind, k in KINDS.items():
        members = by_kind[kind]
        if not members:
            continue
        functor = sch.camel(kind)
        params, args = ("T x", "x") if k["arity"] == 1 else ("T g, T x", "g, x")
        result = k.get("result", "T")
        out.append(f"\nstruct {functor} {{\n  int fn;\n  template <typename T> __device__ {result} operator()({params}) const {{\n"
                   "    switch (fn) {\n")
        for i, r in enumerate(members):
            case = "default" if i == len(members) - 1 else f"case {i}"
            out.append(f"      {case}: return {r.kernel['formula']}({args});  // {r.name}\n")
        out.append("    }\n  }\n};\n")
        helper = k.get("cuda_helper", k["helper"])
        out.append(f"template <int kFn>\nvoid {kind}_kernel(OpCall& c) {{ {helper}(c, {functor}{{kFn}}); }}\n")
    out.append("\n}  // namespace\n\n")
    for kind, members in by_kind.items():
        out += [f"EMBER_REGISTER_KERNEL({r.name}, CUDA, {kind}_kernel<{i}>);\n" for i, r in enumerate(members)]
    out.append("\n}  // namespace ember::cuda\n")
    return "".join(out)


def emit_bindings(rows: list[sch.OpRow]) -> str:
    """ember.name(input), ember.name_(input), Tensor.name(), Tensor.name_() as the row's
    variants say. Backward primitives are not bound (torch exposes them only as aten ops)."""
    out = [HEADER, "// The Python bindings of the structured ops, with PyTorch's argument names.\n"
           '#include "bindings.h"\n\nnamespace ember::python {\n\n'
           "namespace {\n// An in-place function or method returns its input object itself (ember.mish_(x) is x).\n"
           "template <Tensor& (*F)(Tensor&)>\npy::object in_place(const py::object& self) {\n"
           "  F(tensor_ref(self));\n  return self;\n}\n}  // namespace\n\n"
           "void bind_structured_ops(py::module_& m, TensorClass& cls) {\n"]
    for r in structured(rows):
        if "backward" in r.tags:
            continue
        for n in _names(r):
            if "function" in r.variants:
                out.append(f'  m.def("{n}", &{r.name}, py::arg("input"));\n')
            if "inplace" in r.variants:
                out.append(f'  m.def("{n}_", &in_place<&{r.name}_>, py::arg("input"));\n')
            if "method" in r.variants:
                out.append(f'  cls.def("{n}", &{r.name});\n  add_fast_unary_method("{n}", &{r.name});\n')
                if "inplace" in r.variants:
                    out.append(f'  cls.def("{n}_", &in_place<&{r.name}_>);\n')
    out.append("}\n\n}  // namespace ember::python\n")
    return "".join(out)


# The kinds whose formula maps one floating value to one of the same dtype: what
# pointwise fusion can chain (lib/jit/runtime/fusion.h).
FUSABLE_KINDS = ("unary_float", "unary_float_only")


def emit_fusion_formulas(rows: list[sch.OpRow]) -> str:
    """cpu/fused_structured_formulas.inc: EMBER_FUSION_STRUCTURED(name, formula) for each
    structured op a fused loop can run, with the headers and op ids its formulas need;
    lib/cpu/fused_pointwise_ops.cpp expands the list into its formula table."""
    rows = [r for r in structured(rows) if r.kernel["kind"] in FUSABLE_KINDS]
    out = [HEADER, "// The per-element formulas of the structured unary float ops, for pointwise fusion\n"
           "// (lib/cpu/fused_pointwise_ops.cpp defines EMBER_FUSION_STRUCTURED, then includes this).\n"
           "#include <cmath>\n\n", _formula_headers()]
    out += _id_includes(rows)
    out.append("\n")
    out += [f"EMBER_FUSION_STRUCTURED({r.name}, {r.kernel['formula']})\n" for r in rows]
    return "".join(out)
