"""Small drawing helpers shared by the views: buttons and pieces as sprites."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import arcade

from blockyard.pieces import PieceLook

from . import theme
from .i18n import _
from .layout import Rect
from .text import Text


def screen_scale(width: float, height: float) -> float:
    """The size factor of a screen's text and spacing for a window of ``width`` ×
    ``height``: 1 at 720 pixels on the shorter side, kept within 0.7–1.3."""
    return max(0.7, min(1.3, min(width, height) / 720))


class Button:
    """A clickable rectangle with a label. ``action`` runs on click. ``color``: its
    fill (a colour, or the name of a theme colour such as ``"GO"``; the theme's
    panel colour by default).

    ``focused``: the keyboard's focus is on it, drawn lighter with an accent ring;
    ``hover``: the pointer is on it, drawn lighter. A screen with a keyboard focus
    moves the focus to the button under the pointer (:func:`pointer_focus`) and
    clears the hover when a key moves the focus, so one button at a time looks
    chosen."""

    def __init__(self, label: str, action: Callable[[], None], *, font_size: float = 16,
                 color: theme.Color | str | None = None) -> None:
        self.rect = Rect(0, 0, 0, 0)
        self.action = action
        self.color = color
        self.visible = True
        self.enabled = True
        self.hover = False
        self.focused = False
        self.font_size = font_size
        self.text = Text(label, 0, 0, theme.TEXT, font_size, anchor_x="center",
                                anchor_y="center", font_name=theme.FONT, bold=True)

    @property
    def label(self) -> str:
        return self.text.text

    @label.setter
    def label(self, value: str) -> None:
        if self.text.text != value:
            self.text.text = value
            self._fit()

    # room left and right of the label, and above and below it (see _fit)
    PADDING = 12

    def natural_width(self, font_size: float | None = None) -> float:
        """The width at which the label fits at ``font_size`` (the button's own by
        default) without being made smaller."""
        size = self.font_size if font_size is None else font_size
        before = self.text.font_size
        if before != size:
            self.text.font_size = size
        width = float(self.text.content_width) + self.PADDING
        if self.text.font_size != before:
            self.text.font_size = before
        return width

    def place(self, rect: Rect, font_size: float | None = None) -> None:
        self.rect = rect
        self.text.x, self.text.y = rect.center_x, rect.center_y
        if font_size is not None:
            self.font_size = font_size
        self._fit()

    def _fit(self) -> None:
        """The largest font size up to the button's own at which the label fits."""
        if self.rect.width <= 0:
            return
        fit_text(self.text, self.rect.width - self.PADDING, self.rect.height - 4, self.font_size)

    def hit(self, x: float, y: float) -> bool:
        return self.visible and self.enabled and self.rect.contains(x, y)

    def draw(self) -> None:
        if not self.visible:
            return
        r = self.rect
        if not self.enabled:  # flat, dark and dim: nothing to press
            arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, theme.DISABLED)
            arcade.draw_lrbt_rectangle_outline(r.left, r.right, r.bottom, r.top,
                                               theme.DISABLED_EDGE, 1)
            if self.text.color != theme.DISABLED_TEXT:
                self.text.color = theme.DISABLED_TEXT
            self.text.draw()
            return
        if self.text.color != theme.TEXT:
            self.text.color = theme.TEXT
        color = self.color or theme.PANEL
        if isinstance(color, str):  # a theme colour by name, as the theme is now
            color = getattr(theme, color)
        if (self.hover or self.focused) and not (self.focused and self.color):
            color = theme.PANEL_HOVER  # a coloured button with the focus keeps its colour
        arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, color)
        arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.bottom + 3,
                                          theme.BUTTON_EDGE)
        if self.focused:  # the keyboard's focus: a ring inside the edge
            ring = FOCUS_RING
            arcade.draw_lrbt_rectangle_outline(r.left + ring / 2, r.right - ring / 2,
                                               r.bottom + ring / 2, r.top - ring / 2,
                                               theme.ACCENT, ring)
        self.text.draw()


def fit_text(text: arcade.Text, width: float, height: float, size: float,
             smallest: float = 7.0) -> None:
    """Set ``text``'s font size to the largest up to ``size`` at which it is at most
    ``width`` × ``height`` pixels (not below ``smallest``)."""
    if text.font_size != size:
        text.font_size = size
    while text.font_size > smallest and (text.content_width > width
                                         or text.content_height > height):
        text.font_size = max(smallest, text.font_size * 0.9)


def elide(text: Text, width: float, after: str = "", before: str = "") -> Text:
    """Shorten ``text`` with an ellipsis until it is at most ``width`` pixels wide
    (a long name: cut, not shrunk to an unreadable size); ``before`` and ``after``
    are kept whole around the part cut (a row's status after its seats, a button's
    words around a name)."""
    words = text.text.removesuffix(after) if after else text.text
    words = words.removeprefix(before) if before else words
    if text.content_width <= width:
        return text
    low, high = 0, len(words)
    while low < high:  # the longest beginning that fits with the ellipsis
        middle = (low + high + 1) // 2
        text.text = before + words[:middle].rstrip() + "…" + after
        if text.content_width <= width:
            low = middle
        else:
            high = middle - 1
    text.text = before + words[:low].rstrip() + "…" + after
    return text


FOCUS_RING = 3
"""The width in pixels of the ring around the button with the keyboard's focus."""


def focus_buttons(buttons: Iterable[Button], focused: Button | None) -> None:
    """Mark ``focused`` (or none) as the one button with the keyboard's focus."""
    for button in buttons:
        button.focused = button is focused and button.visible and button.enabled


def pointer_focus(buttons: Iterable[Button], x: float, y: float) -> int | None:
    """For a screen with a keyboard focus, on a pointer motion: the index of the
    button under ``(x, y)`` (visible and enabled; ``None``: none), to which the
    screen moves its focus. Every button's hover is cleared: the focus alone
    shows which button is chosen, so two never look chosen at once."""
    found = None
    for i, button in enumerate(buttons):
        button.hover = False
        if found is None and button.hit(x, y):
            found = i
    return found


_TAB_KEYSYMS = (0xFF09, 0xFE20)  # X11's Tab and ISO_Left_Tab (what Shift+Tab gives)


def is_back_tab(symbol: int, modifiers: int) -> bool:
    """Whether a key press is Shift+Tab (the focus goes back). On X11 Shift+Tab
    is the keysym ISO_Left_Tab, which pyglet passes on as a "user key" of the
    key's keycode: that keycode is looked up in the X keyboard map."""
    key = arcade.key
    if not modifiers & key.MOD_SHIFT:
        return False
    if symbol == key.TAB:
        return True
    keycode = symbol >> 32  # pyglet's user_key(keycode)
    if not keycode or symbol & 0xFFFFFFFF:
        return False
    try:
        from pyglet.libs.x11 import xlib

        display = getattr(arcade.get_window(), "_x_display")  # noqa: B009 - pyglet xlib only
        return any(xlib.XKeycodeToKeysym(display, keycode, index) in _TAB_KEYSYMS
                   for index in range(4))
    except Exception:  # not X11, or no window: not Shift+Tab then
        return False


def click_buttons(buttons: Iterable[Button], x: float, y: float) -> bool:
    """Run the action of the button under ``(x, y)``; True if one was hit."""
    for button in buttons:
        if button.hit(x, y):
            button.action()
            return True
    return False


def hover_buttons(buttons: Iterable[Button], x: float, y: float) -> None:
    for button in buttons:
        button.hover = button.rect.contains(x, y)


def cell_sprite(color: theme.Color, size: float, x: float = 0, y: float = 0,
                texture: arcade.Texture | None = None) -> arcade.Sprite:
    """A tile sprite of ``size`` pixels centred on ``(x, y)`` (plain, or ``texture``)."""
    sprite = arcade.Sprite(texture or theme.cell_texture(), center_x=x, center_y=y)
    sprite.width = sprite.height = size
    sprite.color = color
    return sprite


def piece_sprites(cells: Iterable[tuple[int, int]], color: theme.Color, size: float,
                  left: float, top: float,
                  sprites: arcade.SpriteList[arcade.Sprite] | None = None,
                  index: int = 0, look: PieceLook | None = None
                  ) -> arcade.SpriteList[arcade.Sprite]:
    """Sprites for a piece whose bounding box's top-left corner is at ``(left, top)``;
    ``index``: its colour index (for its pattern when patterns are on); ``look``:
    its family's look (``ruleset.looks.get(index)``), mark and outline."""
    out = sprites if sprites is not None else arcade.SpriteList()
    texture = theme.piece_texture(index, look)
    for r, c in cells:
        out.append(cell_sprite(color, size * 0.96, left + (c + 0.5) * size,
                               top - (r + 0.5) * size, texture))
    return out


def draw_card(rect: Rect) -> None:
    """The card a dialog's texts and buttons stand on, over the screen's scrim
    (``theme.SCRIM``): the screen's background colour with an edge, so the dialog
    reads as on the plain screen whatever is under it."""
    if rect.width <= 0 or rect.height <= 0:
        return
    arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                      theme.BACKGROUND)
    arcade.draw_lrbt_rectangle_outline(rect.left, rect.right, rect.bottom, rect.top,
                                       theme.BUTTON_EDGE, 2)


class PauseMenu:
    """The pause overlay of the game screens: Resume, Restart, Back to launcher,
    How to play, Settings. Keys while open: ↑/↓ choose, Enter or Space pick,
    Esc resume."""

    def __init__(self, restart: Callable[[], None], launcher: Callable[[], None],
                 help: Callable[[], None] | None = None,
                 settings: Callable[[], None] | None = None) -> None:
        self.open = False
        self.index = 0
        self.title = Text(_("Paused"), 0, 0, theme.TEXT, 26, font_name=theme.FONT,
                                 bold=True, anchor_x="center", anchor_y="center")
        self.buttons = [Button(_("Resume"), self.close, font_size=20),
                        Button(_("Restart"), self._then_close(restart), font_size=20),
                        Button(_("Back to launcher"), self._then_close(launcher),
                               font_size=20)]
        if help is not None:
            self.buttons.append(Button(_("How to play"), self._then_close(help), font_size=20))
        if settings is not None:
            self.buttons.append(Button(_("Settings"), self._then_close(settings), font_size=20))
        self.size = (0.0, 0.0)
        self.pad = 16.0  # the card's margin around what stands on it

    def _then_close(self, action: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            self.open = False
            action()
        return run

    def show(self) -> None:
        self.open = True
        self.index = 0

    def close(self) -> None:
        self.open = False

    def place(self, width: float, height: float, scale: float) -> None:
        self.size = (width, height)
        step = min(60 * scale, height * 0.6 / len(self.buttons))
        top = height / 2 + step * len(self.buttons) / 2
        self.title.position = (width / 2, top + 40 * scale)
        self.title.font_size = 26 * scale
        self.place_buttons(width, top, step, scale)
        self.pad = 16 * scale

    def place_buttons(self, width: float, top: float, step: float, scale: float) -> None:
        """The buttons one under the other from ``top``, ``step`` pixels apart,
        centred in a window ``width`` wide."""
        for i, button in enumerate(self.buttons):
            button.place(Rect(width / 2 - 150 * scale, top - (i + 1) * step,
                              300 * scale, step * 0.78), 20 * scale)

    def card_texts(self) -> list[arcade.Text]:
        """The texts that stand on the card with the buttons (a menu with more texts
        names them too)."""
        return [self.title]

    @property
    def card(self) -> Rect:
        """The card behind the menu's texts and buttons, wherever they were placed
        (a menu made from this one may move its title)."""
        shown = [b.rect for b in self.buttons if b.visible and b.rect.width > 0]
        for text in self.card_texts():
            w, h = text.content_width, text.content_height
            shown.append(Rect(text.x - w / 2, text.y - h / 2, w, h))
        if not shown:
            return Rect(0, 0, 0, 0)
        left = min(r.left for r in shown) - self.pad
        right = max(r.right for r in shown) + self.pad
        bottom = min(r.bottom for r in shown) - self.pad
        top = max(r.top for r in shown) + self.pad
        return Rect(left, bottom, right - left, top - bottom)

    def draw(self) -> None:
        if not self.open:
            return
        arcade.draw_lrbt_rectangle_filled(0, self.size[0], 0, self.size[1], theme.SCRIM)
        draw_card(self.card)
        self.title.draw()
        focus_buttons(self.buttons, self.buttons[self.index])
        for button in self.buttons:
            button.draw()

    def on_key(self, symbol: int) -> bool:
        """Handle a key while open; True if it was the menu's."""
        if not self.open:
            return False
        key = arcade.key
        if symbol in (key.UP, key.DOWN):
            self.index = (self.index + (1 if symbol == key.DOWN else -1)) % len(self.buttons)
            hover_buttons(self.buttons, -1, -1)
        elif symbol in (key.ENTER, key.RETURN, key.SPACE):
            self.buttons[self.index].action()
        elif symbol == key.ESCAPE:
            self.close()
        return True

    def on_mouse_motion(self, x: float, y: float) -> None:
        if self.open:
            found = pointer_focus(self.buttons, x, y)
            if found is not None:
                self.index = found

    def on_mouse_press(self, x: float, y: float) -> bool:
        if not self.open:
            return False
        click_buttons(self.buttons, x, y)
        return True
