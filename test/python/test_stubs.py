"""The type stubs of ember._C (scripts/gen_stubs.py, written at build time) cover
every binding and are valid Python; the package is marked as typed (py.typed)."""
import ast
import pathlib

import pytest

import ember

PACKAGE = pathlib.Path(ember.__file__).parent
STUBS = PACKAGE / "_C"


def _stub(name="__init__.pyi"):
    path = STUBS / name
    assert path.exists(), f"{path} is missing: the build writes it (scripts/gen_stubs.py)"
    return ast.parse(path.read_text())


def _defs(body):
    return {n.name for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
        t.id for n in body if isinstance(n, (ast.Assign, ast.AnnAssign))
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").exists()


@pytest.mark.parametrize("name", sorted(p.name for p in STUBS.glob("*.pyi")) or ["__init__.pyi"])
def test_every_stub_parses(name):
    _stub(name)


def test_stub_has_every_tensor_method():
    tree = _stub()
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    declared = _defs(tensor.body)
    bound = {n for n, v in vars(ember._C.Tensor).items()
             if not n.startswith("_") or n in ("__add__", "__getitem__", "__matmul__")}
    # set from Python after import (ember/_tensor.py), not by the extension
    python_side = {"apply_", "map_", "_make_subclass"}
    missing = sorted(bound - declared - python_side)
    assert not missing, f"Tensor methods missing from the stub: {missing[:20]}"
    for name in ("sum", "relu", "view", "backward", "shape", "dtype", "__add__", "__getitem__"):
        assert name in declared


def test_stub_has_every_module_function():
    declared = _defs(_stub().body) | {
        alias.asname or alias.name for n in _stub().body if isinstance(n, ast.ImportFrom)
        for alias in n.names}
    functions = {n for n, v in vars(ember._C).items() if not n.startswith("_") and callable(v)}
    missing = sorted(functions - declared)
    assert not missing, f"ember._C functions missing from the stub: {missing[:20]}"


def test_stub_signatures_carry_argument_names_and_types():
    text = (STUBS / "__init__.pyi").read_text()
    assert "def sum(self, dim: int | tuple[int, ...] | None = None, keepdim: bool = False" in text
    assert "Number: typing.TypeAlias" in text  # the casters' Python-number type
    assert "numpy.dtype[" not in text  # ember.dtype is its own class
