"""A live table in the window: waiting for the seats, the duel with the
opponents' boards beside yours, and the result.

:class:`TableSession` owns the table's :class:`blockyard.online.LiveTable` (a
background thread) and is polled once a frame by the screen on show; it keeps
a game per seat, rebuilt from the table's seed and every accepted move, so the
opponents' boards and scores follow move by move, and after a reconnection the
moves arrive once (the client drops the ones it had).

The server is the judge: :class:`LiveDuelView` plays your board as the game
screen does, but a placement or an action is only *sent*; the window applies
it when the server's ``move`` comes back. A refused action changes nothing (its
reason is shown). The local games in progress are never touched: this screen
neither saves nor records through the player's saves.

Keys on the waiting screen: Ctrl+C copies the table's code, Esc leaves. On the
duel: the game screen's keys; after the result, R asks for a rematch and Esc
leaves the table.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard.errors import IllegalMove
from blockyard.falling import FallingGame
from blockyard.online import LiveTable
from blockyard.records import TableResult

from . import theme
from .i18n import _, format_number
from .layout import Rect
from .online_errors import LOG, kind_text
from .sudoku_view import SudokuView
from .text import Text
from .tray_input import TrayInput
from .tray_view import TrayGameView
from .widgets import Button, click_buttons, fit_text, hover_buttons

if TYPE_CHECKING:
    from blockyard.actions import ActionSpec

    from .session import Session

BAND = 0.26  # the share of the window's height the opponents' boards take


class TableSession:
    """One table as the window follows it: ``seats`` (names, ``None`` free),
    ``status``, a game per seat once dealt, ``scores``, the ``result`` and the
    last refusal. ``me`` is the player's seat (``None``: watching)."""

    def __init__(self, live: LiveTable, name: str, code: str = "", server: str = "") -> None:
        self.live = live
        self.name = name
        self.code = code  # the table's code as players share it (ID-CODE), if known
        self.server = server  # the server's address as the player set it
        self.remembered = False  # kept for reopening (see remember_table)
        self.recorded_round: Any = None  # the round whose result is in the records
        self.ruleset_id = ""
        self.seed: int | None = None
        self.round: Any = None
        self.seats: list[str | None] = []
        self.status = "waiting"
        self.games: list[blockyard.Game] = []
        self.over: list[bool] = []
        self.scores: list[int] = []
        self.result: dict[str, Any] | None = None
        self.refusal = ""
        self.connection = "connecting"  # connecting, open, lost, closed
        self.closed_reason = ""
        self.closed_kind = ""  # what ended the connection for good (online.ERROR_KINDS)
        self.problem = ""  # why the table cannot be shown here (its rules), or ""
        self.my_move: Callable[[list[Any]], None] | None = None  # the duel screen's
        self.my_refusal: Callable[[], None] | None = None  # the duel screen's
        self.clock: tuple[float, float] | None = None
        """A falling table's round clock: (seconds since the round started, as the
        server said on connecting; time.monotonic() then)."""

    @property
    def table_id(self) -> int:
        """The table's number on its server."""
        return int(self.live.table_id)

    def table_result(self) -> TableResult | None:
        """The round's result as the records keep it (``None`` before the result, or
        when the server is not known)."""
        result = self.result
        if result is None or not isinstance(self.round, int) or not self.server:
            return None
        scores = result.get("scores")
        winner = result.get("winner")
        if not isinstance(scores, list) or len(scores) != len(self.seats) \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in scores):
            return None
        return TableResult(self.server, self.table_id, self.round, self.ruleset_id,
                           tuple(self.seats), tuple(scores),
                           winner if isinstance(winner, int) else None, self.me)

    @property
    def me(self) -> int | None:
        return self.seats.index(self.name) if self.name in self.seats else None

    def update(self) -> bool:
        """Take what arrived; whether anything changed."""
        messages = self.live.poll()
        for message in messages:
            self._take(message)
        return bool(messages)

    def _take(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "table":
            self.connection = "open"
            seats = message.get("seats")
            if isinstance(seats, list):
                self.seats = [s if isinstance(s, str) else None for s in seats]
            self.status = str(message.get("status", self.status))
            self.ruleset_id = str(message.get("ruleset_id", self.ruleset_id))
            seed = message.get("seed")
            if message.get("round") != self.round or (self.games == [] and seed is not None):
                self.round = message.get("round")
                self.clock = None
                self.result = None
                self.seed = seed if isinstance(seed, int) else None
                self._deal()
        elif kind == "move":
            seat = message.get("seat")
            action = message.get("action")
            if not isinstance(seat, int) or not 0 <= seat < len(self.games) \
                    or not isinstance(action, list):
                return
            if seat == self.me and self.my_move is not None:
                self.my_move(action)
            else:
                # the server's game is the truth: its score is shown whatever happens here
                with contextlib.suppress(ValueError, IllegalMove, blockyard.PluginError):
                    self.games[seat].apply(action)
            score = message.get("score")
            if isinstance(score, int):
                self.scores[seat] = score
            self.over[seat] = bool(message.get("over"))
            self.refusal = ""
        elif kind == "refused":
            self.refusal = str(message.get("reason", ""))
            if self.my_refusal is not None:
                self.my_refusal()
        elif kind == "result":
            self.result = message
            self.status = "finished"
        elif kind == "clock":
            elapsed = message.get("elapsed")
            if isinstance(elapsed, int | float) and not isinstance(elapsed, bool) \
                    and 0 <= elapsed <= 86_400:
                self.clock = (float(elapsed), time.monotonic())
        elif kind == "connection":
            state = str(message.get("state"))
            self.connection = "open" if state == "back" else state
            if state == "closed":
                self.closed_reason = str(message.get("reason", ""))
                self.closed_kind = str(message.get("kind", ""))
                if self.closed_reason:
                    LOG.warning("online: table %s: %s", self.table_id, self.closed_reason)

    def _deal(self) -> None:
        if self.seed is None or not self.ruleset_id:
            self.games = []
            return
        try:
            self.games = [blockyard.new_game(self.ruleset_id, seed=self.seed)
                          for _ in self.seats]
        except Exception as exc:  # not installed here, or its plugin fails: say so
            self.games = []
            self.problem = _("This table's rules cannot be played here: {reason}").format(
                reason=str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__)
            return
        self.problem = ""
        self.over = [False] * len(self.seats)
        self.scores = [0] * len(self.seats)

    def close(self) -> None:
        """Close the connection (the seat stays taken until the server's timeout)."""
        self.live.close()


def connection_banner(session: TableSession) -> str:
    """The banner's text while the connection is not open ("" when it is): what
    happened and what to do, in the player's language (the technical reason is
    logged)."""
    if session.connection == "lost":
        return _("Connection lost: connecting again…")
    if session.connection == "closed":
        if session.closed_kind:
            return _("Disconnected. {what}").format(what=kind_text(session.closed_kind))
        return _("Disconnected.")
    return ""


BANNER_PADDING = 16  # pixels above and below the banner's text


def banner_height(text: Text, width: float) -> float:
    """The height of the banner with ``text`` across a window ``width`` pixels
    wide (its text wrapped to it); 0 when there is no banner."""
    if not text.text:
        return 0.0
    wrap = int(max(40, width - 16))
    if text.width != wrap:
        text.width = wrap
    return float(text.content_height) + BANNER_PADDING


def draw_banner(text: Text, width: float, height: float) -> None:
    """A banner across the top of the window with ``text`` (nothing when empty);
    the live screens lay their content out below it (:meth:`LiveTableScreen.banner_room`)."""
    band = banner_height(text, width)
    if not band:
        return
    arcade.draw_lrbt_rectangle_filled(0, width, height - band, height, theme.BAD)
    text.x, text.y = width / 2, height - band / 2
    text.draw()


class WaitingView(arcade.View):
    """The table before its round starts: the seats, the table's code with a Copy
    button (Ctrl+C), Leave. Opens the duel when the table is playing."""

    def __init__(self, session: TableSession, open_duel: Callable[[], None],
                 back: Callable[[], None]) -> None:
        super().__init__()
        self.session = session
        self.open_duel = open_duel
        self.back = back
        self.title = Text(_("Waiting for players"), 0, 0, theme.TEXT, 26, font_name=theme.FONT,
                          bold=True, anchor_x="center", anchor_y="center")
        self.body = Text("", 0, 0, theme.TEXT, 16, font_name=theme.FONT, anchor_x="center",
                         anchor_y="top", multiline=True, width=400, align="center")
        self.banner = Text("", 0, 0, theme.TEXT, 14, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center", multiline=True, width=400, align="center")
        self.copy_button = Button(_("Copy code"), self.copy_code, font_size=16)
        self.leave_button = Button(_("Leave"), self.leave, font_size=16)
        self.buttons = [self.copy_button, self.leave_button]
        self.copied = False
        self._layout()

    def copy_code(self) -> None:
        """Put the table's code on the clipboard."""
        if self.session.code:
            self.window.set_clipboard_text(self.session.code)
            self.copied = True
            self._refresh()

    def leave(self) -> None:
        """Free the seat (a waiting table) and go back."""
        forget_table()
        self.session.live.leave()
        self.session.close()
        self.back()

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = max(0.7, min(1.3, min(width, height) / 720))
        height -= round(banner_height(self.banner, width))  # laid out below the banner
        wide = min(width * 0.9, 520 * scale)
        self.title.position = (width / 2, height - 70 * scale)
        fit_text(self.title, wide, 60 * scale, 26 * scale)
        self.body.width = int(wide)
        self.body.font_size = 16 * scale
        self.body.position = (width / 2, height - 120 * scale)
        self.banner.width = int(width - 16)
        bw, bh = min(wide / 2 - 6 * scale, 240 * scale), 48 * scale
        self.copy_button.place(Rect(width / 2 - bw - 6 * scale, 60 * scale, bw, bh), 16 * scale)
        self.leave_button.place(Rect(width / 2 + 6 * scale, 60 * scale, bw, bh), 16 * scale)
        self.copy_button.visible = bool(self.session.code)
        self._refresh()

    def _refresh(self) -> None:
        s = self.session
        lines = []
        if s.code:
            lines.append(_("Table code: {code}").format(code=s.code))
            if self.copied:
                lines.append(_("Copied."))
        for i, seat in enumerate(s.seats):
            lines.append(_("Seat {n}: {name}").format(n=format_number(i + 1),
                                                      name=seat or _("free")))
        if s.refusal:
            lines.append(s.refusal)
        if s.problem:
            lines.append(s.problem)
        self.body.text = "\n".join(lines)
        banner = connection_banner(s)
        if banner != self.banner.text:  # the screen moves below the banner, or back up
            self.banner.text = banner
            self._layout()
        if s.connection == "closed":
            forget_table()  # the table is gone or refuses us: nothing to reopen
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def on_update(self, delta_time: float) -> None:
        if self.session.update():
            # a finished table too (reopened after its round ended): its result
            if self.session.status in ("playing", "finished") and self.session.games \
                    and not self.session.problem:
                try:
                    self.open_duel()
                    return
                except ValueError as exc:  # a kind of game the duel screen cannot show
                    self.session.problem = str(exc)
            self._refresh()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.body.draw()
        for button in self.buttons:
            button.draw()
        draw_banner(self.banner, self.window.width, self.window.height)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.leave()
        elif symbol == key.C and modifiers & (key.MOD_CTRL | key.MOD_COMMAND):
            self.copy_code()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons(self.buttons, x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        click_buttons(self.buttons, x, y)


class ServerJudgedInput(TrayInput):
    """The tray's input of a live duel: what the player does is sent to the
    server, not done; :meth:`accept` does it when the server's move comes back."""

    def __init__(self, view: LiveDuelView, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.view = view
        self.accepting = False

    def accept(self, action: list[Any]) -> None:
        """Apply an action the server accepted, with its effects."""
        self.accepting = True
        try:
            if action and action[0] == "place":
                super().try_place(*(int(v) for v in action[1:4]))
            else:
                self.game.apply(action)
                self.screen.saved()
                self._refresh()
        finally:
            self.accepting = False

    def try_place(self, slot: int, row: int, col: int) -> bool:
        if self.accepting:
            return super().try_place(slot, row, col)
        if not self.game.can_place(slot, row, col):
            return super().try_place(slot, row, col)  # refused here: its message and buzz
        self.view.send(["place", slot, row, col])
        self.selected = None
        self.key_anchor = None
        self._refresh()
        return True

    def _perform(self, spec: ActionSpec, *args: int) -> bool:
        if self.accepting:
            return super()._perform(spec, *args)
        self.view.send([spec.name, *args])
        return True


class LiveTableScreen:
    """What the live table's screens share (a mixin before the game screen's
    class): the board of :attr:`shown` full-size, every other seat's board
    smaller in a band below it with their names and scores, a banner while the
    connection is away, the result at the end (recorded in the player's records
    once per round).

    Once the player's own game is over (and for a spectator at once), any
    board can be watched full-size, live: click it in the band or press ←/→
    (or Tab); Esc goes back to the player's own board. The table the player
    sits at while its round is played is remembered, so a window closed
    mid-duel reopens on it at the next start (:func:`remembered_table`)."""

    table: TableSession
    leave_table: Callable[[], None]
    shown: int
    band_rects: list[Rect]
    band_texts: list[Text]
    game: Any  # the game screen's
    session: Session
    window: Any
    scale: float
    reserve_bottom: float
    spectator: bool

    def _live_setup(self, table: TableSession, leave: Callable[[], None]) -> None:
        self.table = table
        self.leave_table = leave
        self.banner = Text("", 0, 0, theme.TEXT, 14, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center", multiline=True, width=400, align="center")
        self.result_title = Text("", 0, 0, theme.TEXT, 24, font_name=theme.FONT, bold=True,
                                 anchor_x="center", anchor_y="center")
        self.result_lines = Text("", 0, 0, theme.TEXT, 16, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="top", multiline=True, width=400,
                                 align="center")
        self.rematch_button = Button(_("Rematch"), self.rematch, font_size=16, color="GO")
        self.leave_button = Button(_("Leave table"), self.leave, font_size=16)
        self.hinted = False
        if self.shown != table.me and table.me is not None:
            self.say(_("Watching {name}: Esc goes back to your board.").format(
                name=self._name(self.shown)))
        self.place_sections(self.window.width, self.window.height)
        self.refresh()  # laid out anew: the board as the game stands (every move so far)
        self._sync_table()

    if TYPE_CHECKING:  # the game screen's (the class this one is mixed into)
        recorded: bool

        def say(self, text: str) -> None: ...

        def place_sections(self, width: int, height: int) -> None: ...

        def refresh(self) -> None: ...

    # -- talking to the table --------------------------------------------------------------

    def send(self, action: list[Any]) -> None:
        """Send an action of the player's own game (nothing while watching another
        board); nothing changes until the server accepts it."""
        if self.table.me is None or self.shown != self.table.me:
            return
        if not self.table.live.act(action):
            self.say(_("Not connected: the move was not sent."))

    def rematch(self) -> None:
        """Ask for a new round (once the round is over)."""
        self.table.live.rematch()

    def leave(self) -> None:
        """Leave the table (a game still running ends) and go back."""
        forget_table()
        self.table.live.leave()
        self.table.close()
        self.leave_table()

    def restart(self) -> None:
        self.say(_("A live game cannot be restarted."))

    def to_launcher(self) -> None:
        self.leave()

    def show_summary(self) -> None:
        self.recorded = True  # the result comes from the server, for every seat

    # -- watching ----------------------------------------------------------------------------

    def may_watch(self) -> bool:
        """Whether another board may be shown full-size: for a spectator, or once
        the player's own game is over."""
        me = self.table.me
        return me is None or self.shown != me or (me < len(self.table.over)
                                                  and self.table.over[me])

    def watch(self, seat: int) -> None:
        """Show ``seat``'s board full-size (the player's own: back to playing it)."""
        if seat == self.shown or not 0 <= seat < len(self.table.games) \
                or not self.may_watch():
            return
        self.window.show_view(live_view(self.session, self.table, self.leave_table, seat))

    def watch_step(self, step: int) -> None:
        """Show the next (``step`` 1) or previous (-1) seat's board."""
        count = len(self.table.games)
        if count:
            self.watch((self.shown + step) % count)

    # -- the band of the other boards -----------------------------------------------------------

    def opponents(self) -> list[int]:
        """The seats shown in the band: every seat but the one shown full-size."""
        return [i for i in range(len(self.table.games)) if i != self.shown]

    def _place_live(self, width: int, height: int) -> None:
        scale = self.scale
        self.banner.width = int(width - 16)
        wide = min(width * 0.9, 480 * scale)
        self.result_panel = Rect(width / 2 - wide / 2, height * 0.2, wide, height * 0.6)
        p = self.result_panel
        self.result_title.position = (p.center_x, p.top - 34 * scale)
        self.result_title.font_size = 24 * scale
        fit_text(self.result_title, wide - 20, 40 * scale, 24 * scale)
        self.result_lines.width = int(wide - 20)
        self.result_lines.position = (p.center_x, p.top - 70 * scale)
        self.result_lines.font_size = 16 * scale
        bw, bh = (wide - 30 * scale) / 2, 46 * scale
        self.rematch_button.place(Rect(p.left + 10 * scale, p.bottom + 12 * scale, bw, bh),
                                  16 * scale)
        self.leave_button.place(Rect(p.right - 10 * scale - bw, p.bottom + 12 * scale, bw, bh),
                                16 * scale)
        self._place_band(width)

    def _place_band(self, width: int) -> None:
        seats = self.opponents()
        band = self.reserve_bottom
        self.band_rects = []
        self.band_texts = []
        if not seats:
            return
        slot = width / len(seats)
        label_h = 20 * self.scale
        for n, seat in enumerate(seats):
            game = self.table.games[seat]
            cell = max(1.0, min((slot - 12) / game.cols, (band - label_h - 12) / game.rows))
            w, h = cell * game.cols, cell * game.rows
            rect = Rect(n * slot + slot / 2 - w / 2, 6, w, h)
            self.band_rects.append(rect)
            label = Text("", rect.center_x, rect.top + 4, theme.TEXT, 12 * self.scale,
                         font_name=theme.FONT, anchor_x="center", anchor_y="bottom")
            self.band_texts.append(label)
        self._band_labels()

    def _band_labels(self) -> None:
        for label, seat in zip(self.band_texts, self.opponents(), strict=False):
            name = self.table.seats[seat] if seat < len(self.table.seats) else None
            text = _("{name}: {points}").format(name=name or _("free"),
                                                 points=format_number(self.table.scores[seat]))
            if self.table.over[seat]:
                text += " ✓"
            label.text = text
            fit_text(label, self.window.width / max(1, len(self.band_texts)) - 8,
                     22 * self.scale, 12 * self.scale, smallest=7.0)

    def banner_room(self, width: float) -> float:
        """The height the connection banner takes at the top of the window (0 when
        there is none): the screen is laid out below it, so it hides nothing."""
        banner = getattr(self, "banner", None)
        return banner_height(banner, width) if banner is not None else 0.0

    def _sync_table(self) -> None:
        table = self.table
        self._band_labels()
        banner = connection_banner(table)
        if banner != self.banner.text:  # the content moves below the banner, or back up
            self.banner.text = banner
            self.place_sections(self.window.width, self.window.height)
            self.refresh()
        if table.refusal:
            self.say(_("Refused: {reason}").format(reason=table.refusal))
            table.refusal = ""
        if table.me is not None and table.status == "playing" and table.result is None \
                and not table.remembered:
            table.remembered = remember_table(table)
        result = table.result
        if result is not None:
            scores = result.get("scores") or []
            winner = result.get("winner")
            self.result_title.text = _("Draw") if winner is None else \
                _("{name} wins").format(name=self._name(winner))
            self.result_lines.text = "\n".join(
                _("{name}: {points}").format(name=self._name(i), points=format_number(int(s)))
                for i, s in enumerate(scores) if isinstance(s, int))
            self._record_result()
        elif self.may_watch() and not self.hinted and len(table.games) > 1 \
                and self.shown == table.me:
            self.hinted = True
            self.say(_("Your game is over: click a board below, or press ←/→, to watch it."))
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def _record_result(self) -> None:
        """Keep the round's result in the player's records (once per round)."""
        table = self.table
        if table.recorded_round == table.round or table.result is None:
            return
        table.recorded_round = table.round
        forget_table()
        table.remembered = False  # a rematch's round is remembered again
        found = table.table_result()
        if found is None:
            return
        try:
            self.session.records.record_table(found)
        except (ValueError, sqlite3.Error) as exc:
            self.say(_("The result could not be kept in your records: {reason}").format(
                reason=str(exc)[:120]))

    def _name(self, seat: Any) -> str:
        seats = self.table.seats
        return str(seats[seat]) if isinstance(seat, int) and 0 <= seat < len(seats) \
            and seats[seat] else _("free")

    def _live_update(self) -> bool:
        """Take what the table sent; ``True`` when this screen was replaced (a
        rematch dealt a new round)."""
        if self.table.update():
            if self.table.games and not any(g is self.game for g in self.table.games):
                # a rematch dealt a new round: a fresh screen on the player's board, or
                # the waiting screen while a seat is free (its player left the table)
                def duel() -> None:
                    self.window.show_view(live_view(self.session, self.table,
                                                    self.leave_table))
                if self.table.status == "waiting":
                    self.window.show_view(WaitingView(self.table, duel, self.leave_table))
                else:
                    duel()
                return True
            self._sync_table()
            self.refresh()
        return False

    def _draw_live(self) -> None:
        for rect, seat in zip(self.band_rects, self.opponents(), strict=False):
            draw_small_board(self.table.games[seat], rect)
        for label in self.band_texts:
            label.draw()
        if self.table.result is not None:
            p = self.result_panel
            arcade.draw_lrbt_rectangle_filled(p.left, p.right, p.bottom, p.top, theme.PANEL)
            self.result_title.draw()
            self.result_lines.draw()
            if self.table.me is not None:
                self.rematch_button.draw()
            self.leave_button.draw()
        draw_banner(self.banner, self.window.width, self.window.height)

    def _live_key(self, symbol: int, modifiers: int) -> bool:
        """Keys of the table (the result, watching); ``True`` when taken."""
        key = arcade.key
        if self.table.result is not None:
            if symbol == key.R and self.table.me is not None:
                self.rematch()
            elif symbol in (key.ESCAPE, key.L):
                self.leave()
            return True
        if not self.may_watch() or len(self.table.games) < 2:
            return False
        if symbol == key.ESCAPE and self.table.me is not None and self.shown != self.table.me:
            self.watch(self.table.me)
            return True
        if symbol == key.TAB:
            self.watch_step(-1 if modifiers & key.MOD_SHIFT else 1)
            return True
        if symbol in (key.LEFT, key.RIGHT):
            self.watch_step(1 if symbol == key.RIGHT else -1)
            return True
        return False

    def _live_motion(self, x: float, y: float) -> bool:
        if self.table.result is not None:
            hover_buttons(self._result_buttons(), x, y)
            return True
        return False

    def _live_press(self, x: float, y: float) -> bool:
        if self.table.result is not None:
            click_buttons(self._result_buttons(), x, y)
            return True
        if self.may_watch():
            for rect, seat in zip(self.band_rects, self.opponents(), strict=False):
                if rect.contains(x, y):
                    self.watch(seat)
                    return True
        return False

    def _result_buttons(self) -> list[Button]:
        if self.table.me is None:
            return [self.leave_button]
        return [self.rematch_button, self.leave_button]


class LiveDuelView(LiveTableScreen, TrayGameView):
    """A live table of a tray game: the board of seat ``shown`` (the player's own
    by default, which they play: each move is sent, and done when the server
    accepts it), the other boards smaller below it."""

    def __init__(self, session: Session, table: TableSession,
                 leave: Callable[[], None], shown: int | None = None) -> None:
        me = table.me
        self.shown = shown if shown is not None else (me if me is not None else 0)
        game = table.games[self.shown]
        if not isinstance(game, blockyard.TrayGame):
            raise ValueError(_("This kind of game cannot be played at live tables in the "
                               "window."))
        self.band_texts = []
        self.band_rects = []
        TrayGameView.__init__(self, session, game, spectator=self.shown != me,
                              reserve_bottom=band_height(arcade.get_window().height))
        self.input = ServerJudgedInput(self, game, self, self.layout, can_hint=False)
        table.my_move = self.input.accept if self.shown == me else None
        table.my_refusal = None
        self._live_setup(table, leave)

    def saved(self) -> None:
        self.dialog.sync()  # never the player's saves: a local game stays as it is

    def place_sections(self, width: int, height: int) -> None:
        self.reserve_bottom = band_height(height)
        TrayGameView.place_sections(self, width, round(height - self.banner_room(width)))
        if hasattr(self, "banner"):
            self._place_live(width, height)

    def on_update(self, delta_time: float) -> None:
        if self._live_update():
            return
        TrayGameView.on_update(self, delta_time)

    def on_draw(self) -> None:
        TrayGameView.on_draw(self)
        self._draw_live()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if not self._live_key(symbol, modifiers):
            TrayGameView.on_key_press(self, symbol, modifiers)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if not self._live_motion(x, y):
            TrayGameView.on_mouse_motion(self, x, y, dx, dy)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if not self._live_press(x, y):
            TrayGameView.on_mouse_press(self, x, y, button, modifiers)


TICK_SECONDS = 0.5
"""How often a live falling game sends its clock when nothing else happens."""
CATCH_UP_SECONDS = 0.2
"""A falling game further behind the table's clock than this catches up."""


class LiveFallingView(LiveTableScreen, SudokuView):
    """A live table of a falling game (Sudoku Bloxx): the player's own game runs
    here as it would alone (the same stones as every seat), and every entry its
    log writes (ticks, moves, drops) is sent to the server as it is written, the
    clock at least every :data:`TICK_SECONDS`. The server replays them on its
    own game; should it refuse one, the game is rebuilt from the actions it
    accepted. The clock runs on under the menu: a live game does not pause."""

    def __init__(self, session: Session, table: TableSession,
                 leave: Callable[[], None], shown: int | None = None) -> None:
        me = table.me
        self.shown = shown if shown is not None else (me if me is not None else 0)
        game = table.games[self.shown]
        if not isinstance(game, FallingGame):
            raise ValueError(_("This kind of game cannot be played at live tables in the "
                               "window."))
        self.band_texts = []
        self.band_rects = []
        SudokuView.__init__(self, session, game, spectator=self.shown != me,
                            reserve_bottom=band_height(arcade.get_window().height))
        self.confirmed: list[list[Any]] = [list(entry) for entry in game.log[1:]]
        """The actions the server accepted (the game is rebuilt from them)."""
        self.in_flight: deque[list[Any]] = deque()
        self.diverged = False
        self.sent_len = len(game.log)
        self.sent_tick = self._last_tick()
        self.since_sent = 0.0
        self.seen_clock: tuple[float, float] | None = None
        table.my_move = self.accept if self.shown == me else None
        table.my_refusal = self.refused if self.shown == me else None
        self._live_setup(table, leave)
        if self.plays:
            self.catch_up()
        self.clock_at = time.monotonic()

    @property
    def plays(self) -> bool:
        """Whether this screen plays the player's own game."""
        return self.table.me is not None and self.shown == self.table.me

    def _last_tick(self) -> int:
        last = self.game.log[-1]
        return int(last[1]) if last[0] == "tick" else 0

    def catch_up(self) -> None:
        """Bring the game clock up to the table's (a window reopened on the table:
        the game went on while it was away), as the server said."""
        self.seen_clock = self.table.clock
        if self.table.clock is None or self.game.over:
            return
        elapsed, at = self.table.clock
        behind = elapsed + (time.monotonic() - at) - self.game.elapsed_us / 1_000_000
        if behind > CATCH_UP_SECONDS:
            self._landed(self.game.tick(behind))
            self.refresh()

    def game_update(self, delta_time: float) -> None:
        """The game runs on the wall clock (what the server compares it with), not
        on the frames' times, so a slow frame never leaves it behind."""
        now = time.monotonic()
        seconds, self.clock_at = now - self.clock_at, now
        SudokuView.game_update(self, seconds)

    def unsent(self) -> list[list[Any]]:
        """The log's entries not sent yet, as actions (a tick grown since it was
        sent: the time added)."""
        log = self.game.log
        out: list[list[Any]] = []
        last = log[self.sent_len - 1]
        if last[0] == "tick" and int(last[1]) > self.sent_tick:
            out.append(["tick", int(last[1]) - self.sent_tick])
        out.extend(list(entry) for entry in log[self.sent_len:])
        return out

    def flush(self) -> None:
        """Send what the log wrote since the last time."""
        actions = self.unsent()
        self.sent_len = len(self.game.log)
        self.sent_tick = self._last_tick()
        self.since_sent = 0.0
        for action in actions:
            if not self.table.live.act(action):
                self.say(_("Not connected: the move was not sent."))
                self.diverged = True
                return
            self.in_flight.append(action)

    def accept(self, action: list[Any]) -> None:
        """The server accepted an action of this seat: one this window sent, or
        (reopened) one from before."""
        if self.in_flight:
            sent = self.in_flight.popleft()
            if sent != action:
                self.diverged = True
        elif not self.diverged:
            with contextlib.suppress(ValueError, IllegalMove, blockyard.PluginError):
                self.game.apply(action)
            self.sent_len = len(self.game.log)
            self.sent_tick = self._last_tick()
        self.confirmed.append(list(action))

    def refused(self) -> None:
        """An action of this window was refused: rebuild once the rest is answered."""
        if self.in_flight:
            self.in_flight.popleft()
        self.diverged = True

    def _rebuild(self) -> None:
        """Play the accepted actions again on a new game: the server's game."""
        table = self.table
        rebuilt = blockyard.new_game(table.ruleset_id, seed=table.seed)
        for action in self.confirmed:
            rebuilt.apply(action)
        assert table.me is not None
        table.games[table.me] = rebuilt
        self.window.show_view(LiveFallingView(self.session, table, self.leave_table))

    def saved(self) -> None:
        self.dialog.sync()  # never the player's saves: a local game stays as it is

    def place_sections(self, width: int, height: int) -> None:
        self.reserve_bottom = band_height(height)
        SudokuView.place_sections(self, width, round(height - self.banner_room(width)))
        if hasattr(self, "banner"):
            self._place_live(width, height)

    def on_update(self, delta_time: float) -> None:
        if self._live_update():
            return
        if self.plays and self.table.clock is not self.seen_clock:
            self.catch_up()
        if self.plays and self.paused and not self.game.over:
            self.game_update(delta_time)  # the clock runs on under the menu
        SudokuView.on_update(self, delta_time)
        if not self.plays:
            return
        if self.diverged:
            if not self.in_flight:
                with contextlib.suppress(ValueError, IllegalMove, blockyard.PluginError):
                    self._rebuild()
            return
        self.since_sent += delta_time
        log = self.game.log
        due = len(log) > self.sent_len + (1 if log[-1][0] == "tick" else 0) \
            or self.game.over or self.since_sent >= TICK_SECONDS
        if due and self.unsent():
            self.flush()

    def animating(self) -> bool:
        return SudokuView.animating(self) or (self.plays and not self.game.over)

    def on_draw(self) -> None:
        SudokuView.on_draw(self)
        self._draw_live()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if not self._live_key(symbol, modifiers):
            SudokuView.on_key_press(self, symbol, modifiers)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self._live_motion(x, y)  # the on-screen controls are sections of their own

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self._live_press(x, y)


def live_view(session: Session, table: TableSession, leave: Callable[[], None],
              shown: int | None = None) -> arcade.View:
    """The live screen of the table's kind of game, on seat ``shown``'s board (the
    player's own by default; a spectator's: the first seat). ``ValueError`` for a
    kind of game no live screen shows."""
    seat = shown if shown is not None else (table.me if table.me is not None else 0)
    if isinstance(table.games[seat], FallingGame):
        return LiveFallingView(session, table, leave, shown)
    return LiveDuelView(session, table, leave, shown)


def band_height(height: float) -> float:
    """The height of the opponents' band for a window ``height`` pixels high."""
    return float(round(height * BAND))


def draw_small_board(game: blockyard.Game, rect: Rect) -> None:
    """An opponent's board, cell by cell, in ``rect``."""
    arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                      theme.BOARD_BG)
    board = game.grid
    cols, rows = game.cols, game.rows
    cell = rect.width / cols
    bits, colours = board.bits, board.colours
    for index in range(rows * cols):
        if bits >> index & 1:
            r, c = divmod(index, cols)
            left = rect.left + c * cell
            top = rect.top - r * cell
            arcade.draw_lrbt_rectangle_filled(left + 0.5, left + cell - 0.5, top - cell + 0.5,
                                              top - 0.5, theme.piece_colour(colours[index] or 1))


def open_table(session: Session, account: Any, table_id: int, code: str,
               back: Callable[[], None]) -> None:
    """Connect to a table (``code``: the ``ID-CODE`` a player shared, or "") and show
    it: the waiting screen, then the duel (or the duel at once when it is under way)."""
    from blockyard.online import Client, parse_table_code

    private_code = parse_table_code(code)[1] if code else None
    client = Client(account.server, account.token or None)
    table = TableSession(client.live(table_id, private_code), account.name, code,
                         account.server)
    window = arcade.get_window()

    def leave() -> None:
        back()

    def open_duel() -> None:
        window.show_view(live_view(session, table, leave))

    window.show_view(WaitingView(table, open_duel, leave))


REOPEN_FILE = "online-table.toml"
"""The table a window was playing at (config folder): reopened at the next start."""


def _reopen_path() -> Any:
    from blockyard import paths

    return paths.config_dir() / REOPEN_FILE


def remember_table(table: TableSession) -> bool:
    """Keep the table the player is playing at (its server, the player's name and
    the table's code), so a window closed mid-duel reopens on it; whether it was
    written (a folder that cannot be written: the duel goes on, not kept)."""
    import os

    import tomli_w

    from blockyard.files import write_atomically

    try:
        path = _reopen_path()
        write_atomically(path, tomli_w.dumps({"server": table.server, "name": table.name,
                                              "table": table.code or str(table.table_id)}))
        os.chmod(path, 0o600)  # a private table's code is in it
    except OSError:
        return False
    return True


def forget_table() -> None:
    """Nothing to reopen any more (the table was left, or its round finished)."""
    with contextlib.suppress(OSError):
        _reopen_path().unlink(missing_ok=True)


def remembered_table(server: str, name: str) -> str | None:
    """The code (``ID`` or ``ID-CODE``) of the table to reopen for this server and
    account, or ``None`` (none kept, another account's, or a damaged file: then
    it is dropped)."""
    import tomllib

    from blockyard.online import parse_table_code

    try:
        data = tomllib.loads(_reopen_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        forget_table()
        return None
    code = data.get("table")
    if data.get("server") != server or data.get("name") != name or not isinstance(code, str):
        return None
    try:
        parse_table_code(code)
    except ValueError:
        forget_table()
        return None
    return code


__all__ = ["LiveDuelView", "LiveFallingView", "LiveTableScreen", "ServerJudgedInput",
           "TableSession", "WaitingView", "connection_banner", "draw_small_board",
           "forget_table", "live_view", "open_table", "remember_table", "remembered_table"]
