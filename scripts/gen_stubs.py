"""Writes the type stubs (.pyi) of ember._C from the built extension, so that editors
and type checkers see every binding's signatures (ember's Python modules are typed
sources themselves; python/ember/py.typed marks the package as typed).

    python scripts/gen_stubs.py BUILT_C_SO PYTHON_DIR OUT_DIR

Run by CMake after each link of _C. The signatures come from the bindings' own
docstrings, read by pybind11-stubgen from a scratch copy of the package with the
freshly built _C in it (so a wheel build, whose _C is not in the source tree, works
the same). Files are rewritten only when their text changes. Without
pybind11-stubgen (not in requirements-dev.txt's environment) it says so and writes
nothing: the stubs are for editors; the library does not need them.
"""
import importlib.util
import keyword
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

# Names the casters print (csrc/bindings.h) that Python's typing does not know.
PRELUDE = "Number: typing.TypeAlias = int | float | bool  # a Python number (ember::Scalar)\n"

# pybind11-stubgen reads a class named `dtype` as numpy's; ember's is its own.
FIXES = [
    (re.compile(r"numpy\.dtype\[typing\.Any\]"), "dtype"),
]


# An argument named after a Python keyword (torch's uniform_(from=...) takes it by
# keyword) cannot be written in a stub; typeshed spells it with a trailing underscore.
KEYWORD_ARG = re.compile(r"([(,] ?\*?)(" + "|".join(keyword.kwlist) + r"): ")


def postprocess(text: str) -> str:
    for pattern, replacement in FIXES:
        text = pattern.sub(replacement, text)
    text = KEYWORD_ARG.sub(r"\1\2_: ", text)
    text = re.sub(r"^import numpy\n", "", text, flags=re.M) if "numpy." not in text else text
    if re.search(r"\bNumber\b", text):
        lines = text.splitlines(keepends=True)
        last_import = max(i for i, line in enumerate(lines) if line.startswith(("from ", "import ")))
        extra = [PRELUDE] if "import typing\n" in lines else ["import typing\n", PRELUDE]
        lines[last_import + 1:last_import + 1] = extra
        text = "".join(lines)
    return text


def main() -> int:
    built, python_dir, out_dir = (pathlib.Path(a) for a in sys.argv[1:4])
    if importlib.util.find_spec("pybind11_stubgen") is None:
        print("gen_stubs: pybind11-stubgen is not installed; no stubs written", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        shutil.copytree(python_dir / "ember", tmp / "ember",
                        ignore=shutil.ignore_patterns("_C*", "__pycache__"))
        shutil.copy2(built, tmp / "ember" / built.name)
        result = subprocess.run(
            [sys.executable, "-m", "pybind11_stubgen", "ember._C", "-o", str(tmp / "stubs"),
             "--ignore-unresolved-names", "Number",
             "--ignore-invalid-expressions", r"ember::|detail::"],
            env={**os.environ, "PYTHONPATH": str(tmp)},
            capture_output=True, text=True)
        if result.returncode != 0:
            print(result.stdout + result.stderr, file=sys.stderr)
            return result.returncode
        generated = tmp / "stubs" / "ember" / "_C"
        out_dir.mkdir(parents=True, exist_ok=True)
        wanted = set()
        for src in sorted(generated.glob("*.pyi")):
            text = postprocess(src.read_text())
            dst = out_dir / src.name
            wanted.add(dst.name)
            if not dst.exists() or dst.read_text() != text:
                dst.write_text(text)
        for stale in out_dir.glob("*.pyi"):
            if stale.name not in wanted:
                stale.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
