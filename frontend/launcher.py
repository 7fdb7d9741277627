"""The launcher: every ruleset found, grouped by family, chosen by mouse or keyboard.

Rulesets whose rule files share a ``[display] entry`` (the nepal pair) are one
row whose only setting is their ``option``. A saved game in progress is offered
first. Each row also offers its rules (how to play), statistics, a duel and its
replays; a daily ruleset's row says whether today's game was played and its
score. Keys: ↑/↓ choose, ←/→ change the setting, Enter play, H how to play,
T statistics, D duel, R replays, C enter a challenge code, S settings, Esc quit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import arcade

import blockyard

from . import rulewords, theme
from .i18n import LANGUAGES, N_, _, format_number, language, localise_digits, ngettext
from .layout import Rect
from .persistence import SavedGame
from .rulewords import ruleset_description, ruleset_name
from .text import Text
from .widgets import Button, fit_text

if TYPE_CHECKING:
    from .session import Launcher


#: The launcher's headings of the bundled families (others show their id in capitals).
FAMILIES = {"continue": N_("Continue"), "eu": N_("EU"), "gravity": N_("GRAVITY"),
            "mixed": N_("MIXED"), "nepal": N_("NEPAL"), "sudoku": N_("SUDOKU"),
            "tiered": N_("TIERED")}


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

    @property
    def ruleset_id(self) -> str:
        return self.options[self.choice][1]


def build_entries(app: Launcher) -> list[Entry]:
    """The launcher rows, in family order, with records and games played."""
    entries: list[Entry] = []
    for saved in sorted(app.saves.values(), key=lambda s: -s.saved_at):
        entries.append(Entry(resume_title(saved), "continue", resume_note(saved),
                             [("", saved.game.ruleset.id)], resume=saved))
    grouped: dict[str, Entry] = {}
    for info in blockyard.list_rulesets():
        if info.error is not None:
            continue  # a broken file or plugin: `blockyard list` gives the reason
        try:
            ruleset = blockyard.load_ruleset(info.path)
        except Exception:  # nothing a plugin does may stop the launcher
            continue
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


def resume_note(saved: SavedGame) -> str:
    game = saved.game
    note = _("Score {points} after {moves} moves").format(points=format_number(game.score),
                                                          moves=format_number(game.moves))
    if game.over:
        note += "  ·  " + (_("over: it can go on") if game.actions()
                           else _("over: to be recorded"))
    return note


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
        self.entries = build_entries(app)
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
        self.headers: list[arcade.Text] = []
        self.row_height = 80.0
        self._layout()

    def _stats_line(self, entry: Entry) -> str:
        if entry.resume is not None:
            return entry.description
        ruleset = blockyard.load_ruleset(entry.ruleset_id)
        best = self.app.records.best(ruleset, None)
        games = self.app.records.stats(ruleset.id).games
        parts = [localise_digits(f"{ruleset.rows}×{ruleset.cols}")]
        if ruleset.is_daily:
            today = self.app.records.played_today(ruleset)
            parts.append(rulewords.today_text(ruleset))
            parts.append(_("not played yet") if today is None
                         else _("played: {points} points").format(points=format_number(today)))
        if ruleset.record_kind == "per-date":
            parts.append(_("best per day"))
        elif ruleset.record_kind == "best":
            parts.append(_("best {points}").format(points=format_number(best))
                         if best is not None else _("no record yet"))
        parts.append(ngettext("{n} game played", "{n} games played", games).format(
            n=format_number(games)))
        return "  ·  ".join(parts)

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = max(0.75, min(1.3, min(width, height) / 720))
        self.scale = scale
        self.row_height = 78 * scale
        self.title.position = (width / 2, height - 40 * scale)
        self.title.font_size = 34 * scale
        self.challenge_button.place(Rect(width - 170 * scale, height - 58 * scale, 160 * scale,
                                         36 * scale), 13 * scale)
        self.settings_button.place(Rect(128 * scale, height - 58 * scale, 110 * scale,
                                        36 * scale), 13 * scale)
        self.language_button.place(Rect(10 * scale, height - 58 * scale, 110 * scale,
                                        36 * scale), 13 * scale)
        self.hint.position = (width / 2, 18 * scale)
        fit_text(self.hint, width - 16, 24 * scale, 13 * scale)
        self.more.position = (width - 12 * scale, 40 * scale)
        self.more.font_size = 12 * scale
        self.list_top = height - 84 * scale
        self.text_offset = 0.0
        self.list_camera = arcade.Camera2D()
        if self.notices:
            self.notice_text.font_size = 12 * scale
            self.notice_text.width = int(width * 0.9)
            self.notice_text.position = (width / 2, self.list_top - 4 * scale)
            self.list_top -= self.notice_text.content_height + 12 * scale
        self.list_bottom = 40 * scale
        margin = max(16.0, width * 0.05)
        y = self.list_top + self.scroll
        family = None
        self.headers = []
        for entry in self.entries:
            if entry.family != family:
                family = entry.family
                label = _(FAMILIES[family]) if family in FAMILIES else family.upper()
                self.headers.append(Text(label, margin, y - 14 * scale, theme.ACCENT,
                                                13 * scale, font_name=theme.FONT, bold=True,
                                                anchor_y="center"))
                y -= 28 * scale
            entry.rect = Rect(margin, y - self.row_height, width - 2 * margin,
                              self.row_height - 6 * scale)
            r = entry.rect
            ruleset_note = self._stats_line(entry)
            description = "" if entry.resume is not None else \
                ruleset_description(blockyard.load_ruleset(entry.ruleset_id))
            title = Text(entry.title, r.left + 14 * scale, r.top - 18 * scale, theme.TEXT,
                                17 * scale, font_name=theme.FONT, bold=True, anchor_y="center")
            fit_text(title, r.width - (250 if len(entry.options) > 1 else 28) * scale,
                     26 * scale, 17 * scale, smallest=9)
            entry.texts = [
                fitted(title, r.width - (250 if len(entry.options) > 1 else 28) * scale),
                fitted(Text(description, r.left + 14 * scale, r.top - 40 * scale,
                                   theme.MUTED, 11.5 * scale, font_name=theme.FONT,
                                   anchor_y="center"),
                       r.width - (28 if entry.resume is not None else 220) * scale),
                Text(ruleset_note, r.left + 14 * scale, r.bottom + 12 * scale, theme.TEXT,
                            11.5 * scale, font_name=theme.FONT, anchor_y="center"),
            ]
            fit_text(entry.texts[-1], r.width - (28 if entry.resume is not None else 220) * scale,
                     26 * scale, 11.5 * scale, smallest=8)
            if len(entry.options) > 1:
                label = f"◀  {entry.options[entry.choice][0]}  ▶"
                entry.option_rect = Rect(r.right - 230 * scale, r.top - 34 * scale, 220 * scale,
                                         28 * scale)
                entry.texts.append(Text(label, entry.option_rect.center_x,
                                               entry.option_rect.center_y, theme.ACCENT,
                                               14 * scale, font_name=theme.FONT, bold=True,
                                               anchor_x="center", anchor_y="center"))
            else:
                entry.option_rect = Rect(0, 0, 0, 0)
            if entry.resume is None:
                bw, bh = 62 * scale, 24 * scale
                entry.replays_rect = Rect(r.right - bw - 8 * scale, r.bottom + 6 * scale, bw, bh)
                entry.duel_rect = Rect(entry.replays_rect.left - bw - 6 * scale,
                                       r.bottom + 6 * scale, bw, bh)
                entry.stats_rect = Rect(entry.duel_rect.left - bw - 6 * scale,
                                        r.bottom + 6 * scale, bw, bh)
                entry.help_rect = Rect(entry.stats_rect.left - bw - 6 * scale,
                                       r.bottom + 6 * scale, bw, bh)
                note = entry.texts[2]
                fitted(note, entry.help_rect.left - note.x - 6 * scale)
                for label, rect in ((_("Rules"), entry.help_rect), (_("Stats"), entry.stats_rect),
                                    (_("Duel"), entry.duel_rect),
                                    (_("Replays"), entry.replays_rect)):
                    entry.texts.append(Text(label, rect.center_x, rect.center_y,
                                                   theme.TEXT, 11.5 * scale, font_name=theme.FONT,
                                                   bold=True, anchor_x="center",
                                                   anchor_y="center"))
            y -= self.row_height

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
            arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, color)
            if i == self.selected:
                arcade.draw_lrbt_rectangle_filled(r.left, r.left + 5 * self.scale, r.bottom,
                                                  r.top, theme.ACCENT)
            for small in (entry.help_rect, entry.stats_rect, entry.duel_rect,
                          entry.replays_rect):
                if small.width:
                    arcade.draw_lrbt_rectangle_filled(small.left, small.right, small.bottom,
                                                      small.top, theme.BOARD_BG)
        camera = self.list_camera
        camera.position = (self.window.width / 2, self.window.height / 2 - self.text_offset)
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
        if self.entries and min(e.rect.bottom for e in self.entries) < self.list_bottom - 1:
            self.more.draw()
        self.title.draw()
        if self.notices:
            self.notice_text.draw()
        self.challenge_button.draw()
        self.settings_button.draw()
        self.language_button.draw()
        self.hint.draw()

    def open_settings(self) -> None:
        self.app.show_settings(self.app.show_launcher)


    def choose(self, index: int) -> None:
        entry = self.entries[index]
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
        if symbol == key.DOWN:
            self.selected = (self.selected + 1) % len(self.entries)
            self._ensure_visible()
        elif symbol == key.UP:
            self.selected = (self.selected - 1) % len(self.entries)
            self._ensure_visible()
        elif symbol in (key.LEFT, key.RIGHT):
            self.cycle_option(self.selected, 1 if symbol == key.RIGHT else -1)
        elif symbol in (key.ENTER, key.RETURN, key.SPACE):
            self.choose(self.selected)
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
            self.app.quit()

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

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        if not self.entries:
            return
        lowest = min(e.rect.bottom for e in self.entries) - self.scroll
        most = max(0.0, self.list_bottom - lowest + 8)
        scroll = max(0.0, min(most, self.scroll - scroll_y * 40))
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
        self.text_offset += dy  # texts stay built; the list camera moves them
