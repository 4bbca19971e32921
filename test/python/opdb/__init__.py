"""The op database: one or more OpInfo per op schema row (lib/dispatch/schema/), one
module per schema group. test_opdb.py walks OPDB; see opinfo.py for the entry format
and docs/ARCHITECTURE.md for how to add an op."""
import importlib

GROUPS = ["core", "elementwise", "reduce", "linalg", "nn", "shape_index", "nn_backward", "optim"]

OPDB = []
for _group in GROUPS:
    try:
        _module = importlib.import_module(f"opdb.ops_{_group}")
    except ModuleNotFoundError as e:
        if e.name != f"opdb.ops_{_group}":
            raise
        continue  # a group without entries yet: test_opdb_coverage names its rows
    OPDB.extend(_module.OPS)
