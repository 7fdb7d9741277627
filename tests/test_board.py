"""Boards are immutable to the outside: every public method of a
:class:`~blockyard.geometry.Board` returns a new board or a value, and a board
handed to a plugin cannot be changed through them."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blockyard
from blockyard import hookimpl
from blockyard.discovery import load_ruleset_text
from blockyard.geometry import Board, geometry
from blockyard.params import Params


def tamper(board: Board, rnd: random.Random) -> None:
    """Call every public method of ``board`` with random arguments and try every
    way of writing to it; fail when the board changed."""
    geo = board.geo
    bits, colours = board.bits, board.colours
    for _ in range(6):
        mask = rnd.getrandbits(geo.size)
        base = rnd.randrange(geo.size)
        derived = [board.fill(mask, rnd.randrange(1, 9)), board.empty(mask),
                   board.collapse_rows(sorted(rnd.sample(range(geo.rows),
                                                         rnd.randrange(geo.rows + 1))))[0],
                   board.with_piece(1 << base, base, (0,), rnd.randrange(1, 9)), board.copy()]
        for other in derived:
            other.colours  # noqa: B018 (writes the pending colours)
        board.row_counts()
        board.rows_tuple()
        board.text()
        for name, value in (("bits", 0), ("geo", geometry(2, 2)), ("colours", [0] * geo.size),
                            ("extra", 1)):
            with pytest.raises(AttributeError):
                setattr(board, name, value)
        with pytest.raises(TypeError):
            board.colours[base] = 5  # type: ignore[index]
    assert board.bits == bits
    assert board.colours == colours
    assert board.geo is geo


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_no_public_method_changes_a_board(rows, cols, data):
    geo = geometry(rows, cols)
    colours = data.draw(st.lists(st.integers(0, 9), min_size=rows * cols,
                                 max_size=rows * cols))
    board = Board(geo, sum(1 << i for i, v in enumerate(colours) if v), colours)
    colours[0] = 99  # the board copied the list it was given
    assert board.colours[0] != 99
    tamper(board, random.Random(data.draw(st.integers(0, 2**32))))
    # and a board whose colours are still pending (the engine's moves)
    chained = board.with_piece(1, 0, (0,), 3).empty(geo.full >> 1)
    tamper(chained, random.Random(data.draw(st.integers(0, 2**32))))


def test_fill_empty_and_collapse_return_new_boards():
    geo = geometry(3, 3)
    board = Board(geo)
    filled = board.fill(0b000_010_011, 4)
    assert board.bits == 0 and board.colours == (0,) * 9
    assert filled.bits == 0b000_010_011
    assert filled.colours == (4, 4, 0, 0, 4, 0, 0, 0, 0)
    emptied = filled.empty(0b000_000_001)
    assert emptied.colours == (0, 4, 0, 0, 4, 0, 0, 0, 0) and emptied.bits == 0b000_010_010
    assert filled.colours == (4, 4, 0, 0, 4, 0, 0, 0, 0)
    fallen, drops = filled.collapse_rows([2])
    assert drops == (0, 1, 1)
    assert fallen.rows_tuple() == ((0, 0, 0), (4, 4, 0), (0, 4, 0))
    assert filled.rows_tuple() == ((4, 4, 0), (0, 4, 0), (0, 0, 0))
    assert board.copy() is board


def test_a_board_refuses_wrong_bits_or_colours():
    geo = geometry(2, 3)
    with pytest.raises(ValueError, match=r"colours: expected 6 cells, found 5"):
        Board(geo, 0, [0] * 5)
    with pytest.raises(ValueError, match=r"bits: expected a bitboard of the 2×3 board"):
        Board(geo, 1 << 6)
    with pytest.raises(ValueError, match=r"bits"):
        Board(geo, -1)
    with pytest.raises(TypeError, match=r"geo: expected a Geometry"):
        Board((2, 3))  # type: ignore[arg-type]


TAMPERING: list[Callable[[Board], None]] = []


class Tampering:
    """A plugin that, asked where a piece may go, tries to change the board it
    sees (``game.grid``) through every public method."""

    def __init__(self, params: Params) -> None:
        params.finish()

    @hookimpl
    def blockyard_allowed_anchors(self, game: Any, piece: Any) -> int | None:
        for check in TAMPERING:
            check(game.grid)
        return None

    @hookimpl
    def blockyard_move_state(self, game: Any, result: Any) -> dict[str, Any] | None:
        for check in TAMPERING:
            check(game.grid)
        return None


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_a_board_handed_to_a_plugin_cannot_be_changed(seed):
    rules = blockyard.load_ruleset("eu-classic").to_toml().replace(
        'id = "eu-classic"', 'id = "eu-tampered"') + "\n[plugins.tampering]\n"
    blockyard.register_plugin("tampering", Tampering)
    rnd = random.Random(seed)
    TAMPERING.append(lambda board: tamper(board, rnd))
    try:
        tampered = blockyard.new_game(load_ruleset_text(rules), seed=seed)
        plain = blockyard.new_game("eu-classic", seed=seed)
        play = random.Random(seed)
        while not plain.over and plain.moves < 25:
            move = play.choice(plain.legal_moves())
            assert tampered.legal_moves() == plain.legal_moves()
            assert tampered.place(*move).points == plain.place(*move).points
            assert tampered.board == plain.board and tampered.tray == plain.tray
        assert tampered.score == plain.score and tampered.over_reason == plain.over_reason
    finally:
        TAMPERING.clear()
        blockyard.unregister_plugin("tampering")
