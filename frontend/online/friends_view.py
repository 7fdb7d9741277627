"""Friends (the lobby's F): the players the signed-in player follows
(``GET /api/me/follows``), each said online or offline — live from the player's
own connection (its ``friends``, pushed as followed players come and go) — with
an Unfollow button, a field to follow a player by name
(``PUT /api/me/follows/{name}``) and, under it, the players online not followed
yet (the feed's, the first three), each a button that follows them. A followed
player is told about on the player's own connection: when they are online (the
lobby's line of friends) and when they open a public table (the lobby lists it
first, the launcher shows a notice).

**Challenge** beside a friend opens a private friendly table of two for the
rules on the "Challenge in" line (◀ ▶, or ←/→ with a Challenge chosen) with
that friend invited (``POST /api/tables`` with ``invite``), and sits the
player at it: one step from the list to the table, where the friend's
invitation waits for them.

Keys: type a name in the field, Enter follows; ↑/↓ (or Tab) move through the
field, Follow, the players online offered, each Unfollow and Back; Enter or
Space presses the one chosen; Ctrl+V pastes a name; F5 fetches the list again;
Esc back.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import arcade

from blockyard.online import Client, Friend, OnlineError, PlayerFeed

from .. import theme
from ..i18n import _, format_number
from ..layout import Rect
from ..text import Text
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
from .lobby_view import table_rulesets
from .settings_view import BackgroundScreen

if TYPE_CHECKING:
    from ..session import Host
    from .account import OnlineAccount

MAX_OFFERED = 3
"""The players online offered to follow at once (one line of buttons)."""
LONGEST_NAME = 40
"""The most characters typed in the name field (account names are shorter)."""


def follow_error_text(error: OnlineError, name: str, me: str) -> str:
    """What a refused follow says: the server's status read as the contract
    words it (404 no such account, 409 the most followed already, 422 oneself
    or not a name); anything else as every online error is said."""
    if error.status == 404:
        return _("No player is named {name}.").format(name=name)
    if error.status == 409:
        return _("You follow as many players as the server allows already.")
    if error.status == 422:
        return _("You cannot follow yourself.") if name.lower() == me.lower() \
            else _("Not an account name: {name}.").format(name=name)
    return online_error_text(error)


class FriendsView(BackgroundScreen):
    """The players followed, following by name and unfollowing. ``feed`` (the
    player's own live connection) says who of them is online."""

    def __init__(self, account: OnlineAccount, back: Callable[[], None], *,
                 feed: PlayerFeed | None = None,
                 open_table: Callable[[int, str], None] | None = None,
                 ruleset_id: str = "") -> None:
        super().__init__()
        self.account = account
        self.back = back
        self.open_table = open_table
        self.rulesets = table_rulesets() if open_table is not None else []
        """The rules a friend can be challenged in (id, name); the chosen one's index:"""
        ids = [rid for rid, _name in self.rulesets]
        self.ruleset = ids.index(ruleset_id) if ruleset_id in ids else 0
        self.feed = feed
        self.feed_version = -1
        self.players: list[str] = []
        """The players online (the feed's)."""
        self.online_now: set[str] | None = None
        """The followed players online by the feed (``None``: the feed said none yet)."""
        self.follows: list[Friend] = []
        self.loaded = False
        self.typed = ""
        self.selected = 0
        """The focus: 0 the name field, 1 Follow, then each Unfollow, then Back."""
        self.ready = False  # the key that opened the screen is not typed
        self.title = Text(_("Friends"), 0, 0, theme.TEXT, 26, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="center")
        self.field_label = Text(_("Follow a player (their name)"), 0, 0, theme.MUTED, 13,
                                font_name=theme.FONT, anchor_y="bottom")
        self.field_text = Text("", 0, 0, theme.TEXT, 16, font_name=theme.FONT,
                               anchor_y="center")
        self.field = Rect(0, 0, 0, 0)
        self.follow_button = Button(_("Follow"), self.follow, font_size=16, color="GO")
        self.back_button = Button(_("Back"), back, font_size=16)
        self.unfollow_buttons: list[Button] = []
        self.challenge_buttons: list[Button] = []
        self.rules_rect = Rect(0, 0, 0, 0)
        self.rules_text = Text("", 0, 0, theme.ACCENT, 14, font_name=theme.FONT, bold=True,
                               anchor_x="center", anchor_y="center")
        self.offer_buttons: list[Button] = []
        self.offer_label = Text(_("Players online: choose to follow"), 0, 0, theme.MUTED, 13,
                                font_name=theme.FONT, anchor_y="bottom")
        self.rows: list[tuple[Rect, list[Text]]] = []
        self.rows_online: list[bool] = []
        self.more_text = Text("", 0, 0, theme.MUTED, 12, font_name=theme.FONT,
                              anchor_x="center", anchor_y="center")
        self.message_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                                 anchor_x="center", anchor_y="center", multiline=True,
                                 width=400, align="center")
        self.hint = Text(_("Type a name, Enter follow  ↑↓ choose  Enter press  F5 refresh  "
                           "Esc back"), 0, 0, theme.MUTED, 12, font_name=theme.FONT,
                         anchor_x="center", anchor_y="bottom", multiline=True, width=400,
                         align="center")
        self._take_feed()
        self._layout()
        self.load()

    @property
    def client(self) -> Client:
        return Client(self.account.server, self.account.token or None, timeout=10)

    def _take_feed(self) -> bool:
        """Take the followed players online from the feed; whether it changed."""
        feed = self.feed
        if feed is None or feed.version == self.feed_version:
            return False
        self.feed_version = feed.version
        online = None if feed.friends is None else {n.lower() for n in feed.friends}
        players = list(feed.players or [])
        if online == self.online_now and players == self.players:
            return False
        self.online_now, self.players = online, players
        return True

    @property
    def offered(self) -> list[str]:
        """The players online not followed yet (not this player), offered to follow
        with a click: the first :data:`MAX_OFFERED`."""
        followed = {f.name.lower() for f in self.follows}
        me = self.account.name.lower()
        return [n for n in self.players
                if n.lower() != me and n.lower() not in followed][:MAX_OFFERED]

    def is_online(self, friend: Friend) -> bool:
        """Whether ``friend`` is online: the feed's word when it said one, else the
        list's as fetched."""
        if self.online_now is not None:
            return friend.name.lower() in self.online_now
        return friend.online

    def load(self, said: str = "") -> None:
        """Fetch the players followed (in the background); ``said``: the message
        shown once they came (what was just done)."""
        if self.pending is not None:
            return
        client = self.client

        def done(follows: list[Friend]) -> None:
            self.follows, self.loaded = follows, True
            self.say(said or ("" if follows else _("You follow nobody yet: type a name "
                                                   "above.")))
            self._layout()

        self.start(client.follows, done)

    def follow(self, chosen: str | None = None) -> None:
        """Follow the player named in the field (``chosen``: the one of the players
        online offered whose button was pressed)."""
        name = self.typed.strip() if chosen is None else chosen
        if self.pending is not None:
            return
        if not name:
            self.say(_("Type the name of the player to follow."), bad=True)
            return
        client, me = self.client, self.account.name

        def done(_result: object) -> None:
            if chosen is None:
                self.typed = ""
            self.load(_("You follow {name}.").format(name=name))

        def failed(exc: OnlineError) -> bool:
            self.say(follow_error_text(exc, name, me), bad=True)
            return True

        self.start(lambda: client.follow(name), done, failed)

    def challenge(self, name: str) -> None:
        """Open a private friendly table of two for the rules chosen, ``name``
        invited, and sit at it."""
        if self.pending is not None or self.open_table is None or not self.rulesets:
            return
        client, ruleset_id, open_table = self.client, self.rulesets[self.ruleset][0], \
            self.open_table

        def done(table: Any) -> None:
            open_table(table.id, f"{table.id}-{table.code}")

        self.start(lambda: client.create_table(ruleset_id, 2, True, (name,), False), done)

    def step_rules(self, step: int) -> None:
        """Another of the rules to challenge in."""
        if self.rulesets:
            self.ruleset = (self.ruleset + step) % len(self.rulesets)

    def unfollow(self, name: str) -> None:
        """No longer follow ``name``."""
        if self.pending is not None:
            return
        client = self.client
        self.start(lambda: client.unfollow(name),
                   lambda _result: self.load(_("You no longer follow {name}.").format(
                       name=name)))

    # -- focus ------------------------------------------------------------------------

    @property
    def focus_buttons(self) -> list[Button]:
        """Follow, the players online offered, each Unfollow shown, Back: the
        focus's stops after the field."""
        shown = len(self.rows)
        pairs = [b for pair in zip(self.challenge_buttons[:shown], self.unfollow_buttons[:shown],
                                   strict=False) for b in pair] if self.challenge_buttons \
            else self.unfollow_buttons[:shown]
        return [self.follow_button, *self.offer_buttons, *pairs, self.back_button]

    @property
    def focused_button(self) -> Button | None:
        buttons = self.focus_buttons
        index = self.selected - 1
        return buttons[index] if 0 <= index < len(buttons) else None

    @property
    def focus_count(self) -> int:
        return 1 + len(self.focus_buttons)

    # -- layout and drawing -------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        wide = min(width * 0.92, 560 * scale)
        left = width / 2 - wide / 2
        self.title.position = (width / 2, height - 40 * scale)
        fit_text(self.title, wide, 44 * scale, 26 * scale)
        self.hint.width = int(width - 16)
        self.hint.font_size = max(9.0, 12 * scale)
        self.hint.position = (width / 2, 4 * scale)
        # the field and Follow beside it
        self.field_label.position = (left, height - 92 * scale)
        fit_text(self.field_label, wide, 22 * scale, 13 * scale, smallest=9.0)
        fh = 42 * scale
        fw = max(100 * scale, self.follow_button.natural_width(16 * scale) + 8 * scale)
        self.field = Rect(left, height - 96 * scale - fh, wide - fw - 10 * scale, fh)
        self.follow_button.place(Rect(self.field.right + 10 * scale, self.field.bottom, fw, fh),
                                 16 * scale)
        self.field_text.text = self.typed + ("|" if self.selected == 0 else "")
        self.field_text.font_size = 16 * scale
        self.field_text.position = (self.field.left + 10 * scale, self.field.center_y)
        if self.field_text.content_width > self.field.width - 20 * scale:  # its end shows
            shown = self.field_text.text
            while shown and self.field_text.content_width > self.field.width - 20 * scale:
                shown = shown[1:]
                self.field_text.text = "…" + shown
        # Back, the message above it
        bh = 44 * scale
        by = 4 * scale + self.hint.content_height + 8 * scale
        bw = min(wide, 260 * scale)
        self.back_button.place(Rect(width / 2 - bw / 2, by, bw, bh), 16 * scale)
        self.message_text.width = int(wide)
        self.message_text.position = (width / 2, by + bh + 28 * scale)
        self.message_box = (wide, 40 * scale, 14 * scale)
        self.fit_message(self.message_text)
        # the players followed, online first, as many as fit
        # (the rows end above the message's two lines and the line of how many more)
        top, bottom = self.field.bottom - 14 * scale, by + bh + 86 * scale
        # the players online not followed yet: a click (or Enter on one) follows
        self.offer_buttons = []
        offered = self.offered
        if offered:
            self.offer_label.position = (left, top - 20 * scale)
            fit_text(self.offer_label, wide, 20 * scale, 13 * scale, smallest=9.0)
            gap, ph = 6 * scale, 36 * scale
            pw = (wide - (MAX_OFFERED - 1) * gap) / MAX_OFFERED
            y = round(top - 26 * scale - ph)
            for i, player in enumerate(offered):
                chip = Button("+ " + player, partial(self.follow, player),
                              font_size=14 * scale)
                chip.place(Rect(round(left + i * (pw + gap)), y, round(pw), round(ph)),
                           14 * scale)
                label = chip.text  # a long name: cut at a readable size, not shrunk away
                label.font_size = max(label.font_size, 9.0)
                elide(label, chip.rect.width - chip.PADDING)
                # at whole pixels: at half ones a glyph row is lost
                label.position = (round(label.x), round(label.y))
                self.offer_buttons.append(chip)
            top = y - 12 * scale
        self.rules_text.text = ""
        if self.rulesets:  # the rules a Challenge opens its table for
            self.rules_text.text = _("Challenge in: {rules}").format(
                rules="◀  " + self.rulesets[self.ruleset][1] + "  ▶")
            self.rules_text.position = (width / 2, round(top - 14 * scale))
            fit_text(self.rules_text, wide, 26 * scale, 14 * scale, smallest=9.0)
            self.rules_rect = Rect(left, top - 28 * scale, wide, 28 * scale)
            top -= 32 * scale
        rh = max(34 * scale, min(46 * scale, (top - bottom) / 8))
        ordered = sorted(self.follows, key=lambda f: (not self.is_online(f), f.name.lower()))
        self.rows, self.unfollow_buttons, self.challenge_buttons = [], [], []
        self.rows_online = []
        size = max(9.0, 15 * scale)
        for i, friend in enumerate(ordered):
            # at whole pixels: a label at a half pixel loses a row of its glyphs
            rect = Rect(round(left), round(top - (i + 1) * rh), round(wide),
                        round(rh - 4 * scale))
            if rect.bottom < bottom:
                break
            online = self.is_online(friend)
            button = Button(_("Unfollow"), partial(self.unfollow, friend.name),
                            font_size=13 * scale)
            ubw = max(90 * scale, button.natural_width(13 * scale) + 6 * scale)
            inner = round(4 * scale)
            button.place(Rect(round(rect.right - inner - ubw), rect.bottom + inner, round(ubw),
                              rect.height - 2 * inner), 13 * scale)
            label = button.text  # at whole pixels: at half ones a glyph row is lost
            label.position = (round(label.x), round(label.y))
            beside = button.rect.left
            if self.rulesets:  # Challenge: a table for the two of you, in one step
                dare = Button(_("Challenge"), partial(self.challenge, friend.name),
                              font_size=13 * scale, color="GO")
                cbw = max(90 * scale, dare.natural_width(13 * scale) + 6 * scale)
                dare.place(Rect(round(beside - inner - cbw), rect.bottom + inner, round(cbw),
                                rect.height - 2 * inner), 13 * scale)
                dare.text.position = (round(dare.text.x), round(dare.text.y))
                self.challenge_buttons.append(dare)
                beside = dare.rect.left
            state = Text(_("online") if online else _("offline"),
                         beside - 12 * scale, rect.center_y,
                         theme.TEXT if online else theme.MUTED, max(9.0, 13 * scale),
                         font_name=theme.FONT, bold=online, anchor_x="right",
                         anchor_y="center")
            name = Text(friend.name, rect.left + 16 * scale, rect.center_y, theme.TEXT, size,
                        font_name=theme.FONT, bold=True, anchor_y="center")
            room = state.x - state.content_width - name.x - 10 * scale
            fit_text(name, room, rect.height, size, smallest=max(9.0, 12 * scale))
            elide(name, room)
            for text in (name, state):  # at whole pixels: at half ones a glyph row is lost
                text.position = (round(text.x), round(text.y))
            self.rows.append((rect, [name, state]))
            self.rows_online.append(online)
            self.unfollow_buttons.append(button)
        rest = len(ordered) - len(self.rows)
        self.more_text.text = _("+{n} more").format(n=format_number(rest)) if rest else ""
        self.more_text.font_size = max(9.0, 12 * scale)
        self.more_text.position = (width / 2, round((self.rows[-1][0].bottom if self.rows
                                                     else top) - 3 * scale
                                                    - self.more_text.content_height / 2))
        self.selected = min(self.selected, self.focus_count - 1)
        self.refresh()

    def on_update(self, delta_time: float) -> None:
        self.ready = True
        super().on_update(delta_time)
        if self._take_feed():  # a followed player came online or left: said at once
            self._layout()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.field_label.draw()
        f = self.field
        arcade.draw_lrbt_rectangle_filled(f.left, f.right, f.bottom, f.top,
                                          theme.PANEL_HOVER if self.selected == 0
                                          else theme.PANEL)
        if self.selected == 0:
            arcade.draw_lrbt_rectangle_filled(f.left, f.left + 5 * self.scale, f.bottom, f.top,
                                              theme.ACCENT)
        self.field_text.draw()
        if self.offer_buttons:
            self.offer_label.draw()
        if self.rules_text.text:
            self.rules_text.draw()
        for (rect, texts), friend_online in zip(self.rows, self.rows_online, strict=True):
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                              theme.PANEL)
            if friend_online:
                arcade.draw_lrbt_rectangle_filled(rect.left, rect.left + 5 * self.scale,
                                                  rect.bottom, rect.top, theme.GO)
            for text in texts:
                text.draw()
        if self.more_text.text:
            self.more_text.draw()
        buttons = self.focus_buttons
        focus_buttons(buttons, self.focused_button)
        for button in buttons:
            button.draw()
        self.message_text.draw()
        self.hint.draw()

    # -- input ----------------------------------------------------------------------------

    def on_text(self, text: str) -> None:
        if not self.ready or self.selected != 0:
            return
        printable = "".join(ch for ch in text if ch.isprintable())
        if printable:
            self.typed = (self.typed + printable)[:LONGEST_NAME]
            self._layout()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.back()
            return
        if symbol in (key.DOWN, key.TAB, key.UP) or is_back_tab(symbol, modifiers):
            step = -1 if symbol == key.UP or is_back_tab(symbol, modifiers) else 1
            self.selected = (self.selected + step) % self.focus_count
            hover_buttons(self.focus_buttons, -1, -1)
        elif symbol in (key.ENTER, key.RETURN, key.NUM_ENTER):
            if self.selected == 0:
                self.follow()
            elif self.focused_button is not None:
                self.focused_button.action()
                return
        elif symbol == key.SPACE and self.focused_button is not None:
            self.focused_button.action()
            return
        elif symbol == key.BACKSPACE and self.selected == 0:
            self.typed = self.typed[:-1]
        elif symbol == key.V and modifiers & (key.MOD_CTRL | key.MOD_COMMAND) \
                and self.selected == 0:
            self.on_text(self.window.get_clipboard_text().strip())
            return
        elif symbol in (key.LEFT, key.RIGHT) and self.focused_button in self.challenge_buttons:
            self.step_rules(1 if symbol == key.RIGHT else -1)
        elif symbol == key.F5:
            self.load()
        self._layout()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if self.selected == 0:  # typing a name: the pointer does not take the focus
            hover_buttons(self.focus_buttons, x, y)
            return
        found = pointer_focus(self.focus_buttons, x, y)
        if found is not None:
            self.selected = 1 + found
            self.refresh()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.field.contains(x, y):
            self.selected = 0
            self._layout()
            return
        if self.rules_text.text and self.rules_rect.contains(x, y):  # ◀ rules ▶
            self.step_rules(-1 if x < self.window.width / 2 else 1)
            self._layout()
            return
        for i, item in enumerate(self.focus_buttons):
            if item.hit(x, y):
                self.selected = 1 + i
                item.action()
                return


def open_friends(host: Host, back: Callable[[], None] | None = None) -> FriendsView:
    """Friends: the players followed; ``back`` (the launcher by default) leaves; a
    friend challenged: their table opens as ``"table"``, first in the rules last
    played when a table can have them."""
    def open_table(table_id: int, code: str) -> None:
        host.show("table", table_id=table_id, code=code)

    return FriendsView(host.online, back or host.show_launcher, feed=host.player_feed(),
                       open_table=open_table, ruleset_id=host.settings.last_ruleset or "")


__all__ = ["FriendsView", "follow_error_text", "open_friends"]
