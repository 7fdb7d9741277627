"""A ruleset's rated leaderboard on the server (``GET /api/ratings/{ruleset_id}``):
every player with a rated round of those rules, best rating first, each line the
rank, the name, the rating (provisional ones marked) and the rated rounds behind
it, all as the server counts them. ←/→ choose the rules, F5 fetches again, Esc
back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import arcade

from blockyard.online import Client, RatingBoard

from .. import theme
from ..i18n import _, format_number
from ..layout import Rect
from ..text import Text
from ..widgets import Button, fit_text, focus_buttons, pointer_focus, screen_scale
from .lobby_view import ruleset_title, table_rulesets
from .ratingwords import provisional_note, rating_text
from .settings_view import BackgroundScreen

if TYPE_CHECKING:
    from ..session import Host
    from .account import OnlineAccount

FETCH = 20
"""The lines fetched and shown: the best 20."""


class RatedBoardView(BackgroundScreen):
    """The rated leaderboard of ``ruleset_id``; ``rulesets`` are the ids ←/→ go
    through."""

    def __init__(self, account: OnlineAccount, ruleset_id: str, rulesets: list[str],
                 back: Callable[[], None]) -> None:
        super().__init__()
        self.account = account
        self.rulesets = rulesets or [ruleset_id]
        self.index = self.rulesets.index(ruleset_id) if ruleset_id in self.rulesets else 0
        self.back = back
        self.board: RatingBoard | None = None
        self.title = Text("", 0, 0, theme.TEXT, 24, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="center")
        self.subtitle = Text("", 0, 0, theme.ACCENT, 15, font_name=theme.FONT, bold=True,
                             anchor_x="center", anchor_y="center")
        self.note = Text("", 0, 0, theme.MUTED, 12, font_name=theme.FONT, anchor_x="center",
                         anchor_y="center")
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center", multiline=True,
                                 width=400, align="center")
        self.hint = Text(_("←→ rules  F5 refresh  Esc back"), 0, 0, theme.MUTED, 12,
                         font_name=theme.FONT, anchor_x="center", anchor_y="bottom",
                         multiline=True, width=400, align="center")
        self.back_button = Button(_("Back"), back, font_size=16)
        self.focused = False
        self.rows: list[tuple[Rect, list[Text]]] = []
        self._layout()
        self.load()

    @property
    def ruleset_id(self) -> str:
        return self.rulesets[self.index]

    def load(self) -> None:
        """Fetch the rated leaderboard shown (in the background)."""
        if self.pending is not None:
            return
        client, ruleset_id = Client(self.account.server, timeout=10), self.ruleset_id

        def done(board: RatingBoard) -> None:
            self.board = board
            if not board.entries:
                self.say(_("Nobody has played a rated round of these rules yet."))
            self._layout()

        self.start(lambda: client.ratings(ruleset_id, FETCH), done)

    def step_ruleset(self, step: int) -> None:
        self.index = (self.index + step) % len(self.rulesets)
        self.board = None
        self._layout()
        self.load()

    # -- layout and drawing ------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.92, 560 * scale)
        left = width / 2 - wide / 2
        self.title.text = _("Rated leaderboard")
        self.title.position = (width / 2, height - 36 * scale)
        fit_text(self.title, wide, 40 * scale, 24 * scale, smallest=9.0)
        self.subtitle.text = "◀  " + ruleset_title(self.ruleset_id) + "  ▶"
        self.subtitle.position = (width / 2, height - 70 * scale)
        fit_text(self.subtitle, wide, 26 * scale, 15 * scale, smallest=9.0)
        board = self.board
        self.note.text = "" if board is None else "  ·  ".join((
            _("{n} rated players").format(n=format_number(board.total)),
            provisional_note(board.provisional_games)))
        self.note.position = (width / 2, height - 96 * scale)
        fit_text(self.note, wide, 20 * scale, 12 * scale, smallest=7.0)
        self.hint.width = int(width - 16)
        self.hint.font_size = max(9.0, 12 * scale)
        self.hint.position = (width / 2, 4 * scale)
        bh = 42 * scale
        by = 4 * scale + self.hint.content_height + 8 * scale
        bw = min(wide, 260 * scale)
        self.back_button.place(Rect(width / 2 - bw / 2, by, bw, bh), 16 * scale)
        self.message_text.width = int(wide)
        self.message_text.position = (width / 2, by + bh + 18 * scale)
        self.message_box = (wide, 34 * scale, 14 * scale)
        self.fit_message(self.message_text)
        top, bottom = height - 112 * scale, by + bh + 36 * scale
        entries = list(board.entries) if board is not None else []
        rh = max(14 * scale, min(30 * scale, (top - bottom) / max(len(entries), 10)))
        self.rows = []
        for i, entry in enumerate(entries):
            rect = Rect(left, top - (i + 1) * rh, wide, rh - 2 * scale)
            if rect.bottom < bottom:
                break
            size = min(14 * scale, rh * 0.55)
            mine = entry.name.lower() == self.account.name.lower()
            colour = theme.ACCENT if mine else theme.TEXT
            rank = Text(format_number(entry.rank), rect.left + 8 * scale, rect.center_y,
                        colour, size, font_name=theme.FONT, anchor_y="center")
            name = Text(entry.name, rect.left + 50 * scale, rect.center_y, colour, size,
                        font_name=theme.FONT, bold=mine, anchor_y="center")
            games = Text(_("{n} rounds").format(n=format_number(entry.rating.games)),
                         rect.right - 8 * scale, rect.center_y, theme.MUTED, size * 0.9,
                         font_name=theme.FONT, anchor_x="right", anchor_y="center")
            fit_text(games, rect.width * 0.22, rect.height, size * 0.9, smallest=7.0)
            rating = Text(rating_text(entry.rating), rect.right - rect.width * 0.25,
                          rect.center_y, colour, size, font_name=theme.FONT, bold=True,
                          anchor_x="right", anchor_y="center")
            fit_text(rating, rect.width * 0.2, rect.height, size, smallest=7.0)
            fit_text(name, rect.width * 0.75 - 50 * scale - rating.content_width - 12 * scale,
                     rect.height, size, smallest=7.0)
            self.rows.append((rect, [rank, name, rating, games]))
        self.refresh()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.subtitle.draw()
        if self.note.text:
            self.note.draw()
        for i, (rect, texts) in enumerate(self.rows):
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                              theme.PANEL if i % 2 == 0 else theme.BACKGROUND)
            for text in texts:
                text.draw()
        self.message_text.draw()
        focus_buttons([self.back_button], self.back_button if self.focused else None)
        self.back_button.draw()
        self.hint.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.LEFT, key.RIGHT):
            self.step_ruleset(1 if symbol == key.RIGHT else -1)
        elif symbol == key.F5:
            self.load()
        elif symbol in (key.TAB, key.DOWN, key.UP):
            self.focused = not self.focused
        elif symbol in (key.ENTER, key.RETURN, key.SPACE) and self.focused:
            self.back()
            return
        self.refresh()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if pointer_focus([self.back_button], x, y) is not None:
            self.focused = True
            self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if abs(y - self.subtitle.y) < 16 * self.scale:  # ◀ rules ▶
            self.step_ruleset(-1 if x < self.window.width / 2 else 1)
            return
        if self.back_button.hit(x, y):
            self.back()


def open_rated_leaderboard(host: Host, ruleset_id: str = "",
                           back: Callable[[], None] | None = None) -> RatedBoardView:
    """The rated leaderboard of ``ruleset_id`` (the rules a live table plays; the
    first of them when not given); ``back`` (the launcher by default) leaves it."""
    rulesets = [rid for rid, _name in table_rulesets()]
    return RatedBoardView(host.online, ruleset_id if ruleset_id in rulesets or not rulesets
                          else rulesets[0], rulesets, back or host.show_launcher)


__all__ = ["FETCH", "RatedBoardView", "open_rated_leaderboard"]
