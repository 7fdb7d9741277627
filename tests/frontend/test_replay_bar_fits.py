"""The replay viewer's control bar fits the window: its buttons and its status line
stay inside the window's edges at every reference size and in every language,
with the longest ruleset name, while playing and at the end (the status line drops
its keys, then shortens the title, rather than run off the edges). The replay is
passed as a loaded replay, as the leaderboard passes the one it downloads, and as
a file, as the summary and the replay list do (screens and pixels on Xvfb)."""

from __future__ import annotations

import pytest

import blockyard
from blockyard.frontend.replay_view import ReplayView
from blockyard.replays import load_replay, save_replay

SIZES = [(360, 640), (480, 640), (720, 960), (1280, 720)]
READABLE = 9  # points: the smallest the status line is shrunk to
LONGEST = "nepal-today"  # "Nepal-Blöcke — Spiel des Tages", "Bloques de Nepal — Partida de hoy"


@pytest.fixture
def replay_file(ui):
    game = blockyard.new_game(LONGEST, seed=1)
    for _ in range(2):
        game.place(*game.legal_moves()[0])
    game.act("end")
    ui.app.show_launcher()
    ui.pump(2)
    return save_replay(game, player="Someone")


def check_bar(ui, viewer: ReplayView) -> None:
    width = ui.window.width
    status = viewer.status
    assert status.font_size >= READABLE - 0.01
    assert status.x - status.content_width / 2 >= 4, status.text
    assert status.x + status.content_width / 2 <= width - 4, status.text
    for button in viewer.buttons:
        assert button.rect.left >= 0 and button.rect.right <= width
        assert button.text.content_width <= button.rect.width, button.label
    image = ui.screenshot().convert("RGB")
    height = image.height
    for x in (0, 1, 2, width - 3, width - 2, width - 1):  # nothing drawn on the edges
        column = {image.getpixel((x, y)) for y in range(height - 64, height)}
        assert len(column) == 1, (x, column)


@pytest.mark.parametrize("code", ["en", "de", "es", "ne"])
def test_the_replay_bar_stays_inside_the_window(ui, english, replay_file, code):
    ui.app.set_language(code)
    for width, height in SIZES:
        ui.resize(width, height)
        for replay in (replay_file, load_replay(replay_file)):
            assert ui.app.watch_replay(replay) is None
            ui.pump(2)
            viewer = ui.view
            assert isinstance(viewer, ReplayView)
            check_bar(ui, viewer)
            while not viewer.finished:
                viewer.step_once()
            ui.pump(2)
            check_bar(ui, viewer)  # "↺ From the start", "end"
