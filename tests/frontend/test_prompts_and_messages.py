"""Prompts that throw something away default to the safe choice, keys meant for the
board never answer a prompt or the summary, and messages go when they should
(real keys and clicks with xdotool on Xvfb)."""

from __future__ import annotations

import pytest

from blockyard.frontend.game_screen import MESSAGE_READABLE, MESSAGE_TIME
from blockyard.frontend.menus import MenuView
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView

# a chequer board: "#####" fits nowhere, "#" fits in any hole without clearing a line
STUCK = "\n".join("#." * 5 if r % 2 else ".#" * 5 for r in range(10))


def test_enter_on_the_restart_question_keeps_the_game(ui):
    game = ui.app.start_game("eu-classic", seed=5)
    ui.key("1", "Return")
    assert game.moves == 1
    ui.key("Escape", "Down", "Return")  # pause → restart: asks first
    menu = ui.view
    assert isinstance(menu, MenuView) and "Restart" in menu.title.text
    assert menu.buttons[menu.index].label == "Keep playing"
    ui.key("Return")
    assert ui.view.game is game and not game.over and game.moves == 1
    assert ui.app.records.stats("eu-classic").games == 0


def test_the_restart_question_still_restarts_when_chosen(ui):
    game = ui.app.start_game("eu-classic", seed=5)
    ui.key("1", "Return")
    ui.key("Escape", "Down", "Return", "Up", "Return")
    assert ui.view.game is not game and game.over_reason == "ended"
    assert ui.app.records.stats("eu-classic").games == 1


def test_a_menu_needs_a_valid_default(ui):
    with pytest.raises(ValueError, match="default choice 2"):
        MenuView("t", [], [("a", lambda: None), ("b", lambda: None)], lambda: None, default=2)


def test_rapid_enter_across_becoming_stuck_takes_neither_continue_nor_a_new_game(ui):
    view, game = ui.show_game("eu-classic", board=STUCK, tray=["#", "#####", None])
    assert not game.over
    ui.key("1", "Return")  # the last move that fits: stuck, the "continue?" prompt
    assert game.over and game.can_continue and view.prompting
    for _ in range(40):  # the player goes on pressing Enter (and Space) for ~1.5 s
        ui.key("Return")
        ui.key("space")
    assert game.over and game.can_continue and ["continue"] not in game.log
    assert ui.view is view and view.prompting
    ui.key("c")  # the prompt's own key takes the choice
    assert not game.over and game.log[-1] == ["continue"]


def test_rapid_enter_never_leaves_the_summary_unseen(ui):
    _view, game = ui.show_game("eu-classic", board=STUCK, tray=["#", "#####", None])
    ui.key("1", "Return")
    ui.pump(40)
    ui.key("f")  # finish: the summary
    for _ in range(30):
        ui.key("Return")
        if not isinstance(ui.view, SummaryView):
            break
    summary = ui.view
    assert isinstance(summary, SummaryView) and summary.game is game
    ui.key_down("Return")  # held down: still nothing
    ui.pump(60)
    ui.key_up("Return")
    assert ui.view is summary
    ui.pump(40)  # a pause: a fresh Enter is meant for this screen
    ui.key("Return")
    assert isinstance(ui.view, TrayGameView) and ui.view.game is not game


def test_enter_held_into_a_game_over_without_continue_starts_nothing(ui):
    board = "\n".join("#." * 4 if r % 2 else ".#" * 4 for r in range(8))
    _view, game = ui.show_game("arcadeforge", board=board, tray=["#", "#####", None])
    ui.key("1")
    ui.key_down("Return")  # places the piece; the game ends with the key still down
    for _ in range(30):
        ui.pump(2)
    ui.key_up("Return")
    assert game.over and isinstance(ui.view, SummaryView)
    ui.key("Return", "Return")  # quick presses right after it shows: ignored
    assert isinstance(ui.view, SummaryView) and ui.view.game is game


def run_idle(ui, seconds, dt=1 / 60):
    """The window's own loop with no input: updates every tick, draws only when the
    window asks for it (BlockyardWindow.draw: after input, or while animating)."""
    for _ in range(round(seconds / dt)):
        ui.window.dispatch_events()
        ui.view.on_update(dt)
        ui.window.draw(dt)


def record_message_frames(view, monkeypatch):
    """The message text of every frame the window draws from now on (until the test
    ends: ``monkeypatch`` puts the drawing back)."""
    frames: list[str] = []
    text = view.message_line.text
    draw = text.draw

    def recording() -> None:
        frames.append(text.text)
        draw()

    monkeypatch.setattr(text, "draw", recording)
    return frames


def test_a_message_disappears_from_the_screen_when_it_expires_without_input(ui, monkeypatch):
    view, _game = ui.show_game("eu-classic", board=STUCK, tray=["#", "#####", None])
    ui.key("2", "Return")  # the five fits nowhere
    assert view.message
    frames = record_message_frames(view, monkeypatch)
    run_idle(ui, 0.5)
    assert frames and frames[-1] == view.message  # still on screen
    run_idle(ui, MESSAGE_TIME)
    assert view.message == ""
    assert frames[-1] == ""  # the frame without it was drawn, with no input
    drawn = len(frames)
    run_idle(ui, 0.5)
    assert len(frames) == drawn  # and then the window is idle again


def test_the_swap_confirmation_text_goes_with_the_swap(ui, monkeypatch):
    view, game = ui.show_game("tiered", seed=3)
    before = game.tray
    rect = view.action_buttons["swap"].rect
    ui.click(rect.center_x, rect.center_y)
    assert "again" in view.message and view.input.armed == "swap"
    frames = record_message_frames(view, monkeypatch)
    ui.click(rect.center_x, rect.center_y)
    assert game.tray != before and view.input.armed != "swap"
    assert view.message == "" and frames[-1] == ""


def test_the_points_label_runs_out_under_the_stuck_prompt_without_input(ui, monkeypatch):
    """The "+1" of the move that left the game stuck rises and goes under the
    prompt; the frame without it is drawn with no input, then the window idles."""
    from blockyard.frontend.tray_view import LABEL_TIME

    view, _game = ui.show_game("eu-classic", board=STUCK, tray=["#", "#####", None])
    ui.key("1", "Return")
    assert view.prompting and view.board_section.labels
    drawn: list[int] = []
    sections = view.section_manager
    draw = sections.on_draw

    def recording() -> None:
        drawn.append(len(view.board_section.labels))
        draw()

    monkeypatch.setattr(sections, "on_draw", recording)  # put back when the test ends
    run_idle(ui, LABEL_TIME + 0.2)
    assert not view.board_section.labels
    assert drawn and drawn[-1] == 0  # the last frame drawn shows no label
    frames = len(drawn)
    run_idle(ui, 0.5)
    assert len(drawn) == frames  # idle again
    assert view.prompting


@pytest.mark.parametrize("width", [720, 480, 360])
def test_a_long_question_title_is_wrapped_never_cut(ui, width):
    game = ui.app.start_game("eu-hardcore", seed=5)
    ui.key("1", "Return")
    assert game.moves == 1
    ui.resize(width, 960)
    ui.app.confirm_new_game("eu-hardcore", ui.app.show_launcher)
    ui.pump(2)
    menu = ui.view
    assert isinstance(menu, MenuView)
    assert menu.title.text == "New game of Block Puzzle — Hardcore?"
    assert menu.title.content_width <= width - 16
    image = ui.screenshot().convert("RGB")
    top = image.height - 1 - round(menu.title.y)  # the title's top, in image rows
    band = image.crop((0, top, width, top + round(menu.title.content_height)))
    background = band.getpixel((width // 2, 0))
    inked = [x for x in range(width)
             if any(band.getpixel((x, y)) != background for y in range(band.height))]
    assert inked, "the title is drawn"
    assert inked[0] >= 8 and inked[-1] <= width - 9  # a margin at both edges
    # the lines below start under the title, not on it
    assert menu.lines[0].y < menu.title.y - menu.title.content_height


def test_a_message_with_a_shorter_form_shows_it_rather_than_shrink_below_readable(ui):
    # at 480x640 a long sentence would shrink to a few pixels before its shorter
    # form was tried; now the shorter form is shown at a readable size
    view, _game = ui.show_game("eu-classic")
    ui.resize(480, 640)
    long = "Bartholomew_the_Longname is muted: their quick phrases are no longer shown."
    short = "Bartholomew_the_Longname is muted."
    view.say(long, short)
    line = view.message_line
    assert line.text.text == short
    assert line.text.font_size >= MESSAGE_READABLE or line.text.font_size == line.size
    view.say(long)  # no shorter form: the sentence shrinks as far as it must
    assert line.text.text == long and line.text.content_width <= line.width
