"""PyTorch's public names that ember has: scripts/api_surface.py compares the two
namespaces by name; this holds each namespace's coverage to its floor and keeps
docs/surface.md's table true to the code."""
import importlib.util
import pathlib

import pytest

import ember

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("api_surface", ROOT / "scripts" / "api_surface.py")
api_surface = importlib.util.module_from_spec(spec)
spec.loader.exec_module(api_surface)

RESULT = api_surface.compare(torch, ember)


@pytest.mark.parametrize("namespace", api_surface.NAMESPACES)
def test_coverage_holds_its_floor(namespace):
    entry = RESULT[namespace]
    assert entry["counted"], f"torch.{namespace}: nothing counted (moved in this PyTorch?)"
    got = api_surface.coverage(entry)
    assert got >= api_surface.FLOORS[namespace], (
        f"torch.{namespace or ''}: {got:.1f}% < floor {api_surface.FLOORS[namespace]}%; "
        f"missing {entry['missing']}")


def test_every_exclusion_rule_still_matches_something():
    """A rule that matches no name any more (PyTorch renamed it, or ember gained it and the
    rule is stale) is dead weight that could hide a real gap later."""
    used = set()
    for namespace, entry in RESULT.items():
        for why in entry["excluded"]:
            used.add((namespace, why))
    for namespace, rules in api_surface.EXCLUDED.items():
        for _pattern, why in rules:
            assert (namespace, why) in used, f"rule for torch.{namespace} unused: {why}"


def test_docs_table_is_current():
    version = torch.__version__.split("+")[0]
    text = (ROOT / "docs" / "surface.md").read_text()
    if f"PyTorch {version} " not in text:
        pytest.skip(f"docs/surface.md was made against another PyTorch than {version}")
    assert api_surface.markdown(RESULT, version) in text, (
        "docs/surface.md is stale: regenerate its table with "
        "`python scripts/api_surface.py --markdown`")
