"""scripts/bots_table.py: --ruleset replaces only the rows of the rulesets played."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bots_table.py"


def load():
    spec = importlib.util.spec_from_file_location("bots_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_merge_replaces_only_the_rows_played():
    table = load()
    intro = "Seeds 0–3, every game stopped after 300 moves (Sudoku Bloxx: stones), one second."
    old = "\n".join([intro, "", *table.HEADER, "| eu-classic | 1 | 2 |", "| sudoku-bloxx | 3 | 4 |",
                     "| tiered | 5 | 6 |"])
    new = "\n".join([intro, "", *table.HEADER, "| sudoku-bloxx | 7 | 8 |"])
    assert table.merge(old, new, intro) == "\n".join(
        [intro, "", *table.HEADER, "| eu-classic | 1 | 2 |", "| sudoku-bloxx | 7 | 8 |",
         "| tiered | 5 | 6 |"])


def test_merge_refuses_a_table_made_with_other_settings():
    table = load()
    old = "\n".join(["Seeds 0–9, every game stopped after 100 moves.", "", *table.HEADER])
    with pytest.raises(ValueError, match="other settings"):
        table.merge(old, "", "Seeds 0–3, every game stopped after 300 moves.")


def test_the_table_in_the_docs_is_the_scripts_format():
    table = load()
    doc = table.DOC.read_text(encoding="utf-8")
    inside = doc.split(table.BEGIN, 1)[1].split(table.END, 1)[0].strip().splitlines()
    assert inside[2:4] == table.HEADER
    names = [line.split("|")[1].strip() for line in inside[4:]]
    assert names == sorted(names) and "sudoku-bloxx" in names
