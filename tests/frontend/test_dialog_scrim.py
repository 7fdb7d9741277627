"""The pause menu and the prompt after a stuck game dim the game under them in
every theme and leave it readable: cells are never lighter under the dialog
than without it (the light theme's veil washed the board out to near-white),
filled and empty cells stay apart, and the dialog stands on a card of the
screen's own background (real keys on Xvfb, pixels read back)."""

from __future__ import annotations

import pytest

from blockyard.frontend import theme

# a board where only the single block fits, once: placing it leaves the game stuck
STUCK_BOARD = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)
APART = 1.8  # contrast ratio kept between a filled and an empty cell under a dialog


def use_theme(ui, name):
    ui.app.settings.theme = name
    ui.app.apply_settings()


def colours(ui, view, *where):
    """The colours drawn at the centres of the cells ``where`` ((row, col) pairs)."""
    return [ui.pixel(*view.layout.cell_center(row, col)) for row, col in where]


def check_dimmed(ui, view, plain, under, card) -> None:
    """``under``: a filled and an empty cell under the dialog, ``plain``: the same
    without it; the card is drawn in the screen's background colour."""
    for dimmed, bare in zip(under, plain, strict=True):
        assert theme.luminance((*dimmed, 255)) <= theme.luminance((*bare, 255)) + 1e-6, \
            (dimmed, bare)
    apart = theme.contrast((*under[0], 255), (*under[1], 255))
    assert apart >= APART, (under, apart)
    assert ui.pixel(card.left + 6, card.bottom + 6) == theme.BACKGROUND[:3]


@pytest.mark.parametrize("name", theme.THEME_NAMES)
def test_the_pause_menu_and_the_stuck_prompt_dim_the_board_readably(ui, name):
    use_theme(ui, name)
    view, game = ui.show_game("eu-classic", board=STUCK_BOARD, tray=["#", "##", "#/#"])
    # (0, 0) filled; (0, 1) and (1, 0) empty, in the corner no card covers
    plain = colours(ui, view, (0, 0), (0, 1), (1, 0))
    assert theme.contrast((*plain[0], 255), (*plain[1], 255)) >= APART
    ui.key("Escape")
    assert view.dialog.pause.open
    check_dimmed(ui, view, plain[:2], colours(ui, view, (0, 0), (0, 1)),
                 view.dialog.pause.card)
    ui.key("Escape")
    assert not view.dialog.pause.open
    view.perform(["place", 0, 0, 1])  # the single block into the hole at (0, 1)
    ui.pump(2)
    assert game.over_reason == "stuck" and view.dialog.prompting
    check_dimmed(ui, view, [plain[0], plain[2]], colours(ui, view, (0, 0), (1, 0)),
                 view.dialog.card)
