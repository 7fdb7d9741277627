"""Issue 25, item 10: German and Spanish at the window's usual 720×960: no button
label is made smaller than its normal size, the launcher's row buttons use the
footer's word for replays, and a footer hint's key stays on the line of its label
(lines break between hint items only)."""

from __future__ import annotations

import pytest

from blockyard.frontend import i18n
from blockyard.frontend.i18n import _
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.text import Text
from blockyard.frontend.widgets import Button


def buttons_of(view):
    """Every visible button a screen (and its sections) holds."""
    found = []

    def walk(value, depth=0):
        if isinstance(value, Button):
            if value.visible and value not in found:
                found.append(value)
        elif isinstance(value, list | tuple) and depth < 2:
            for item in value:
                walk(item, depth + 1)
        elif isinstance(value, dict) and depth < 2:
            for item in value.values():
                walk(item, depth + 1)

    for owner in [view, *(getattr(view, "parts", None) or [])]:
        for value in vars(owner).values():
            walk(value)
    return found


@pytest.fixture
def speaking(ui):
    yield ui
    i18n.set_language("en")
    ui.app.set_language("en")


@pytest.mark.parametrize("code", ["de", "es"])
def test_no_label_is_shrunk_below_its_size_at_720_by_960(speaking, code):
    ui = speaking
    assert (ui.window.width, ui.window.height) == (720, 960)
    ui.app.set_language(code)
    screens = {}
    ui.app.show_launcher()
    ui.pump(2)
    screens["launcher"] = ui.view
    for ruleset in ("tiered", "eu-classic", "arcadeforge-rotate", "sudoku-bloxx"):
        ui.app.start_game(ruleset, seed=1)
        ui.pump(2)
        screens[ruleset] = ui.view
    ui.key("Escape")  # the pause menu (real key)
    screens["pause"] = ui.view
    ui.app.show_settings(ui.app.show_launcher)
    ui.pump(2)
    screens["settings"] = ui.view
    checked = 0
    for name, view in screens.items():
        for button in buttons_of(view):
            assert button.text.font_size == button.font_size, (code, name, button.label)
            assert button.text.content_width <= button.rect.width, (code, name, button.label)
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("code", ["de", "es"])
def test_the_footer_keeps_keys_with_their_labels_and_names_replays_as_the_buttons(speaking,
                                                                                   code):
    ui = speaking
    ui.app.set_language(code)
    ui.app.show_launcher()
    ui.pump(2)
    view = ui.view
    assert isinstance(view, LauncherView)
    hint = view.hint
    items = [item for item in hint.text.split("  ") if item]
    assert ("R\u00a0" + _("Replays")).lower() in [item.lower() for item in items]
    # lines break between items only: as many lines as the items make when each
    # goes whole onto the line where it fits
    size, font = hint.font_size, hint.font_name

    def width(string):
        return Text(string, 0, 0, font_size=size, font_name=font).content_width

    room, lines, line = hint.width, 1, ""
    for item in items:
        candidate = f"{line}  {item}" if line else item
        if line and width(candidate) > room:
            lines, line = lines + 1, item
        else:
            line = candidate
    height = Text("Ag", 0, 0, font_size=size, font_name=font).content_height
    assert round(hint.content_height / height) == lines, (hint.content_height, height, lines)
