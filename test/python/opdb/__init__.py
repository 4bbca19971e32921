"""The op database: one or more OpInfo per op schema row (lib/dispatch/schema/), in
modules ops_<group>*.py of this folder, each with a list OPS. test_opdb.py walks OPDB
(test_opdb_coverage checks that every row has an entry); see opinfo.py for the entry
format and docs/ARCHITECTURE.md for how to add an op."""
import importlib
import pathlib

OPDB = []
for _path in sorted(pathlib.Path(__file__).parent.glob("ops_*.py")):
    OPDB.extend(importlib.import_module(f"opdb.{_path.stem}").OPS)
