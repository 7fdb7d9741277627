"""The summary says the best combo once (×2, not "Combo x2"), keeps the challenge
code close under the tip and its buttons off the bottom edge; the replay viewer's
"From the start" is as large as its other labels (screens and pixels on Xvfb)."""

from __future__ import annotations

from blockyard.frontend.replay_view import ReplayView
from blockyard.frontend.summary_view import SummaryView

TWO_ROWS = "\n".join(["#########.", "#########."] + [".........."] * 8)


def summary_after_a_double_clear(ui):
    _view, game = ui.show_game("eu-classic", board=TWO_ROWS, tray=["#", "#", "#"])
    game.place(0, 0, 9)
    game.place(1, 1, 9)
    assert game.lines_cleared == 2
    game.end_game("ended")
    ui.app.finish_game(game)
    ui.pump(2)
    assert isinstance(ui.view, SummaryView)
    return ui.view, game


def test_the_best_combo_is_said_once(ui):
    view, _game = summary_after_a_double_clear(ui)
    best = view.summary.best_combo
    assert best >= 2
    texts = [t.text for t in view.texts]
    assert f"Best combo: ×{best}" in texts
    assert not any("Combo" in t for t in texts)


def test_the_code_sits_under_the_tip_and_the_buttons_off_the_edge(ui):
    view, _game = summary_after_a_double_clear(ui)
    assert view.code_text.text.startswith("Challenge a friend: ")
    above = view.tip if view.tip.text else view.texts[-1]
    above_bottom = above.y - (above.content_height if view.tip.text else
                              above.content_height / 2)
    code_top = view.code_text.y + view.code_text.content_height / 2
    assert 0 < above_bottom - code_top <= 40  # no empty band between them
    assert view.code_text.y - view.code_text.content_height / 2 > view.again.rect.top
    for button in (view.watch, view.stats):
        assert button.rect.bottom >= 16
    image = ui.screenshot().convert("RGB")
    background = image.getpixel((1, image.height // 2))
    bottom = image.crop((0, image.height - 12, image.width, image.height))
    assert all(p == background for p in bottom.getdata())  # nothing flush with the edge


def test_from_the_start_is_not_shrunk(ui):
    ui.app.start_game("tiered", seed=3)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, SummaryView)
    assert ui.app.watch_replay(ui.app.last_replay) is None
    ui.pump(2)
    viewer = ui.view
    assert isinstance(viewer, ReplayView)
    while not viewer.finished:
        viewer.step_once()
    ui.pump(2)
    first, others = viewer.buttons[0], viewer.buttons[1:]
    assert first.label == "↺ From the start"
    assert first.text.font_size == max(b.text.font_size for b in others)
