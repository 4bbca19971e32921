"""The folder rules of docs/ARCHITECTURE.md ("Where things live"), checked on the
sources: backends reach each other only through lib/kernels/, and everything above
the kernels reaches a backend only through the dispatcher."""
import pathlib
import re

import pytest

LIB = pathlib.Path(__file__).resolve().parents[2] / "lib"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# folder -> the include prefixes its sources may not use
RULES = {
    "cuda": ("cpu/",),
    "cpu": ("cuda/",),
    "kernels": ("cpu/", "cuda/"),
    "core": ("cpu/", "cuda/", "ops/", "autograd/", "jit/"),
    "ops": ("cpu/", "cuda/"),
    "autograd": ("cpu/", "cuda/"),
    "jit": ("cpu/", "cuda/"),
    "nn": ("cpu/", "cuda/"),
    "optim": ("cpu/", "cuda/"),
    "dispatch": ("cpu/", "cuda/"),
    "remat": ("cpu/", "cuda/"),
}
SOURCES = (".h", ".cpp", ".cu", ".cuh")
# Deliberate exceptions, each with its reason (none today: the deployment runtime's
# fusion reaches the CPU's evaluator through kernels/fused_pointwise.h's registry).
EXCEPTIONS = {}


def includes(folder):
    for path in sorted((LIB / folder).rglob("*")):
        if path.suffix in SOURCES:
            for name in INCLUDE.findall(path.read_text()):
                yield path.relative_to(LIB), name


@pytest.mark.parametrize("folder", sorted(RULES))
def test_folder_includes_only_what_it_may(folder):
    assert (LIB / folder).is_dir(), f"lib/{folder} is gone: update RULES and docs/ARCHITECTURE.md"
    bad = [f"lib/{path}: #include \"{name}\"" for path, name in includes(folder)
           if name.startswith(RULES[folder]) and name not in EXCEPTIONS.get(str(path), ())]
    assert not bad, (f"lib/{folder} may not include {', '.join(RULES[folder])} "
                     "(shared kernel code goes in lib/kernels/):\n" + "\n".join(bad))


def test_the_rules_see_includes():
    # A rule over a folder whose includes the pattern never matches would pass
    # vacuously: every folder has some.
    for folder in RULES:
        assert any(True for _ in includes(folder)), folder


# Reading an op's attributes by position (`call.attr(3)`) is what the generated
# typed structs replace (`EluArgs::from(call).alpha`, dispatch/args/<group>.h): the
# argument order then lives in the schema row alone. The one reader left is the
# random ops' convention that a call's last two attrs are its Philox seed and
# offset (lib/ops/random_call.h), shared by rows of different signatures.
# Writing them by position (`{Attr(dims), Attr(keepdim)}`) likewise: op functions
# build a call's attributes with designated initializers,
# `SumArgs{.dim = dims, .keepdim = keepdim, .dtype = dt}.attrs()`, which the compiler
# checks against the row's names and order. The model-file reader turns stored
# values back into attrs generically.
# (what, the pattern, the files allowed to use it)
POSITIONAL_ACCESS = [
    ("read", re.compile(r"(?:\.|->)attr\("), {"ops/random_call.h"}),
    # The graph's reader and the symbolic-size evaluator write attributes of any op
    # generically, by the position the trace recorded.
    ("write", re.compile(r"\bAttr\("), {"dispatch/op_call.h", "jit/graph_json.cpp",
                                          "jit/shape_specialize.cpp"}),
]


@pytest.mark.parametrize("what,pattern,allowed", POSITIONAL_ACCESS, ids=[a[0] for a in POSITIONAL_ACCESS])
def test_no_positional_attribute_access(what, pattern, allowed):
    bad = []
    for path in sorted(LIB.rglob("*")):
        rel = path.relative_to(LIB).as_posix()
        if path.suffix in SOURCES and rel not in allowed:
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    bad.append(f"lib/{rel}:{i}: {line.strip()}")
    assert not bad, f"{what} attributes through the op's Args struct:\n" + "\n".join(bad)
    # Each allowed file still matches (else drop it from the list).
    for rel in allowed:
        assert pattern.search((LIB / rel).read_text()), rel
