"""A live table in the window: waiting for the seats, the duel with the
opponents' boards beside yours, and the result.

The table itself is a :class:`blockyard.tablesession.TableSession` (window-free:
the seats, a game per seat rebuilt from the table's seed and every accepted
move, the result, the connection), polled once a frame by the screen on show;
this module words what it holds in the player's language and draws it.

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
import math
import sqlite3
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard.errors import IllegalMove
from blockyard.falling import FallingGame
from blockyard.online import RESTARTING, Client, Pending, mirror_move, parse_table_code
from blockyard.protocol import PHRASES
from blockyard.tablesession import (
    Heard,
    TableSession,
    forget_table,
    remember_table,
    remembered_table,
)

from .. import i18n, rulewords, theme
from ..game_screen import MessageSection, ScreenSection
from ..i18n import N_, _, format_number
from ..layout import Rect
from ..menus import KeyGuard
from ..screens import to_screen
from ..sudoku_view import SudokuView
from ..text import PIXELS_PER_POINT, Text
from ..tray_input import TrayInput
from ..tray_view import TITLE_SMALLEST, TrayGameView, fit_title
from ..widgets import (
    Button,
    PauseMenu,
    click_buttons,
    elide,
    fit_text,
    hover_buttons,
    screen_scale,
)
from .errors import kind_text, mismatch_text, online_error_text, refusal_text
from .ratingwords import change_text, named_rating, rating_text

if TYPE_CHECKING:
    from blockyard.actions import ActionSpec

    from ..session import Host, Session

BAND = 0.26  # the share of the window's height the opponents' boards take
BAND_MARGIN = 12.0
"""Pixels (at scale 1) between an opponent's small board and the window's bottom
edge, and around it in its slot."""
READABLE = 15.0  # the smallest font size of text to read on the table's screens
PHRASE_SECONDS = 5.0  # how long a quick phrase heard (or said) stays in the message line
MARK_SMALLEST = 9.0  # the smallest font size of a seat's presence mark in the band

PHRASE_WORDS: dict[str, str] = {
    "good-luck": N_("Good luck!"),
    "well-played": N_("Well played!"),
    "rematch": N_("Rematch?"),
    "thanks": N_("Thanks!"),
}
"""Each quick phrase's words (untranslated; :data:`blockyard.protocol.PHRASES`):
the server sends the id, each window says it in its own player's language."""
PHRASE_KEYS = ("F1", "F2", "F3", "F4")
"""The keys that say the quick phrases at a live table, in the order of
:data:`blockyard.protocol.PHRASES`."""

PRESENCE_WORDS: dict[str, str] = {
    # TRANSLATORS: beside a player's board at a live table: their window is in the
    # background, or they have not played for a while
    "away": N_("away"),
    # TRANSLATORS: beside a player's board: their connection dropped, coming back
    "reconnecting": N_("reconnecting…"),
    # TRANSLATORS: beside a player's board, and in the result instead of their
    # place: the player left the table during the round
    "left": N_("left"),
}
"""The band's mark of each presence the server says (``present``: no mark)."""


def connection_banner(session: TableSession) -> str:
    """The banner's text while the connection is not open ("" when it is): what
    happened and what to do, in the player's language (the technical reason is
    logged); while it is open, that a game here no longer follows the server's."""
    if (session.divergence or session.differs) and session.connection in ("open",
                                                                           "connecting"):
        return " ".join(t for t in (divergence_text(session), differs_text(session)) if t)
    if session.connection == "lost":
        if session.lost_kind == RESTARTING:
            return kind_text(RESTARTING)
        return _("Connection lost: connecting again…")
    if session.connection == "closed":
        if session.closed_kind:
            return _("Disconnected. {what}").format(what=kind_text(session.closed_kind))
        return _("Disconnected.")
    return ""


def divergence_text(session: TableSession) -> str:
    """That a game mirrored here no longer follows the server's ("" while every
    game agrees), naming whose."""
    found = session.divergence
    if found is None:
        return ""
    return _("The game of {name} here no longer follows the server's: this window plays "
             "these rules with other plugins or another rule file. The server's scores "
             "count.").format(name=session.player_name(found.seat) or _("free seat"))


def differs_text(session: TableSession) -> str:
    """How this installation's plugins or rules of the table's ruleset differ from
    the server's ("" when they agree, or it is not known)."""
    return mismatch_text(session.differs, game=False) if session.differs is not None else ""


def refusal_words(session: TableSession) -> str:
    """The table's last refusal in the player's language ("" when none)."""
    refused = session.refusal
    return refusal_text(refused.kind, refused.reason) if refused is not None else ""


def left_words(session: TableSession) -> str:
    """Who left the table ("" when nobody did since a seat was last taken)."""
    return _("{name} left the table.").format(name=session.left) if session.left else ""


def friendly_words(session: TableSession) -> str:
    """At a rated table, a round that rates nobody because this player has played
    the day's rated rounds with another: says so, with the server's limit ("" for
    any other round)."""
    found = session.friendly_with()
    if found is None:
        return ""
    rounds, name = found
    # TRANSLATORS: before a round of a rated table starts; at most this many rounds a
    # day between the same two players change ratings (docs/online.md, "Ratings")
    return _("Friendly: you have played {n} rated rounds with {name} today.").format(
        n=format_number(rounds), name=name)


def phrase_words(phrase: str) -> str:
    """A quick phrase's words in the player's language ("" for an id this window
    has no words for)."""
    words = PHRASE_WORDS.get(phrase)
    return _(words) if words is not None else ""


def heard_words(heard: Heard) -> str:
    """A phrase another player said, as the message line shows it: "bob: Well
    played!"."""
    return _("{name}: {phrase}").format(name=heard.name, phrase=phrase_words(heard.phrase))


def presence_words(state: str | None) -> str:
    """The band's mark of a seat's presence ("" for a present or free seat)."""
    words = PRESENCE_WORDS.get(state) if state is not None else None
    return _(words) if words is not None else ""


def waiting_words(session: TableSession) -> str:
    """Once the player's own game is finished while others play: whom the table
    waits for ("Waiting for bob…"; "" otherwise)."""
    me = session.me
    if me is None or session.status != "playing" or session.result is not None \
            or not me < len(session.over) or not session.over[me]:
        return ""
    names = session.waiting_names()
    if not names:
        return ""
    return _("Waiting for {names}…").format(names=", ".join(names))


NO_BREAK = "\u00a0"
"""A space no line is broken at."""


def phrase_keys_words() -> str:
    """The keys of the quick phrases, each with its words (the live table's menu
    lists them)."""
    # each key with its phrase kept on one line (no-break spaces): a narrow menu
    # wraps between them, never inside one
    keys = "  ".join(f"{key} {phrase_words(phrase)}".replace(" ", NO_BREAK)
                     for key, phrase in zip(PHRASE_KEYS, PHRASES, strict=False))
    return _("Quick phrases: {keys}").format(keys=keys)


def unplayable_words(session: TableSession) -> str:
    """Why the table's rules cannot be played here ("" when they can)."""
    if not session.unplayable:
        return ""
    return _("This table's rules cannot be played here: {reason}").format(
        reason=session.unplayable)


def seat_labels(session: TableSession) -> list[str]:
    """Each seat as the waiting screen says it: the player's name, "invited:
    NAME" for a free seat an invited player has not taken yet, or "free seat"; a
    player's rating beside their name."""
    labels = []
    for seat, holder in enumerate(session.seat_holders()):
        if holder.kind == "player":
            labels.append(named_rating(holder.name, session.seat_rating(seat)))
        elif holder.kind == "invited":
            labels.append(_("invited: {name}").format(name=holder.name))
        else:
            labels.append(_("free seat"))
    return labels


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
    button (Ctrl+C), Leave. Opens the duel when the table is playing. Until the
    server's first table message it says only that it is connecting (no empty
    "Waiting for players" flashing before a table under way opens)."""

    def __init__(self, session: TableSession, open_duel: Callable[[], None],
                 back: Callable[[], None]) -> None:
        super().__init__()
        self.session = session
        self.open_duel = open_duel
        self.back = back
        self.title = Text(_("Waiting for players"), 0, 0, theme.TEXT, 26, font_name=theme.FONT,
                          bold=True, anchor_x="center", anchor_y="center")
        self.rules = Text("", 0, 0, theme.ACCENT, 16, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="center")
        self.body = Text("", 0, 0, theme.TEXT, 16, font_name=theme.FONT, anchor_x="center",
                         anchor_y="top", multiline=True, width=400, align="center")
        self.banner = Text("", 0, 0, theme.TEXT, 14, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center", multiline=True, width=400, align="center")
        self.hint = Text("", 0, 0, theme.MUTED, 12, font_name=theme.FONT, anchor_x="center",
                         anchor_y="bottom")
        self.copy_button = Button(_("Copy code"), self.copy_code, font_size=16)
        self.leave_button = Button(_("Leave"), self.leave, font_size=16)
        self.buttons = [self.copy_button, self.leave_button]
        self.copied = False
        self.cannot_show = ""
        """Why the table's game cannot be shown in the window (its kind), or ""."""
        self._layout()

    @property
    def problem(self) -> str:
        """Why the table cannot be played here, in the player's language ("" when
        it can)."""
        return unplayable_words(self.session) or self.cannot_show

    def copy_code(self) -> None:
        """Put the table's code on the clipboard."""
        if self.session.code:
            self.window.set_clipboard_text(self.session.code)
            self.copied = True
            self._refresh()

    def leave(self) -> None:
        """Free the seat (a waiting table) and go back."""
        self.session.leave()
        self.back()

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        height -= round(banner_height(self.banner, width))  # laid out below the banner
        wide = min(width * 0.9, 520 * scale)
        self.title.text = _("Waiting for players") if self.known else _("Connecting…")
        self.title.position = (width / 2, height - 60 * scale)
        fit_text(self.title, wide, 50 * scale, 26 * scale)
        self.rules.text = self._rules_name()  # which game the table plays
        self.rules.position = (width / 2, round(height - 100 * scale))
        fit_text(self.rules, wide, 30 * scale, max(READABLE, 16 * scale), smallest=READABLE)
        self.body.width = int(wide)
        # the code and the seats are read, not glanced at: never smaller than this
        self.body.font_size = max(READABLE, 16 * scale)
        self.body.position = (width / 2, round(height - 126 * scale))
        self.hint.text = _("Ctrl+C copy the code  Esc leave") if self.session.code \
            else _("Esc leave")
        self.hint.position = (width / 2, round(12 * scale))
        fit_text(self.hint, width - 16, 40 * scale, 12 * scale, smallest=9.0)
        self.banner.width = int(width - 16)
        bw, bh = min(wide / 2 - 6 * scale, 240 * scale), max(44.0, 48 * scale)
        size = max(READABLE, 16 * scale)
        self.copy_button.visible = bool(self.session.code)
        self.copy_button.place(Rect(width / 2 - bw - 6 * scale, 60 * scale, bw, bh), size)
        # alone (no code to copy: a table chosen in the lobby's list), in the middle
        left = width / 2 + 6 * scale if self.copy_button.visible else width / 2 - bw / 2
        self.leave_button.place(Rect(left, 60 * scale, bw, bh), size)
        self._refresh()

    @property
    def known(self) -> bool:
        """Whether the server's table message has come (its rules, seats, status)."""
        return bool(self.session.ruleset_id)

    def _refresh(self) -> None:
        s = self.session
        lines = []
        if s.ratings:  # a server with ratings says which kind of table this is
            lines.append(_("Rated table: its rounds change your rating.") if s.rated
                         else friendly_words(s) or _("Friendly table: not rated."))
        if s.code:
            code = _("Table code: {code}").format(code=s.code)
            # on the code's own line: the seats below stay where they are
            lines.append(code + "  ✓ " + _("Copied.") if self.copied else code)
        for i, label in enumerate(seat_labels(s) if self.known else []):
            lines.append(_("Seat {n}: {name}").format(n=format_number(i + 1), name=label))
        beyond = s.invited_beyond_seats()
        if beyond:  # more invited than free seats: the first come are seated
            lines.append(_("Also invited: {names}").format(names=", ".join(beyond)))
        lines += [t for t in (left_words(s), refusal_words(s), self.problem) if t]
        self.body.text = "\n".join(lines)
        banner = connection_banner(s)
        if banner != self.banner.text:  # the screen moves below the banner, or back up
            self.banner.text = banner
            self._layout()
        elif self.rules.text != self._rules_name():  # the table's rules came
            self._layout()
        if s.connection == "closed":
            forget_table()  # the table is gone or refuses us: nothing to reopen
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def _rules_name(self) -> str:
        """The table's rules as the launcher names them (their id when they are not
        installed here)."""
        rid = self.session.ruleset_id
        try:
            return rulewords.ruleset_name(blockyard.load_ruleset(rid)) if rid else ""
        except Exception:  # not installed, or its file fails here: the id says it
            return rid

    def on_update(self, delta_time: float) -> None:
        if self.session.update():
            # a finished table too (reopened after its round ended): its result
            if self.session.status in ("playing", "finished") and self.session.games \
                    and not self.session.unplayable and not self.cannot_show:
                try:
                    self.open_duel()
                    return
                except ValueError as exc:  # a kind of game the duel screen cannot show
                    self.cannot_show = str(exc)
            self._refresh()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        self.rules.draw()
        self.body.draw()
        self.hint.draw()
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

    def on_activate(self) -> None:
        """The window has the focus again: the table is told its player is back."""
        self.session.window("active")

    def on_deactivate(self) -> None:
        """The window went to the background: the table shows its player away."""
        self.session.window("away")


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
                mirror_move(self.game, action)
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


class LiveSection(ScreenSection):
    """The live table's own layer of a game screen: the opponents' band and the
    result panel, drawn over the board and the HUD but under the modal dialog, so
    the menu's dimming covers them. It takes no input (the screen does)."""

    def __init__(self, screen: Any) -> None:
        super().__init__(screen, "live", accept_keyboard_keys=False,
                         accept_mouse_events=False)
        self.table_screen: LiveTableScreen = screen

    def on_draw(self) -> None:
        self.table_screen.draw_table()


class LiveTableMenu(PauseMenu):
    """The menu of a live table (Esc, or the Menu button): nothing is paused, the
    others play on. Resume, Leave table (asked again while the player's own game
    runs: leaving ends it), How to play, Settings. No Restart."""

    def __init__(self, screen: LiveTableScreen) -> None:
        super().__init__(screen.restart, screen.to_launcher, screen.show_help,
                         screen.show_settings)
        self.screen = screen
        self.title.text = _("Live table")
        self.note = Text("", 0, 0, theme.TEXT, 15, font_name=theme.FONT, anchor_x="center",
                         anchor_y="top", multiline=True, width=400, align="center")
        self.main = [Button(_("Resume"), self.close, font_size=20),
                     Button(_("Leave table"), self.ask_leave, font_size=20),
                     Button(_("How to play"), self._then_close(screen.show_help),
                            font_size=20),
                     Button(_("Settings"), self._then_close(screen.show_settings),
                            font_size=20)]
        self.mute_button = Button("", self._then_close(screen.mute), font_size=20)
        self.mute_words: tuple[str, str] = ("", "")
        """The mute button's words (translated, with ``{name}``) and whom it names."""
        """Mutes the player :meth:`LiveTableScreen.mute_target` names, or hears them
        again when muted (shown while there is one)."""
        self.every = list(self.main)
        self.confirm = [Button(_("Stay at the table"), self.stay, font_size=20),
                        Button(_("Leave table"), self._then_close(screen.leave),
                               font_size=20)]
        self.confirming = False
        self.buttons = self.main
        self.scale = 1.0

    def show(self) -> None:
        self.confirming = False
        target = self.screen.mute_target()
        form = _("Unmute {name}") if target in self.screen.table.muted else _("Mute {name}")
        self.mute_words = (form, target or "")
        self.mute_button.label = form.format(name=target) if target else ""
        # after Resume and Leave table: Mute (or Unmute) NAME, while there is someone
        self.main = [*self.every[:2], self.mute_button, *self.every[2:]] if target \
            else list(self.every)
        self.buttons = self.main
        self.title.text = _("Live table")
        note = _("Nothing is paused: the others play on.")
        if self.screen.table.me is not None:  # a spectator does not speak
            note += "\n" + phrase_keys_words() + "\n" + _("M: mute or unmute who spoke last")
        self.note.text = note
        self._place()
        super().show()

    def close(self) -> None:
        self.confirming = False
        super().close()

    def ask_leave(self) -> None:
        """Leave the table: asked first while the player's own game runs."""
        if not self.screen.leaving_ends_game():
            self.open = False
            self.screen.leave()
            return
        self.confirming = True
        self.buttons = self.confirm
        self.index = 0  # the safe answer: stay
        self.title.text = _("Leave the table?")
        self.note.text = _("Your game ends now with the points you have; the others play "
                           "on.")
        if self.screen.table.rated:  # a leaver ranks below every seat that finished
            self.note.text = _("Leaving now loses this rated round.") + "\n" + self.note.text
        self._place()

    def stay(self) -> None:
        """Back to the menu (the table is not left)."""
        self.show()

    def place(self, width: float, height: float, scale: float) -> None:
        self.size = (width, height)
        self.scale = scale
        self._place()

    def _place(self) -> None:
        """The title, the note and the buttons one above the other, the whole card
        centred in the window and inside it: a long note (six lines of Spanish)
        brings the buttons closer together rather than push the title out."""
        width, height = self.size
        if width <= 0:
            return
        scale = self.scale
        PauseMenu.place(self, width, height, scale)  # the title's size, the margin
        # the note stands on the card: as wide as the window leaves beside its margins
        self.note.width = int(max(100, min(width - 2 * self.pad - 16, 460 * scale)))
        self.note.font_size = max(13.0, 15 * scale)  # read before leaving: never tiny
        fit_text(self.title, width - 24, 40 * scale, 26 * scale)
        title_h, note_h, gap = self.title.content_height, self.note.content_height, 6 * scale
        count = len(self.buttons)
        room = height - 2 * self.pad - 8 - title_h - 10 * scale - note_h - gap
        step = max(28.0, min(60 * scale, height * 0.6 / count, room / count))
        block = title_h + 10 * scale + note_h + gap + count * step
        top = min(height - self.pad - 4, height / 2 + block / 2)  # the title's top
        self.title.position = (width / 2, top - title_h / 2)
        note_top = top - title_h - 10 * scale
        self.note.position = (width / 2, note_top)
        self.place_buttons(width, note_top - note_h - gap, step, scale)
        self._fit_mute(min(20 * scale, max(11.0, 15 * scale)))

    def _fit_mute(self, readable: float) -> None:
        """The mute button's words at ``readable`` points at least: a long name is
        cut with "…" (the longest beginning that fits) rather than shrink them."""
        form, name = self.mute_words
        button = self.mute_button
        if not name or button.rect.width <= 0:
            return
        button.label = form.format(name=name)
        if button.text.font_size >= readable:
            return
        before, _, after = form.partition("{name}")
        button.text.font_size = readable
        elide(button.text, button.rect.width - button.PADDING, after, before)
        button.place(button.rect)  # as large as the words cut now fit

    @property
    def card(self) -> Rect:
        """The card behind the title, the note and the buttons (the note hangs from
        its top, so it is added here rather than among the centred texts)."""
        card = super().card
        note = self.note
        if not note.text or card.width <= 0:
            return card
        w = note.content_width
        left = min(card.left, note.x - w / 2 - self.pad)
        right = max(card.right, note.x + w / 2 + self.pad)
        top = max(card.top, note.y + self.pad)
        return Rect(left, card.bottom, right - left, top - card.bottom)

    def draw(self) -> None:
        if self.open:
            super().draw()
            self.note.draw()

    def on_key(self, symbol: int) -> bool:
        if self.open and self.confirming and symbol == arcade.key.ESCAPE:
            self.stay()
            return True
        return super().on_key(symbol)


class ResultPanel:
    """The round's result as a table sized to its content: a title, one row per seat
    (place, name, score; the winner marked ★ and coloured), a note, and buttons.
    Also the question of a rematch another player asked for (the same table
    under "NAME asks for a rematch", Play and Leave table)."""

    def __init__(self) -> None:
        self.title = Text("", 0, 0, theme.TEXT, 24, font_name=theme.FONT, bold=True,
                          anchor_x="center", anchor_y="top")
        self.note = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT, anchor_x="center",
                         anchor_y="top", multiline=True, width=400, align="center")
        self.rows: list[tuple[Text, Text, Text]] = []
        self.changes: list[Text] = []
        """Each row's rating change (empty at a friendly table)."""
        self.rect = Rect(0, 0, 0, 0)
        self.buttons: list[Button] = []

    def set_rows(self, rows: list[tuple[str, str, str, bool]],
                 changes: list[str] | None = None) -> None:
        """The rows: (place, name, score, winner); ``changes``: each row's rating
        change at a rated table (a fourth column), ``None`` at a friendly one."""
        self.rows = []
        self.changes = []
        for i, (place, name, score, winner) in enumerate(rows):
            colour = theme.ACCENT if winner else theme.TEXT
            self.rows.append((
                Text(place, 0, 0, colour, 17, font_name=theme.FONT, anchor_x="right",
                     anchor_y="center", bold=winner),
                Text(("★ " if winner else "") + name, 0, 0, colour, 17, font_name=theme.FONT,
                     anchor_x="left", anchor_y="center", bold=winner),
                Text(score, 0, 0, colour, 17, font_name=theme.FONT, anchor_x="right",
                     anchor_y="center", bold=winner)))
            if changes is not None:
                self.changes.append(Text(changes[i] if i < len(changes) else "", 0, 0,
                                         theme.MUTED, 15, font_name=theme.FONT,
                                         anchor_x="right", anchor_y="center"))

    def place(self, width: float, height: float, bottom: float, scale: float,
              buttons: list[Button]) -> None:
        """Size the panel to its content (never wider than the window) and centre it
        in the window above ``bottom`` (the band), inside the window."""
        self.buttons = buttons
        pad, gap = 16 * scale, 18 * scale
        most = max(100.0, width - 16)
        size = max(13.0, 17 * scale)
        for texts in self.rows:
            for text in texts:
                text.font_size = size
        place_w = max((r[0].content_width for r in self.rows), default=0.0)
        score_w = max((r[2].content_width for r in self.rows), default=0.0)
        for change in self.changes:
            change.font_size = size * 0.88
        change_w = max((c.content_width for c in self.changes), default=0.0)
        change_room = change_w + gap if self.changes else 0.0
        name_room = most - 2 * pad - place_w - score_w - 2 * gap - change_room
        for _place, name, _score in self.rows:
            fit_text(name, name_room, size * 2, size, smallest=9.0)
        name_w = max((r[1].content_width for r in self.rows), default=0.0)
        table_w = place_w + gap + name_w + gap + score_w + change_room
        button_size = max(14.0, 16 * scale)
        button_w = max([b.natural_width(button_size) for b in buttons] + [120 * scale])
        buttons_w = len(buttons) * button_w + (len(buttons) - 1) * 10 * scale
        self.title.font_size = max(16.0, 24 * scale)
        self.note.font_size = max(12.0, 14 * scale)
        self.note.width = int(most - 2 * pad)  # its longest line, unwrapped if it fits
        wide = min(most, max(table_w, buttons_w, self.title.content_width,
                             self.note.content_width + 4, 260 * scale) + 2 * pad)
        fit_text(self.title, wide - 2 * pad, self.title.font_size * 2, self.title.font_size)
        self.note.width = int(wide - 2 * pad)
        line = max((max(r[1].content_height, r[0].content_height) for r in self.rows),
                   default=0.0) + 6 * scale
        note_h = self.note.content_height + 8 * scale if self.note.text else 0.0
        button_h = max(40.0, 46 * scale)
        high = pad + self.title.content_height + 10 * scale + line * len(self.rows) \
            + note_h + 12 * scale + button_h + pad
        centre = bottom + (height - bottom) / 2
        low = min(max(0.0, centre - high / 2), max(0.0, height - high))
        self.rect = Rect(width / 2 - wide / 2, low, wide, high)
        r = self.rect
        y = r.top - pad
        self.title.position = (r.center_x, y)
        y -= self.title.content_height + 10 * scale
        left = r.center_x - table_w / 2
        for i, (place, name, score) in enumerate(self.rows):
            place.position = (left + place_w, y - line / 2)
            name.position = (left + place_w + gap, y - line / 2)
            score.position = (left + table_w - change_room, y - line / 2)
            if i < len(self.changes):
                self.changes[i].position = (left + table_w, y - line / 2)
            y -= line
        self.note.position = (r.center_x, y - 4 * scale)
        for text in (self.title, self.note, *[t for row in self.rows for t in row],
                     *self.changes):
            # at whole pixels: a glyph drawn at a half pixel loses its top row
            text.position = (round(text.x), round(text.y))
        each = min(button_w, (wide - 2 * pad - (len(buttons) - 1) * 10 * scale)
                   / max(1, len(buttons)))
        x = r.center_x - (len(buttons) * each + (len(buttons) - 1) * 10 * scale) / 2
        for button in buttons:
            button.place(Rect(x, r.bottom + pad, each, button_h), button_size)
            x += each + 10 * scale

    def draw(self) -> None:
        r = self.rect
        arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, theme.PANEL)
        self.title.draw()
        for texts in self.rows:
            for text in texts:
                text.draw()
        for change in self.changes:
            change.draw()
        if self.note.text:
            self.note.draw()
        for button in self.buttons:
            button.draw()


class LiveTableScreen:
    """What the live table's screens share (a mixin before the game screen's
    class): the board of :attr:`shown` full-size, every other seat's board
    smaller in a band below it with their names and scores, a banner while the
    connection is away, the result at the end (recorded in the player's records
    once per round), the table's own menu (:class:`LiveTableMenu`).

    Once the player's own game is over (and for a spectator at once), any
    board can be watched full-size, live: click it in the band or press ←/→
    (or Tab); Esc goes back to the player's own board. The board watched is
    named in the header. The table the player sits at while its round is played
    is remembered, so a window closed mid-duel reopens on it at the next start
    (:func:`remembered_table`).

    A rematch: the window that asked enters the new round at once (so does a
    spectator's); another player's window asks first — "NAME asks for a
    rematch", Play or Leave table (leaving before acting frees the seat: the
    server deals again and waits for a player)."""

    menu_while_watching = True  # a mouse player leaves a watched table by its Menu

    table: TableSession
    leave_table: Callable[[], None]
    shown: int
    band_rects: list[Rect]
    band_texts: list[Text]
    band_marks: list[Text]
    """Each opponent's presence mark, drawn on their small board ("" : none)."""
    band_label_height = 20.0  # the height of a small board's name line (see _place_band)
    game: Any  # the game screen's
    session: Session
    window: Any
    scale: float
    reserve_bottom: float
    spectator: bool
    dialog: Any

    def _live_setup(self, table: TableSession, leave: Callable[[], None]) -> None:
        self.table = table
        self.leave_table = leave
        self.banner = Text("", 0, 0, theme.TEXT, 14, font_name=theme.FONT, anchor_x="center",
                           anchor_y="center", multiline=True, width=400, align="center")
        self.panel = ResultPanel()
        self.rematch_button = Button(_("Rematch"), self.rematch, font_size=16, color="GO")
        self.leave_button = Button(_("Leave table"), self.leave, font_size=16)
        self.play_button = Button(_("Play"), self.enter_round, font_size=16, color="GO")
        self.shown_result: dict[str, Any] | None = None
        """The result the panel shows (kept while a rematch is asked about)."""
        self.asked_by: str | None = None
        """Who asked for the rematch this window is asked about (``None``: no question)."""
        self.asked_guard = KeyGuard()
        self.asked_second = -1
        self.hinted = False
        self.told = table.left  # who left, already said (see _sync_table)
        self.last_speaker: str | None = None  # who said the last phrase heard
        self.muting: tuple[str, Pending[None]] | None = None  # a mute asked of the server
        self.dialog.pause = LiveTableMenu(self)
        self.add(LiveSection(self), 50)
        if self.shown != table.me:
            self.say(*self.watch_words())
        self.place_sections(self.window.width, self.window.height)
        self.refresh()  # laid out anew: the board as the game stands (every move so far)
        self._sync_table()

    if TYPE_CHECKING:  # the game screen's (the class this one is mixed into)
        recorded: bool

        def say(self, text: str, *shorter: str, seconds: float = ...) -> None: ...

        message_line: MessageSection

        def place_sections(self, width: int, height: int) -> None: ...

        def refresh(self) -> None: ...

        def add(self, section: Any, order: int) -> None: ...

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

    def say_phrase(self, phrase: str) -> None:
        """Say a quick phrase to the table (a seated player's), shown here as said."""
        if self.table.me is None:
            return
        if self.table.say(phrase):
            self.say(_("You: {phrase}").format(phrase=phrase_words(phrase)),
                     seconds=PHRASE_SECONDS)
        else:
            self.say(_("Not connected: the phrase was not sent."))

    def mute_target(self) -> str | None:
        """Whom M (and the menu's Mute or Unmute) mutes or hears again: who said the
        last phrase heard, else the one other player at a table of two (``None``:
        nobody, or this window only watches)."""
        table = self.table
        if table.me is None:
            return None
        if self.last_speaker:
            return self.last_speaker
        others = [n for i, n in enumerate(table.seats) if n and i != table.me]
        return others[0] if len(others) == 1 else None

    def mute(self) -> None:
        """Mute :meth:`mute_target` (their phrases no longer shown; the account's mute
        kept on the server), or hear them again when they are muted."""
        name = self.mute_target()
        if name is None:
            return
        if name in self.table.muted:
            pending = self.table.unmute(name)
            self.say(_("{name} is heard again: their quick phrases are shown.").format(
                name=name), _("{name} is heard again.").format(name=name),
                seconds=PHRASE_SECONDS)
        else:
            pending = self.table.mute(name)
            self.say(_("{name} is muted: their quick phrases are no longer shown.").format(
                name=name), _("{name} is muted.").format(name=name), seconds=PHRASE_SECONDS)
        self.muting = (name, pending) if pending is not None else None

    def leave(self) -> None:
        """Leave the table (a game still running ends) and go back."""
        self.table.leave()
        self.leave_table()

    def leaving_ends_game(self) -> bool:
        """Whether leaving now ends the player's own game (a round under way in
        which their game runs): the menu asks first then."""
        table, me = self.table, self.table.me
        return me is not None and table.status == "playing" and table.result is None \
            and self.asked_by is None and me < len(table.over) and not table.over[me]

    def enter_round(self) -> None:
        """Show the table's current round: the duel on the player's own board, or
        the waiting screen while a seat is free."""
        def duel() -> None:
            self.window.show_view(live_view(self.session, self.table, self.leave_table))
        if self.table.status == "waiting":
            self.window.show_view(WaitingView(self.table, duel, self.leave_table))
        else:
            duel()

    def restart(self) -> None:
        self.say(_("A live game cannot be restarted."))

    def to_launcher(self) -> None:
        self.leave()

    def show_help(self) -> None:
        """How to play the table's rules, then back to this screen (the table goes on)."""
        self.session.show_help(self.game.ruleset, lambda: self.window.show_view(self))

    def show_settings(self) -> None:
        """The settings, then back to this screen (the table goes on). A change of
        language or of digits there builds the table's screen anew in them, as a
        local game's screen is (every word of the table's screen, its menu and
        its result panel is made when the screen is)."""
        words = (i18n.language(), i18n.native_digits())

        def back() -> None:
            if (i18n.language(), i18n.native_digits()) == words:
                self.window.show_view(self)
            else:
                self.window.show_view(self.anew())
        self.session.show_settings(back)

    def flush(self) -> None:
        """Send what the player played here and has not sent yet (a tray duel sends
        each move as it is made: nothing; a falling game its ticks)."""

    def anew(self) -> arcade.View:
        """This table's screen made again (its words in the language now), showing
        the same board, with what the player did here so far sent first."""
        if self.table.me is not None and self.shown == self.table.me:
            self.flush()
        view = live_view(self.session, self.table, self.leave_table, self.shown)
        if isinstance(view, LiveTableScreen):
            view.last_speaker, view.muting = self.last_speaker, self.muting
        return view

    def show_summary(self) -> None:
        # finishing at the prompt of an action offered after the end (eu's continue)
        # ends the seat on the server: its round can then be over
        me = self.table.me
        if not self.recorded and me is not None and self.shown == me and self.game.over \
                and any(action.after_end for action in self.game.actions()):
            self.send(["end"])
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

    @property
    def watching(self) -> bool:
        """Whether the board shown is not the player's own (another seat's, or any
        board for a spectator)."""
        return self.shown != self.table.me

    def watch_words(self) -> tuple[str, str]:
        """The message on showing another seat's board: whose, and the keys; and
        the keys alone, for a line too narrow for both (the header names the
        board's player)."""
        name = self._name(self.shown)
        if self.table.me is None:
            return (_("Watching {name}: ←/→ or Tab for another board.").format(name=name),
                    _("←/→ or Tab: another board."))
        return (_("Watching {name}: ←/→ or Tab for another board, Esc for yours.").format(
            name=name), _("←/→ or Tab: another board. Esc: yours."))

    def caption(self) -> str:
        """The header's words for a board watched: whose it is."""
        return _("Watching {name}").format(name=self._name(self.shown))

    def standing(self) -> str:
        """The header's line under the score: the shown board's place at the table by
        the scores now (a live table has no record to beat)."""
        table = self.table
        if not 0 <= self.shown < len(table.scores) or len(table.scores) < 2 \
                or self.asked_by is not None:  # the scores are the next round's then
            return ""
        place = _("Place {rank} of {count}").format(
            rank=format_number(table.rank(self.shown)),
            count=format_number(len(table.scores)))
        rating = table.seat_rating(self.shown)
        if rating is None:
            return place
        return _("{place} · rating {rating}").format(place=place, rating=rating_text(rating))

    # -- the band of the other boards -----------------------------------------------------------

    def opponents(self) -> list[int]:
        """The seats shown in the band: every seat but the one shown full-size."""
        return [i for i in range(len(self.table.games)) if i != self.shown]

    def _place_live(self, width: int, height: int) -> None:
        self.banner.width = int(width - 16)
        for section in getattr(self, "parts", []):
            if isinstance(section, LiveSection):
                section.set_area(Rect(0, 0, width, height))
        self._place_band(width)
        self._place_panel()

    def _place_panel(self) -> None:
        if self.shown_result is None:
            return
        self.panel.place(self.window.width, self.window.height, self.reserve_bottom,
                         self.scale, self._result_buttons())

    def _place_band(self, width: int) -> None:
        """The opponents' boards side by side in the band at the bottom, each with
        its player's name and score above it (read at a glance: never smaller than
        :data:`READABLE` while it fits) and a margin below it."""
        seats = self.opponents()
        band = self.reserve_bottom
        self.band_rects = []
        self.band_texts = []
        self.band_marks = []
        if not seats:
            return
        slot = width / len(seats)
        size = max(READABLE, 15 * self.scale)
        margin = max(BAND_MARGIN, BAND_MARGIN * self.scale)
        label_h = size * PIXELS_PER_POINT * 1.4  # the line's height, with its descenders
        for n, seat in enumerate(seats):
            game = self.table.games[seat]
            # whole pixels a cell: the grid's lines fall on pixels, sharp
            cell = float(max(1, math.floor(min((slot - 2 * margin) / game.cols,
                                               (band - label_h - 2 * margin) / game.rows))))
            w, h = cell * game.cols, cell * game.rows
            rect = Rect(round(n * slot + slot / 2 - w / 2), margin, w, h)
            self.band_rects.append(rect)
            label = Text("", rect.center_x, round(rect.top + margin / 3), theme.TEXT, size,
                         font_name=theme.FONT, anchor_x="center", anchor_y="bottom")
            self.band_texts.append(label)
            # who is there, on the board itself (at whole pixels: sharp)
            self.band_marks.append(Text("", round(rect.center_x), round(rect.center_y),
                                        theme.TEXT, size, font_name=theme.FONT, bold=True,
                                        anchor_x="center", anchor_y="center"))
        self.band_label_height = label_h
        self._band_labels()

    def _band_labels(self) -> None:
        size = max(READABLE, 15 * self.scale)
        slot = self.window.width / max(1, len(self.band_texts)) - 8
        for label, mark, seat in zip(self.band_texts, self.band_marks, self.opponents(),
                                     strict=False):
            name = self.table.player_name(seat)
            shown = named_rating(name, self.table.seat_rating(seat)) if name \
                else _("free seat")
            text = _("{name}: {points}").format(name=shown,
                                                 points=format_number(self.table.scores[seat]))
            state = self.table.seat_presence(seat)
            # finished as the server says (a game over offered eu's continue is not
            # yet); a seat that left did not finish
            if self.table.finished(seat) and state != "left":
                text += " ✓"
            label.text = text
            # a crowded band (eight seats in a narrow window) lets a name shrink
            fit_text(label, slot, self.band_label_height, size, smallest=9.0)
            mark.text = presence_words(state)
            fit_text(mark, slot - 8, self.band_label_height, size, smallest=MARK_SMALLEST)

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
        if table.refusal is not None:
            if table.refusal.kind == "too-many":  # the quick phrases' limit
                self.say(_("That is a lot of quick phrases: please wait a moment before "
                           "the next one."), _("Too many phrases: wait a moment."),
                         seconds=PHRASE_SECONDS)
            else:
                self.say(refusal_words(table))
            table.refusal = None
        heard = [h for h in table.take_heard() if phrase_words(h.phrase)]
        if heard:  # the latest (several at once: the others were said a moment ago)
            self.last_speaker = heard[-1].name
            self.say(heard_words(heard[-1]), seconds=PHRASE_SECONDS)
        self.message_line.rest(waiting_words(table) or friendly_words(table))
        if table.left and table.left != self.told:
            self.say(left_words(table))
        self.told = table.left
        if table.me is not None and table.status == "playing" and table.result is None \
                and not table.remembered and self.asked_by is None:
            table.remembered = remember_table(table)
        if table.result is not None and self.asked_by is None:
            self.shown_result = table.result
            self._record_result()
        elif self.may_watch() and not self.hinted and len(table.games) > 1 \
                and self.shown == table.me and self.shown_result is None:
            self.hinted = True
            self.say(_("Your game is over: click a board below, or press ←/→, to watch it."))
        self._fill_panel()
        self.table_header()
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def table_header(self) -> None:
        """Bring the header's table words (whose board, its place) up to date."""

    def _fill_panel(self) -> None:
        """The panel's title, rows, note and buttons, from the result shown (and the
        rematch asked about)."""
        result = self.shown_result
        if result is None:
            return
        names = result.get("seats") if isinstance(result.get("seats"), list) else None
        scores = [s if isinstance(s, int) and not isinstance(s, bool) else 0
                  for s in (result.get("scores") or [])]
        winner = result.get("winner")

        def name(seat: int) -> str:
            if names is not None and seat < len(names) and isinstance(names[seat], str):
                return str(names[seat])
            return self._name(seat)

        said_left = result.get("left")
        left: list[Any] = said_left if isinstance(said_left, list) else []
        # as the server ranked them: the seats that left below those that finished
        order = sorted(range(len(scores)), key=lambda i: (i in left, -scores[i], i))
        rows = []
        for seat in order:
            place = 1 + sum(1 for other, s in enumerate(scores)
                            if s > scores[seat] and other not in left)
            # a seat that left says so where a seat that finished has its place
            mark = presence_words("left") if seat in left else \
                _("{place}.").format(place=format_number(place))
            rows.append((mark, name(seat), format_number(scores[seat]), seat == winner))
        changes = self.table.changes if self.asked_by is None else None
        self.panel.set_rows(rows, None if changes is None else
                            [change_text(changes[seat]) if seat < len(changes) else ""
                             for seat in order])
        if self.asked_by is not None:
            self.panel.title.text = _("{name} asks for a rematch").format(name=self.asked_by)
            note = _("Enter: play · Esc: leave the table")
            clock = self._round_clock()
            if clock is not None:
                note = _("The new round's clock is running: {time}").format(
                    time=rulewords.clock(clock)) + "\n" + note
            self.panel.note.text = note
        else:
            self.panel.title.text = _("Draw") if not isinstance(winner, int) else \
                _("{name} wins").format(name=name(winner))
            self.panel.note.text = _("Esc: leave the table") if self.table.me is None \
                else _("R: rematch · Esc: leave the table")
            if result.get("aborted") is True:  # a seat made fewer than 2 actions
                self.panel.note.text = _("Aborted: not rated.") + "\n" + self.panel.note.text
        self._place_panel()

    def _round_clock(self) -> float | None:
        """Seconds since the current round of a realtime table (a falling game)
        started, as the server's clock message said (``None`` for other games)."""
        return self.table.round_elapsed()

    def _record_result(self) -> None:
        """Keep the round's result in the player's records (once per round); a
        round only watched is not the player's: not kept."""
        table = self.table
        if table.recorded_round == table.round or table.result is None:
            return
        table.recorded_round = table.round
        forget_table()
        table.remembered = False  # a rematch's round is remembered again
        found = table.table_result()
        if found is None or found.seat is None:
            return
        try:
            self.session.records.record_table(found)
        except (ValueError, sqlite3.Error) as exc:
            self.say(_("The result could not be kept in your records: {reason}").format(
                reason=str(exc)[:120]))

    def _name(self, seat: Any) -> str:
        name = self.table.player_name(seat) if isinstance(seat, int) else None
        return name or _("free seat")

    def _live_update(self, delta_time: float) -> bool:
        """Take what the table sent; ``True`` when this screen was replaced (a
        rematch dealt a new round)."""
        table = self.table
        if self.asked_by is not None:
            self.asked_guard.advance(delta_time)
            second = self._round_clock()
            if second is not None and int(second) != self.asked_second:
                self.asked_second = int(second)
                self._fill_panel()  # the new round's clock runs on: shown as it goes
                invalidate = getattr(self.window, "invalidate", None)
                if callable(invalidate):
                    invalidate()
        muting = self.muting
        if muting is not None and muting[1].done:
            self.muting = None
            if muting[1].failure is not None:  # done here; the server did not keep it
                self.say(_("{name} could not be muted or unmuted on the server: "
                           "{reason}").format(name=muting[0],
                                              reason=online_error_text(muting[1].failure)))
        if table.update():
            if table.games and not any(g is self.game for g in table.games) \
                    and self.asked_by is None:
                me = table.me
                if me is not None and table.rematch_by is not None and table.rematch_by != me:
                    # another player asked: this window asks its player first
                    self.asked_by = self._name(table.rematch_by)
                    self.asked_guard = KeyGuard()
                    if self.shown_result is None:
                        self.shown_result = {"scores": [], "winner": None}
                    self.say("")
                else:
                    # asked here (or a spectator, or a round nobody asked for): at once
                    self.enter_round()
                    return True
            self._sync_table()
            self.refresh()
        return False

    def draw_table(self) -> None:
        """The band of the other boards (a seat not present dimmed, its mark on it)
        and the result panel (the live section's)."""
        for rect, mark, seat in zip(self.band_rects, self.band_marks, self.opponents(),
                                    strict=False):
            draw_small_board(self.table.games[seat], rect)
            if mark.text:
                draw_mark(mark, rect)
        for label in self.band_texts:
            label.draw()
        if self.shown_result is not None:
            self.panel.draw()

    def _draw_live(self) -> None:
        draw_banner(self.banner, self.window.width, self.window.height)

    def _live_key(self, symbol: int, modifiers: int) -> bool:
        """Keys of the table (the result, the rematch asked, watching); ``True`` when
        taken."""
        key = arcade.key
        if self.dialog.pause.open:
            return False
        phrase = {getattr(key, name): p for name, p in zip(PHRASE_KEYS, PHRASES,
                                                          strict=False)}.get(symbol)
        if phrase is not None and self.table.me is not None:
            self.say_phrase(phrase)
            return True
        if symbol == key.M and self.table.me is not None:
            self.mute()
            return True
        if self.asked_by is not None:
            if symbol in (key.ESCAPE, key.L):
                self.leave()
            elif symbol in (key.ENTER, key.RETURN, key.SPACE, key.P, key.R) \
                    and self.asked_guard.press(symbol):
                self.enter_round()
            return True
        if self.shown_result is not None:
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

    def on_activate(self) -> None:
        """The window has the focus again: the table is told its player is back."""
        self.table.window("active")

    def on_deactivate(self) -> None:
        """The window went to the background: the table shows its player away."""
        self.table.window("away")

    def _live_motion(self, x: float, y: float) -> bool:
        if self.dialog.pause.open:
            return False
        if self.shown_result is not None:
            hover_buttons(self._result_buttons(), x, y)
            return True
        return False

    def _live_press(self, x: float, y: float) -> bool:
        if self.dialog.pause.open:
            return False
        if self.shown_result is not None:
            click_buttons(self._result_buttons(), x, y)
            return True
        if self.may_watch():
            for rect, seat in zip(self.band_rects, self.opponents(), strict=False):
                if rect.contains(x, y):
                    self.watch(seat)
                    return True
        return False

    def _result_buttons(self) -> list[Button]:
        if self.asked_by is not None:
            return [self.play_button, self.leave_button]
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
        self.band_marks = []
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
            if self.watching:  # whose board this is, where the rules' name was
                self.title_text.color = theme.ACCENT
                self.title_text.bold = True
                fit_title(self.title_text, self.caption(), float(self.title_text.width or 1),
                          max(TITLE_SMALLEST, 20 * self.scale))

    def refresh(self) -> None:
        TrayGameView.refresh(self)
        if hasattr(self, "banner"):
            self.table_header()

    def table_header(self) -> None:
        """Under the score: the shown board's place at the table (not the local
        record, which means nothing at a live table)."""
        hud = self.layout.hud
        self.best_text.text = self.standing()
        fit_text(self.best_text, hud.width * 0.4 - 16 if self.layout.portrait else hud.width,
                 22 * self.scale, 14 * self.scale)

    def on_update(self, delta_time: float) -> None:
        if self._live_update(delta_time):
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
        self.band_marks = []
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
        self.owner_text = Text("", 0, 0, theme.MUTED, 14, font_name=theme.FONT,
                               anchor_x="center", anchor_y="center")
        self.hud.texts.append(self.owner_text)
        # the keys as they are at a live table: Esc opens its menu (nothing pauses)
        self.controls_section.help_text.text = (
            _("Keys: ←/→ move   ↓ soft drop   Space hard drop   Esc menu")
            if self.shown == me else
            _("Keys: ←/→ or Tab another board   Esc menu") if me is None else
            _("Keys: ←/→ or Tab another board   Esc your board"))
        self._live_setup(table, leave)
        if self.plays:
            self.catch_up()
        self.clock_at = self.table.now()

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
        elapsed = self.table.round_elapsed()
        if elapsed is None or self.game.over:
            return
        behind = elapsed - self.game.elapsed_us / 1_000_000
        if behind > CATCH_UP_SECONDS:
            self._landed(self.game.tick(behind))
            self.refresh()

    def game_update(self, delta_time: float) -> None:
        """The game runs on the wall clock (what the server compares it with), not
        on the frames' times, so a slow frame never leaves it behind."""
        now = self.table.now()
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
                mirror_move(self.game, action)
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
            mirror_move(rebuilt, action)
        assert table.me is not None
        table.games[table.me] = rebuilt
        self.window.show_view(LiveFallingView(self.session, table, self.leave_table))

    def saved(self) -> None:
        self.dialog.sync()  # never the player's saves: a local game stays as it is

    def place_sections(self, width: int, height: int) -> None:
        self.reserve_bottom = band_height(height)
        SudokuView.place_sections(self, width, round(height - self.banner_room(width)))
        if hasattr(self, "banner"):
            # the score and the clock a little lower: the table's line goes above them
            scale = self.scale
            self.score_text.position = (width / 2, height - 62 * scale)
            self.clock_text.position = (width / 2, height - 100 * scale)
            self._place_live(width, height)
            self.table_header()

    def table_header(self) -> None:
        """Above the score: whose board this is when watching, and its place at the
        table."""
        scale = self.scale
        standing = self.standing()
        if self.watching:
            self.owner_text.text = f"{self.caption()} · {standing}" if standing \
                else self.caption()
            self.owner_text.color = theme.ACCENT
            self.owner_text.bold = True
        else:
            self.owner_text.text = standing
            self.owner_text.color = theme.MUTED
            self.owner_text.bold = False
        width, height = self.window.width, self.window.height
        self.owner_text.position = (width / 2, height - 16 * scale)
        fit_text(self.owner_text, width - 2 * 120 * scale - 8, max(19.0, 22 * scale),
                 max(13.0, 15 * scale), smallest=11.0)

    def on_update(self, delta_time: float) -> None:
        if self._live_update(delta_time):
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


def draw_mark(mark: Text, rect: Rect) -> None:
    """A seat's presence mark on its small board ``rect``: the board dimmed, the
    mark on a panel across its middle (as wide as the mark needs)."""
    arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                      theme.SCRIM)
    pad = 6.0
    w, h = mark.content_width + 2 * pad, mark.content_height + pad
    arcade.draw_lrbt_rectangle_filled(mark.x - w / 2, mark.x + w / 2, mark.y - h / 2,
                                      mark.y + h / 2, theme.PANEL)
    mark.draw()


def draw_small_board(game: blockyard.Game, rect: Rect) -> None:
    """An opponent's board in ``rect`` as the full-size board looks: its empty
    cells in the empty cells' colour on the board's, so its grid shows; the
    filled ones in their pieces' colours."""
    arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                      theme.BOARD_BG)
    board = game.grid
    cols, rows = game.cols, game.rows
    cell = rect.width / cols
    gap = max(1.0, round(cell * 0.08))  # the board's colour between the cells: the grid
    arcade.draw_lrbt_rectangle_filled(rect.left + gap, rect.right - gap, rect.bottom + gap,
                                      rect.top - gap, theme.EMPTY_CELL)
    lines: list[tuple[float, float]] = []
    for c in range(1, cols):
        x = rect.left + c * cell
        lines += [(x, rect.bottom), (x, rect.top)]
    for r in range(1, rows):
        y = rect.bottom + r * cell
        lines += [(rect.left, y), (rect.right, y)]
    if lines:  # one call for every line of the grid
        arcade.draw_lines(lines, theme.BOARD_BG, 2 * gap)
    bits, colours = board.bits, board.colours
    for index in range(rows * cols):
        if bits >> index & 1:
            r, c = divmod(index, cols)
            left = rect.left + c * cell
            top = rect.top - r * cell
            arcade.draw_lrbt_rectangle_filled(left + gap, left + cell - gap, top - cell + gap,
                                              top - gap, theme.piece_colour(colours[index] or 1))


def open_table(host: Host, table_id: int, code: str = "") -> WaitingView:
    """Connect to a table (``code``: the ``ID-CODE`` a player shared, or "") as the
    account's player: its waiting screen, which opens the duel (at once when it
    is under way); leaving goes back to the lobby."""
    account = host.online
    private_code = parse_table_code(code)[1] if code else None
    client = Client(account.server, account.token or None)
    table = TableSession(client.live(table_id, private_code), account.name, code,
                         account.server, client.compare,
                         mute=client.mute if account.token else None,
                         unmute=client.unmute if account.token else None,
                         mutes=client.mutes if account.token else None)
    leave = to_screen(host, "lobby")
    session = host.session()
    window = host.window

    def open_duel() -> None:
        window.show_view(live_view(session, table, leave))

    return WaitingView(table, open_duel, leave)


def open_remembered_table(host: Host) -> WaitingView | None:
    """The table a window closed mid-round was playing at, for the account signed
    in (reopened with every move so far); ``None`` when there is none."""
    account = host.online
    code = remembered_table(account.server, account.name) if account.signed_in else None
    if code is None:
        return None
    return open_table(host, parse_table_code(code)[0], code if "-" in code else "")


__all__ = ["LiveDuelView", "LiveFallingView", "LiveTableScreen", "ServerJudgedInput",
           "WaitingView", "connection_banner", "differs_text", "divergence_text",
           "draw_small_board", "left_words", "live_view", "open_remembered_table",
           "open_table", "refusal_words", "seat_labels", "unplayable_words"]
