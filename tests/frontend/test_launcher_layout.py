"""The launcher's and the settings screen's layout at the three reference window
sizes: nothing overlaps, every text lies inside its box and stays readable, also
after coming back from a game and resizing the window for real."""

from __future__ import annotations

import pytest

from blockyard.frontend import theme
from blockyard.frontend.launcher import MIN_FONT, LauncherView, resume_note
from blockyard.frontend.layout import Rect
from blockyard.frontend.pages import SettingsView

SIZES = [(480, 640), (720, 960), (1280, 720)]


def box(text, dy: float = 0.0) -> Rect:
    """Where ``text`` is drawn (``dy``: the list camera's shift)."""
    w, h = text.content_width, text.content_height
    left = text.x - {"center": w / 2, "right": w}.get(text.anchor_x, 0)
    bottom = text.y - {"center": h / 2, "top": h}.get(text.anchor_y, 0)
    return Rect(left, bottom + dy, w, h)


def inside(inner: Rect, outer: Rect, slack: float = 1.0) -> bool:
    return (inner.left >= outer.left - slack and inner.right <= outer.right + slack
            and inner.bottom >= outer.bottom - slack and inner.top <= outer.top + slack)


def real_resize(ui, width: int, height: int) -> None:
    """Resize the window as a player does: only the window system's events reach
    the view (no extra on_resize call)."""
    ui.window.set_size(width, height)
    ui.wait_for_size(width, height)
    ui.pump(4)
    ui.sync()
    ui.pump(2)
    assert (ui.window.width, ui.window.height) == (width, height)


def check_launcher(view: LauncherView) -> None:
    width, height = view.window.width, view.window.height
    window = Rect(0, 0, width, height)
    # the camera drawing the list's texts covers the window as it is now
    camera = view.list_camera
    assert tuple(camera.viewport.size) == view.window.get_framebuffer_size()
    assert (camera.projection.width, camera.projection.height) == (width, height)
    title = box(view.title)
    assert inside(title, window)
    for button in (view.language_button, view.settings_button, view.challenge_button):
        assert inside(button.rect, window)
        assert not title.overlaps(button.rect), (button.label, title, button.rect)
        assert inside(box(button.text), button.rect)
    hint, more = box(view.hint), box(view.more)
    assert inside(hint, window) and view.hint.font_size >= MIN_FONT
    assert more.bottom >= hint.top and more.top <= view.list_bottom + 1 and inside(more, window)
    for entry in view.entries:
        r = entry.rect
        boxes = [box(t, view.text_offset) for t in entry.texts]
        for text, b in zip(entry.texts, boxes, strict=True):
            assert inside(b, r), (entry.title, text.text, b, r)
            assert text.font_size >= MIN_FONT - 0.01, (entry.title, text.text, text.font_size)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), (entry.title, a, b)
        buttons = [entry.help_rect, entry.stats_rect, entry.duel_rect, entry.replays_rect]
        if entry.resume is None:
            for small in buttons:
                assert inside(small, r)
                labels = [b for b in boxes if small.contains(b.center_x, b.center_y)]
                assert len(labels) == 1 and inside(labels[0], small), (entry.title, small)
                for b in boxes:  # the title, description and note keep clear of it
                    if b is not labels[0]:
                        assert not b.overlaps(small), (entry.title, b, small)


def text_pixels(image, rect: Rect, height: int) -> int:
    """How many pixels inside ``rect`` are near the theme's text colour."""
    count = 0
    for x in range(int(rect.left), int(rect.right)):
        for y in range(int(rect.bottom), int(rect.top)):
            pixel = image.getpixel((x, height - 1 - y))[:3]
            if all(abs(a - b) < 60 for a, b in zip(pixel, theme.TEXT, strict=False)):
                count += 1
    return count


def check_drawn(ui, view: LauncherView) -> None:
    """On the screen: every fully visible row's title and Replays label are drawn
    inside the row."""
    image = ui.screenshot()
    seen = 0
    for entry in view.entries:
        if entry.rect.bottom < view.list_bottom or entry.rect.top > view.list_top:
            continue
        seen += 1
        title = box(entry.texts[0], view.text_offset)
        assert text_pixels(image, title, ui.window.height) > 20, entry.title
        if entry.resume is None:
            assert text_pixels(image, entry.replays_rect, ui.window.height) > 10, entry.title
    assert seen >= 2


@pytest.mark.parametrize("size", SIZES)
def test_the_launcher_parts_fit_and_never_overlap(ui, size):
    ui.app.start_game("eu-classic", seed=5)  # a game in progress: a Resume row too
    ui.key("1", "Return")
    ui.key("Escape", "Down", "Down", "Return")
    ui.resize(*size)
    view = ui.view
    assert isinstance(view, LauncherView) and view.entries[0].resume is not None
    check_launcher(view)
    for _step in range(len(view.entries)):  # scrolled to the end too
        ui.key("Down")
    check_launcher(ui.view)


@pytest.mark.parametrize("language", ["de", "es", "ne"])
def test_the_launcher_fits_in_every_language_at_the_smallest_size(ui, language):
    # "Regeln · Statistik · Duell · Wiederholungen" is wider than a 480-pixel row
    ui.app.set_language(language)
    try:
        ui.app.show_launcher()
        ui.resize(480, 640)
        view = ui.view
        assert isinstance(view, LauncherView)
        check_launcher(view)
        for _step in range(len(view.entries)):  # scrolled to the end too
            ui.key("Down")
        check_launcher(ui.view)
    finally:
        ui.app.set_language("en")


def test_after_a_game_the_launcher_follows_real_resizes(ui):
    ui.app.show_launcher()
    ui.pump(3)
    ui.app.start_game("eu-classic", seed=5)
    ui.key("1", "Return")
    ui.key("Escape", "Down", "Down", "Return")  # pause → back to the launcher
    view = ui.view
    assert isinstance(view, LauncherView)
    for size in [(1280, 720), (480, 640), (720, 960)]:
        real_resize(ui, *size)
        assert ui.view is view
        check_launcher(view)
        check_drawn(ui, view)
    ui.key("Down", "Down", "Down")
    real_resize(ui, 1280, 720)
    check_launcher(view)
    check_drawn(ui, view)


@pytest.mark.parametrize("size", SIZES)
def test_settings_hint_and_back_button_fit_without_overlap(ui, size):
    ui.resize(*size)
    ui.app.show_settings()
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SettingsView)
    window = Rect(0, 0, *size)
    hint, back = box(view.hint), view.back_button.rect
    assert inside(hint, window) and inside(back, window)
    assert not hint.overlaps(back) and hint.top <= back.bottom
    assert inside(box(view.back_button.text), back)
    label = box(view.swatch_label)
    assert label.bottom >= back.top and not label.overlaps(box(view.title))
    for rect in view.rows:
        assert rect.bottom >= label.top and rect.top <= box(view.title).bottom
    for text in view.texts:
        row = next(r for r in view.rows if r.contains(text.x - 1 if text.anchor_x == "right"
                                                      else text.x + 1, text.y))
        assert inside(box(text), row)


def test_a_game_in_progress_says_move_or_moves(ui):
    game = ui.app.start_game("eu-classic", seed=5)
    saved = ui.app.playing
    assert resume_note(saved) == "Score 0 after 0 moves"
    ui.key("1", "Return")
    assert game.moves == 1
    assert resume_note(saved).startswith(f"Score {game.score} after 1 move")
    assert "moves" not in resume_note(saved)


def test_footer_hints_keep_each_key_with_its_label(ui):
    from blockyard.frontend import i18n
    from blockyard.frontend.launcher import LauncherView
    from blockyard.frontend.text import Text

    ui.app.show_launcher()
    ui.pump(2)
    try:
        for code in ("de", "es"):
            ui.app.set_language(code)
            ui.resize(480, 800)
            view = ui.view
            assert isinstance(view, LauncherView)
            hint = view.hint.text
            items = [item for item in hint.split("  ") if item]
            assert len(items) >= 8
            for item in items:  # no ordinary space inside an item: no break inside
                assert " " not in item.strip(), item
            assert "R\u00a0" in hint and "C\u00a0" in hint
            lines = view.hint.content_height / Text("Ag", 0, 0, font_size=view.hint.font_size,
                                                   font_name=view.hint.font_name
                                                   ).content_height
            assert lines >= 2  # wrapped at this width, between items only
    finally:
        i18n.set_language("en")
        ui.app.set_language("en")
