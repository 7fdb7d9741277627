"""An action aimed at a board cell (issue 36), played in the window like a
placement: its key or button starts the aiming, the pointer or the arrows move
the mark, what it would change glows, a click or Enter takes it, Esc cancels, a
cell its plugin refuses buzzes and the aiming goes on. The example hammer
(examples/hammer), driven by real input events."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import blockyard

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hammer"
BOARD = "\n".join(["##........", *["." * 10] * 9])


@pytest.fixture
def hammer(register_plugin):
    spec = importlib.util.spec_from_file_location("hammer_example", EXAMPLE / "hammer.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    register_plugin("hammer", module.Hammer)
    return blockyard.load_ruleset(EXAMPLE / "hammer.toml")


def on_screen(ui, ruleset):
    game = blockyard.new_game(ruleset, seed=1, board=BOARD)
    ui.app.show_game(game)
    ui.pump(3)
    return ui.view, game


def test_the_hammer_is_aimed_and_taken_with_the_keyboard(ui, hammer):
    view, game = on_screen(ui, hammer)
    ui.key("h")
    control = view.input
    assert control.aiming == "hammer" and control.aim_cell in ((0, 0), (0, 1))
    assert "Hammer: choose a cell" in view.message
    start = control.aim_cell
    ui.key("Right" if start == (0, 0) else "Left")
    other = (0, 1) if start == (0, 0) else (0, 0)
    assert control.aim_cell == other and control.aim_ok
    assert control.aim_cells == frozenset({other})  # the plugin's preview glows
    assert len(view.board_section.glow) == 1 and len(view.board_section.ghost) == 1
    ui.key("Down")  # an empty cell: the mark shows it cannot go there
    assert control.aim_cell == (1, other[1]) and not control.aim_ok
    ui.key("Return")
    assert game.log[-1][0] != "hammer" and control.aiming == "hammer"  # refused, still aiming
    ui.key("Up", "Return")
    assert game.log[-1] == ["hammer", *other]
    assert control.aiming is None and game.state["hammer"]["left"] == 2


def test_the_hammer_is_taken_with_the_mouse_and_esc_cancels(ui, hammer):
    view, game = on_screen(ui, hammer)
    layout = view.layout
    ui.key("h")
    ui.key("Escape")
    assert view.input.aiming is None and view.__class__.__name__ == "TrayGameView"
    ui.key("h")
    ui.move(*layout.cell_center(0, 1))
    assert view.input.aim_cell == (0, 1) and view.input.aim_ok
    ui.click(*layout.cell_center(0, 1))
    assert game.log[-1] == ["hammer", 0, 1]
    assert game.board_text().splitlines()[0] == "#........."
