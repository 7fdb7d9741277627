"""The launcher: every ruleset found, grouped by family, chosen by mouse or keyboard.

Rulesets whose rule files share a ``[display] entry`` (the nepal pair) are one
row whose only setting is their ``option``. A saved game in progress is offered
first. Each row also offers its rules (how to play), statistics, a duel and its
replays; a daily ruleset's row says whether today's game was played, its
score and, once the server said it, its rank of how many players. Rule files
that cannot be loaded (a broken file, a missing or disabled plugin) are listed
last, greyed, with their reason; choosing one says why it
cannot be played. Keys: ↑/↓ choose (going round at either end, which the footer
says), Page Up/Down a screenful, Home/End the first/last row; a wheel notch
scrolls one row. ←/→ change the setting, Enter play, H how to play,
T statistics, D duel, R replays, C enter a challenge code, S settings, Esc quit.

When a player is signed in, the launcher listens on their own live connection
(the background thread of :class:`~blockyard.online.PlayerFeed`; the screen
compares one number a frame) and shows a notice under its title for an
invitation or a table a followed player opened (:mod:`.online.notices`): O (or
its Open button) takes the seat in the lobby, which opens the table; X (or
Dismiss) puts the notice away.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import arcade

import blockyard
from blockyard.game import today_in

from . import dailies, rulewords, theme
from .i18n import LANGUAGES, N_, _, format_number, language, localise_digits, ngettext
from .layout import Rect
from .online.leaderboard_view import known_rank
from .online.notices import INVITATION, Notice, feed_notices, notice_words
from .persistence import SavedGame
from .rulewords import ruleset_description, ruleset_name
from .text import PIXELS_PER_POINT, Text
from .widgets import Button, fit_text

if TYPE_CHECKING:
    from .session import Launcher


MIN_FONT = 9.0
"""The smallest font size (points; 12 pixels) of the launcher's texts: narrower
windows leave secondary words out rather than shrink text below it."""

#: The launcher's headings of the bundled families (others show their id in capitals).
FAMILIES = {"continue": N_("Continue"), "eu": N_("EU"), "gravity": N_("GRAVITY"),
            "mixed": N_("MIXED"), "nepal": N_("NEPAL"), "sudoku": N_("SUDOKU"),
            "tiered": N_("TIERED"), "unavailable": N_("Cannot be loaded"),
            "online": N_("ONLINE")}


@dataclass
class Entry:
    """One launcher row: a ruleset, or a group of rulesets with a setting."""

    title: str
    family: str
    description: str
    options: list[tuple[str, str]]   # (option label, ruleset id)
    choice: int = 0
    resume: SavedGame | None = None
    key: str = ""                    # the [display] entry or ruleset id: remembers the choice
    texts: list[arcade.Text] = field(default_factory=list)
    rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    option_rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    duel_rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    replays_rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    stats_rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    help_rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    badge_rect: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    """The online row's badge: the number of pending invitations (none: empty)."""
    error: str | None = None         # why the ruleset cannot be loaded (the row is greyed)

    @property
    def ruleset_id(self) -> str:
        return self.options[self.choice][1]


def build_entries(app: Launcher, loaded: list[blockyard.Ruleset] | None = None) -> list[Entry]:
    """The launcher rows, in family order, with records and games played;
    ``loaded``, when given, receives every ruleset listed."""
    entries: list[Entry] = []
    for saved in sorted(app.saves.values(), key=lambda s: -s.saved_at):
        entries.append(Entry(resume_title(saved), "continue", resume_note(saved),
                             [("", saved.game.ruleset.id)], resume=saved))
    online = getattr(app, "online", None)
    if online is not None and online.online:  # a server is set: its lobby
        who = _("Signed in as {name} on {server}.").format(
            name=online.name, server=online.server) if online.signed_in else \
            _("Server {server}: not signed in.").format(server=online.server)
        entries.append(Entry(_("Play online"), "online", who, [("", "")], key="online"))
    grouped: dict[str, Entry] = {}
    unavailable: list[Entry] = []
    for info in blockyard.list_rulesets():
        error = info.error
        if error is None:
            try:
                ruleset = blockyard.load_ruleset(info.path)
            except Exception as exc:  # nothing a plugin does may stop the launcher
                error = str(exc).strip().splitlines()[0] if str(exc).strip() \
                    else type(exc).__name__
        if error is not None:
            unavailable.append(Entry(info.name or info.id, "unavailable", error,
                                     [("", info.id)], key=info.id, error=error))
            continue
        if loaded is not None:
            loaded.append(ruleset)
        display = rulewords.display(ruleset)
        key = ruleset.display.entry or ruleset.id
        if key in grouped:
            entry = grouped[key]
            entry.options.append((display.option or ruleset_name(ruleset), ruleset.id))
            if display.default:
                entry.choice = len(entry.options) - 1
            continue
        entry = Entry(display.entry or ruleset_name(ruleset), ruleset.family,
                      ruleset_description(ruleset), [(display.option, ruleset.id)],
                      key=key)
        grouped[key] = entry
        entries.append(entry)
    entries += sorted(unavailable, key=lambda e: e.ruleset_id)
    for entry in entries:
        remembered = app.settings.options.get(entry.key)
        for i, (_label, rid) in enumerate(entry.options):
            if rid == remembered:
                entry.choice = i
    return entries


def resume_title(saved: SavedGame) -> str:
    """The launcher title of a game in progress: its ruleset, and whose duel turn
    or which challenge it is."""
    title = _("Resume: {name}").format(name=ruleset_name(saved.game.ruleset))
    if saved.duel is not None:
        names = saved.duel.get("names", [])
        turn = len(saved.duel.get("results", []))
        if 0 <= turn < len(names):
            title += " — " + _("duel, {name}'s turn").format(name=names[turn])
    elif saved.challenge is not None:
        title += " — " + _("challenge ({points} to beat)").format(
            points=format_number(saved.challenge))
    return title


def resume_parts(saved: SavedGame) -> list[str]:
    """What the launcher says of a game in progress: its score and moves, and
    whether it is over."""
    game = saved.game
    parts = [ngettext("Score {points} after {moves} move", "Score {points} after {moves} moves",
                      game.moves).format(points=format_number(game.score),
                                         moves=format_number(game.moves))]
    if game.over:
        try:
            offered = bool(game.actions())
        except blockyard.PluginError:  # said on the plugin fault screen when it is played
            offered = False
        parts.append(_("finished, can be continued") if offered
                     else _("finished, not yet recorded"))
    return parts


def resume_note(saved: SavedGame) -> str:
    """:func:`resume_parts` as one line."""
    return "  ·  ".join(resume_parts(saved))


def fitted(text: arcade.Text, width: float) -> arcade.Text:
    """Shorten ``text`` with an ellipsis until it is at most ``width`` pixels wide."""
    if text.content_width <= width:
        return text
    words = text.text.split()
    while words and text.content_width > width:
        words.pop()
        text.text = " ".join(words) + " …"
    return text


class LauncherView(arcade.View):
    """Choose a ruleset."""

    def __init__(self, app: Launcher) -> None:
        super().__init__()
        self.app = app
        self.installed: list[blockyard.Ruleset] = []
        self.entries = build_entries(app, self.installed)
        self.selected = 0
        last = app.settings.last_ruleset
        for i, entry in enumerate(self.entries):
            if entry.resume is None and any(rid == last for _, rid in entry.options):
                self.selected = i
                break
        if self.entries and self.entries[0].resume is not None:
            self.selected = 0
        self.scroll = 0.0
        self.title = Text(_("Blockyard"), 0, 0, theme.TEXT, 34, font_name=theme.FONT,
                                 bold=True, anchor_x="center", anchor_y="center")
        self.challenge_button = Button(_("Challenge code"), self.app.prompt_challenge,
                                       font_size=13)
        self.language_button = Button(LANGUAGES[language()], self.next_language, font_size=13)
        self.settings_button = Button(_("Settings"), self.open_settings, font_size=13)
        self.hint = Text(_("↑↓ choose  ←→ setting  Enter play  H rules  T stats  D duel  "
                           "R replays  C code  S settings  L language  Esc quit"), 0, 0,
                                theme.MUTED, 13, font_name=theme.FONT, anchor_x="center",
                                anchor_y="center")
        self.notices = list(app.notices)  # files set aside: said once, here
        app.notices.clear()
        self.notice_text = Text("\n".join(self.notices), 0, 0, theme.ACCENT, 12,
                                       font_name=theme.FONT, anchor_x="center", anchor_y="top",
                                       multiline=True, width=600, align="center")
        self.more = Text(_("▼ more below: scroll or ↓"), 0, 0, theme.ACCENT, 12,
                                font_name=theme.FONT, bold=True, anchor_x="right",
                                anchor_y="center")
        # said after ↑/↓ went round from one end of the list to the other
        self.round_note = Text("", 0, 0, theme.ACCENT, 12, font_name=theme.FONT, bold=True,
                               anchor_x="right", anchor_y="center")
        self.headers: list[arcade.Text] = []
        self.row_height = 80.0
        # the signed-in player's own live connection: the badge of invitations and
        # the notices (an invitation, a followed player's new table)
        self.feed = app.player_feed() if any(e.family == "online" for e in self.entries) \
            else None
        self.feed_version = -1
        self.invitations = 0
        self.notices_waiting: list[Notice] = []
        """The notices not dismissed, the first one shown."""
        self.live_rect = Rect(0, 0, 0, 0)
        self.live_text = Text("", 0, 0, theme.TEXT, 13, font_name=theme.FONT,
                                anchor_y="center")
        self.live_open = Button(_("Open (O)"), self.open_notice, font_size=13, color="GO")
        self.live_dismiss = Button(_("Dismiss (X)"), self.dismiss_notice, font_size=13)
        self._take_feed()
        self._layout()

    def _take_feed(self) -> bool:
        """Take the number of pending invitations and the notices from the feed;
        whether they changed."""
        feed = self.feed
        if feed is None or feed.version == self.feed_version:
            return False
        self.feed_version = feed.version
        count = len(feed.invitations or []) if feed.state != "closed" else 0
        waiting = feed_notices(feed, self.app.feeds.dismissed)
        if count == self.invitations and waiting == self.notices_waiting:
            return False
        self.invitations, self.notices_waiting = count, waiting
        return True

    @property
    def live_notice(self) -> Notice | None:
        """The notice shown (``None``: none)."""
        return self.notices_waiting[0] if self.notices_waiting else None

    def open_notice(self) -> None:
        """Open the notice shown: the lobby accepts the invitation or takes a seat
        at the followed player's table, then opens it."""
        notice = self.live_notice
        if notice is None:
            return
        self.app.feeds.dismissed.add(notice.key)
        if notice.kind == INVITATION:
            self.app.show("lobby", accept=notice.table, accept_rules=notice.ruleset_id)
        else:
            self.app.show("lobby", join=notice.table, accept_rules=notice.ruleset_id)

    def dismiss_notice(self) -> None:
        """Put the notice shown away (the next one, if any, shows)."""
        notice = self.live_notice
        if notice is None:
            return
        self.app.feeds.dismissed.add(notice.key)
        self.notices_waiting = [n for n in self.notices_waiting if n.key != notice.key]
        self._layout()
        invalidate = getattr(self.window, "invalidate", None)
        if callable(invalidate):
            invalidate()

    def on_update(self, delta_time: float) -> None:
        """An invitation came or went: the badge follows (one number compared a
        frame; the window draws nothing otherwise)."""
        if self._take_feed():
            self._layout()
            invalidate = getattr(self.window, "invalidate", None)
            if callable(invalidate):
                invalidate()

    def _stats_parts(self, entry: Entry) -> list[str]:
        """The parts of a row's note, most important first (the narrowest windows
        show only the first ones)."""
        if entry.resume is not None:
            return resume_parts(entry.resume)
        if entry.family == "online":
            if self.invitations:
                return [ngettext("{n} invitation waiting", "{n} invitations waiting",
                                 self.invitations).format(n=format_number(self.invitations)),
                        _("tables and live duels")]
            return [_("tables and live duels")]
        if entry.error is not None:
            return [_("cannot be loaded · Enter shows why")]
        ruleset = blockyard.load_ruleset(entry.ruleset_id)
        best = self.app.records.best(ruleset, None)
        games = self.app.records.stats(ruleset.id).games
        parts = [localise_digits(f"{ruleset.rows}×{ruleset.cols}")]
        if ruleset.is_daily:
            day = today_in(ruleset.timezone, self.app.now())
            today = self.app.records.played_today(ruleset, day)
            # whether today's game is played matters more than the date beside it
            parts.append(_("not played yet") if today is None
                         else _("played: {points} points").format(points=format_number(today)))
            ranked = known_rank(self.app.online, ruleset.id, day.isoformat())
            if ranked is not None:  # the server said it when the game was submitted
                parts.append(dailies.short_rank_text(*ranked))
            parts.append(rulewords.today_text(ruleset, self.app.now()))
        if ruleset.record_kind == "per-date":
            parts.append(_("best per day"))
        elif ruleset.record_kind == "best":
            parts.append(_("best {points}").format(points=format_number(best))
                         if best is not None else _("no record yet"))
            others = rulewords.best_shared_with(ruleset, self.installed)
            if others:
                parts.append(_("shared with {names}").format(names=", ".join(others)))
        parts.append(ngettext("{n} game played", "{n} games played", games).format(
            n=format_number(games)))
        return parts

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = max(0.75, min(1.3, min(width, height) / 720))
        self.scale = scale
        pad = 10 * scale
        # the list's texts are drawn through a camera (scrolling moves it, not them); its
        # viewport and projection are set from the window's size here, not read from the
        # GL context, which a view's on_resize runs before Arcade updates
        fb_width, fb_height = self.window.get_framebuffer_size()
        self.list_camera = arcade.Camera2D(
            viewport=arcade.LBWH(0, 0, fb_width, fb_height),
            projection=arcade.LRBT(-width / 2, width / 2, -height / 2, height / 2))
        self.text_offset = 0.0
        self._layout_header(width, height, scale, pad)
        self._layout_footer(width, scale)
        self._layout_notice(width, scale)
        if self.notices:
            self.notice_text.font_size = max(MIN_FONT, 12 * scale)
            self.notice_text.width = int(width * 0.9)
            self.notice_text.position = (width / 2, self.list_top - 4 * scale)
            self.list_top -= self.notice_text.content_height + 12 * scale
        margin = max(12.0, width * 0.04)
        y = self.list_top + self.scroll
        family = None
        self.headers = []
        for entry in self.entries:
            if entry.family != family:
                family = entry.family
                label = _(FAMILIES[family]) if family in FAMILIES else family.upper()
                header = Text(label, margin, y - 14 * scale, theme.ACCENT,
                              max(MIN_FONT, 13 * scale), font_name=theme.FONT, bold=True,
                              anchor_y="center")
                self.headers.append(fitted(header, width - 2 * margin))
                y -= 28 * scale
            y -= self._layout_row(entry, margin, y, width - 2 * margin, scale)

    def _layout_header(self, width: float, height: float, scale: float, pad: float) -> None:
        """The title, and the language, settings and challenge buttons beside it, or
        on a line below it when the window is too narrow for both."""
        bh = 36 * scale
        # each as wide as its label needs at full size (German's "Einstellungen")
        sizes = tuple(max(least * scale, button.natural_width(13 * scale)) for least, button in
                      ((110, self.language_button), (110, self.settings_button),
                       (160, self.challenge_button)))
        self.title.font_size = 34 * scale
        left_end = pad + sizes[0] + 8 * scale + sizes[1] + 10 * scale
        right_start = width - pad - sizes[2] - 10 * scale
        title_w = self.title.content_width
        if title_w <= right_start - left_end:
            buttons_y = height - pad - bh
            centre = min(max(width / 2, left_end + title_w / 2), right_start - title_w / 2)
            self.title.position = (centre, buttons_y + bh / 2)
            header_bottom = min(buttons_y, buttons_y + bh / 2 - self.title.content_height / 2)
        else:
            fit_text(self.title, width - 2 * pad, 50 * scale, 34 * scale, smallest=MIN_FONT)
            title_h = self.title.content_height
            self.title.position = (width / 2, height - pad / 2 - title_h / 2)
            buttons_y = height - pad / 2 - title_h - 4 * scale - bh
            header_bottom = buttons_y
        self.language_button.place(Rect(pad, buttons_y, sizes[0], bh), 13 * scale)
        self.settings_button.place(Rect(pad + sizes[0] + 8 * scale, buttons_y, sizes[1], bh),
                                   13 * scale)
        self.challenge_button.place(Rect(width - pad - sizes[2], buttons_y, sizes[2], bh),
                                    13 * scale)
        self.list_top = header_bottom - 8 * scale

    def _layout_notice(self, width: float, scale: float) -> None:
        """The notice shown, in a bar under the header with its Open and Dismiss
        buttons (the buttons on a line of their own in a narrow window); the list
        starts below it."""
        notice = self.live_notice
        if notice is None:
            self.live_rect = Rect(0, 0, 0, 0)
            self.live_open.visible = self.live_dismiss.visible = False
            return
        self.live_open.visible = self.live_dismiss.visible = True
        margin = max(12.0, width * 0.04)
        wide = width - 2 * margin
        size = max(MIN_FONT, 13 * scale)
        inner, gap = 10 * scale, 8 * scale
        bh = max(30 * scale, size * PIXELS_PER_POINT * 1.8)
        bw = [max(90 * scale, b.natural_width(size) + 4 * scale)
              for b in (self.live_open, self.live_dismiss)]
        words = notice_words(notice)
        more = len(self.notices_waiting) - 1
        if more:
            words += "  " + _("(+{n} more)").format(n=format_number(more))
        beside = wide - 2 * inner - sum(bw) - 2 * gap
        one_line = Text(words, 0, 0, theme.TEXT, size, font_name=theme.FONT, bold=True)
        own_line = one_line.content_width > beside
        room = (wide - 2 * inner - 4 * scale) if own_line else beside
        # over the buttons, on two lines when one is too narrow (a long rules' name)
        self.live_text = Text(words, 0, 0, theme.TEXT, size, font_name=theme.FONT, bold=True,
                              anchor_y="center", multiline=True, width=max(40, int(room)))
        fit_text(self.live_text, room, 2.6 * size * PIXELS_PER_POINT, size, smallest=MIN_FONT)
        line_h = max(bh, self.live_text.content_height + 8 * scale)
        height = line_h + (bh + gap if own_line else 0) + 2 * 4 * scale
        top = self.list_top
        self.live_rect = r = Rect(margin, top - height, wide, height)
        text_y = r.top - 4 * scale - line_h / 2
        self.live_text.position = (round(r.left + inner + 4 * scale), round(text_y))
        y = (r.bottom + 4 * scale) if own_line else text_y - bh / 2
        x = r.right - inner - sum(bw) - gap
        self.live_open.place(Rect(x, y, bw[0], bh), size)
        self.live_dismiss.place(Rect(x + bw[0] + gap, y, bw[1], bh), size)
        for label in (self.live_open.text, self.live_dismiss.text):  # at whole pixels
            label.position = (round(label.x), round(label.y))
        self.list_top = r.bottom - 8 * scale

    def _layout_footer(self, width: float, scale: float) -> None:
        """The key hint at the bottom, wrapped to the window's width, and the "more
        below" line above it; the list ends above both."""
        size = max(MIN_FONT, 12 * scale)
        # a key stays with its label ("R Wiederholungen"): lines break only between
        # the items, which the hint separates with two spaces
        text = re.sub(r"(?<=\S) (?=\S)", "\u00a0", self.hint.text)
        self.hint = Text(text, width / 2, 4 * scale, theme.MUTED, size,
                         font_name=theme.FONT, anchor_x="center", anchor_y="bottom",
                         multiline=True, width=int(width - 16), align="center")
        self.more.font_size = size
        self.more.position = (width - 12 * scale, 4 * scale + self.hint.content_height
                              + 2 * scale + self.more.content_height / 2)
        fitted(self.more, width - 24 * scale)
        self.round_note.font_size = size
        self.round_note.position = self.more.position
        fitted(self.round_note, width - 24 * scale)
        self.list_bottom = self.more.y + self.more.content_height / 2 + 4 * scale

    def _layout_row(self, entry: Entry, left: float, top: float, width: float,
                    scale: float) -> float:
        """Place the row of ``entry`` below ``top`` and build its texts; its height."""
        title_size = max(MIN_FONT + 2, 17 * scale)
        small = max(MIN_FONT, 11.5 * scale)
        title_h = max(26 * scale, title_size * PIXELS_PER_POINT * 1.4)
        inner, gap = 14 * scale, 6 * scale
        description = None if entry.resume is not None else Text(
            entry.description if entry.error is not None or entry.family == "online"
            else ruleset_description(blockyard.load_ruleset(entry.ruleset_id)), 0, 0,
            theme.MUTED, small, font_name=theme.FONT, anchor_y="center")
        # (a line as tall as its script needs: Devanagari's marks reach further)
        line_h = max(18 * scale, small * PIXELS_PER_POINT * 1.45,
                     0 if description is None else description.content_height + 2 * scale)
        button_h = max(24 * scale, small * PIXELS_PER_POINT * 1.6)
        labels: list[tuple[str, str]] = [] if entry.resume is not None or entry.error \
            or entry.family == "online" else [
            ("help", _("Rules")), ("stats", _("Stats")), ("duel", _("Duel")),
            ("replays", _("Replays"))]
        label_texts = [Text(label, 0, 0, theme.TEXT, small, font_name=theme.FONT, bold=True,
                            anchor_x="center", anchor_y="center") for _name, label in labels]
        widths = self._button_widths(label_texts, width - 16 * scale, scale, gap, small)
        buttons_w = sum(widths) + max(0, len(labels) - 1) * gap
        parts = self._stats_parts(entry)
        # the buttons share the bottom line with the note when the note's first two
        # parts still fit beside them
        first_two = Text("  ·  ".join(parts[:2]), 0, 0, theme.TEXT, small, font_name=theme.FONT)
        own_line = bool(labels) and (
            buttons_w > width - 2 * inner - 110 * scale
            or first_two.content_width > width - 2 * inner - buttons_w - gap)
        lines = [title_h] + ([line_h] if entry.resume is None else []) + [button_h] \
            + ([button_h] if own_line else [])
        height = sum(lines) + 2 * 5 * scale + gap
        entry.rect = r = Rect(left, top - height, width, height - gap)
        title_y = r.top - 5 * scale - title_h / 2
        texts: list[arcade.Text] = []
        if len(entry.options) > 1:
            entry.option_rect = Rect(r.right - inner - min(220 * scale, width * 0.45),
                                     title_y - 14 * scale, min(220 * scale, width * 0.45),
                                     28 * scale)
            option = Text(f"◀  {entry.options[entry.choice][0]}  ▶",
                          entry.option_rect.center_x, entry.option_rect.center_y,
                          theme.ACCENT, max(MIN_FONT, 14 * scale), font_name=theme.FONT,
                          bold=True, anchor_x="center", anchor_y="center")
            fit_text(option, entry.option_rect.width, entry.option_rect.height,
                     max(MIN_FONT, 14 * scale), smallest=MIN_FONT)
            title_room = entry.option_rect.left - r.left - inner - 8 * scale
        else:
            entry.option_rect = Rect(0, 0, 0, 0)
            option = None
            title_room = r.width - 2 * inner
        entry.badge_rect = Rect(0, 0, 0, 0)
        badge = None
        if entry.family == "online" and self.invitations:
            badge = Text(format_number(self.invitations), 0, title_y, theme.TEXT,
                         max(MIN_FONT, 13 * scale), font_name=theme.FONT, bold=True,
                         anchor_x="center", anchor_y="center")
            side = max(26 * scale, badge.content_height + 6 * scale)
            wide = max(side, badge.content_width + 14 * scale)
            entry.badge_rect = Rect(r.right - inner - wide, title_y - side / 2, wide, side)
            badge.x = entry.badge_rect.center_x
            title_room -= wide + 8 * scale
        title = Text(entry.title, r.left + inner, title_y,
                     theme.TEXT if entry.error is None else theme.DISABLED_TEXT, title_size,
                     font_name=theme.FONT, bold=True, anchor_y="center")
        fit_text(title, title_room, title_h, title_size, smallest=max(MIN_FONT + 1, 13 * scale))
        texts.append(fitted(title, title_room))
        bottom_y = r.bottom + 5 * scale + button_h / 2  # centre of the bottom line
        if description is not None:
            description.position = (r.left + inner, r.top - 5 * scale - title_h - line_h / 2)
            texts.append(fitted(description, r.width - 2 * inner))
        note_y = bottom_y + (button_h if own_line else 0)
        note_room = r.width - 2 * inner - (0 if own_line or not labels else buttons_w + gap)
        texts.append(self._note(parts, r.left + inner, note_y, small,
                                note_room))
        if option is not None:
            texts.append(option)
        if badge is not None:
            texts.append(badge)
        rects: dict[str, Rect] = {}
        x = r.right - 8 * scale - buttons_w
        for (name, _label), text, bw in zip(labels, label_texts, widths, strict=True):
            rects[name] = rect = Rect(x, bottom_y - button_h / 2, bw, button_h)
            text.position = (rect.center_x, rect.center_y)
            texts.append(text)
            x += bw + gap
        empty = Rect(0, 0, 0, 0)
        entry.help_rect = rects.get("help", empty)
        entry.stats_rect = rects.get("stats", empty)
        entry.duel_rect = rects.get("duel", empty)
        entry.replays_rect = rects.get("replays", empty)
        for shown in texts:  # at whole pixels: glyphs at half pixels lose a row
            shown.position = (round(shown.x), round(shown.y))
        entry.texts = texts
        return height

    @staticmethod
    def _button_widths(texts: Sequence[arcade.Text], room: float, scale: float, gap: float,
                       size: float) -> list[float]:
        """The widths of a row's buttons: all as wide as the widest label when that
        fits ``room``, else each as wide as its own label ("Wiederholungen" beside
        "Duell" at 480 pixels), else an equal share with the labels made smaller."""
        if not texts:
            return []
        own = [max(40 * scale, t.content_width + 12 * scale) for t in texts]
        spare = room - gap * (len(texts) - 1)
        same = max([56 * scale, *own])
        if same * len(texts) <= spare:
            return [same] * len(texts)
        if sum(own) <= spare:
            return own
        share = spare / len(texts)
        for text in texts:
            fit_text(text, share - 6 * scale, text.content_height * 2, size, smallest=MIN_FONT)
        return [share] * len(texts)

    @staticmethod
    def _note(parts: list[str], x: float, y: float, size: float, room: float) -> arcade.Text:
        """The note line of a row: as many of ``parts`` (most important first) as fit
        ``room`` pixels at ``size``; the first alone is shortened if it must be."""
        text = Text("  ·  ".join(parts), x, y, theme.TEXT, size, font_name=theme.FONT,
                    anchor_y="center")
        while len(parts) > 1 and text.content_width > room:
            parts = parts[:-1]
            text.text = "  ·  ".join(parts)
        return fitted(text, room)

    def _ensure_visible(self) -> None:
        if not self.entries:
            return
        rect = self.entries[self.selected].rect
        before = self.scroll
        if rect.bottom < self.list_bottom:
            self.scroll += self.list_bottom - rect.bottom
        elif rect.top > self.list_top:
            self.scroll -= rect.top - self.list_top
        self.scroll = max(0.0, self.scroll)
        self._shift(self.scroll - before)

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        for i, entry in enumerate(self.entries):
            r = entry.rect
            if r.top < 0 or r.bottom > self.window.height:
                continue
            color = theme.PANEL_HOVER if i == self.selected else theme.PANEL
            if entry.error is not None:
                color = theme.DISABLED
            arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, color)
            if i == self.selected:
                arcade.draw_lrbt_rectangle_filled(r.left, r.left + 5 * self.scale, r.bottom,
                                                  r.top, theme.ACCENT)
            for small in (entry.help_rect, entry.stats_rect, entry.duel_rect,
                          entry.replays_rect):
                if small.width:
                    arcade.draw_lrbt_rectangle_filled(small.left, small.right, small.bottom,
                                                      small.top, theme.BOARD_BG)
            badge = entry.badge_rect
            if badge.width:
                arcade.draw_lrbt_rectangle_filled(badge.left, badge.right, badge.bottom,
                                                  badge.top, theme.BAD)
        camera = self.list_camera
        camera.position = (self.window.width / 2, round(self.window.height / 2 - self.text_offset))
        with camera.activate():
            for entry in self.entries:
                r = entry.rect
                if r.top < 0 or r.bottom > self.window.height:
                    continue
                for text in entry.texts:
                    text.draw()
            for header in self.headers:
                header.draw()
        arcade.draw_lrbt_rectangle_filled(0, self.window.width, self.list_top,
                                          self.window.height, theme.BACKGROUND)
        arcade.draw_lrbt_rectangle_filled(0, self.window.width, 0, self.list_bottom,
                                          theme.BACKGROUND)
        if self.round_note.text:
            self.round_note.draw()
        elif self.entries and min(e.rect.bottom for e in self.entries) < self.list_bottom - 1:
            self.more.draw()
        self.title.draw()
        if self.live_notice is not None:
            r = self.live_rect
            arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, theme.PANEL)
            arcade.draw_lrbt_rectangle_filled(r.left, r.left + 5 * self.scale, r.bottom, r.top,
                                              theme.GO)
            self.live_text.draw()
            self.live_open.draw()
            self.live_dismiss.draw()
        if self.notices:
            self.notice_text.draw()
        self.challenge_button.draw()
        self.settings_button.draw()
        self.language_button.draw()
        self.hint.draw()

    def open_settings(self) -> None:
        self.app.show_settings(self.app.show_launcher)


    def show_unavailable(self, entry: Entry) -> None:
        """Say why the ruleset of ``entry`` cannot be played (its row is greyed)."""
        from .menus import MenuView

        back = self.app.show_launcher
        self.window.show_view(MenuView(
            _("{name} cannot be loaded").format(name=entry.title),
            [entry.error or "", _("Fix the rule file or the plugin package, then open "
                                  "Blockyard again.")],
            [(_("Back"), back)], back))

    def choose(self, index: int) -> None:
        entry = self.entries[index]
        if entry.family == "online":
            self.app.show("lobby")
            return
        if entry.error is not None:
            self.show_unavailable(entry)
            return
        if entry.resume is not None:
            self.app.resume(entry.resume)
            return
        if len(entry.options) > 1:
            self.app.settings.options[entry.key] = entry.ruleset_id
        self.app.confirm_new_game(entry.ruleset_id, self.app.show_launcher)

    def cycle_option(self, index: int, step: int) -> None:
        entry = self.entries[index]
        if len(entry.options) > 1:
            entry.choice = (entry.choice + step) % len(entry.options)
            self.app.settings.options[entry.key] = entry.ruleset_id
            self._layout()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if not self.entries:
            return
        self.round_note.text = ""
        last = len(self.entries) - 1
        if symbol in (key.DOWN, key.UP):
            step = 1 if symbol == key.DOWN else -1
            self.selected = (self.selected + step) % len(self.entries)
            if last and self.selected == 0 and step == 1:
                self.say_round(_("↓ went round to the first row"))
            elif last and self.selected == last and step == -1:
                self.say_round(_("↑ went round to the last row"))
            self._ensure_visible()
        elif symbol in (key.PAGEDOWN, key.PAGEUP, key.HOME, key.END):
            page = self.rows_per_page()
            self.selected = {key.PAGEDOWN: min(last, self.selected + page),
                             key.PAGEUP: max(0, self.selected - page),
                             key.HOME: 0, key.END: last}[symbol]
            if self.selected == 0:  # the top of the list, its first heading too
                self._shift(-self.scroll)
                self.scroll = 0.0
            self._ensure_visible()
        elif symbol in (key.LEFT, key.RIGHT):
            self.cycle_option(self.selected, 1 if symbol == key.RIGHT else -1)
        elif symbol in (key.ENTER, key.RETURN, key.SPACE):
            self.choose(self.selected)
        elif self.entries[self.selected].family == "online" and symbol in (
                key.D, key.R, key.T, key.H):
            return  # the lobby's row has no rules, records or replays
        elif self.entries[self.selected].error is not None and symbol in (
                key.D, key.R, key.T, key.H):
            self.show_unavailable(self.entries[self.selected])
        elif symbol == key.O and self.live_notice is not None:
            self.open_notice()
        elif symbol == key.X and self.live_notice is not None:
            self.dismiss_notice()
        elif symbol == key.C:
            self.app.prompt_challenge()
        elif symbol == key.L:
            self.next_language()
        elif symbol == key.D and self.entries[self.selected].resume is None:
            self.app.start_duel(self.entries[self.selected].ruleset_id)
        elif symbol == key.R and self.entries[self.selected].resume is None:
            self.app.show_replays(self.entries[self.selected].ruleset_id)
        elif symbol == key.T:
            self.app.show_stats(self.entries[self.selected].ruleset_id)
        elif symbol == key.H:
            self.app.show_help(self.entries[self.selected].ruleset_id)
        elif symbol == key.S:
            self.open_settings()
        elif symbol == key.ESCAPE:
            self.app.confirm_quit(self)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        for i, entry in enumerate(self.entries):
            if entry.rect.contains(x, y) and y < self.list_top:
                self.selected = i

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.challenge_button.hit(x, y):
            self.app.prompt_challenge()
            return
        if self.settings_button.hit(x, y):
            self.open_settings()
            return
        if self.language_button.hit(x, y):
            self.next_language()
            return
        if self.live_notice is not None:
            if self.live_open.hit(x, y):
                self.open_notice()
                return
            if self.live_dismiss.hit(x, y):
                self.dismiss_notice()
                return
        if y >= self.list_top:
            return
        for i, entry in enumerate(self.entries):
            if entry.duel_rect.contains(x, y):
                self.app.start_duel(entry.ruleset_id)
                return
            if entry.replays_rect.contains(x, y):
                self.app.show_replays(entry.ruleset_id)
                return
            if entry.stats_rect.contains(x, y):
                self.app.show_stats(entry.ruleset_id)
                return
            if entry.help_rect.contains(x, y):
                self.app.show_help(entry.ruleset_id)
                return
            if entry.option_rect.contains(x, y):
                self.selected = i
                self.cycle_option(i, 1)
                return
            if entry.rect.contains(x, y):
                self.selected = i
                self.choose(i)
                return

    def next_language(self) -> None:
        """Switch to the next language of :data:`~.i18n.LANGUAGES` (at once)."""
        codes = list(LANGUAGES)
        self.app.set_language(codes[(codes.index(language()) + 1) % len(codes)])

    def rebuild(self) -> None:
        """Build every text again in the language now chosen, keeping the selection
        and the scroll position."""
        fresh = LauncherView(self.app)
        fresh.notices = self.notices
        fresh.notice_text.text = "\n".join(self.notices)
        fresh.selected = min(self.selected, max(0, len(fresh.entries) - 1))
        fresh.scroll = self.scroll
        fresh._layout()
        self.window.show_view(fresh)

    def say_round(self, text: str) -> None:
        """Say that the selection went round from one end of the list to the other."""
        self.round_note.text = text
        fitted(self.round_note, self.window.width - 24)

    def row_step(self) -> float:
        """The distance from one row to the next: what a wheel notch scrolls."""
        if len(self.entries) > 1:
            return abs(self.entries[0].rect.top - self.entries[1].rect.top) or self.row_height
        return self.entries[0].rect.height if self.entries else self.row_height

    def rows_per_page(self) -> int:
        """How many rows the list shows at once (Page Up/Down move by that many)."""
        return max(1, int((self.list_top - self.list_bottom) // max(1.0, self.row_step())))

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        if not self.entries:
            return
        lowest = min(e.rect.bottom for e in self.entries) - self.scroll
        most = max(0.0, self.list_bottom - lowest + 8)
        scroll = max(0.0, min(most, self.scroll - scroll_y * self.row_step()))
        self._shift(scroll - self.scroll)
        self.scroll = scroll

    def _shift(self, dy: float) -> None:
        """Move the built rows by ``dy`` pixels (scrolling rebuilds no text)."""
        if not dy:
            return

        def moved(rect: Rect) -> Rect:
            return Rect(rect.left, rect.bottom + dy, rect.width, rect.height) if rect.width \
                else rect

        for entry in self.entries:
            entry.rect = moved(entry.rect)
            entry.option_rect = moved(entry.option_rect)
            entry.duel_rect = moved(entry.duel_rect)
            entry.replays_rect = moved(entry.replays_rect)
            entry.stats_rect = moved(entry.stats_rect)
            entry.help_rect = moved(entry.help_rect)
            entry.badge_rect = moved(entry.badge_rect)
        self.text_offset += dy  # texts stay built; the list camera moves them
