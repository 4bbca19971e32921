"""ember's Python is its own code: no file repeats a long run of PyTorch's source lines.

PyTorch's installed sources may be read to learn behaviour, never copied. This test finds,
for each file under python/ember, the PyTorch files sharing the most distinctive lines
with it, and fails where a run of MAX_RUN or more consecutive lines (stripped, comments
dropped, the names torch/ember made equal) matches one of them. Signatures, messages and
API names necessarily agree; long runs of identical logic do not happen by accident.

KNOWN lists files written before this check that exceed it, to be rewritten; a file
must not be added to it.
"""
import collections
import difflib
import os
import pathlib
import re

import pytest

torch = pytest.importorskip("torch")

MAX_RUN = 12
ROOT = pathlib.Path(__file__).resolve().parents[2] / "python" / "ember"
KNOWN = {  # file: the longest run when the check was added (2026-11-29)
}


def _lines(path):
    out = []
    with open(path, errors="ignore") as fh:
        for line in fh:
            s = line.strip()
            if s and not s.startswith("#"):
                out.append(re.sub(r"\s+", " ", s).replace("torch", "X").replace("ember", "X"))
    return out


@pytest.fixture(scope="module")
def torch_sources():
    root = pathlib.Path(os.path.dirname(torch.__file__))
    lines, index = {}, collections.defaultdict(set)
    for path in root.rglob("*.py"):
        ls = _lines(path)
        lines[path] = ls
        for line in set(ls):
            if len(line) >= 30:
                index[line].add(path)
    return lines, index


def _longest_run(mine, lines, index):
    shared = collections.Counter()
    for line in set(mine):
        if len(line) >= 30:
            for path in index.get(line, ()):
                shared[path] += 1
    best, where = 0, None
    for path, _ in shared.most_common(3):
        matcher = difflib.SequenceMatcher(None, mine, lines[path], autojunk=False)
        size = max((block.size for block in matcher.get_matching_blocks()), default=0)
        if size > best:
            best, where = size, path
    return best, where


def test_no_long_runs_of_pytorch_source(torch_sources):
    lines, index = torch_sources
    too_long = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        run, where = _longest_run(_lines(path), lines, index)
        allowed = max(MAX_RUN - 1, KNOWN.get(rel, 0))
        if run > allowed:
            too_long.append(f"{rel}: {run} consecutive lines as in {where}")
    assert not too_long, "code copied from PyTorch's source:\n" + "\n".join(too_long)
