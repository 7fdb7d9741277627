"""Three screens around the board: the settings, a ruleset's how-to-play page and
its statistics with charts.

Every setting takes effect at once: a change is saved (atomically) and applied
by the session's ``change_setting`` (the app's), and this screen is rebuilt with the new
theme and palette, so the next frame already shows them. The statistics are
drawn with Arcade shapes only (lines, points, rectangles); the geometry of the
drawn chart is kept on the view (``chart_points``, ``bars``, ``calendar``) so a
test can compare it with the records.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import arcade

import blockyard

from . import rulewords, theme
from .i18n import (
    LANGUAGES,
    _,
    format_date,
    format_number,
    language,
    ngettext,
)
from .layout import Rect
from .persistence import PALETTES, THEMES, WINDOW_MODES
from .rulewords import ruleset_name
from .text import Text
from .widgets import (
    Button,
    click_buttons,
    fit_text,
    focus_buttons,
    hover_buttons,
    pointer_focus,
    screen_scale,
)

if TYPE_CHECKING:
    from .session import Session


# -- settings ------------------------------------------------------------------------------

@dataclass
class Option:
    """One settings row: a label, its values (setting value, shown word) and the
    setting it changes."""

    name: str
    label: str
    values: list[tuple[object, str]]


def setting_options() -> list[Option]:
    """The rows of the settings screen, in order."""
    on_off: list[tuple[object, str]] = [(True, _("On")), (False, _("Off"))]
    theme_words = {"dark": _("Dark"), "light": _("Light"), "high-contrast": _("High contrast")}
    palette_words = {"standard": _("Standard"), "colour-blind": _("Colour-blind safe")}
    mode_words = {"windowed": _("Window"), "fullscreen": _("Full screen")}
    return [
        Option("sound", _("Sound effects"), on_off),
        Option("volume", _("Volume"), [(v / 10, f"{v * 10} %") for v in range(11)]),
        Option("reduced_motion", _("Reduced motion"), on_off),
        Option("theme", _("Theme"), [(t, theme_words[t]) for t in THEMES]),
        Option("palette", _("Piece colours"), [(p, palette_words[p]) for p in PALETTES]),
        Option("patterns", _("Pattern on each colour"), on_off),
        Option("window_mode", _("Window mode"), [(m, mode_words[m]) for m in WINDOW_MODES]),
        Option("language", _("Language"), list(LANGUAGES.items())),
        Option("native_digits", _("Nepali digits (०–९)"), on_off),
        Option("online", _("Online play"), [(None, _("Server and account"))]),
    ]


class SettingsView(arcade.View):
    """The player's settings. Keys: ↑/↓ choose, ←/→ or Enter change, Esc back."""

    def __init__(self, session: Session, back: Callable[[], None], selected: int = 0) -> None:
        super().__init__()
        self.session = session
        self.back = back
        self.options = setting_options()
        self.selected = selected
        self.back_button = Button(_("Back"), back, font_size=17)
        self.rows: list[Rect] = []
        self._layout()

    def rebuild(self) -> None:
        """Show a fresh settings screen drawn with the current theme."""
        self.window.show_view(SettingsView(self.session, self.back, self.selected))

    def value_word(self, option: Option) -> str:
        if option.name == "online":  # a page of its own, not a value
            return option.values[0][1]
        current = language() if option.name == "language" \
            else getattr(self.session.settings, option.name)
        for value, word in option.values:
            if value == current or (isinstance(value, float) and isinstance(current, float)
                                    and abs(value - current) < 0.05):
                return word
        return str(current)

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        self.title = Text(_("Settings"), width / 2, height - 60 * scale, theme.TEXT,
                                 28 * scale, font_name=theme.FONT, bold=True,
                                 anchor_x="center", anchor_y="center")
        # from the bottom up: the key hint (wrapped to the width), the Back button, the
        # piece colours; the rows share what is left below the title
        self.hint = Text(_("↑↓ choose  ←→ or Enter change  Esc back"), width / 2, 4 * scale,
                         theme.MUTED, max(9.0, 13 * scale), font_name=theme.FONT,
                         anchor_x="center", anchor_y="bottom", multiline=True,
                         width=int(width - 16), align="center")
        bw, bh = min(width * 0.6, 260 * scale), 46 * scale
        back = Rect(width / 2 - bw / 2, 4 * scale + self.hint.content_height + 10 * scale, bw, bh)
        self.back_button.place(back, 17 * scale)
        rw = min(width * 0.9, 560 * scale)
        size = min(40 * scale, rw / 9)
        self.swatch_label = Text(_("Pieces look like this"), width / 2, 0, theme.MUTED,
                                 13 * scale, font_name=theme.FONT, anchor_x="center",
                                 anchor_y="center")
        fit_text(self.swatch_label, rw, 24 * scale, 13 * scale, smallest=9.0)
        label_y = back.top + 8 * scale + self.swatch_label.content_height / 2
        self.swatch_label.y = label_y
        self.swatch_y = label_y + self.swatch_label.content_height / 2 + 4 * scale + size / 2
        rows_bottom = self.swatch_y + size / 2 + 10 * scale
        top = self.title.y - self.title.content_height / 2 - 14 * scale
        rh = max(26 * scale, min(50 * scale, (top - rows_bottom) / len(self.options)))
        y = top
        self.rows, self.texts = [], []
        for option in self.options:
            rect = Rect(width / 2 - rw / 2, y - rh, rw, rh - 6 * scale)
            self.rows.append(rect)
            label = Text(option.label, rect.left + 14 * scale, rect.center_y, theme.TEXT,
                                16 * scale, font_name=theme.FONT, anchor_y="center")
            fit_text(label, rect.width * 0.5, rect.height, 16 * scale)
            # the online row opens a page: no ◀ (nothing to step back to), and its words
            # get the room the label leaves them
            shown = f"{self.value_word(option)}  ▶" if option.name == "online" \
                else f"◀  {self.value_word(option)}  ▶"
            value = Text(shown, rect.right - 14 * scale,
                                rect.center_y, theme.ACCENT, 16 * scale, font_name=theme.FONT,
                                bold=True, anchor_x="right", anchor_y="center")
            room = max(rect.width * 0.46,
                       rect.width - 28 * scale - label.content_width - 16 * scale)
            fit_text(value, room, rect.height, 16 * scale)
            self.texts += [label, value]
            y -= rh
        raise_by = max(0.0, y - rows_bottom - 20 * scale)  # room to spare: close up below
        if raise_by:
            self.swatch_y += raise_by
            self.swatch_label.y += raise_by
            self.back_button.place(back.raised(raise_by), 17 * scale)
        # the piece colours as they are drawn now (palette and patterns)
        self.swatches: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        from .widgets import cell_sprite

        count = 8
        left = width / 2 - count * size / 2
        for i in range(count):
            sprite = cell_sprite(theme.piece_colour(i + 1), size * 0.94,
                                 left + (i + 0.5) * size, self.swatch_y)
            sprite.texture = theme.piece_texture(i + 1)
            sprite.width = sprite.height = size * 0.94
            self.swatches.append(sprite)

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.title.draw()
        for i, rect in enumerate(self.rows):
            color = theme.PANEL_HOVER if i == self.selected else theme.PANEL
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top, color)
            if i == self.selected:
                arcade.draw_lrbt_rectangle_filled(rect.left, rect.left + 5 * self.scale,
                                                  rect.bottom, rect.top, theme.ACCENT)
        for text in self.texts:
            text.draw()
        self.swatches.draw()
        self.swatch_label.draw()
        focus_buttons([self.back_button], self.back_button
                      if self.selected == len(self.options) else None)
        self.back_button.draw()
        self.hint.draw()

    def change(self, index: int, step: int) -> None:
        """Move setting ``index`` ``step`` values on (wrapping), save and apply it."""
        option = self.options[index]
        self.selected = index
        if option.name == "online":
            if self.session.show_online is not None:
                self.session.show_online(self.rebuild)
            return
        words = [word for _value, word in option.values]
        current = words.index(self.value_word(option)) if self.value_word(option) in words \
            else 0
        value = option.values[(current + step) % len(option.values)][0]
        # saved and applied at once (a new language: every screen follows)
        self.session.change_setting(option.name, value)
        if option.name in ("sound", "volume"):
            self.session.sounds.play("pickup")  # hear the new volume at once
        if self.window.current_view is self:  # apply_settings did not rebuild it
            self.rebuild()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        rows = len(self.options)  # ↑↓ go through the rows (Esc is Back)
        on_back = self.selected == rows  # the pointer chose Back
        if symbol == key.ESCAPE:
            self.back()
        elif symbol in (key.DOWN, key.TAB):
            self.selected = 0 if on_back else (self.selected + 1) % rows
        elif symbol == key.UP:
            self.selected = rows - 1 if on_back else (self.selected - 1) % rows
        elif on_back:
            if symbol in (key.ENTER, key.RETURN, key.SPACE):
                self.back()
        elif symbol in (key.LEFT, key.RIGHT, key.ENTER, key.RETURN, key.SPACE):
            self.change(self.selected, -1 if symbol == key.LEFT else 1)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        # the pointer moves the one selection: a row, or Back (never both lit)
        if pointer_focus([self.back_button], x, y) is not None:
            self.selected = len(self.options)
        for i, rect in enumerate(self.rows):
            if rect.contains(x, y):
                self.selected = i

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if click_buttons([self.back_button], x, y):
            return
        for i, rect in enumerate(self.rows):
            if rect.contains(x, y):  # the left part of the value goes back, the rest on
                step = -1 if rect.right - rect.width * 0.46 <= x < rect.right - rect.width * 0.3 \
                    else 1
                self.change(i, step)
                return


# -- how to play ---------------------------------------------------------------------------

class HelpView(arcade.View):
    """A ruleset's how-to-play page (its rule file's ``[help] text``, in the current
    language where ``[help.i18n.<language>]`` gives it). Keys: ↑/↓ or
    the wheel scroll, Enter or Esc go back."""

    def __init__(self, ruleset: blockyard.Ruleset, back: Callable[[], None]) -> None:
        super().__init__()
        self.ruleset = ruleset
        self.back = back
        self.scroll = 0.0
        page = (ruleset.help.page_in(language())
                or _("This ruleset's rule file has no how-to-play page."))
        self.page = page
        self.done_button = Button(_("Got it"), back, font_size=17, color="GO")
        self._layout()

    def rebuild(self) -> None:
        self.window.show_view(HelpView(self.ruleset, self.back))

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        self.title = Text(_("How to play: {name}").format(name=ruleset_name(self.ruleset)),
                                 width / 2, height - 50 * scale, theme.TEXT, 24 * scale,
                                 font_name=theme.FONT, bold=True, anchor_x="center",
                                 anchor_y="center")
        fit_text(self.title, width - 24, 40 * scale, 24 * scale)
        self.top: float = height - 90 * scale
        self.bottom: float = 90 * scale
        self.body = Text(self.page, width / 2, self.top + self.scroll, theme.TEXT,
                                15 * scale, font_name=theme.FONT, anchor_x="center",
                                anchor_y="top", multiline=True, width=int(width * 0.88),
                                align="left")
        room = self.top - self.bottom
        while self.body.font_size > 10 and self.body.content_height > room * 1.6:
            self.body.font_size *= 0.92
        self.more = Text(_("▼ more: scroll or ↓"), width - 12 * scale,
                                self.bottom - 14 * scale, theme.ACCENT, 12 * scale,
                                font_name=theme.FONT, bold=True, anchor_x="right",
                                anchor_y="center")
        bw = min(width * 0.6, 240 * scale)
        self.done_button.place(Rect(width / 2 - bw / 2, 24 * scale, bw, 46 * scale), 17 * scale)

    @property
    def most_scroll(self) -> float:
        return max(0.0, self.body.content_height - (self.top - self.bottom))

    def scroll_by(self, dy: float) -> None:
        self.scroll = max(0.0, min(self.most_scroll, self.scroll + dy))
        self.body.y = self.top + self.scroll

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        self.body.draw()
        arcade.draw_lrbt_rectangle_filled(0, self.window.width, self.top + 4,
                                          self.window.height, theme.BACKGROUND)
        arcade.draw_lrbt_rectangle_filled(0, self.window.width, 0, self.bottom - 4,
                                          theme.BACKGROUND)
        self.title.draw()
        if self.scroll < self.most_scroll - 1:
            self.more.draw()
        self.done_button.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol in (key.ESCAPE, key.ENTER, key.RETURN, key.SPACE):
            self.back()
        elif symbol in (key.DOWN, key.PAGEDOWN):
            self.scroll_by(40 * self.scale if symbol == key.DOWN else self.top - self.bottom)
        elif symbol in (key.UP, key.PAGEUP):
            self.scroll_by(-40 * self.scale if symbol == key.UP else self.bottom - self.top)

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        self.scroll_by(-scroll_y * 40)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons([self.done_button], x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        click_buttons([self.done_button], x, y)


# -- statistics ----------------------------------------------------------------------------

LAST_GAMES = 50
HISTOGRAM_BINS = 10


def chart_points(scores: list[int], area: Rect) -> list[tuple[float, float]]:
    """Where the line chart draws each score: evenly spaced from left to right, from
    0 at the bottom of ``area`` to the highest score at its top."""
    if not scores:
        return []
    top = max(max(scores), 1)
    low = min(0, min(scores))
    step = area.width / (len(scores) - 1) if len(scores) > 1 else 0.0
    x0 = area.left if len(scores) > 1 else area.center_x
    return [(x0 + i * step, area.bottom + (s - low) / (top - low) * area.height)
            for i, s in enumerate(scores)]


def histogram_bars(bins: list[blockyard.records.HistogramBin], area: Rect) -> list[Rect]:
    """The bar of each bin: equal widths side by side, heights by count (the
    fullest bin reaches the top of ``area``)."""
    if not bins:
        return []
    most = max(max(b.count for b in bins), 1)
    width = area.width / len(bins)
    return [Rect(area.left + i * width + 1, area.bottom, max(1.0, width - 2),
                 area.height * b.count / most) for i, b in enumerate(bins)]


class StatsView(arcade.View):
    """The statistics of one ruleset: numbers, the last 50 scores as a line chart,
    the score histogram and, for daily rulesets, a calendar of the days played
    with each day's score. Esc or Enter go back; ←/→ change the calendar's month."""

    def __init__(self, session: Session, ruleset: blockyard.Ruleset,
                 back: Callable[[], None]) -> None:
        super().__init__()
        self.session = session
        self.ruleset = ruleset
        self.back = back
        records = session.records
        self.stats = records.statistics(ruleset)
        self.scores = records.last_scores(ruleset.id, LAST_GAMES)
        self.bins = records.score_histogram(ruleset.id, HISTOGRAM_BINS)
        self.days = dict(records.played_days(ruleset)) if ruleset.is_daily else {}
        # rounds at online tables of this ruleset the player sat at (watched ones left out)
        played = [t for t in records.table_results(ruleset.id) if t.seat is not None]
        self.tables = (len(played), sum(1 for t in played if t.winner == t.seat))
        if self.days:
            latest = dt.date.fromisoformat(max(self.days))
            self.month = (latest.year, latest.month)
        else:
            today = dt.date.today()
            self.month = (today.year, today.month)
        # the other rulesets whose best score this one's is (looked up once, not per layout)
        self.shared = rulewords.best_shared_with(ruleset) if ruleset.display.score else []
        self.back_button = Button(_("Back"), back, font_size=16)
        self._layout()

    def rebuild(self) -> None:
        self.window.show_view(StatsView(self.session, self.ruleset, self.back))

    def _text(self, text: str, x: float, y: float, size: float, color: theme.Color | None = None,
              *, bold: bool = False, anchor_x: str = "center") -> Text:
        out = Text(text, x, y, color or theme.TEXT, size * self.scale,
                          font_name=theme.FONT, bold=bold, anchor_x=anchor_x, anchor_y="center")
        self.texts.append(out)
        return out

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.scale = scale
        self.texts: list[Text] = []
        s, r = self.stats, self.ruleset
        title = self._text(_("Statistics: {name}").format(name=ruleset_name(r)), width / 2,
                           height - 36 * scale, 22, bold=True)
        fit_text(title, width - 24, 34 * scale, 22 * scale)
        average = "—" if s.average is None else format_number(round(s.average))
        best = "—" if s.best is None else format_number(s.best)
        shows_score = r.display.score
        figures = [(_("Games"), format_number(s.games))]
        if shows_score:
            figures += [(_("Best"), best), (_("Average"), average)]
        figures += [(rulewords.engine_text(r.mode_record.area_words.heading),
                     format_number(s.total_lines))]
        if shows_score and r.mode_record.has_tray:
            figures.append((_("Best combo"),
                            rulewords.best_combo_text(rulewords.display(r), s.best_combo)))
        figures.append((_("Play time"), rulewords.play_time(s.play_time)
                        if s.play_time > 0 else "—"))
        cw = width / len(figures)
        self.figures = {}
        for i, (label, value) in enumerate(figures):
            x = cw * (i + 0.5)
            self.figures[label] = self._text(value, x, height - 80 * scale, 22, theme.ACCENT,
                                             bold=True).text
            self._text(label, x, height - 106 * scale, 12, theme.MUTED)
        notes = []
        if self.shared:
            notes.append(_("The best score is shared with {names}.").format(
                names=", ".join(self.shared)))
        if s.practice_games:
            notes.append(ngettext("{n} practice game (not counted)",
                                  "{n} practice games (not counted)",
                                  s.practice_games).format(n=format_number(s.practice_games)))
        if self.tables[0]:
            # rounds, not tables: a rematch at the same table is a round of its own
            notes.append(ngettext("{n} online round, {won} won",
                                  "{n} online rounds, {won} won",
                                  self.tables[0]).format(n=format_number(self.tables[0]),
                                                         won=format_number(self.tables[1])))
        if notes:
            note = self._text("  ·  ".join(notes), width / 2, height - 128 * scale, 12,
                              theme.MUTED)
            fit_text(note, width - 24, 16 * scale, 12 * scale, smallest=9.0)  # 12 px at least
        margin = max(40 * scale, width * 0.08)
        daily = r.is_daily
        bottom_band = 70 * scale
        avail = height - 150 * scale - bottom_band
        parts = 3 if daily else 2
        part = avail / parts
        top = height - 150 * scale
        # line chart of the last scores
        self.chart_area = Rect(margin, top - part + 34 * scale, width - 2 * margin,
                               part - 64 * scale)
        count = len(self.scores)
        if count:  # with none, the chart says there are no finished games yet
            self._text(_("Last {n} scores").format(n=format_number(LAST_GAMES))
                       if count >= LAST_GAMES else _("Score of the last game") if count == 1
                       else _("Scores of the last {n} games").format(n=format_number(count)),
                       margin, top - 12 * scale, 14, bold=True, anchor_x="left")
        self.chart_points = chart_points(self.scores, self.chart_area)
        if self.scores:
            a = self.chart_area
            self._text(format_number(max(max(self.scores), 1)), a.left - 6 * scale, a.top, 11,
                       theme.MUTED,
                       anchor_x="right")
            self._text(format_number(min(0, min(self.scores))), a.left - 6 * scale, a.bottom, 11,
                       theme.MUTED, anchor_x="right")
        else:
            self._text(_("No finished games yet."), width / 2, self.chart_area.center_y, 14,
                       theme.MUTED)
        # histogram
        top -= part
        self.histogram_area = Rect(margin, top - part + 44 * scale, width - 2 * margin,
                                   part - 90 * scale)
        if count:  # as the chart above: no heading over nothing
            self._text(_("Scores by range"), margin, top - 12 * scale, 14, bold=True,
                       anchor_x="left")
        self.bars = histogram_bars(self.bins, self.histogram_area)
        for b, bar in zip(self.bins, self.bars, strict=True):
            if b.count:
                self._text(format_number(b.count), bar.center_x, bar.top + 8 * scale, 10,
                           theme.MUTED)
        if self.bins:
            a = self.histogram_area
            self._text(format_number(0), a.left, a.bottom - 12 * scale, 10, theme.MUTED)
            self._text(format_number(self.bins[-1].high), a.right, a.bottom - 12 * scale, 10,
                       theme.MUTED)
        # calendar of the days played
        self.calendar: dict[str, tuple[Rect, int | None]] = {}
        if daily:
            top -= part
            self._layout_calendar(Rect(margin, top - part + 10 * scale, width - 2 * margin,
                                       part - 40 * scale), top)
        bw = min(width * 0.5, 220 * scale)
        self.back_button.place(Rect(width / 2 - bw / 2, 14 * scale, bw, 42 * scale), 16 * scale)

    def _layout_calendar(self, area: Rect, top: float) -> None:
        year, month = self.month
        name = format_date(dt.date(year, month, 1), "LLLL y")
        self._text(_("Days played: {month}  (←/→ month)").format(month=name), self.chart_area.left,
                   top - 12 * self.scale, 14, bold=True, anchor_x="left")
        weeks = calendar.Calendar().monthdayscalendar(year, month)
        cw, ch = area.width / 7, area.height / max(len(weeks), 1)
        for row, week in enumerate(weeks):
            for col, day in enumerate(week):
                if not day:
                    continue
                date = dt.date(year, month, day).isoformat()
                rect = Rect(area.left + col * cw + 2, area.top - (row + 1) * ch + 2, cw - 4,
                            ch - 4)
                score = self.days.get(date)
                self.calendar[date] = (rect, score)
                self._text(format_number(day), rect.left + 4 * self.scale,
                           rect.top - 8 * self.scale, 10,
                           theme.MUTED, anchor_x="left")
                if score is not None:
                    label = self._text(format_number(score), rect.center_x,
                                       rect.center_y - 3 * self.scale,
                                       12, theme.TEXT, bold=True)
                    fit_text(label, rect.width - 4, rect.height * 0.6, 12 * self.scale)

    def change_month(self, step: int) -> None:
        year, month = self.month
        month += step
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
        self.month = (year, month)
        self._layout()

    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        a = self.chart_area
        arcade.draw_lrbt_rectangle_outline(a.left, a.right, a.bottom, a.top, theme.GRID, 1)
        if len(self.chart_points) > 1:
            arcade.draw_line_strip(self.chart_points, theme.CHART, 2 * self.scale)
        for x, y in self.chart_points:
            arcade.draw_lrbt_rectangle_filled(x - 2.5 * self.scale, x + 2.5 * self.scale,
                                              y - 2.5 * self.scale, y + 2.5 * self.scale,
                                              theme.ACCENT)
        h = self.histogram_area
        arcade.draw_line(h.left, h.bottom, h.right, h.bottom, theme.GRID, 1)
        for bar in self.bars:
            if bar.height > 0:
                arcade.draw_lrbt_rectangle_filled(bar.left, bar.right, bar.bottom, bar.top,
                                                  theme.CHART)
        for rect, score in self.calendar.values():
            color = theme.PANEL_HOVER if score is not None else theme.PANEL
            arcade.draw_lrbt_rectangle_filled(rect.left, rect.right, rect.bottom, rect.top,
                                              color)
            if score is not None:
                arcade.draw_lrbt_rectangle_outline(rect.left, rect.right, rect.bottom, rect.top,
                                                   theme.ACCENT, 2)
        for text in self.texts:
            text.draw()
        self.back_button.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol in (key.ESCAPE, key.ENTER, key.RETURN):
            self.back()
        elif symbol in (key.LEFT, key.RIGHT) and self.ruleset.is_daily:
            self.change_month(1 if symbol == key.RIGHT else -1)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons([self.back_button], x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        click_buttons([self.back_button], x, y)
