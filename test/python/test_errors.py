"""Every bad call raises the right exception with a message that says what is wrong.

Each group of ops lists its cases in error_cases/<group>.py as CASES:
(description, callable, expected exception type, regex the message must match).
"""
import importlib
import pathlib
import re

import pytest

_DIR = pathlib.Path(__file__).parent / "error_cases"


def _all_cases():
    cases = []
    for path in sorted(_DIR.glob("*.py")):
        if path.name.startswith("_"):
            continue
        mod = importlib.import_module(f"error_cases.{path.stem}")
        for desc, fn, exc, pattern in mod.CASES:
            cases.append(pytest.param(fn, exc, pattern, id=f"{path.stem}: {desc}"))
    return cases


CASES = _all_cases()


def test_there_are_enough_cases():
    assert len(CASES) >= 100


@pytest.mark.parametrize("fn, exc, pattern", CASES)
def test_bad_call(fn, exc, pattern):
    with pytest.raises(exc) as info:
        fn()
    assert re.search(pattern, str(info.value)), f"message {str(info.value)!r} does not match {pattern!r}"
