"""``[tray] slots`` on screen: a 1-slot and a 4-slot variant of eu-classic show
that many tray slots, inside the window and apart, and play with the mouse and
the keyboard (issue 21: the tray's size comes from the rule file)."""

from __future__ import annotations

import textwrap

import pytest

import blockyard


def variant(tmp_path, slots: int) -> blockyard.Ruleset:
    path = tmp_path / f"slots-{slots}.toml"
    path.write_text(textwrap.dedent(f"""\
        [ruleset]
        id = "eu-{slots}-slots"
        name = "Block Puzzle with {slots}"
        family = "test"
        description = "eu-classic with a tray of {slots}"
        extends = "eu-classic"

        [tray]
        slots = {slots}
        """), encoding="utf-8")
    return blockyard.load_ruleset(path)


def show(ui, ruleset, tray):
    game = blockyard.new_game(ruleset, seed=1, tray=tray)
    ui.app.show_game(game)
    ui.pump(3)
    return ui.view, game


def apart(a, b) -> bool:
    return (a.right <= b.left or b.right <= a.left or a.top <= b.bottom
            or b.top <= a.bottom)


@pytest.mark.parametrize("slots", [1, 4])
def test_the_tray_shows_the_rule_files_slots_inside_the_window(ui, tmp_path, slots):
    tray = ["#", "###", "#/#/#", "#"][:slots]  # each has a cell at its centre
    view, game = show(ui, variant(tmp_path, slots), tray)
    assert len(game.tray) == slots
    rects = view.layout.slots
    assert len(rects) == slots
    width, height = ui.window.get_size()
    for rect in rects:
        assert rect.left >= 0 and rect.right <= width and rect.bottom >= 0 \
            and rect.top <= height
    assert all(apart(a, b) for i, a in enumerate(rects) for b in rects[i + 1:])
    for rect in rects:  # every slot draws its piece: its centre is not the tray's ground
        ground = ui.pixel(rect.left + 2, rect.bottom + 2)
        assert ui.pixel(rect.center_x, rect.center_y) != ground


def test_four_slots_the_fourth_piece_is_dragged_and_key_4_selects_it(ui, tmp_path):
    view, game = show(ui, variant(tmp_path, 4), ["##", "#", "###", "#"])
    rect = view.layout.slots[3]
    start = (rect.center_x, rect.center_y)
    end = view.input.drag_point(game.tray[3], 5, 5)
    ui.drag([start, ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2), end])
    assert game.tray[3] is None and game.moves == 1
    assert game.board_text().splitlines()[5][5] == "#"
    ui.key("4")
    assert view.input.selected is None  # an empty slot cannot be chosen
    ui.key("3")
    assert view.input.selected == 2
    ui.key("Return")
    assert game.tray[2] is None and game.moves == 2


def test_one_slot_each_placement_deals_the_next_piece(ui, tmp_path):
    view, game = show(ui, variant(tmp_path, 1), ["#"])
    ui.key("1")
    assert view.input.selected == 0
    ui.key("Return")
    assert game.moves == 1
    assert len(game.tray) == 1 and game.tray[0] is not None  # a new set of one
    ui.key("2")  # there is no second slot
    assert view.input.selected in (None, 0)
    assert game.moves == 1
