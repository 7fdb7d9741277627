"""The tray screen's input controller without a window (frontend/tray_input.py):
selection, keyboard steering, drag and drop, taps, actions confirmed twice,
actions on a tray piece, hints; and the tray layout for any number of slots."""

from __future__ import annotations

import dataclasses

import pytest

import blockyard
from blockyard.frontend.layout import Rect, game_layout
from blockyard.frontend.tray_input import DOUBLE_CLICK, Target, TrayInput

EMPTY = ".........."


class Recorder:
    """A screen that records what the controller asks of it."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.messages: list[str] = []
        self.sounds: list[str] = []
        self.placed_results: list[blockyard.MoveResult] = []
        self.prompting = False

    def say(self, text: str, *shorter: str) -> None:
        self.messages.append(text)

    def clear_message(self) -> None:
        self.calls.append("clear_message")

    def play(self, name: str, combo: int = 1) -> None:
        self.sounds.append(name)

    def saved(self) -> None:
        self.calls.append("saved")

    def refresh(self) -> None:
        self.calls.append("refresh")

    def show_target(self) -> None:
        self.calls.append("show_target")

    def placed(self, result: blockyard.MoveResult, before: object) -> None:
        self.placed_results.append(result)

    def refused(self) -> None:
        self.calls.append("refused")

    def reopened(self) -> None:
        self.calls.append("reopened")


def controller(ruleset: str = "eu-classic", *, board: str | None = None,
               tray: list[str | None] | None = None, seed: int = 1, can_hint: bool = True,
               size: tuple[int, int] = (720, 960)) -> tuple[TrayInput, Recorder]:
    game = blockyard.new_game(ruleset, seed=seed, board=board, tray=tray)
    screen = Recorder()
    layout = game_layout(*size, game.rows, game.cols, len(game.tray))
    return TrayInput(game, screen, layout, can_hint=can_hint), screen


def centre(control: TrayInput, slot: int) -> tuple[float, float]:
    rect = control.layout.slots[slot]
    return rect.center_x, rect.center_y


# -- selecting and the keyboard ------------------------------------------------------------

def test_selecting_a_slot_anchors_the_keyboard_on_the_middle_legal_place():
    control, screen = controller(tray=["##", "#", None])
    control.select(1)
    moves = [m for m in control.game.legal_moves() if m[0] == 1]
    assert control.selected == 1 and control.key_anchor == moves[len(moves) // 2][1:]
    assert screen.sounds == ["pickup"] and control.anchor == control.key_anchor
    control.select(1)  # again: no second pickup sound
    assert screen.sounds == ["pickup"]
    control.select(2)  # an empty slot: nothing
    control.select(7)  # no such slot: nothing
    assert control.selected == 1


def test_a_piece_that_fits_nowhere_cannot_be_selected():
    board = "\n".join(["#.#.#.#.#."] * 10)
    control, screen = controller(board=board, tray=["##", "#", None])
    control.select(0)
    assert control.selected is None
    assert screen.messages == ["That piece fits nowhere"]
    assert screen.sounds == ["invalid"] and "refused" in screen.calls


def test_steering_stays_on_the_board_and_enter_places_there():
    control, screen = controller(tray=["#####", "#", None])
    control.select(0)
    for _ in range(12):
        control.steer(0, 1)
    assert control.key_anchor[1] == 5  # 10 columns, a 5-wide piece
    for _ in range(12):
        control.steer(1, 0)
    assert control.key_anchor == (9, 5)
    assert control.target == Target(0, 9, 5, control.game.preview(0, 9, 5))
    control.place_selected()
    game = control.game
    assert game.moves == 1 and game.board[9][5:10] == (game.board[9][5],) * 5
    assert control.selected is None and control.key_anchor is None
    assert screen.sounds == ["pickup", "place"] and "saved" in screen.calls


def test_a_refused_place_says_where_and_buzzes():
    board = "\n".join(["#........."] + [EMPTY] * 9)
    control, screen = controller(board=board, tray=["#", None, None])
    assert not control.try_place(0, 0, 0)
    assert screen.messages == ["It does not fit there (row 1, column 1)"]
    assert screen.sounds == ["invalid"] and control.game.moves == 0


def test_a_key_aimed_piece_that_does_not_fit_is_shown_there_unfitting():
    board = "\n".join(["#........."] + [EMPTY] * 9)
    control, _screen = controller(board=board, tray=["#", None, None])
    control.select(0)
    control.key_anchor = (0, 0)
    control.aim()
    assert control.target == Target(0, 0, 0, None) and control.anchor is None


# -- the pointer -------------------------------------------------------------------------------

def test_dragging_a_piece_onto_the_board_places_it_where_its_ghost_is():
    control, screen = controller(tray=["##", "#", None])
    piece = control.game.tray[0]
    control.pressed(*centre(control, 0), now=10.0)
    assert control.dragging == 0 and screen.sounds == ["pickup"]
    point = control.drag_point(piece, 4, 6)
    control.dragged(*point)
    assert control.anchor == (4, 6) and control.drop_anchor(piece, *point) == (4, 6)
    assert control.preview == control.game.preview(0, 4, 6)
    control.released(*point, now=10.5)
    assert control.dragging is None and control.game.moves == 1
    assert control.game.board[4][6:8] != (0, 0)
    assert len(screen.placed_results) == 1


def test_a_drag_let_go_off_the_board_goes_back_without_a_move():
    control, screen = controller(tray=["##", "#", None])
    control.pressed(*centre(control, 0))
    far = (control.layout.width - 1.0, control.layout.height - 1.0)
    control.dragged(*far)
    control.released(*far)
    assert control.dragging is None and control.game.moves == 0
    assert control.target is None and "refused" not in screen.calls


def test_a_tap_selects_a_piece_and_a_second_tap_lets_it_go():
    control, _screen = controller(tray=["##", "#", None])
    x, y = centre(control, 1)
    control.pressed(x, y, now=1.0)
    control.released(x + 2, y, now=1.1)  # moved less than a tap's distance
    assert control.selected == 1 and control.game.moves == 0
    control.pressed(x, y, now=5.0)
    control.released(x, y, now=5.1)
    assert control.selected is None


def test_a_tap_on_the_board_places_the_selected_piece_centred_there():
    control, _screen = controller(tray=["###", None, "#"])
    control.select(0)
    x, y = control.layout.cell_center(5, 0)  # the piece is moved in to lie on the board
    control.pressed(x, y)
    assert control.game.moves == 1 and control.game.board[5][0:3] != (0, 0, 0)


def test_the_pointer_over_the_board_aims_the_selected_piece():
    control, _screen = controller(tray=["##", "#", None])
    control.select(0)
    control.pointer_moved(*control.layout.cell_center(3, 3))
    assert control.key_anchor is None and control.anchor == (3, 3)


# -- actions -----------------------------------------------------------------------------------

def test_an_action_that_asks_confirmation_is_taken_on_the_second_click():
    control, screen = controller("tiered", seed=3)
    spec = control.game.ruleset.action_specs["swap"]
    assert spec.asks_confirmation and spec.sound == "swap"
    before = control.game.tray
    control.use_action("swap")
    assert control.armed == "swap" and control.game.tray == before
    assert screen.messages[-1].startswith("Click Swap again (or press S) to confirm.")
    control.use_action("swap")
    assert control.armed is None and control.game.tray != before
    assert screen.sounds == ["swap"] and "clear_message" in screen.calls


def test_another_input_drops_a_confirmation():
    control, _screen = controller("tiered", seed=3)
    control.use_action("swap")
    control.action_key("end")  # another action's key arms that one instead
    assert control.armed == "end"
    control.pressed(1.0, 1.0)  # a click anywhere
    assert control.armed is None and not control.game.over


def test_end_round_is_confirmed_and_ends_the_game():
    control, screen = controller()
    control.use_action("end")
    control.use_action("end")
    assert control.game.over and control.game.over_reason == "ended"
    assert screen.sounds == ["game_over"]


def test_an_action_sound_comes_from_its_spec_and_an_unknown_one_plays_nothing():
    control, screen = controller("tiered", seed=3)
    spec = control.specs["swap"]
    control.specs["swap"] = dataclasses.replace(spec, sound="no-such-sound", confirm=False)
    before = control.game.tray
    control.use_action("swap")  # not confirmed: taken at once
    assert control.game.tray != before and screen.sounds == []


def test_an_action_not_possible_now_says_so():
    control, screen = controller("tiered", seed=3)
    for _ in range(control.game.swaps_left):
        control.use_action("swap")
        control.use_action("swap")
    control.use_action("swap")
    assert screen.messages[-1] == "Swap: not possible now" and control.armed is None


def test_a_slot_action_turns_the_selected_piece_and_keeps_it_selected():
    control, screen = controller("arcadeforge-rotate", tray=["###", "#", None])
    assert control.slot_action is not None and not control.slot_action.asks_confirmation
    control.use_action("rotate")
    assert screen.messages[-1] == "Select a piece first (1, 2, 3 or a tap), then Rotate"
    control.select(0)
    control.use_action("rotate")
    assert control.game.tray[0].art == "#\n#\n#" and control.selected == 0
    row, col = control.key_anchor
    assert control.game.can_place(0, row, col)


def test_a_right_click_or_a_double_click_on_a_tray_piece_turns_it():
    control, _screen = controller("arcadeforge-rotate", tray=["###", "#", None])
    x, y = centre(control, 0)
    control.pressed(x, y, secondary=True)
    assert control.game.tray[0].art == "#\n#\n#" and control.dragging is None
    control.pressed(x, y, now=20.0)
    control.released(x, y, now=20.1)  # a tap: selected
    control.pressed(x, y, now=20.1 + DOUBLE_CLICK / 2)  # the second click of a double
    assert control.game.tray[0].art == "###" and control.dragging is None


def test_without_an_action_on_tray_pieces_a_right_click_drags():
    control, _screen = controller(tray=["###", "#", None])
    assert control.slot_action is None
    control.pressed(*centre(control, 0), secondary=True)
    assert control.dragging == 0 and control.game.tray[0].art == "###"


# -- hints and the tray's size -----------------------------------------------------------------

def test_a_hint_is_looked_for_only_where_the_rules_allow_it():
    control, screen = controller(can_hint=False)
    assert not control.ask_hint()
    assert screen.messages == ["Hints are off in this game"] and not control.hint.active
    control, screen = controller()
    assert control.ask_hint() and control.hint.active
    while control.hint.placement() is None:
        control.hint.update(control.game, budget_ms=50)
    assert control.hinted_slot == control.hint.placement()[0]


def test_the_slot_keys_follow_the_tray():
    control, _screen = controller()
    assert control.slot_keys() == "1, 2, 3"


@pytest.mark.parametrize("slots", [1, 2, 4, 6])
@pytest.mark.parametrize("size", [(480, 640), (720, 960), (1280, 720), (900, 800)])
def test_the_tray_layout_has_one_slot_per_tray_piece_side_by_side(slots, size):
    layout = game_layout(*size, 10, 10, slots)
    assert len(layout.slots) == slots
    for i, rect in enumerate(layout.slots):
        assert rect.width > 0 and rect.height > 0
        assert layout.tray.left - 1e-6 <= rect.left and rect.right <= layout.tray.right + 1e-6
        assert layout.tray.bottom - 1e-6 <= rect.bottom and rect.top <= layout.tray.top + 1e-6
        assert not rect.overlaps(layout.board)
        inner = Rect(rect.left + 1e-6, rect.bottom + 1e-6, rect.width - 2e-6,
                     rect.height - 2e-6)  # edges that touch (up to rounding) are fine
        for other in layout.slots[i + 1:]:
            assert not inner.overlaps(other)
        assert layout.slot_at(rect.center_x, rect.center_y) == i
    # a tray piece (up to 5 cells) fits its slot
    assert layout.tray_cell * 5 <= min(min(r.width, r.height) for r in layout.slots)
