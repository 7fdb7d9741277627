"""The lobby (the launcher's "Play online", shown when a server is set): the
players online, the invitations that came (Accept, Decline), the public tables
with their seats, New table, Join by code; and the New table form, which
invites players by name or picked from the players online.

Every call to the server runs in the background and the screen polls it each
frame. Choosing a table takes a free seat (or the player's own seat again) and
opens it; a full table is watched; accepting an invitation takes its seat and
opens the table. The invitations and the players online are the ones the
player's own live connection (:class:`~blockyard.online.PlayerFeed`) holds: the
server pushes them as they change, the screen compares one number a frame.

Friends: the line under the players online names the followed players online
(the feed's ``friends``, pushed as they come and go); a table a followed player
opened (the feed's ``opened``) is fetched at once, listed first and marked with
a star, in green; Friends (F) lists the players followed, follows one by
name and unfollows. The launcher's notices open a table through the lobby too
(``accept`` an invitation, ``join`` a followed player's table).

Play now (P) enters the server's pool for the rules its button names (←/→
choose them) and waits there for an opponent of a close rating; the lobby lists
each table as rated or friendly, with each seat's rating.

Keys: ↑/↓ (or Tab) move through the invitations' buttons, the tables and the
buttons, Enter chooses, P play now, ←/→ Play now's rules, N new table, J join by
code (Ctrl+V pastes in the code field), F friends, B leaderboards, R rated
leaderboard, F5 refreshes, Esc back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard.falling import FallingGame
from blockyard.online import (
    TABLE_FULL,
    WRONG_CODE,
    Client,
    Invitation,
    OnlineError,
    PlayerFeed,
    TableInfo,
    parse_table_code,
)

from .. import theme
from ..i18n import _, format_number
from ..layout import Rect
from ..rulewords import ruleset_name
from ..screens import to_screen
from ..text import PIXELS_PER_POINT, Text
from ..widgets import (
    Button,
    elide,
    fit_text,
    focus_buttons,
    hover_buttons,
    is_back_tab,
    pointer_focus,
    screen_scale,
)
from .errors import online_error_text
from .notices import INVITATION, OPENED
from .ratingwords import named_rating, table_kind
from .settings_view import BackgroundScreen

if TYPE_CHECKING:
    from ..session import Host
    from .account import OnlineAccount

MAX_ROWS = 8
ROW_FONT = 9.0
"""The smallest font size (points: 12 pixels) of a table's row in the list."""
REFRESH_SECONDS = 10.0
"""How often the lobby fetches the open tables again on its own (tables open,
fill and finish while the player looks: one small request, then one frame)."""
MAX_INVITATIONS = 3
"""Invitations shown at once (the newest; answering one shows the next)."""
MAX_PICKS = 6
"""Players online offered in the New table form."""
INVITE_ROW = 4
"""The New table form's row of the names to invite (after rules, seats, table, ratings)."""


def table_rulesets() -> list[tuple[str, str]]:
    """The rulesets a table can be opened for in the window (tray games and falling
    games, the kinds the live screens play): (id, name)."""
    out = []
    for info in blockyard.list_rulesets():
        if info.error is not None:
            continue
        try:
            ruleset = blockyard.load_ruleset(info.path)
        except Exception:  # nothing a plugin does may stop the lobby
            continue
        mode = ruleset.mode_record  # the modes a live screen shows (table_view.live_view)
        if mode.has_tray or issubclass(mode.engine, FallingGame):
            out.append((ruleset.id, ruleset_name(ruleset)))
    return out


def others_online(feed: PlayerFeed, me: str) -> list[str]:
    """The players online by ``feed``, without the player ``me``."""
    return [name for name in feed.players or [] if name.lower() != me.lower()]


def ruleset_title(ruleset_id: str) -> str:
    """A ruleset's name in the language, or its id when it is not installed here."""
    try:
        return ruleset_name(blockyard.load_ruleset(ruleset_id))
    except Exception:
        return ruleset_id


class LobbyView(BackgroundScreen):
    """The public tables and the ways to open or join one. ``open_table(table_id,
    code, seat)`` opens a table the player sits at (``seat`` ``None``: watching);
    ``sign_in()`` opens Settings → Online."""

    def __init__(self, account: OnlineAccount, open_table: Callable[[int, str, int | None], None],
                 sign_in: Callable[[], None], back: Callable[[], None], *,
                 leaderboards: Callable[[], None] | None = None,
                 feed: PlayerFeed | None = None,
                 play_now: Callable[[str], None] | None = None,
                 rated_board: Callable[[str], None] | None = None,
                 ruleset_id: str = "",
                 friends: Callable[[], None] | None = None,
                 accept: int | None = None, join: int | None = None,
                 rules: str | None = None,
                 remember_rules: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.play_now_call = play_now
        self.remember_rules = remember_rules
        self.rated_board_call = rated_board
        self.rulesets = table_rulesets() if play_now or rated_board else []
        ids = [rid for rid, _name in self.rulesets]
        self.ruleset = ids.index(ruleset_id) if ruleset_id in ids else \
            ids.index("eu-classic") if "eu-classic" in ids else 0
        """Play now's rules (and the rated leaderboard's), an index of :attr:`rulesets`."""
        self.account = account
        self.open_table = open_table
        self.back = back
        self.feed = feed
        self.feed_version = -1
        self.tables: list[TableInfo] = []
        self.invitations: list[Invitation] = []
        self.players: list[str] = []
        """The other players online (the feed's, without this player)."""
        self.friends: list[str] = []
        """The followed players online (the feed's ``friends``)."""
        self.opened: dict[int, str] = {}
        """The public tables followed players opened: table → the player's name."""
        self.invite_rows: list[tuple[Rect, Text, Button, Button]] = []
        self.selected = 0
        self.play_button = Button("", self.play_now, font_size=16, color="GO")
        self.play_button.visible = play_now is not None and bool(self.rulesets)
        self.new_button = Button(_("New table"), self.new_table, font_size=16)
        self.join_button = Button(_("Join by code"), self.join_by_code, font_size=16)
        self.refresh_button = Button(_("Refresh"), self.load, font_size=16)
        self.sign_in_button = Button(_("Sign in…"), sign_in, font_size=16)
        self.boards_button = Button(_("Leaderboards"), leaderboards or (lambda: None),
                                    font_size=16)
        self.boards_button.visible = leaderboards is not None
        self.rated_button = Button(_("Rated leaderboard"), self.rated_board, font_size=16)
        self.rated_button.visible = rated_board is not None and bool(self.rulesets)
        self.friends_call = friends
        self.friends_button = Button(_("Friends"), self.show_friends, font_size=16)
        self.friends_button.visible = friends is not None
        self.back_button = Button(_("Back"), back, font_size=16)
        self.buttons = [self.play_button, self.new_button, self.join_button,
                        self.friends_button, self.refresh_button, self.boards_button,
                        self.rated_button, self.sign_in_button, self.back_button]
        self.title = Text(_("Play online"), 0, 0, theme.TEXT, 28, font_name=theme.FONT,
                          bold=True, anchor_x="center", anchor_y="center")
        self.status = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center")
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center", multiline=True,
                                 width=400, align="center")
        self.hint = Text(
            _("↑↓ choose  Enter open  P play now  ←→ its rules  N new  J join  F friends  "
              "B leaderboards  R rated  F5 refresh  Esc back"),
            0, 0, theme.MUTED, 12, font_name=theme.FONT, anchor_x="center",
                         anchor_y="bottom", multiline=True, width=400, align="center")
        self.online_text = Text("", 0, 0, theme.MUTED, 13, font_name=theme.FONT,
                                anchor_x="center", anchor_y="center")
        self.friends_text = Text("", 0, 0, theme.MUTED, 13, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center")
        self.rows: list[tuple[Rect, list[Text]]] = []
        self.since_load = 0.0  # seconds since the tables were last fetched
        self.fetch_opened = False  # a followed player's table came: the tables again
        self._take_feed()
        self._layout()
        if accept is not None and self.account.signed_in:  # a launcher's notice
            self.accept_table(accept, rules)
        elif join is not None and self.account.signed_in:
            self.join_table(join, rules)
        else:
            self.load()

    def _take_feed(self) -> bool:
        """Take the feed's invitations, players online, friends online and the
        tables followed players opened; whether they changed."""
        feed = self.feed
        if feed is None or feed.version == self.feed_version:
            return False
        self.feed_version = feed.version
        self.invitations = list(feed.invitations or [])
        self.players = others_online(feed, self.account.name)
        self.friends = list(getattr(feed, "friends", None) or [])
        opened = {o.table: o.name for o in getattr(feed, "opened", None) or []}
        if set(opened) - set(self.opened) - {t.id for t in self.tables}:
            self.fetch_opened = True
        self.opened = opened
        self._order_tables()
        return True

    def _order_tables(self) -> None:
        """The tables followed players opened first, the others as the server
        listed them."""
        self.tables.sort(key=lambda t: t.id not in self.opened)

    def on_update(self, delta_time: float) -> None:
        super().on_update(delta_time)
        if self._take_feed():  # something was pushed: shown at once
            self._layout()
        self.since_load += delta_time
        if self.pending is None and (self.since_load >= REFRESH_SECONDS or self.fetch_opened):
            self.load(quiet=True)

    def show_friends(self) -> None:
        """The players followed (Friends, F)."""
        if self.friends_call is not None and not self._need_account():
            self.friends_call()

    def join_table(self, table_id: int, rules: str | None = None) -> None:
        """Take a free seat at ``table_id`` and open it (a followed player's table,
        from the launcher's notice); a table full by now is watched."""
        client = self.client

        def failed(exc: OnlineError) -> bool:
            if exc.kind != TABLE_FULL:
                return False
            self.open_table(table_id, "", None)
            return True

        self.start(lambda: client.join(table_id, ruleset_id=rules),
                   lambda seat: self.open_table(table_id, "", int(seat)), failed)

    @property
    def invite_buttons(self) -> list[Button]:
        """The Accept and Decline buttons of the invitations shown, in focus order."""
        return [button for _rect, _text, accept, decline in self.invite_rows
                for button in (accept, decline)]

    def accept(self, invitation: Invitation) -> None:
        """Accept ``invitation``: a seat at its table, which opens."""
        if self.pending is not None:
            return
        client = self.client
        self.start(lambda: client.accept_invitation(invitation.table, invitation.ruleset_id),
                   lambda seat: self.open_table(invitation.table, "", int(seat)))

    def accept_table(self, table_id: int, rules: str | None = None) -> None:
        """Accept the invitation to ``table_id`` (of ``rules``; ``None``: asked of
        the server) from the launcher's notice: its seat, and the table opens."""
        client = self.client
        self.start(lambda: client.accept_invitation(table_id, rules),
                   lambda seat: self.open_table(table_id, "", int(seat)))

    def decline(self, invitation: Invitation) -> None:
        """Decline ``invitation`` (it leaves the list)."""
        if self.pending is not None:
            return
        client = self.client

        def done(_result: Any) -> None:
            self.invitations = [i for i in self.invitations if i.table != invitation.table]
            self._layout()

        self.start(lambda: client.decline_invitation(invitation.table), done)

    @property
    def client(self) -> Client:
        return Client(self.account.server, self.account.token or None, timeout=10)

    def load(self, quiet: bool = False) -> None:
        """Fetch the public tables (in the background; ``quiet``: the lobby's own
        refresh every :data:`REFRESH_SECONDS`, which says nothing and keeps the
        list when it fails)."""
        if self.pending is not None:
            return
        self.since_load = 0.0
        self.fetch_opened = False

        def done(tables: list[TableInfo]) -> None:
            # the tables followed players opened are listed first: never cut off
            self.tables = sorted(tables, key=lambda t: t.id not in self.opened)[:MAX_ROWS]
            self.selected = min(self.selected, max(0, self.focus_count - 1))
            if not tables and not quiet:
                self.say(_("No open tables: start one with New table."))
            self._layout()

        self.start(self.client.tables, done, (lambda _error: True) if quiet else None,
                   quiet=quiet)

    @property
    def focus_count(self) -> int:
        return len(self.invite_buttons) + len(self.tables) + len(self.buttons)

    def _need_account(self) -> bool:
        if not self.account.signed_in:
            self.say(_("Sign in first (Settings → Online)."), bad=True)
            return True
        return False

    def choose_table(self, table: TableInfo) -> None:
        """Sit at ``table`` (or again at one's own seat); watch it when it is full."""
        name = self.account.name
        if name in table.seats:
            self.open_table(table.id, "", table.seats.index(name))
            return
        if table.free_seats == 0 or not self.account.signed_in:
            self.open_table(table.id, "", None)
            return
        client = self.client
        self.start(lambda: client.join(table.id, ruleset_id=table.ruleset_id),
                   lambda seat: self.open_table(table.id, "", int(seat)))

    @property
    def play_ruleset(self) -> tuple[str, str]:
        """Play now's rules: (id, name)."""
        return self.rulesets[self.ruleset] if self.rulesets else ("", "—")

    def play_now(self) -> None:
        """Enter the pool of Play now for :attr:`play_ruleset` (its waiting screen)."""
        if self.play_now_call is None or not self.rulesets or self._need_account():
            return
        self.play_now_call(self.play_ruleset[0])

    def rated_board(self) -> None:
        """The rated leaderboard of :attr:`play_ruleset`."""
        if self.rated_board_call is not None and self.rulesets:
            self.rated_board_call(self.play_ruleset[0])

    def step_ruleset(self, step: int) -> None:
        """Choose Play now's rules (←/→), remembered for the next lobby."""
        if self.rulesets:
            self.ruleset = (self.ruleset + step) % len(self.rulesets)
            if self.remember_rules is not None:
                self.remember_rules(self.rulesets[self.ruleset][0])
            self._layout()

    def new_table(self) -> None:
        if self._need_account():
            return
        self.window.show_view(NewTableView(self.account, self.open_table,
                                           lambda: self.window.show_view(self),
                                           players=self.players, feed=self.feed))

    def join_by_code(self, typed: str = "", error: str = "") -> None:
        """The code field (``typed``: a code to correct, with ``error`` said under
        it); Enter joins the table. A code no table has brings the field back
        with the code typed, to be corrected."""
        if self._need_account():
            return
        from ..menus import PromptView

        def done(values: list[str]) -> str | None:
            try:
                table_id, code = parse_table_code(values[0])
            except ValueError:
                return _("Not a table code: a number, then '-' and the code (12-ab3d).")
            self.window.show_view(self)
            client = self.client

            def failed(exc: OnlineError) -> bool:
                if exc.kind != WRONG_CODE:
                    return False
                self.say("")
                self.join_by_code(values[0], online_error_text(exc))
                return True

            self.start(lambda: client.join(table_id, code),
                       lambda seat: self.open_table(table_id, values[0].strip(), int(seat)),
                       failed)
            return None

        prompt = PromptView(_("Join a table"), [(_("Table code"), typed)], done,
                            lambda: self.window.show_view(self))
        if typed:  # to be corrected: kept as typed, not a suggestion to type over
            prompt.fresh[0] = False
            prompt.error = error
            prompt.ready = True
            prompt._refresh()
        self.window.show_view(prompt)

    # -- layout and drawing ------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.92, 600 * scale)
        left = width / 2 - wide / 2
        self.title.position = (width / 2, height - 40 * scale)
        fit_text(self.title, wide, 44 * scale, 28 * scale)
        self.status.text = _("Signed in as {name} on {server}.").format(
            name=self.account.name, server=self.account.server) if self.account.signed_in \
            else _("Server {server}: not signed in.").format(server=self.account.server)
        self.status.position = (width / 2, height - 80 * scale)
        fit_text(self.status, wide, 24 * scale, 14 * scale, smallest=8.0)
        self.online_text.position = (width / 2, height - 104 * scale)
        self._online_words(wide, 13 * scale)
        self.friends_text.position = (width / 2, height - 124 * scale)
        self._friends_words(wide, 13 * scale)
        self.hint.width = int(width - 16)
        self.hint.font_size = max(9.0, 12 * scale)
        self.hint.position = (width / 2, 4 * scale)
        self.sign_in_button.visible = not self.account.signed_in
        self.play_button.label = "◀ " + _("Play now: {rules}").format(
            rules=self.play_ruleset[1]) + " ▶"
        shown = [b for b in self.buttons if b.visible and b is not self.play_button]
        bh = 44 * scale
        cols = 2
        lines = (len(shown) + cols - 1) // cols + (1 if self.play_button.visible else 0)
        half = (wide - 10 * scale) / 2
        y = 4 * scale + self.hint.content_height + 8 * scale + lines * (bh + 8 * scale)
        first = 0
        if self.play_button.visible:  # the whole width: its rules' name has room
            self.play_button.place(Rect(left, y - bh - 8 * scale, wide, bh), 16 * scale)
            first = 1
        for i, button in enumerate(shown):
            row, col = divmod(i, cols)
            button.place(Rect(left + col * (half + 10 * scale),
                              y - (first + row + 1) * (bh + 8 * scale), half, bh), 16 * scale)
        self.message_text.width = int(wide)
        self.message_text.font_size = 14 * scale
        self.message_text.position = (width / 2, y + 20 * scale)
        self.message_box = (wide, 40 * scale, 14 * scale)
        self.fit_message(self.message_text)
        above = 100 + (20 if self.online_text.text else 0) + (20 if self.friends_text.text else 0)
        top, bottom = height - above * scale, y + 44 * scale
        rh = max(30 * scale, min(56 * scale, (top - bottom) / max(1, MAX_ROWS)))
        top = self._layout_invitations(left, top, wide, rh, scale)
        self.rows = []
        for i, table in enumerate(self.tables):
            rect = Rect(left, top - (i + 1) * rh, wide, rh - 4 * scale)
            if rect.bottom < bottom:
                break
            texts = self._table_texts(table, rect, scale)
            for text in texts:  # at whole pixels: at half ones a glyph row is lost
                text.position = (round(text.x), round(text.y))
            self.rows.append((rect, texts))
        self.selected = min(self.selected, max(0, self._count() - 1))
        self.refresh()

    def _table_texts(self, table: TableInfo, rect: Rect, scale: float) -> list[Text]:
        """A table's row: its rules on the left (starred when a followed player
        opened it), its seats and status on the right, never
        below :data:`ROW_FONT` points: the seats over the status when one line is
        too narrow, and what still does not fit shortened with an ellipsis (long
        names of many seats fell to 7 points)."""
        seats = ", ".join(
            named_rating(s, table.ratings[n] if n < len(table.ratings) else None)
            if s else _("free seat") for n, s in enumerate(table.seats))
        words = {"waiting": _("waiting"), "playing": _("playing"),
                 "finished": _("finished")}
        title = ruleset_title(table.ruleset_id)
        friend = self.opened.get(table.id)
        if friend is not None:  # starred (the row's edge green); the friend is in the seats
            title = "★ " + title
        least = max(ROW_FONT, 11 * scale)
        name = Text(title, rect.left + 10 * scale, rect.center_y,
                    theme.TEXT, 15 * scale,
                    font_name=theme.FONT, bold=True, anchor_y="center")
        fit_text(name, rect.width * 0.38, rect.height, 15 * scale, smallest=least)
        elide(name, rect.width * 0.38)
        status = f"{words.get(table.status, table.status)} · {table_kind(table.rated)}"
        room = rect.width * 0.58
        size = 13 * scale
        detail = Text(f"{seats} · {status}", rect.right - 10 * scale, rect.center_y,
                      theme.MUTED, size, font_name=theme.FONT, anchor_x="right",
                      anchor_y="center")
        fit_text(detail, room, rect.height, size, smallest=least)
        if detail.content_width <= room:
            return [name, detail]
        # the seats over the status, each line at a readable size, in the room the
        # rules' name leaves, shortened if need be; a row too low for two lines keeps
        # one, its seats shortened before the status
        room = max(room, rect.width - name.content_width - 30 * scale)
        line = max(least, min(size, rect.height / 2 / PIXELS_PER_POINT / 1.25))
        upper = Text(seats, rect.right - 10 * scale, rect.center_y + 1, theme.MUTED, line,
                     font_name=theme.FONT, anchor_x="right", anchor_y="bottom")
        lower = Text(status, rect.right - 10 * scale, rect.center_y - 1, theme.MUTED, line,
                     font_name=theme.FONT, anchor_x="right", anchor_y="top")
        if upper.content_height + lower.content_height > rect.height + 1:
            detail.font_size = least  # too low for two lines (Devanagari is taller)
            return [name, elide(detail, room, f" · {status}")]
        elide(upper, room)
        elide(lower, room)
        both = Text(f"{upper.text}\n{lower.text}", rect.right - 10 * scale, rect.center_y,
                    theme.MUTED, line, font_name=theme.FONT, anchor_x="right",
                    anchor_y="center", multiline=True, width=int(room) + 2, align="right")
        return [name, both]

    def _friends_words(self, wide: float, size: float) -> None:
        """The line of the followed players online (as many names as fit, then
        how many more)."""
        text = self.friends_text
        if self.feed is None or not self.account.signed_in \
                or getattr(self.feed, "friends", None) is None:
            text.text = ""
            return
        if not self.friends:
            text.text = _("No friends online.")
            fit_text(text, wide, 22 * size, size, smallest=8.0)
            return
        shown = len(self.friends)
        while True:
            names = ", ".join(self.friends[:shown])
            rest = len(self.friends) - shown
            if rest:
                names += " " + _("+{n} more").format(n=format_number(rest))
            text.text = _("Friends online: {names}").format(names=names)
            fit_text(text, wide, 22 * size, size, smallest=max(8.0, size * 0.8))
            if text.content_width <= wide or shown <= 1:
                break
            shown -= 1
        elide(text, wide)

    def _online_words(self, wide: float, size: float) -> None:
        """The line of the players online: as many names as fit, then how many more."""
        text = self.online_text
        if self.feed is None or not self.account.signed_in:
            text.text = ""
            return
        if not self.players:
            text.text = _("No other players online.")
            fit_text(text, wide, 22 * size, size, smallest=8.0)
            return
        shown = len(self.players)
        while True:
            names = ", ".join(self.players[:shown])
            rest = len(self.players) - shown
            if rest:
                names += " " + _("+{n} more").format(n=format_number(rest))
            text.text = _("Online: {names}").format(names=names)
            fit_text(text, wide, 22 * size, size, smallest=max(8.0, size * 0.8))
            if text.content_width <= wide or shown <= 1:
                break
            shown -= 1
        fit_text(text, wide, 22 * size, size, smallest=7.0)

    def _layout_invitations(self, left: float, top: float, wide: float, rh: float,
                            scale: float) -> float:
        """Place the invitations' rows from ``top`` down; the top of what follows."""
        self.invite_rows = []
        height = max(36 * scale, rh)
        for invitation in self.invitations[:MAX_INVITATIONS]:
            rect = Rect(left, top - height, wide, height - 4 * scale)
            bw = min(130 * scale, wide * 0.24)
            accept = Button(_("Accept"), partial(self.accept, invitation),
                            font_size=14 * scale, color="GO")
            decline = Button(_("Decline"), partial(self.decline, invitation),
                             font_size=14 * scale)
            inner = 4 * scale
            decline.place(Rect(rect.right - inner - bw, rect.bottom + inner, bw,
                               rect.height - 2 * inner), 14 * scale)
            accept.place(Rect(rect.right - 2 * inner - 2 * bw, rect.bottom + inner, bw,
                              rect.height - 2 * inner), 14 * scale)
            room = accept.rect.left - rect.left - 16 * scale
            seats = sum(1 for seat in invitation.seats if seat is not None)
            words = _("{name} invites you: {rules} ({taken}/{seats})").format(
                name=invitation.sender, rules=ruleset_title(invitation.ruleset_id),
                taken=format_number(seats), seats=format_number(len(invitation.seats)))
            # on two lines when one is too narrow for it
            text = Text(words, rect.left + 10 * scale, rect.center_y, theme.TEXT, 14 * scale,
                        font_name=theme.FONT, anchor_y="center", multiline=True,
                        width=max(40, int(room)))
            fit_text(text, room, rect.height, 14 * scale, smallest=7.0)
            self.invite_rows.append((rect, text, accept, decline))
            top -= height
        return top - (4 * scale if self.invite_rows else 0)

    def _count(self) -> int:
        return len(self.invite_buttons) + len(self.rows) \
            + len([b for b in self.buttons if b.visible])

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.status.draw()
        if self.online_text.text:
            self.online_text.draw()
        if self.friends_text.text:
            self.friends_text.draw()
        invite_buttons = self.invite_buttons
        for rect, text, _accept, _decline in self.invite_rows:
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                              theme.PANEL)
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.left + 5 * self.scale,
                                              rect.bottom, rect.top, theme.GO)
            text.draw()
        focused = self.focused_item
        focus_buttons([*invite_buttons, *self.buttons], focused)
        for button in invite_buttons:
            button.draw()
        first = len(invite_buttons)
        for i, (rect, texts) in enumerate(self.rows):
            chosen = first + i == self.selected
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                              theme.PANEL_HOVER if chosen else theme.PANEL)
            if chosen or self.tables[i].id in self.opened:  # a followed player's: green
                arcade.draw_lrbt_rectangle_filled(rect.left, rect.left + 5 * self.scale,
                                                  rect.bottom, rect.top,
                                                  theme.ACCENT if chosen else theme.GO)
            for text in texts:
                text.draw()
        self.message_text.draw()
        for button in self.buttons:
            button.draw()
        self.hint.draw()

    @property
    def focus_order(self) -> list[Button | int]:
        """What the focus goes through, in order: the invitations' buttons, the
        tables (by row), the buttons shown."""
        return [*self.invite_buttons, *range(len(self.rows)),
                *[b for b in self.buttons if b.visible]]

    @property
    def focused_item(self) -> Button | None:
        """The button with the keyboard's focus (``None``: a table's row has it)."""
        order = self.focus_order
        item = order[self.selected] if 0 <= self.selected < len(order) else None
        return item if isinstance(item, Button) else None

    def activate(self, index: int) -> None:
        invite_buttons = self.invite_buttons
        if index < len(invite_buttons):
            invite_buttons[index].action()
            return
        index -= len(invite_buttons)
        if index < len(self.rows):
            self.choose_table(self.tables[index])
            return
        shown = [b for b in self.buttons if b.visible]
        shown[index - len(self.rows)].action()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        count = self._count()
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.DOWN, key.TAB) or is_back_tab(symbol, modifiers):
            step = -1 if is_back_tab(symbol, modifiers) else 1
            self.selected = (self.selected + step) % count
            hover_buttons([*self.buttons, *self.invite_buttons], -1, -1)
        elif symbol == key.UP:
            self.selected = (self.selected - 1) % count
            hover_buttons([*self.buttons, *self.invite_buttons], -1, -1)
        elif symbol in (key.ENTER, key.RETURN, key.SPACE):
            if self.pending is None:
                self.activate(self.selected)
        elif symbol == key.N:
            self.new_table()
        elif symbol == key.P:
            self.play_now()
            return
        elif symbol in (key.LEFT, key.RIGHT):
            self.step_ruleset(-1 if symbol == key.LEFT else 1)
        elif symbol == key.R and self.rated_button.visible:
            self.rated_board()
            return
        elif symbol == key.J:
            self.join_by_code()
        elif symbol == key.F and self.friends_button.visible:
            self.show_friends()
            return
        elif symbol == key.B and self.boards_button.visible:
            self.boards_button.action()
            return
        elif symbol == key.F5:
            self.load()
        self.refresh()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        order = self.focus_order
        buttons = [item for item in order if isinstance(item, Button)]
        found = pointer_focus(buttons, x, y)
        if found is not None:  # the pointer moves the focus: one thing looks chosen
            self.selected = order.index(buttons[found])
            self.refresh()
            return
        first = len(self.invite_buttons)
        for i, (rect, _texts) in enumerate(self.rows):
            if rect.contains(x, y):
                self.selected = first + i
                self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.pending is not None:
            return
        invite_buttons = self.invite_buttons
        for i, item in enumerate(invite_buttons):
            if item.hit(x, y):
                self.selected = i
                item.action()
                return
        for i, (rect, _texts) in enumerate(self.rows):
            if rect.contains(x, y):
                self.selected = len(invite_buttons) + i
                self.choose_table(self.tables[i])
                return
        for item in self.buttons:
            if item.hit(x, y) and item.visible:
                if item is self.play_button and x < item.rect.left + item.rect.height:
                    self.step_ruleset(-1)  # its ◀ ▶ ends choose the rules
                elif item is self.play_button and x > item.rect.right - item.rect.height:
                    self.step_ruleset(1)
                else:
                    item.action()
                return


class NewTableView(BackgroundScreen):
    """The New table form: ruleset, seats (2–8), public or private, rated or
    friendly (a friendly table's rounds change nobody's rating), players to
    invite (names separated by commas), and ``players`` online to pick from (each
    a button that adds or removes its name), kept up to date from ``feed`` (the
    player's own live connection) while the form is open. Keys: ↑/↓ rows, ←/→
    change (on the players online: choose one), typing fills the invitations,
    Space (or Enter) on the players online adds or removes the one chosen, Enter
    elsewhere opens the table, Esc back."""

    def __init__(self, account: OnlineAccount,
                 open_table: Callable[[int, str, int | None], None],
                 back: Callable[[], None], *, players: Sequence[str] = (),
                 feed: PlayerFeed | None = None) -> None:
        super().__init__()
        self.account = account
        self.open_table = open_table
        self.back = back
        self.rulesets = table_rulesets()
        self.ruleset = 0
        self.seats = 2
        self.private = False
        self.rated = False
        self.invite = ""
        self.feed = feed
        self.feed_version = feed.version if feed is not None else -1
        self.players: list[str] = []
        self.pick = 0
        self.pick_buttons: list[Button] = []
        self._set_players(players)
        self.pick_label = Text(_("Players online: choose to invite"), 0, 0, theme.MUTED, 13,
                               font_name=theme.FONT, anchor_y="bottom")
        self.selected = 0
        self.ready = False
        self.title = Text(_("New table"), 0, 0, theme.TEXT, 26, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="center")
        self.create_button = Button(_("Open the table"), self.create, font_size=16, color="GO")
        self.cancel_button = Button(_("Cancel"), back, font_size=16)
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center", multiline=True,
                                 width=400, align="center")
        self.hint = Text("", 0, 0, theme.MUTED, 12, font_name=theme.FONT, anchor_x="center",
                         anchor_y="bottom", multiline=True, width=400, align="center")
        self.rows: list[Rect] = []
        self.texts: list[Text] = []
        self._layout()

    def _set_players(self, players: Sequence[str]) -> None:
        """Offer ``players`` (the first :data:`MAX_PICKS`) to pick from; the one
        chosen stays chosen while it is still offered."""
        chosen = self.players[self.pick] if self.pick < len(self.players) else None
        self.players = list(players)[:MAX_PICKS]
        self.pick_buttons = [Button(name, partial(self.toggle, name), font_size=14)
                             for name in self.players]
        self.pick = self.players.index(chosen) if chosen in self.players else 0

    def _take_feed(self) -> bool:
        """Take the players online from the feed; whether they changed."""
        feed = self.feed
        if feed is None or feed.version == self.feed_version:
            return False
        self.feed_version = feed.version
        players = others_online(feed, self.account.name)[:MAX_PICKS]
        if players == self.players:
            return False
        # the row or button with the focus keeps it (the players' row may come or go)
        focused_button = self.focused_button
        on_players = self.selected == len(self.rows) and bool(self.pick_buttons)
        self._set_players(players)
        if focused_button is not None:
            self.selected = self.focus_rows + self.form_buttons.index(focused_button)
        elif on_players and not self.pick_buttons:
            self.selected = self.focus_rows  # the row went: Open the table
        return True

    def row_words(self) -> list[tuple[str, str]]:
        """(label, value) of the form's rows."""
        name = self.rulesets[self.ruleset][1] if self.rulesets else "—"
        return [(_("Rules"), f"◀  {name}  ▶"),
                (_("Seats"), f"◀  {format_number(self.seats)}  ▶"),
                (_("Table"), "◀  " + (_("Private") if self.private else _("Public")) + "  ▶"),
                (_("Ratings"), "◀  " + (_("Rated") if self.rated else _("Friendly")) + "  ▶"),
                (_("Invite (names, commas between)"), self.invite + ("|" if self.selected
                                                                    == INVITE_ROW else ""))]

    def change(self, row: int, step: int) -> None:
        if row == 0 and self.rulesets:
            self.ruleset = (self.ruleset + step) % len(self.rulesets)
        elif row == 1:
            self.seats = (self.seats - 2 + step) % 7 + 2
        elif row == 2:
            self.private = not self.private
        elif row == 3:
            self.rated = not self.rated
        self._layout()

    def invited(self) -> list[str]:
        return [name.strip() for name in self.invite.split(",") if name.strip()]

    @property
    def focus_rows(self) -> int:
        """The rows ↑/↓ go through: the form's, and the players online when any."""
        return len(self.rows) + (1 if self.pick_buttons else 0)

    @property
    def form_buttons(self) -> list[Button]:
        """Open the table and Cancel: the focus's last stops, after the rows."""
        return [self.create_button, self.cancel_button]

    @property
    def focus_count(self) -> int:
        return self.focus_rows + len(self.form_buttons)

    @property
    def focused_button(self) -> Button | None:
        """The form's button with the keyboard's focus (``None``: a row has it)."""
        index = self.selected - self.focus_rows
        return self.form_buttons[index] if 0 <= index < len(self.form_buttons) else None

    def toggle(self, name: str) -> None:
        """Add ``name`` to the players invited, or take it out when it is there."""
        names = self.invited()
        kept = [n for n in names if n.lower() != name.lower()]
        self.invite = ", ".join(kept if len(kept) < len(names) else [*names, name])[:200]
        if name in self.players:
            self.pick = self.players.index(name)
        self._layout()

    def create(self) -> None:
        """Open the table on the server, then sit at it (seat 0)."""
        if self.pending is not None or not self.rulesets:
            return
        client = Client(self.account.server, self.account.token or None, timeout=10)
        ruleset_id = self.rulesets[self.ruleset][0]
        seats, private, invite, rated = self.seats, self.private, self.invited(), self.rated

        def done(table: Any) -> None:
            self.open_table(table.id, f"{table.id}-{table.code}", 0)

        self.start(lambda: client.create_table(ruleset_id, seats, private, invite, rated), done)

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.92, 560 * scale)
        left = width / 2 - wide / 2
        self.title.position = (width / 2, height - 50 * scale)
        fit_text(self.title, wide, 44 * scale, 26 * scale)
        self.hint.text = _("↑↓ choose  ←→ change  type names to invite  Space add a player "
                           "online  Enter open  Esc back") if self.players else \
            _("↑↓ choose  ←→ change  type names to invite  Enter open  Esc back")
        self.hint.width = int(width - 16)
        self.hint.font_size = max(9.0, 12 * scale)
        self.hint.position = (width / 2, 4 * scale)
        rh = min(60 * scale, (height - 200 * scale) / 7)
        top = height - 90 * scale
        self.rows, self.texts = [], []
        for i, (label, value) in enumerate(self.row_words()):
            rect = Rect(left, top - (i + 1) * rh, wide, rh - 6 * scale)
            self.rows.append(rect)
            label_text = Text(label, rect.left + 10 * scale, rect.center_y, theme.TEXT,
                              15 * scale, font_name=theme.FONT, anchor_y="center")
            fit_text(label_text, rect.width * 0.42, rect.height, 15 * scale, smallest=8.0)
            value_text = Text(value, rect.right - 10 * scale, rect.center_y, theme.ACCENT,
                              15 * scale, font_name=theme.FONT, bold=True, anchor_x="right",
                              anchor_y="center")
            fit_text(value_text, rect.width * 0.54, rect.height, 15 * scale, smallest=8.0)
            self.texts += [label_text, value_text]
        y = top - len(self.rows) * rh - 10 * scale
        if self.pick_buttons:
            invited = {n.lower() for n in self.invited()}
            self.pick_label.position = (left, y - 22 * scale)
            fit_text(self.pick_label, wide, 20 * scale, 13 * scale, smallest=8.0)
            cols, ph, gap = 3, min(38 * scale, rh * 0.75), 6 * scale
            pw = (wide - (cols - 1) * gap) / cols
            y -= 26 * scale
            for i, (name, button) in enumerate(zip(self.players, self.pick_buttons,
                                                   strict=True)):
                row, col = divmod(i, cols)
                button.label = ("✓ " + name) if name.lower() in invited else name
                button.color = "GO" if name.lower() in invited else None
                button.place(Rect(left + col * (pw + gap), y - (row + 1) * (ph + gap), pw, ph),
                             14 * scale)
            y -= ((len(self.pick_buttons) + cols - 1) // cols) * (ph + gap)
        self.message_text.width = int(wide)
        self.message_text.position = (width / 2, y - 20 * scale)
        self.message_box = (wide, 36 * scale, 14 * scale)
        self.fit_message(self.message_text)
        bw, bh = (wide - 10 * scale) / 2, 46 * scale
        self.create_button.place(Rect(left, y - 50 * scale - bh, bw, bh), 16 * scale)
        self.cancel_button.place(Rect(left + bw + 10 * scale, y - 50 * scale - bh, bw, bh),
                                 16 * scale)
        self.refresh()

    def on_update(self, delta_time: float) -> None:
        self.ready = True
        super().on_update(delta_time)
        if self._take_feed():  # a player came online or left: the picks follow at once
            self._layout()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        for i, rect in enumerate(self.rows):
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                              theme.PANEL_HOVER if i == self.selected
                                              else theme.PANEL)
        for text in self.texts:
            text.draw()
        if self.pick_buttons:
            self.pick_label.draw()
            focus_buttons(self.pick_buttons, self.pick_buttons[self.pick]
                          if self.selected == len(self.rows) else None)
            for button in self.pick_buttons:
                button.draw()
        self.message_text.draw()
        focus_buttons(self.form_buttons, self.focused_button)
        self.create_button.draw()
        self.cancel_button.draw()
        self.hint.draw()

    def on_text(self, text: str) -> None:
        if not self.ready or self.selected != INVITE_ROW:
            return
        printable = "".join(ch for ch in text if ch.isprintable())
        if printable:
            self.invite = (self.invite + printable)[:200]
            self._layout()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.DOWN, key.TAB, key.UP) or is_back_tab(symbol, modifiers):
            step = -1 if symbol == key.UP or is_back_tab(symbol, modifiers) else 1
            self.selected = (self.selected + step) % self.focus_count
            hover_buttons([*self.form_buttons, *self.pick_buttons], -1, -1)
        elif self.focused_button is not None and symbol in (key.SPACE, key.ENTER,
                                                             key.RETURN, key.NUM_ENTER):
            self.focused_button.action()
            return
        elif self.selected == len(self.rows) and self.pick_buttons:
            if symbol in (key.LEFT, key.RIGHT):
                step = -1 if symbol == key.LEFT else 1
                self.pick = (self.pick + step) % len(self.pick_buttons)
            elif symbol in (key.SPACE, key.ENTER, key.RETURN):
                self.toggle(self.players[self.pick])
                return
        elif symbol in (key.LEFT, key.RIGHT) and self.selected < INVITE_ROW:
            self.change(self.selected, -1 if symbol == key.LEFT else 1)
        elif symbol == key.BACKSPACE and self.selected == INVITE_ROW:
            self.invite = self.invite[:-1]
        elif symbol == key.V and modifiers & (key.MOD_CTRL | key.MOD_COMMAND) \
                and self.selected == INVITE_ROW:
            self.on_text(self.window.get_clipboard_text())
        elif symbol in (key.ENTER, key.RETURN):
            self.create()
            return
        self._layout()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        buttons = [*self.form_buttons, *self.pick_buttons]
        if self.selected == INVITE_ROW:  # typing the names: the pointer does not take the focus
            hover_buttons(buttons, x, y)
            return
        found = pointer_focus(buttons, x, y)
        if found is None:
            return
        if found < len(self.form_buttons):
            self.selected = self.focus_rows + found
        else:
            self.selected, self.pick = len(self.rows), found - len(self.form_buttons)
        self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        for i, rect in enumerate(self.rows):
            if rect.contains(x, y):
                self.selected = i
                if i < INVITE_ROW:
                    self.change(i, -1 if x < rect.center_x else 1)
                else:
                    self._layout()
                return
        for i, item in enumerate(self.pick_buttons):
            if item.hit(x, y):
                self.selected, self.pick = len(self.rows), i
                item.action()
                return
        for item in (self.create_button, self.cancel_button):
            if item.hit(x, y):
                item.action()
                return


def open_lobby(host: Host, accept: int | None = None, join: int | None = None,
               accept_rules: str | None = None) -> LobbyView:
    """The lobby of the server set in Settings → Online (the launcher's entry): a
    table chosen opens as ``"table"``, Sign in as ``"online-settings"`` (and back
    here), Leaderboards as ``"leaderboard"`` of the ruleset last played, Friends
    as ``"friends"``. Play now's rules are the ones last chosen here (kept in the
    settings between rounds and runs; Block Puzzle — Classic at first), never
    the launcher's last row. From a launcher's notice: ``accept`` the invitation
    to that table, or ``join`` a followed player's table (``accept_rules``: its
    ruleset), which then opens."""
    def open_table(table_id: int, code: str, _seat: int | None) -> None:
        # a table the player goes to is no longer news in the launcher
        host.feeds.dismissed.update({(INVITATION, table_id), (OPENED, table_id)})
        host.show("table", table_id=table_id, code=code)  # the table says the seat

    def play_now(ruleset_id: str) -> None:
        host.show("play-now", ruleset_id=ruleset_id, back=lobby)

    def rated_board(ruleset_id: str) -> None:
        host.show("rated-leaderboard", ruleset_id=ruleset_id, back=lobby)

    def remember_rules(ruleset_id: str) -> None:
        host.settings.play_ruleset = ruleset_id
        with contextlib.suppress(OSError):  # kept for this run all the same
            host.settings.save()

    lobby = to_screen(host, "lobby")
    return LobbyView(host.online, open_table,
                     to_screen(host, "online-settings", back=lobby), host.show_launcher,
                     leaderboards=to_screen(host, "leaderboard",
                                            ruleset_id=host.settings.last_ruleset or "",
                                            back=lobby),
                     feed=host.player_feed(), play_now=play_now, rated_board=rated_board,
                     ruleset_id=host.settings.play_ruleset,
                     friends=to_screen(host, "friends", back=lobby), accept=accept, join=join,
                     rules=accept_rules, remember_rules=remember_rules)


__all__ = ["LobbyView", "NewTableView", "open_lobby", "table_rulesets"]
