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


def empty_bands(image) -> list[int]:
    """The heights of the runs of rows drawn in the background colour alone,
    between the first and the last row with anything on it."""
    image = image.convert("RGB")
    background = image.getpixel((1, image.height // 2))
    drawn = [any(image.getpixel((x, y)) != background for x in range(0, image.width, 2))
             for y in range(image.height)]
    first, last = drawn.index(True), len(drawn) - 1 - drawn[::-1].index(True)
    bands, run = [], 0
    for row in drawn[first:last + 1]:
        run = 0 if row else run + 1
        if run == 1:
            bands.append(0)
        if run:
            bands[-1] = run
    return bands


def test_no_empty_band_between_the_lines_and_the_buttons(ui):
    # found playing (issue 51): a summary with little to say left a band of some
    # 250 px between its lines and its buttons; now they share the room around
    view, _game = summary_after_a_double_clear(ui)
    code_bottom = view.code_text.y - view.code_text.content_height / 2
    assert 0 < code_bottom - view.again.rect.top <= 40 + 30  # the band, the code's margin
    assert max(empty_bands(ui.screenshot())) <= 80
    # the room left is above the lines and under the buttons, alike
    top_room = ui.window.height - (view.texts[0].y + view.texts[0].content_height / 2)
    assert abs(top_room - view.watch.rect.bottom) < 60


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
