"""The summary's Copy button sits beside the challenge code it copies, on the
code's own row, at every reference size and in every language, and says it has
copied ("Copied ✓"), whether clicked or Ctrl+C was pressed (real input on Xvfb,
the clipboard and the pixels read back)."""

from __future__ import annotations

import pytest

from blockyard.frontend import theme
from blockyard.frontend.i18n import _
from blockyard.frontend.summary_view import SummaryView

SIZES = [(480, 640), (720, 960), (1280, 720)]


def summary(ui) -> SummaryView:
    ui.app.start_game("tiered", seed=3)
    ui.key("1", "Return", "e", "e")  # one piece, then end the round (confirmed)
    ui.pump(50)
    view = ui.view
    assert isinstance(view, SummaryView) and view.code and view.copy.visible
    return view


def check_beside_the_code(ui, view: SummaryView) -> None:
    code, copy = view.code_text, view.copy
    scale = max(0.7, min(1.3, min(ui.window.width, ui.window.height) / 720))
    assert abs(copy.rect.center_y - code.y) <= 2  # one row
    gap = copy.rect.left - (code.x + code.content_width)
    assert 0 < gap <= 24 * scale
    assert code.x >= 8 and copy.rect.right <= ui.window.width - 8
    assert copy.text.content_width <= copy.rect.width
    image = ui.screenshot().convert("RGB")
    y = ui.window.height - 1 - round(copy.rect.center_y)
    assert image.getpixel((round(copy.rect.left + 3), y)) in (theme.PANEL[:3],
                                                              theme.PANEL_HOVER[:3])


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_copy_sits_beside_the_code_and_says_it_copied(ui, width, height):
    ui.resize(width, height)
    view = summary(ui)
    check_beside_the_code(ui, view)
    assert view.copy.label == "Copy code"
    ui.window.set_clipboard_text("something else")
    ui.click(view.copy.rect.center_x, view.copy.rect.center_y)
    assert ui.window.get_clipboard_text() == view.code
    assert view.copy.label == "Copied ✓"
    check_beside_the_code(ui, view)  # the button kept its place and width


def test_ctrl_c_says_it_copied_too(ui):
    view = summary(ui)
    ui.window.set_clipboard_text("something else")
    ui.key("ctrl+c")
    assert ui.window.get_clipboard_text() == view.code
    assert view.copy.label == "Copied ✓"


@pytest.mark.parametrize("code", ["de", "es", "ne"])
def test_copy_and_its_confirmation_in_every_language(ui, english, code):
    view = summary(ui)
    ui.app.set_language(code)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SummaryView)
    assert view.copy.label == _("Copy code") != "Copy code"
    check_beside_the_code(ui, view)
    ui.click(view.copy.rect.center_x, view.copy.rect.center_y)
    assert view.copy.label == _("Copied ✓") != "Copied ✓"
    check_beside_the_code(ui, view)
