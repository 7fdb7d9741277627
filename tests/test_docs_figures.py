"""docs/bots.md states only generated figures (issue 25, item 17).

scripts/docs_figures.py measures them into docs/bots-figures.json and renders
each figure block of the page from that file. Here: every block is exactly the
rendering of the stored figures, and the figures that do not depend on the
machine (scores, moves, the compare report, the size of the JSON output, the
greedy columns of the bots table) equal a fresh run. The search bot's long runs
are not replayed here (minutes); their rendering is checked like the rest.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures():
    return load("docs_figures")


@pytest.fixture(scope="module")
def data(figures):
    return json.loads(figures.DATA.read_text(encoding="utf-8"))


def test_every_figure_block_is_the_rendering_of_the_measured_figures(figures, data):
    doc = figures.DOC.read_text(encoding="utf-8")
    found = figures.blocks(doc)
    assert set(found) == set(figures.BLOCKS)
    for name, text in found.items():
        assert text == figures.render(name, data, doc), name
    assert figures.rewrite(doc, data) == doc


def test_the_long_greedy_runs_are_what_greedy_plays_now(figures, data):
    fresh = figures.play("greedy", "eu-classic", figures.LONG_SEEDS, None)
    stored = data["long"]["greedy"]
    assert (fresh["scores"], fresh["moves"]) == (stored["scores"], stored["moves"])
    search = data["long"]["search"]
    assert len(search["scores"]) == figures.LONG_SEEDS
    assert max(search["moves"]) <= figures.LONG_SEARCH_MOVES


def test_the_compare_example_is_what_simulate_prints_now(figures, data):
    assert figures.compare_output(figures.COMPARE_GAMES, 1) == data["compare"]["output"]


def test_the_json_size_is_that_of_the_simulation_written_now(figures, data, tmp_path):
    from blockyard import lab

    report = lab.simulate("eu-classic", games=figures.JSON_GAMES, workers=1)
    lab.write_json(report.to_json(), tmp_path / "games.json")
    size = (tmp_path / "games.json").stat().st_size
    assert size / figures.JSON_GAMES == data["json_bytes_per_game"]


def test_the_greedy_columns_of_the_bots_table_are_what_greedy_plays_now(figures):
    table = load("bots_table")
    doc = figures.DOC.read_text(encoding="utf-8")
    rows = figures.table_rows(doc)
    assert set(rows) == set(table.bundled())
    assert "Seeds 0–3, every game stopped after 300 moves" in doc
    for ruleset, cells in rows.items():
        mean, median, moves, _ms, _capped = table.measure("greedy", ruleset, 4, 300)
        assert cells[1:4] == [f"{mean:.0f}", f"{median:.0f}", f"{moves:.0f}"], ruleset


def test_the_sudoku_note_reads_the_tables_row(figures, data):
    doc = figures.DOC.read_text(encoding="utf-8")
    row = figures.table_rows(doc)["sudoku-bloxx"]
    note = figures.blocks(doc)["sudoku-note"]
    assert f"({row[3]} and {row[7]} stones" in note and f"{row[8]} ms per stone" in note
