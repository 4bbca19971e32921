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
}
SOURCES = (".h", ".cpp", ".cu", ".cuh")


def includes(folder):
    for path in sorted((LIB / folder).rglob("*")):
        if path.suffix in SOURCES:
            for name in INCLUDE.findall(path.read_text()):
                yield path.relative_to(LIB), name


@pytest.mark.parametrize("folder", sorted(RULES))
def test_folder_includes_only_what_it_may(folder):
    assert (LIB / folder).is_dir(), f"lib/{folder} is gone: update RULES and docs/ARCHITECTURE.md"
    bad = [f"lib/{path}: #include \"{name}\"" for path, name in includes(folder)
           if name.startswith(RULES[folder])]
    assert not bad, (f"lib/{folder} may not include {', '.join(RULES[folder])} "
                     "(shared kernel code goes in lib/kernels/):\n" + "\n".join(bad))


def test_the_rules_see_includes():
    # A rule over a folder whose includes the pattern never matches would pass
    # vacuously: every folder has some.
    for folder in RULES:
        assert any(True for _ in includes(folder)), folder
