"""Play now's waiting screen: the player is in the server's pool for one ruleset,
waiting for an opponent of a close rating. It says so, and for how long; Esc (or
Stop looking) leaves the pool and goes back. When the server pairs the player
(the ``paired`` message on the player's own live connection, or the pool's
answer to the screen's own check every :data:`CHECK_SECONDS`), the window goes
straight to the rated table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import arcade

from blockyard.online import (
    REFUSED,
    Client,
    OnlineError,
    PairingState,
    PlayerFeed,
    run_in_background,
)

from .. import theme
from ..i18n import _, format_number
from ..layout import Rect
from ..text import Text
from ..widgets import Button, fit_text, focus_buttons, pointer_focus, screen_scale
from .lobby_view import ruleset_title
from .settings_view import BackgroundScreen

if TYPE_CHECKING:
    from ..session import Host
    from .account import OnlineAccount

CHECK_SECONDS = 5.0
"""How often the screen asks the pool where the player is (``GET /api/pairing``),
besides the live connection's ``paired``: a pairing the connection missed (it
was away) still opens the table."""


class PlayNowView(BackgroundScreen):
    """Waiting in Play now's pool for ``ruleset_id`` (``rules``: its name).
    ``open_table(table_id, seat)`` opens the rated table the server seated the
    player at; ``back()`` returns (after leaving the pool)."""

    def __init__(self, account: OnlineAccount, ruleset_id: str, rules: str,
                 open_table: Callable[[int, int], None], back: Callable[[], None], *,
                 feed: PlayerFeed | None = None) -> None:
        super().__init__()
        self.account = account
        self.ruleset_id = ruleset_id
        self.rules = rules
        self.open_table = open_table
        self.back = back
        self.feed = feed
        self.before = feed.paired if feed is not None else None
        """The table the feed had paired the player at before this wait (not this one)."""
        self.waiting = False  # in the pool (the server said so)
        self.left = False
        self.waited = 0.0  # seconds on this screen since the server took the player in
        self.since_check = 0.0
        self.gap: float | None = None
        self.title = Text(_("Play now"), 0, 0, theme.TEXT, 26, font_name=theme.FONT,
                          bold=True, anchor_x="center", anchor_y="center")
        self.rules_text = Text(rules, 0, 0, theme.ACCENT, 16, font_name=theme.FONT, bold=True,
                               anchor_x="center", anchor_y="center")
        self.body = Text("", 0, 0, theme.TEXT, 16, font_name=theme.FONT, anchor_x="center",
                         anchor_y="top", multiline=True, width=400, align="center")
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center", multiline=True,
                                 width=400, align="center")
        self.hint = Text(_("Esc: stop looking"), 0, 0, theme.MUTED, 12, font_name=theme.FONT,
                         anchor_x="center", anchor_y="bottom", multiline=True, width=400,
                         align="center")
        self.leave_button = Button(_("Stop looking"), self.leave, font_size=16)
        self.focused = False
        self._layout()
        self.enter()

    @property
    def client(self) -> Client:
        return Client(self.account.server, self.account.token or None, timeout=10)

    def enter(self) -> None:
        """Enter the pool (a place left over from another window, in any ruleset,
        is left first: the player asked for this one now)."""
        client, ruleset_id = self.client, self.ruleset_id

        def call() -> PairingState:
            try:
                return client.play_now(ruleset_id)
            except OnlineError as exc:
                if exc.kind != REFUSED or exc.status != 409:
                    raise
                client.leave_pairing()
                return client.play_now(ruleset_id)

        def done(state: PairingState) -> None:
            self.waiting = True
            self.gap = state.gap
            if not self._paired(state.table, state.seat):
                self._words()

        self.start(call, done)

    def leave(self) -> None:
        """Leave the pool and go back (the call runs after an entry still under way)."""
        if self.left:
            return
        self.left = True
        client, entering = self.client, self.pending

        def call() -> None:
            if entering is not None:
                entering.wait(15)
            # the server away: its pool drops a player gone on its own
            with contextlib.suppress(OnlineError):
                client.leave_pairing()

        run_in_background(call)
        self.back()

    def _paired(self, table: int | None, seat: int | None) -> bool:
        """Open ``table`` (at ``seat``) when the server has seated the player."""
        if table is None or seat is None or self.left:
            return False
        self.left = True
        self.open_table(table, seat)
        return True

    def on_update(self, delta_time: float) -> None:
        super().on_update(delta_time)
        if self.left:
            return
        feed = self.feed
        paired = feed.paired if feed is not None else None
        if paired is not None and paired != self.before \
                and paired.ruleset_id == self.ruleset_id:
            self._paired(paired.table, paired.seat)
            return
        if not self.waiting:
            return
        second = int(self.waited)
        self.waited += delta_time
        self.since_check += delta_time
        if self.since_check >= CHECK_SECONDS and self.pending is None:
            self.since_check = 0.0
            client = self.client

            def checked(state: PairingState | None) -> None:
                if state is not None and not self._paired(state.table, state.seat):
                    self.gap = state.gap

            self.start(client.pairing, checked, lambda _error: True, quiet=True)
        if int(self.waited) != second:
            self._words()

    def _words(self) -> None:
        lines = [_("Looking for an opponent of a close rating…")]
        if self.waiting:
            lines.append(_("Waiting {seconds} s").format(
                seconds=format_number(int(self.waited))))
        self.body.text = "\n".join(lines)
        self.refresh()

    # -- layout and drawing ------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.92, 560 * scale)
        self.title.position = (width / 2, height - 60 * scale)
        fit_text(self.title, wide, 44 * scale, 26 * scale)
        self.rules_text.position = (width / 2, height - 100 * scale)
        fit_text(self.rules_text, wide, 28 * scale, 16 * scale, smallest=8.0)
        self.body.width = int(wide)
        self.body.font_size = 16 * scale
        self.body.position = (width / 2, height - 130 * scale)
        self._words()
        fit_text(self.body, wide, 80 * scale, 16 * scale, smallest=8.0)
        self.hint.width = int(width - 16)
        self.hint.font_size = max(9.0, 12 * scale)
        self.hint.position = (width / 2, 4 * scale)
        bw, bh = min(wide, 280 * scale), 46 * scale
        by = 4 * scale + self.hint.content_height + 12 * scale
        self.leave_button.place(Rect(width / 2 - bw / 2, by, bw, bh), 16 * scale)
        self.message_text.width = int(wide)
        self.message_text.position = (width / 2, by + bh + 30 * scale)
        self.message_box = (wide, 40 * scale, 14 * scale)
        self.fit_message(self.message_text)
        self.refresh()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.rules_text.draw()
        self.body.draw()
        self.message_text.draw()
        focus_buttons([self.leave_button], self.leave_button if self.focused else None)
        self.leave_button.draw()
        self.hint.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.leave()
        elif symbol in (key.TAB, key.DOWN, key.UP):
            self.focused = not self.focused
            self.refresh()
        elif symbol in (key.ENTER, key.RETURN, key.SPACE) and self.focused:
            self.leave()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if pointer_focus([self.leave_button], x, y) is not None:
            self.focused = True
            self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.leave_button.hit(x, y):
            self.leave()


def open_play_now(host: Host, ruleset_id: str, back: Callable[[], None] | None = None
                  ) -> PlayNowView:
    """Play now for ``ruleset_id`` (its table opens as ``"table"``; ``back``: the
    lobby by default)."""
    def open_table(table_id: int, _seat: int) -> None:
        host.show("table", table_id=table_id, code="")  # the table says the seat

    def lobby() -> None:
        host.show("lobby")

    return PlayNowView(host.online, ruleset_id, ruleset_title(ruleset_id), open_table,
                       back or lobby, feed=host.player_feed())


__all__ = ["CHECK_SECONDS", "PlayNowView", "open_play_now"]
