"""The replay viewer: watch a finished game again, for every ruleset.

Keys: Space play/pause, → step one action, 1 / 2 / 4 speed, Esc back. The game
is rebuilt by running its log through the headless engine; ticks are played in
real time (scaled by the speed) in frame-sized pieces, which the engine makes
exact (``tick(a); tick(b)`` is ``tick(a + b)``), so the last frame is the
finished game itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import arcade

from blockyard.replays import Replay

from . import theme
from .i18n import _, localise_digits
from .layout import Rect
from .rulewords import ruleset_name
from .screens import game_view
from .text import Text
from .widgets import Button, click_buttons, fit_text, hover_buttons

if TYPE_CHECKING:
    from .session import Session

ACTION_SECONDS = 0.45   # between replayed tray moves at ×1
BAR_HEIGHT = 66         # the control bar at the bottom, kept free by the game screen
SPEEDS = {arcade.key.KEY_1: 1, arcade.key.KEY_2: 2, arcade.key.KEY_4: 4}
BUTTON_WIDTH = 110.0    # the bar's buttons at least this wide where the window has room
STATUS_SIZE = 12        # the status line's font size, and the smallest it is shrunk to
STATUS_SMALLEST = 9


class ReplayView(arcade.View):
    """Plays a :class:`~blockyard.replays.Replay` back (check it first).
    ``title`` names the game watched when it is not the player's own (a
    leaderboard's line: its player and score): the status line says it, and
    the game's header says it where the player's own best would be."""

    def __init__(self, session: Session, replay: Replay, back: Callable[[], None],
                 title: str = "") -> None:
        super().__init__()
        self.session = replace(session, watching=title) if title else session
        self.replay = replay
        self.back = back
        self.actions = [list(a) for a in replay.log[1:]]
        self.speed = 1
        self._start()
        self.label = title or _("Replay: {name}").format(name=ruleset_name(self.game.ruleset))
        self.buttons = [Button(_("❚❚ Pause"), self.toggle, font_size=13),
                        Button(_("Step ▶"), self.step_once, font_size=13),
                        Button(_("Speed ×{n}").format(n=localise_digits("1")), self.next_speed,
                               font_size=13),
                        Button(_("Back"), self.back, font_size=13)]
        self.status = Text(self.label, 0, 0, theme.ACCENT, STATUS_SIZE, font_name=theme.FONT,
                           bold=True, anchor_x="center", anchor_y="center")
        self._status_shown = ""  # the whole status line the status text was fitted for
        self._place_status()

    def _start(self) -> None:
        """The game as it began, played back from its first action."""
        self.game = self.replay.start()
        self.index = 0
        self.tick_left: int | None = None
        self.wait = 0.0
        self.playing = True
        # the game's own screen, watched: above the control bar, never played
        self.inner = game_view(self.game.kind)(self.session, self.game, spectator=True,
                                               reserve_bottom=BAR_HEIGHT)

    def play_again(self) -> None:
        """Watch the game again from its start (offered once the replay has ended)."""
        self._start()
        self.inner.on_resize(self.window.width, self.window.height)

    @property
    def finished(self) -> bool:
        return self.index >= len(self.actions)

    def _place_status(self) -> None:
        """The control bar: its buttons in one row, each as wide as its longest label
        needs (shrunk alike when the window is too narrow for them all), and the
        status line under them, fitted inside the window (:meth:`_fit_status`)."""
        width = self.window.width
        self.status.position = (width / 2, 12)
        self._status_shown = ""
        self._fit_status()
        gap, bh = 8.0, 30.0
        room = width - 16 - gap * (len(self.buttons) - 1)
        need = [self._widest_label(button, labels) for button, labels
                in zip(self.buttons, self._button_labels(), strict=True)]
        widths = [max(n, BUTTON_WIDTH) for n in need]
        if sum(widths) > room:
            widths = [n * room / sum(need) for n in need]
        left = width / 2 - (sum(widths) + gap * (len(widths) - 1)) / 2
        for button, wide in zip(self.buttons, widths, strict=True):
            button.place(Rect(left, 30, wide, bh), 13)
            left += wide + gap

    def _button_labels(self) -> list[list[str]]:
        """Every label each button of the bar can show."""
        speeds = sorted(SPEEDS.values())
        return [[_("↺ From the start"), _("▶ Play"), _("❚❚ Pause")], [_("Step ▶")],
                [_("Speed ×{n}").format(n=localise_digits(str(n))) for n in speeds],
                [_("Back")]]

    @staticmethod
    def _widest_label(button: Button, labels: list[str]) -> float:
        shown = button.label
        widest = 0.0
        for label in labels:
            button.label = label
            widest = max(widest, button.natural_width(13))
        button.label = shown
        return widest

    def _fit_status(self) -> None:
        """The status line inside the window at a readable size: whole; without the
        keys when it does not fit (the buttons say them too); then with the title
        shortened ("…"), never cut by the window's edges."""
        full = self._status_text()
        if full == self._status_shown:
            return
        self._status_shown = full
        room, high = self.window.width - 16, BAR_HEIGHT - 42
        status, keys = self._status_parts()
        for text in (f"{status}  ·  {keys}", status):
            self.status.text = text
            fit_text(self.status, room, high, STATUS_SIZE, smallest=STATUS_SMALLEST)
            if self.status.content_width <= room:
                return
        title, state = self.label, status[len(self.label):]
        while len(title) > 1 and self.status.content_width > room:
            title = title[:-1]
            self.status.text = title.rstrip() + "…" + state
            fit_text(self.status, room, high, STATUS_SIZE, smallest=STATUS_SMALLEST)

    def toggle(self) -> None:
        """Pause or play on; at the end, play it all again from the start."""
        if self.finished:
            self.play_again()
        else:
            self.playing = not self.playing

    def step_once(self) -> None:
        self.playing = False
        self.step()

    def next_speed(self) -> None:
        speeds = sorted(SPEEDS.values())
        self.speed = speeds[(speeds.index(self.speed) + 1) % len(speeds)]

    def animating(self) -> bool:
        return (self.playing and not self.finished) or self.inner.animating()

    def _status_parts(self) -> tuple[str, str]:
        """The status line's two parts: the title with the state, speed and actions
        played ("Replay: Tiered Blocks  ▶ ×1  3/40"), and the keys."""
        state = _("end") if self.finished else ("▶" if self.playing else "❚❚")
        return (f"{self.label}  {state} ×{localise_digits(str(self.speed))}  "
                + localise_digits(f"{min(self.index, len(self.actions))}/{len(self.actions)}"),
                _("Space ❚❚  → step  1/2/4  Esc"))

    def _status_text(self) -> str:
        """The whole status line (what :meth:`_fit_status` shortens when it must)."""
        status, keys = self._status_parts()
        return f"{status}  ·  {keys}"

    # -- playing ---------------------------------------------------------------------------

    def step(self) -> None:
        """Perform the next action whole (the rest of a tick included)."""
        if self.finished:
            return
        action = self.actions[self.index]
        if action[0] == "tick":
            self.inner.perform(["tick", self.tick_left if self.tick_left is not None
                                else action[1]])
            self.tick_left = None
        else:
            self.inner.perform(action)
        self.index += 1
        self.wait = 0.0

    def advance(self, seconds: float) -> None:
        budget = round(seconds * 1_000_000)
        while budget > 0 and not self.finished:
            action = self.actions[self.index]
            if action[0] == "tick":
                left = self.tick_left if self.tick_left is not None else int(action[1])
                use = min(left, budget)
                self.inner.perform(["tick", use])
                budget -= use
                left -= use
                if left:
                    self.tick_left = left
                else:
                    self.tick_left = None
                    self.index += 1
            elif self.game.mode.realtime:
                self.step()  # moves and drops happened between ticks
            else:
                self.wait += budget / 1_000_000
                budget = 0
                if self.wait >= ACTION_SECONDS:
                    self.step()

    def on_update(self, delta_time: float) -> None:
        if self.playing:
            self.advance(delta_time * self.speed)
        self.inner.on_update(delta_time)
        self._fit_status()
        self.buttons[0].label = _("↺ From the start") if self.finished \
            else _("▶ Play") if not self.playing else _("❚❚ Pause")
        self.buttons[1].enabled = not self.finished
        self.buttons[2].label = _("Speed ×{n}").format(n=localise_digits(str(self.speed)))

    def on_draw(self) -> None:
        self.inner.on_draw()
        arcade.draw_lrbt_rectangle_filled(0, self.window.width, 0, BAR_HEIGHT, theme.OVERLAY)
        self.status.draw()
        for button in self.buttons:
            button.draw()

    def on_resize(self, width: int, height: int) -> None:
        self.inner.on_resize(width, height)
        self._place_status()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.back()
        elif symbol == key.SPACE:
            self.toggle()
        elif symbol == key.RIGHT:
            self.playing = False
            self.step()
        elif symbol in SPEEDS:
            self.speed = SPEEDS[symbol]

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons(self.buttons, x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        click_buttons(self.buttons, x, y)
