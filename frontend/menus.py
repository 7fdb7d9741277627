"""Two generic screens: a menu of choices, and a prompt with text fields.

Both work with the keyboard (↑/↓ or Tab, Enter, Esc, typing) and the mouse.
Duels, challenge codes and the replay list are built from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import arcade

from . import theme
from .i18n import _
from .layout import Rect
from .text import Text
from .widgets import Button, focus_buttons, hover_buttons, pointer_focus, screen_scale

CONFIRM_GUARD = 0.6  # seconds of no Enter/Space before a guarded screen takes them
CONFIRM_KEYS = frozenset({arcade.key.ENTER, arcade.key.RETURN, arcade.key.SPACE})


class KeyGuard:
    """Keeps Enter and Space that were meant for the screen before from answering
    this one: they count only after ``guard`` seconds in which neither was pressed
    nor released since the screen appeared. A key held down when the screen came,
    or a run of quick presses begun before it, never acts on it; a fresh press
    after a short pause does. Time is the screen's own (``advance``)."""

    def __init__(self, guard: float = CONFIRM_GUARD) -> None:
        self.guard = guard
        self.quiet = 0.0  # seconds since the screen came or a confirming key was last used

    def advance(self, delta_time: float) -> None:
        self.quiet += delta_time

    def press(self, symbol: int) -> bool:
        """Whether a press of ``symbol`` may act (other keys always may)."""
        if symbol not in CONFIRM_KEYS:
            return True
        ready = self.quiet >= self.guard
        self.quiet = 0.0
        return ready

    def release(self, symbol: int) -> None:
        if symbol in CONFIRM_KEYS:
            self.quiet = 0.0


class MenuView(arcade.View):
    """A title, some lines of text, and choices (label, action); Esc runs ``back``.

    ``default`` is the choice highlighted at first (what Enter takes): for a
    question whose other answer throws something away, the safe one. With
    ``guarded`` Enter and Space wait for a :class:`KeyGuard` (a key meant for the
    screen before never answers this one)."""

    def __init__(self, title: str, lines: Sequence[str],
                 choices: Sequence[tuple[str, Callable[[], None]]],
                 back: Callable[[], None], *, default: int = 0,
                 guarded: bool = False) -> None:
        super().__init__()
        if choices and not 0 <= default < len(choices):
            raise ValueError(f"default choice {default} is not one of the "
                             f"{len(choices)} choices")
        self.back = back
        self.guard = KeyGuard() if guarded else None
        self.title = Text(title, 0, 0, theme.TEXT, 28, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="top", multiline=True, width=600,
                          align="center")
        self.lines = [Text(line, 0, 0, theme.TEXT, 16, font_name=theme.FONT,
                           anchor_x="center", anchor_y="top", multiline=True,
                           width=600, align="center") for line in lines]
        self.buttons = [Button(label, action, font_size=17) for label, action in choices]
        self.index = default
        self._layout()

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        y = height - 50 * scale
        # a long title (a ruleset's name in a question) wraps to the window: never cut
        self.title.font_size = 28 * scale
        self.title.width = int(max(100, width - 32 * scale))
        self.title.position = (width / 2, y)
        y -= self.title.content_height + 20 * scale
        for line in self.lines:  # wrapped to the window, never cut at its edges
            line.font_size = 16 * scale
            line.width = int(max(100, min(width - 32 * scale, 640 * scale)))
            line.position = (width / 2, y)
            y -= line.content_height + 8 * scale
        y -= 26 * scale
        bw, bh = min(width * 0.8, 460 * scale), 46 * scale
        for button in self.buttons:
            button.place(Rect(width / 2 - bw / 2, y - bh, bw, bh), 17 * scale)
            y -= bh + 12 * scale

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        for line in self.lines:
            line.draw()
        if self.buttons:
            focus_buttons(self.buttons, self.buttons[self.index])
        for button in self.buttons:
            button.draw()

    def on_update(self, delta_time: float) -> None:
        if self.guard is not None:
            self.guard.advance(delta_time)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if self.guard is not None:
            self.guard.release(symbol)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if self.guard is not None and not self.guard.press(symbol):
            return
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.DOWN, key.TAB) and self.buttons:
            self.index = (self.index + 1) % len(self.buttons)
            hover_buttons(self.buttons, -1, -1)
        elif symbol == key.UP and self.buttons:
            self.index = (self.index - 1) % len(self.buttons)
            hover_buttons(self.buttons, -1, -1)
        elif symbol in (key.ENTER, key.RETURN, key.SPACE) and self.buttons:
            self.buttons[self.index].action()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        found = pointer_focus(self.buttons, x, y)
        if found is not None:
            self.index = found

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        for item in self.buttons:
            if item.hit(x, y):
                item.action()
                return


class PromptView(arcade.View):
    """Text fields to fill in. ``done(values)`` returns an error message to show,
    or ``None`` when the values were accepted. Ctrl+V pastes into the field in
    focus, Ctrl+C copies it."""

    def __init__(self, title: str, fields: Sequence[tuple[str, str]],
                 done: Callable[[list[str]], str | None], back: Callable[[], None],
                 hint: str = "") -> None:
        super().__init__()
        self.done = done
        self.back = back
        self.labels = [label for label, _value in fields]
        self.values = [value for _label, value in fields]
        self.fresh = [bool(value) for value in self.values]  # a suggestion: typing replaces it
        self.focus = 0
        self.error = ""
        self.ready = False  # text typed with the key that opened the prompt is not input
        self.title = Text(title, 0, 0, theme.TEXT, 26, font_name=theme.FONT, bold=True,
                                 anchor_x="center", anchor_y="center")
        self.hint = Text(hint or _("Type, Tab for the next field, Enter to go on, Esc back"),
                                0, 0, theme.MUTED, 13, font_name=theme.FONT, anchor_x="center",
                                anchor_y="center")
        self.error_text = Text("", 0, 0, theme.BAD, 15, font_name=theme.FONT,
                                      anchor_x="center", anchor_y="center", multiline=True,
                                      width=600, align="center")
        self.texts = [Text("", 0, 0, theme.TEXT, 18, font_name=theme.FONT,
                                  anchor_y="center") for _field in fields]
        self.ok = Button(_("OK"), self.submit, font_size=18, color="GO")
        self.cancel = Button(_("Cancel"), self.back, font_size=18)
        self._layout()

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.title.position = (width / 2, height - 80 * scale)
        self.hint.position = (width / 2, height - 120 * scale)
        fw, fh = min(width * 0.85, 520 * scale), 48 * scale
        self.field_rects = []
        y = height - 180 * scale
        for text in self.texts:
            rect = Rect(width / 2 - fw / 2, y - fh, fw, fh)
            self.field_rects.append(rect)
            text.x, text.y = rect.left + 12 * scale, rect.center_y
            y -= fh + 44 * scale
        self.label_y_offset = 14 * scale
        self.error_text.position = (width / 2, y - 10 * scale)
        self.error_text.width = int(width * 0.85)
        bw = 200 * scale
        self.ok.place(Rect(width / 2 - bw - 8, y - 90 * scale, bw, fh), 18 * scale)
        self.cancel.place(Rect(width / 2 + 8, y - 90 * scale, bw, fh), 18 * scale)
        self._refresh()

    def _refresh(self) -> None:
        for i, text in enumerate(self.texts):
            cursor = "|" if i == self.focus else ""
            if self.fresh[i]:  # shown as a suggestion until the player types
                text.text = f"{self.labels[i]}: {cursor}{self.values[i]}"
                text.color = theme.MUTED
            else:
                text.text = f"{self.labels[i]}: {self.values[i]}{cursor}"
                text.color = theme.TEXT
        self.error_text.text = self.error

    def submit(self) -> None:
        self.error = self.done(list(self.values)) or ""
        self._refresh()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.hint.draw()
        for i, rect in enumerate(self.field_rects):
            color = theme.PANEL_HOVER if i == self.focus else theme.PANEL
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top, color)
        for text in self.texts:
            text.draw()
        self.error_text.draw()
        self.ok.draw()
        self.cancel.draw()

    def on_update(self, delta_time: float) -> None:
        self.ready = True

    def on_text(self, text: str) -> None:
        if not self.ready:
            return
        printable = "".join(ch for ch in text if ch.isprintable())
        if printable:
            if self.fresh[self.focus]:
                self.values[self.focus] = ""
                self.fresh[self.focus] = False
            self.values[self.focus] = (self.values[self.focus] + printable)[:40]
            self.error = ""
            self._refresh()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if modifiers & (key.MOD_CTRL | key.MOD_COMMAND) and symbol in (key.C, key.V):
            if symbol == key.V:  # paste (a code sent by a friend)
                self.ready = True
                self.on_text(self.window.get_clipboard_text().strip())
            else:
                self.window.set_clipboard_text(self.values[self.focus])
            return
        if symbol == key.BACKSPACE:
            if self.fresh[self.focus]:
                self.values[self.focus] = ""
                self.fresh[self.focus] = False
            self.values[self.focus] = self.values[self.focus][:-1]
        elif symbol in (key.TAB, key.DOWN):
            self.focus = (self.focus + 1) % len(self.values)
        elif symbol == key.UP:
            self.focus = (self.focus - 1) % len(self.values)
        elif symbol in (key.ENTER, key.RETURN):
            if self.focus < len(self.values) - 1:
                self.focus += 1
            else:
                self.submit()
                return
        elif symbol == key.ESCAPE:
            self.back()
            return
        self._refresh()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons([self.ok, self.cancel], x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        for i, rect in enumerate(self.field_rects):
            if rect.contains(x, y):
                self.focus = i
                self._refresh()
                return
        for item in (self.ok, self.cancel):
            if item.hit(x, y):
                item.action()
                return
