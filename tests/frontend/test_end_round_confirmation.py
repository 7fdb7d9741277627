"""End round's confirmation (issue 51, found playing): Enter at its "click
again" prompt confirms it rather than cancelling it, and a prompt cancelled
by another key or click leaves the message line with it (real input on
Xvfb)."""

from __future__ import annotations

from online_support import pump_until

from blockyard.frontend.summary_view import SummaryView

AGAIN = "Click End round again (or press E) to confirm."


def test_enter_at_the_prompt_ends_the_round(ui, english):
    view, game = ui.show_game("eu-classic")
    ui.key("e")
    ui.pump(1)
    assert view.message.startswith(AGAIN) and view.input.armed == "end"
    ui.key("Return")
    pump_until(ui, lambda: game.over and isinstance(ui.view, SummaryView))


def test_a_prompt_cancelled_leaves_the_message_line(ui, english):
    view, game = ui.show_game("eu-classic")
    ui.key("e")
    ui.pump(1)
    line = view.message_line.text
    assert line.text.startswith(AGAIN)
    before = ui.screenshot()
    # where the prompt is drawn (image rows count from the top)
    left, right = round(line.x - line.content_width / 2), round(line.x + line.content_width / 2)
    top = round(ui.window.height - line.y - line.content_height / 2)
    box = (max(0, left), max(0, top), min(ui.window.width, right),
           min(ui.window.height, top + round(line.content_height)))
    ui.key("1")  # another key: End round is not taken, and no longer asked about
    ui.pump(2)
    assert view.input.armed is None and not game.over
    assert AGAIN not in view.message and AGAIN not in line.text
    # the line's pixels changed: the prompt is no longer drawn
    assert before.crop(box).tobytes() != ui.screenshot().crop(box).tobytes()
