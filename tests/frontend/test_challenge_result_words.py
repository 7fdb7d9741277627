"""A challenge code's score is the score to beat: more points beat it (green),
fewer do not (red), and the same points are a tie, said as one in its own
neutral colour, in every language (summary screens and pixels on Xvfb)."""

from __future__ import annotations

import pytest

from blockyard.challenge import encode
from blockyard.frontend import theme
from blockyard.frontend.i18n import _
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView

SEED = 3


def challenge_summary(ui, target: int) -> SummaryView:
    """Play the challenge of tiered seed 3 with ``target`` to beat: one piece by the
    keyboard, then end the round; the summary."""
    assert ui.app.start_challenge(encode("tiered", SEED, target)) is None
    ui.pump(2)
    assert isinstance(ui.view, TrayGameView)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, SummaryView)
    return ui.view


def challenge_text(view: SummaryView):
    """The summary's line on the challenge (the one with both scores, in any language)."""
    first = _("Challenge: {points} vs {target} — a tie").split(":")[0]
    return next(t for t in view.texts if t.text.startswith(first))


def colours_in(ui, text) -> set[tuple[int, int, int]]:
    image = ui.screenshot().convert("RGB")
    box = (round(text.x - text.content_width / 2), ui.window.height - round(text.y)
           - text.content_height // 2, round(text.x + text.content_width / 2),
           ui.window.height - round(text.y) + text.content_height // 2)
    return set(image.crop(box).getdata())


def test_the_same_score_is_a_tie_in_its_own_colour(ui, english):
    points = challenge_summary(ui, 10**6).summary.points  # what this play scores
    assert points > 0
    cases = {points + 1: ("not beaten", theme.BAD), points: ("a tie", theme.ACCENT),
             points - 1: ("beaten!", theme.GOOD)}
    for target, (ending, colour) in cases.items():
        view = challenge_summary(ui, target)
        assert view.summary.points == points
        line = challenge_text(view)
        assert line.text == f"Challenge: {points} vs {target} — {ending}"
        assert tuple(line.color) == colour
        drawn = colours_in(ui, line)
        assert colour[:3] in drawn  # the glyphs' solid pixels are the line's colour
        for other in {theme.BAD, theme.GOOD, theme.ACCENT} - {colour}:
            assert other[:3] not in drawn


@pytest.mark.parametrize(("code", "words"), [
    ("de", "Gleichstand"), ("es", "empate"), ("ne", "बराबरी")])
def test_a_tie_is_said_in_every_language(ui, english, code, words):
    points = challenge_summary(ui, 10**6).summary.points
    view = challenge_summary(ui, points)
    ui.app.set_language(code)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SummaryView)
    line = challenge_text(view)
    assert words in line.text and tuple(line.color) == theme.ACCENT
