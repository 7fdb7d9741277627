"""The challenge code and a table's code through the clipboard (pyglet's): Copy
on the summary and Ctrl+C, Ctrl+V in a code field (real keys on Xvfb)."""

from __future__ import annotations

from blockyard.frontend.menus import PromptView
from blockyard.frontend.summary_view import SummaryView


def test_copy_the_challenge_code_and_paste_it(ui):
    game = ui.app.start_game("eu-classic", seed=4)
    ui.key("1", "Return", "e", "e")  # one move, then end the round (confirmed)
    ui.pump(50)
    summary = ui.view
    assert isinstance(summary, SummaryView) and summary.code and summary.copy.visible
    ui.window.set_clipboard_text("something else")
    ui.key("ctrl+c")
    assert ui.window.get_clipboard_text() == summary.code
    ui.window.set_clipboard_text("something else")
    ui.click(summary.copy.rect.center_x, summary.copy.rect.center_y)
    assert ui.window.get_clipboard_text() == summary.code
    # the friend's window: Ctrl+V in the code field, Enter
    ui.app.show_launcher()
    ui.pump(2)
    ui.app.prompt_challenge()
    ui.pump(2)
    prompt = ui.view
    assert isinstance(prompt, PromptView)
    ui.key("ctrl+v")
    assert prompt.values == [summary.code]
    ui.key("ctrl+c")
    assert ui.window.get_clipboard_text() == summary.code
    ui.key("Return")
    ui.pump(3)
    assert ui.app.challenge_score == game.score
    assert ui.app.current_game.seed == game.seed
