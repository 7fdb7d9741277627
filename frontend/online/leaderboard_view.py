"""Leaderboards in the window: submitting a finished game (the server replays it
and answers with its own score and the rank), and a ruleset's leaderboard of a
date — the top 20, you, and the players around you — whose games can be
watched in the replay viewer.

Keys on the leaderboard: ←/→ another ruleset, PageUp/PageDown the day before or
after (daily rulesets), ↑/↓ choose a line, Enter or W watch its game, Esc back.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard.game import today_in
from blockyard.online import SUBMITTED_ALREADY, Client, Entry, Leaderboard, OnlineError, Submission

from .. import dailies, theme
from ..i18n import _, format_date, format_number
from ..layout import Rect
from ..text import Text
from ..widgets import Button, fit_text, focus_buttons, hover_buttons, pointer_focus, screen_scale
from .lobby_view import ruleset_title
from .settings_view import BackgroundScreen

if TYPE_CHECKING:
    from blockyard.records import RecordStore
    from blockyard.replays import Replay

    from ..session import Host
    from .account import OnlineAccount

TOP = 20
AROUND = 2  # lines shown above and below yours when you are not in the top
FETCH = 100  # the most a leaderboard call returns

_SUBMITTED: weakref.WeakSet[Any] = weakref.WeakSet()
"""The games of this window the server has (sent from here, or refused as sent
already): their summary offers no Submit again."""


def was_submitted(game: Any) -> bool:
    """Whether ``game`` (a finished game of this window) is on the server already:
    submitted from its summary, or found there when submitted again."""
    try:
        return game in _SUBMITTED
    except TypeError:  # not an object a weak reference can follow
        return False


def _mark_submitted(game: Any) -> None:
    with contextlib.suppress(TypeError):  # not an object a weak reference can follow
        _SUBMITTED.add(game)


_RANKS: dict[tuple[str, str, str, str], tuple[int, int | None]] = {}
"""The player's ranks this window has learnt from the server (a game submitted,
a leaderboard shown): by server, account, ruleset and date, the rank and how
many players the leaderboard had."""


def known_rank(account: OnlineAccount, ruleset_id: str, date: str
               ) -> tuple[int, int | None] | None:
    """The signed-in player's rank on ``ruleset_id``'s leaderboard of ``date``
    (``YYYY-MM-DD``) and the number of players on it, as the server last said it
    to this window; ``None`` when it never did."""
    if not account.signed_in:
        return None
    return _RANKS.get((account.server, account.name, ruleset_id, date))


def _remember_rank(account: OnlineAccount, board: Leaderboard, game_id: int | None = None
                   ) -> int | None:
    """Note the player's rank on a daily ``board`` (their line's, or the line of
    their game ``game_id``); the rank, ``None`` when they are not on it."""
    rank = next((e.rank for e in board.entries if e.name == account.name
                 and (game_id is None or e.game_id == game_id)), None)
    if rank is not None and board.date is not None:
        _RANKS[(account.server, account.name, board.ruleset_id, board.date)] = (rank, board.total)
    return rank


def shown_entries(board: Leaderboard, name: str) -> list[Entry | None]:
    """The lines to show: the top 20, then (``None`` as a gap) the lines around
    ``name``'s when it is further down."""
    entries = list(board.entries)
    top = entries[:TOP]
    mine = next((i for i, e in enumerate(entries) if e.name == name), None)
    if mine is None or mine < TOP:
        return list(top)
    around = entries[max(TOP, mine - AROUND):mine + AROUND + 1]
    return [*top, None, *around]


def watched_title(entry: Entry) -> str:
    """The replay viewer's name for a leaderboard line's game: whose it is and
    its score ("carol's game: 184 points")."""
    return _("{name}'s game: {points} points").format(name=entry.name,
                                                      points=format_number(entry.score))


class LeaderboardView(BackgroundScreen):
    """A ruleset's leaderboard (of ``date`` for a daily ruleset: today in UTC by
    default). ``watch(replay, back)`` opens the replay viewer; ``rulesets`` are
    the ids ←/→ go through; ``watch``'s third argument names the game watched
    (its player and score, :func:`watched_title`). A daily ruleset's today is
    the date in its own time zone on the clock ``now``."""

    def __init__(self, account: OnlineAccount, ruleset_id: str, rulesets: list[str],
                 watch: Callable[[Replay, Callable[[], None], str], str | None],
                 back: Callable[[], None], date: dt.date | None = None,
                 now: Callable[[], dt.datetime] | None = None) -> None:
        super().__init__()
        self.account = account
        self.rulesets = rulesets or [ruleset_id]
        self.index = self.rulesets.index(ruleset_id) if ruleset_id in self.rulesets else 0
        self.watch = watch
        self.back = back
        # a daily ruleset's today in its own time zone (the rule file's), on the clock given
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.date = date or self._today()
        self.board: Leaderboard | None = None
        self.lines: list[Entry | None] = []
        self.selected = 0
        self.title = Text("", 0, 0, theme.TEXT, 24, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="center")
        self.subtitle = Text("", 0, 0, theme.ACCENT, 15, font_name=theme.FONT, bold=True,
                             anchor_x="center", anchor_y="center")
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center", multiline=True,
                                 width=400, align="center")
        self.hint = Text(_("←→ rules  PgUp/PgDn day  ↑↓ choose  Enter watch  Esc back"), 0, 0,
                         theme.MUTED, 12, font_name=theme.FONT, anchor_x="center",
                         anchor_y="bottom", multiline=True, width=400, align="center")
        self.watch_button = Button(_("Watch"), self.watch_selected, font_size=16, color="GO")
        self.back_button = Button(_("Back"), back, font_size=16)
        self.rows: list[tuple[Rect, list[Text]]] = []
        self._layout()
        self.load()

    @property
    def ruleset_id(self) -> str:
        return self.rulesets[self.index]

    def _today(self) -> dt.date:
        try:
            timezone = blockyard.load_ruleset(self.ruleset_id).timezone
        except Exception:  # a ruleset that cannot be loaded here: the server's day (UTC)
            timezone = "UTC"
        return today_in(timezone, self.now())

    @property
    def daily(self) -> bool:
        try:
            return bool(blockyard.load_ruleset(self.ruleset_id).is_daily)
        except Exception:
            return False

    def load(self) -> None:
        """Fetch the leaderboard shown (in the background)."""
        if self.pending is not None:
            return
        client = Client(self.account.server, timeout=10)
        ruleset_id, date = self.ruleset_id, self.date.isoformat() if self.daily else None

        def done(board: Leaderboard) -> None:
            self.board = board
            if self.account.signed_in:
                _remember_rank(self.account, board)
            self.lines = shown_entries(board, self.account.name)
            self.selected = 0
            if not board.entries:
                self.say(_("No games on this leaderboard yet."))
            self._layout()

        self.start(lambda: client.leaderboard(ruleset_id, date, FETCH), done)

    def watch_selected(self) -> None:
        """Open the chosen line's game in the replay viewer."""
        if self.pending is not None or not self.lines:
            return
        entry = self.lines[self.selected] if self.selected < len(self.lines) else None
        if entry is None:
            return
        client = Client(self.account.server, timeout=30)

        title = watched_title(entry)

        def done(replay: Replay) -> None:
            problem = self.watch(replay, lambda: self.window.show_view(self), title)
            if problem:
                self.say(problem, bad=True)

        self.start(lambda: client.game(entry.game_id), done)

    def step_ruleset(self, step: int) -> None:
        self.index = (self.index + step) % len(self.rulesets)
        self.board, self.lines = None, []
        self._layout()
        self.load()

    def step_day(self, step: int) -> None:
        if not self.daily:
            return
        self.date += dt.timedelta(days=step)
        self.board, self.lines = None, []
        self._layout()
        self.load()

    # -- layout and drawing ------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.92, 560 * scale)
        left = width / 2 - wide / 2
        self.title.text = _("Leaderboard: {name}").format(name=ruleset_title(self.ruleset_id))
        self.title.position = (width / 2, height - 36 * scale)
        fit_text(self.title, wide, 40 * scale, 24 * scale, smallest=9.0)
        self.subtitle.text = "◀  " + (format_date(self.date, "medium") if self.daily
                                      else _("all days")) + "  ▶"
        self.subtitle.position = (width / 2, height - 70 * scale)
        fit_text(self.subtitle, wide, 26 * scale, 15 * scale, smallest=9.0)
        self.hint.width = int(width - 16)
        self.hint.font_size = max(9.0, 12 * scale)
        self.hint.position = (width / 2, 4 * scale)
        bh = 42 * scale
        half = (wide - 10 * scale) / 2
        by = 4 * scale + self.hint.content_height + 8 * scale
        self.watch_button.place(Rect(left, by, half, bh), 16 * scale)
        self.back_button.place(Rect(left + half + 10 * scale, by, half, bh), 16 * scale)
        self.message_text.width = int(wide)
        self.message_text.position = (width / 2, by + bh + 18 * scale)
        self.message_box = (wide, 34 * scale, 14 * scale)
        self.fit_message(self.message_text)
        top, bottom = height - 90 * scale, by + bh + 36 * scale
        count = max(1, len(self.lines))
        rh = max(14 * scale, min(30 * scale, (top - bottom) / max(count, 10)))
        self.rows = []
        for i, entry in enumerate(self.lines):
            rect = Rect(left, top - (i + 1) * rh, wide, rh - 2 * scale)
            if rect.bottom < bottom:
                break
            size = min(14 * scale, rh * 0.55)
            if entry is None:
                texts = [Text("…", rect.center_x, rect.center_y, theme.MUTED, size,
                              font_name=theme.FONT, anchor_x="center", anchor_y="center")]
            else:
                colour = theme.ACCENT if entry.name == self.account.name else theme.TEXT
                rank = Text(format_number(entry.rank), rect.left + 8 * scale, rect.center_y,
                            colour, size, font_name=theme.FONT, anchor_y="center")
                name = Text(entry.name, rect.left + 60 * scale, rect.center_y, colour, size,
                            font_name=theme.FONT, bold=entry.name == self.account.name,
                            anchor_y="center")
                fit_text(name, rect.width - 160 * scale, rect.height, size, smallest=7.0)
                score = Text(format_number(entry.score), rect.right - 8 * scale,
                             rect.center_y, colour, size, font_name=theme.FONT,
                             anchor_x="right", anchor_y="center")
                texts = [rank, name, score]
            self.rows.append((rect, texts))
        self.watch_button.enabled = bool(self.lines)
        self.refresh()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.subtitle.draw()
        for i, (rect, texts) in enumerate(self.rows):
            if i == self.selected:
                arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                                  theme.PANEL_HOVER)
            for text in texts:
                text.draw()
        self.message_text.draw()
        self.watch_button.draw()
        self.back_button.draw()
        self.hint.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.LEFT, key.RIGHT):
            self.step_ruleset(1 if symbol == key.RIGHT else -1)
        elif symbol in (key.PAGEUP, key.PAGEDOWN):
            self.step_day(-1 if symbol == key.PAGEUP else 1)
        elif symbol == key.DOWN and self.lines:
            self.selected = (self.selected + 1) % len(self.lines)
        elif symbol == key.UP and self.lines:
            self.selected = (self.selected - 1) % len(self.lines)
        elif symbol in (key.ENTER, key.RETURN, key.W):
            self.watch_selected()
        self.refresh()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons([self.watch_button, self.back_button], x, y)
        for i, (rect, _texts) in enumerate(self.rows):
            if rect.contains(x, y):
                self.selected = i

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if abs(y - self.subtitle.y) < 16 * self.scale:  # ◀ day ▶
            self.step_day(-1 if x < self.window.width / 2 else 1)
            return
        if abs(y - self.title.y) < 20 * self.scale:  # the rules: left half back, right on
            self.step_ruleset(-1 if x < self.window.width / 2 else 1)
            return
        for i, (rect, _texts) in enumerate(self.rows):
            if rect.contains(x, y):
                self.selected = i
                self.watch_selected()
                return
        for item in (self.watch_button, self.back_button):
            if item.hit(x, y):
                item.action()
                return


class SubmitView(BackgroundScreen):
    """Sends a finished game to the server and shows what it made of it: its
    score, whether it counts (a daily ruleset's first game of the date) and the
    rank of how many players, with the top percentage; for a daily game also
    the player's streak of days (``records``) and the countdown to the next
    daily game (on the clock ``now``). Buttons: Leaderboard, Back."""

    def __init__(self, account: OnlineAccount, game: Any,
                 leaderboard: Callable[[str, dt.date | None], None],
                 back: Callable[[], None], records: RecordStore | None = None,
                 now: Callable[[], dt.datetime] | None = None) -> None:
        super().__init__()
        self.account = account
        self.records = records
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.game = game
        self.back = back
        self.ruleset_id = str(game.ruleset.id)
        self.date = dt.date.fromisoformat(game.date) if getattr(game, "date", None) else None
        self.submission: Submission | None = None
        self.rank: int | None = None
        self.total: int | None = None  # how many players the leaderboard has
        self.countdown_text = Text("", 0, 0, theme.ACCENT, 17, font_name=theme.FONT,
                                   bold=True, anchor_x="center", anchor_y="top")
        self.title = Text(_("Submit to the leaderboard"), 0, 0, theme.TEXT, 24,
                          font_name=theme.FONT, bold=True, anchor_x="center", anchor_y="center")
        self.body = Text("", 0, 0, theme.TEXT, 17, font_name=theme.FONT, anchor_x="center",
                         anchor_y="top", multiline=True, width=400, align="center")
        self.board_button = Button(_("Leaderboard"),
                                   lambda: leaderboard(self.ruleset_id, self.date),
                                   font_size=16, color="GO")
        self.back_button = Button(_("Back"), back, font_size=16)
        self.buttons = [self.board_button, self.back_button]
        self.focus = 0
        self._layout()
        self.send()

    def send(self) -> None:
        client = Client(self.account.server, self.account.token or None, timeout=60)
        game, ruleset_id = self.game, self.ruleset_id
        date = game.date if getattr(game, "date", None) else None

        def call() -> tuple[Submission, Leaderboard]:
            return client.submit_game(game), client.leaderboard(ruleset_id, date, FETCH)

        def done(answer: tuple[Submission, Leaderboard]) -> None:
            self.submission, board = answer
            self.total = board.total
            if self.submission.counted:
                self.rank = _remember_rank(self.account, board, self.submission.id)
            _mark_submitted(game)
            self._layout()

        def failed(exc: OnlineError) -> bool:
            if exc.kind == SUBMITTED_ALREADY:  # on the server: not offered again
                _mark_submitted(game)
            return False  # said in the message line all the same

        self.start(call, done, failed)

    def body_text(self) -> str:
        stored = self.submission
        if stored is None:
            return ""
        lines = [_("The server counted {points} points.").format(
            points=format_number(stored.score))]
        if not stored.counted:
            lines.append(_("Practice: only the first game of the day counts."))
            return "\n".join(lines)
        if self.date is not None:  # a daily ruleset: the day's first finished game
            lines.append(_("It counts: your first finished game of the day."))
        if self.rank is not None:
            lines.append(dailies.rank_text(self.rank, self.total))
        else:
            lines.append(_("Not among the first {n}: a better game of yours counts.").format(
                n=format_number(FETCH)))
        if self.date is not None and self.records is not None:
            lines.append(dailies.streak_text(dailies.streak(self.records, self.game.ruleset,
                                                            self.now())))
        return "\n".join(lines)

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        wide = min(width * 0.9, 520 * scale)
        self.title.position = (width / 2, height - 70 * scale)
        fit_text(self.title, wide, 50 * scale, 24 * scale, smallest=9.0)
        self.body.width = int(wide)
        self.body.font_size = 17 * scale
        self.body.position = (width / 2, height - 120 * scale)
        self.body.text = "\n".join(t for t in (self.body_text(), self.message) if t)
        self.body.color = theme.BAD if self.message_bad else theme.TEXT
        # a daily game: when the next one comes, under what the server said
        self.countdown_text.font_size = 17 * scale
        self.countdown_text.position = (width / 2, self.body.y - self.body.content_height
                                        - 18 * scale)
        self._tick()
        bw, bh = (wide - 10 * scale) / 2, 46 * scale
        left = width / 2 - wide / 2
        self.board_button.place(Rect(left, 40 * scale, bw, bh), 16 * scale)
        self.back_button.place(Rect(left + bw + 10 * scale, 40 * scale, bw, bh), 16 * scale)
        self.refresh()

    def say(self, message: str, bad: bool = False) -> None:
        super().say(message, bad)
        if hasattr(self, "body"):
            self._layout()

    def _tick(self) -> None:
        """The countdown to the next daily game, as the clock says it now."""
        words = dailies.countdown(self.game.ruleset, self.now()) if self.date else ""
        if words != self.countdown_text.text:
            self.countdown_text.text = words
            self.refresh()

    def on_update(self, delta_time: float) -> None:
        super().on_update(delta_time)
        self._tick()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.body.draw()
        self.countdown_text.draw()
        focus_buttons(self.buttons, self.buttons[self.focus])
        for button in self.buttons:
            button.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.TAB, key.LEFT, key.RIGHT, key.UP, key.DOWN):
            self.focus = 1 - self.focus
            hover_buttons(self.buttons, -1, -1)
            self.refresh()
        elif symbol in (key.ENTER, key.RETURN, key.SPACE):
            self.buttons[self.focus].action()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        found = pointer_focus(self.buttons, x, y)
        if found is not None and found != self.focus:
            self.focus = found
            self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        for item in self.buttons:
            if item.hit(x, y):
                item.action()
                return


def open_leaderboard(host: Host, ruleset_id: str = "", date: Any = None,
                     back: Callable[[], None] | None = None) -> LeaderboardView:
    """A ruleset's leaderboard on the server (``date``: a daily ruleset's day; a
    ruleset not installed here: the first one that is); its games open in the
    replay viewer, and ``back`` (the launcher by default) leaves it."""
    rulesets = [info.id for info in blockyard.list_rulesets() if info.error is None]
    return LeaderboardView(
        host.online, ruleset_id if ruleset_id in rulesets else rulesets[0], rulesets,
        lambda replay, again, title: host.watch_replay(replay, again, title),
        back or host.show_launcher, date, host.now)


def open_submit(host: Host, game: blockyard.Game, back: Callable[[], None]) -> SubmitView:
    """Send a finished game to the server and show its score and rank; its
    leaderboard opens from there (and comes back to ``back``)."""
    def board(ruleset_id: str, date: Any) -> None:
        host.show("leaderboard", ruleset_id=ruleset_id, date=date, back=back)

    return SubmitView(host.online, game, board, back, host.records, host.now)


__all__ = ["LeaderboardView", "SubmitView", "known_rank", "open_leaderboard", "open_submit",
           "shown_entries", "was_submitted", "watched_title"]
