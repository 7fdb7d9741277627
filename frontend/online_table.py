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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard.errors import IllegalMove
from blockyard.online import LiveTable

from . import theme
from .i18n import _, format_number
from .layout import Rect
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

    def __init__(self, live: LiveTable, name: str, code: str = "") -> None:
        self.live = live
        self.name = name
        self.code = code  # the table's code as players share it (ID-CODE), if known
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
        self.problem = ""  # why the table cannot be shown here (its rules), or ""
        self.my_move: Callable[[list[Any]], None] | None = None  # the duel screen's

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
        elif kind == "result":
            self.result = message
            self.status = "finished"
        elif kind == "connection":
            state = str(message.get("state"))
            self.connection = "open" if state == "back" else state
            if state == "closed":
                self.closed_reason = str(message.get("reason", ""))

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
    """The banner's text while the connection is not open ("" when it is)."""
    if session.connection == "lost":
        return _("Connection lost: connecting again…")
    if session.connection == "closed":
        reason = session.closed_reason
        return _("Disconnected: {reason}").format(reason=reason) if reason \
            else _("Disconnected.")
    return ""


def draw_banner(text: Text, width: float, height: float) -> None:
    """A banner across the top of the window with ``text`` (nothing when empty)."""
    if not text.text:
        return
    band = text.content_height + 16
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
        self.session.live.leave()
        self.session.close()
        self.back()

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = max(0.7, min(1.3, min(width, height) / 720))
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
        self.banner.text = connection_banner(s)
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def on_update(self, delta_time: float) -> None:
        if self.session.update():
            if self.session.status == "playing" and self.session.games \
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


class LiveDuelView(TrayGameView):
    """Your board at a live table (a tray game), the opponents' boards smaller
    in a band below it with their names and scores, a banner while the
    connection is away, the result at the end."""

    def __init__(self, session: Session, table: TableSession,
                 leave: Callable[[], None]) -> None:
        self.table = table
        me = table.me
        watching = me is None
        game = table.games[me if me is not None else 0]
        if not isinstance(game, blockyard.TrayGame):
            raise ValueError(_("Only tray games are played at live tables in the window."))
        self.leave_table = leave
        self.band_texts: list[Text] = []
        super().__init__(session, game, spectator=watching,
                         reserve_bottom=band_height(arcade.get_window().height))
        self.input = ServerJudgedInput(self, game, self, self.layout, can_hint=False)
        table.my_move = self.input.accept
        self.banner = Text("", 0, 0, theme.TEXT, 14, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center", multiline=True, width=400, align="center")
        self.result_title = Text("", 0, 0, theme.TEXT, 24, font_name=theme.FONT, bold=True,
                                 anchor_x="center", anchor_y="center")
        self.result_lines = Text("", 0, 0, theme.TEXT, 16, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="top", multiline=True, width=400,
                                 align="center")
        self.rematch_button = Button(_("Rematch"), self.rematch, font_size=16, color="GO")
        self.leave_button = Button(_("Leave table"), self.leave, font_size=16)
        self.place_sections(self.window.width, self.window.height)
        self._sync_table()

    # -- talking to the table --------------------------------------------------------------

    def send(self, action: list[Any]) -> None:
        """Send an action; nothing changes until the server accepts it."""
        if self.table.me is None:
            return
        if not self.table.live.act(action):
            self.say(_("Not connected: the move was not sent."))

    def rematch(self) -> None:
        """Ask for a new round (once the round is over)."""
        self.table.live.rematch()

    def leave(self) -> None:
        """Leave the table (a game still running ends) and go back."""
        self.table.live.leave()
        self.table.close()
        self.leave_table()

    def restart(self) -> None:
        self.say(_("A live game cannot be restarted."))

    def to_launcher(self) -> None:
        self.leave()

    def saved(self) -> None:
        self.dialog.sync()  # never the player's saves: a local game stays as it is

    def show_summary(self) -> None:
        self.recorded = True  # the result comes from the server, for every seat

    # -- layout and drawing ----------------------------------------------------------------

    def place_sections(self, width: int, height: int) -> None:
        self.reserve_bottom = band_height(height)
        super().place_sections(width, height)
        if not hasattr(self, "banner"):
            return
        scale = self.scale
        self.banner.width = int(width - 16)
        wide = min(width * 0.9, 480 * scale)
        self.result_panel = Rect(width / 2 - wide / 2, height * 0.2, wide, height * 0.6)
        p = self.result_panel
        self.result_title.position = (p.center_x, p.top - 34 * scale)
        self.result_title.font_size = 24 * scale
        self.result_lines.width = int(wide - 20)
        self.result_lines.position = (p.center_x, p.top - 70 * scale)
        self.result_lines.font_size = 16 * scale
        bw, bh = (wide - 30 * scale) / 2, 46 * scale
        self.rematch_button.place(Rect(p.left + 10 * scale, p.bottom + 12 * scale, bw, bh),
                                  16 * scale)
        self.leave_button.place(Rect(p.right - 10 * scale - bw, p.bottom + 12 * scale, bw, bh),
                                16 * scale)
        self._place_band(width)

    def opponents(self) -> list[int]:
        """The seats shown in the band: every seat but the player's."""
        me = self.table.me
        return [i for i in range(len(self.table.games)) if i != (me if me is not None else 0)]

    def _place_band(self, width: int) -> None:
        seats = self.opponents()
        band = self.reserve_bottom
        self.band_rects: list[Rect] = []
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

    def _sync_table(self) -> None:
        self._band_labels()
        self.banner.text = connection_banner(self.table)
        if self.table.refusal:
            self.say(_("Refused: {reason}").format(reason=self.table.refusal))
            self.table.refusal = ""
        result = self.table.result
        if result is not None:
            scores = result.get("scores") or []
            winner = result.get("winner")
            self.result_title.text = _("Draw") if winner is None else \
                _("{name} wins").format(name=self._name(winner))
            self.result_lines.text = "\n".join(
                _("{name}: {points}").format(name=self._name(i), points=format_number(int(s)))
                for i, s in enumerate(scores) if isinstance(s, int))
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def _name(self, seat: Any) -> str:
        seats = self.table.seats
        return str(seats[seat]) if isinstance(seat, int) and 0 <= seat < len(seats) \
            and seats[seat] else _("free")

    def on_update(self, delta_time: float) -> None:
        if self.table.update():
            if self.table.games and not any(g is self.game for g in self.table.games):
                # a rematch dealt a new round: a fresh duel screen on its deal
                self.window.show_view(LiveDuelView(self.session, self.table, self.leave_table))
                return
            self._sync_table()
            self.refresh()
        super().on_update(delta_time)

    def on_draw(self) -> None:
        super().on_draw()
        for rect, seat in zip(self.band_rects, self.opponents(), strict=False):
            draw_small_board(self.table.games[seat], rect)
        for label in self.band_texts:
            label.draw()
        if self.table.result is not None:
            p = self.result_panel
            arcade.draw_lrbt_rectangle_filled(p.left, p.right, p.bottom, p.top, theme.PANEL)
            self.result_title.draw()
            self.result_lines.draw()
            self.rematch_button.draw()
            self.leave_button.draw()
        draw_banner(self.banner, self.window.width, self.window.height)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if self.table.result is not None:
            if symbol == arcade.key.R and self.table.me is not None:
                self.rematch()
            elif symbol in (arcade.key.ESCAPE, arcade.key.L):
                self.leave()
            return
        super().on_key_press(symbol, modifiers)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if self.table.result is not None:
            hover_buttons([self.rematch_button, self.leave_button], x, y)
            return
        super().on_mouse_motion(x, y, dx, dy)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.table.result is not None:
            if self.table.me is None:
                click_buttons([self.leave_button], x, y)
            else:
                click_buttons([self.rematch_button, self.leave_button], x, y)
            return
        super().on_mouse_press(x, y, button, modifiers)


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
    table = TableSession(client.live(table_id, private_code), account.name, code)
    window = arcade.get_window()

    def leave() -> None:
        back()

    def open_duel() -> None:
        window.show_view(LiveDuelView(session, table, leave))

    window.show_view(WaitingView(table, open_duel, leave))


__all__ = ["LiveDuelView", "ServerJudgedInput", "TableSession", "WaitingView",
           "connection_banner", "draw_small_board", "open_table"]
