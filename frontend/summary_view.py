"""The game-over screen: points, record, lines, best combo, the pieces that did
not fit, the tip; play again or change ruleset. A daily game's summary also
says the player's streak of days played and counts down to the next daily game
(:mod:`.dailies`); Submit, when signed in, is a wide button right above Play
again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade

import blockyard

from . import dailies, theme
from .i18n import N_, _, format_number, ngettext
from .layout import Rect
from .menus import KeyGuard
from .online.leaderboard_view import was_submitted
from .rulewords import (
    area_count,
    best_combo_text,
    best_shared_with,
    display,
    engine_text,
    over_words,
)
from .text import Text
from .widgets import Button, click_buttons, fit_text, hover_buttons, piece_sprites, screen_scale

if TYPE_CHECKING:
    from .session import Session

PRACTICE = N_("Practice — only the first game of the day counts")
CHOSEN_START = N_("Practice — a game from a chosen start never counts")


class SummaryView(arcade.View):
    """Shows a finished game's summary."""

    def __init__(self, session: Session, game: blockyard.Game,
                 summary: blockyard.results.Summary, *, fresh: bool = True) -> None:
        super().__init__()
        self.session = session
        self.game = game
        self.summary = summary
        # Enter/Space still pressed, or pressed again, for the game just over: not "Play again"
        self.guard = KeyGuard()
        self.again = Button(_("Play again"), self.play_again, font_size=18, color="GO")
        self.change = Button(_("Change ruleset"), self.session.show_launcher, font_size=18)
        self.watch = Button(_("Watch replay"), self.watch_replay, font_size=15)
        self.stats = Button(_("Statistics"), self.show_stats, font_size=15)
        self.submit = Button(_("Submit"), self.submit_game, font_size=18,
                             color="GO")
        # signed in on a server, and not sent already (its rank is on the leaderboard)
        # a game the rules did not deal (a chosen start, a daily game on another seed
        # than its date's) never counts on a server: nothing to submit
        self.submit.visible = session.submit_game is not None and not was_submitted(game) \
            and blockyard.gamecheck.chosen_start(game) is None
        self.copy = Button(_("Copy code"), self.copy_code, font_size=15)
        self.copied = False  # the code was put on the clipboard
        if summary.new_record and fresh:  # not again when coming back from the statistics
            session.sounds.play("record")
        self.code = challenge_code(game)
        self.copy.visible = bool(self.code)
        # the other rulesets whose best score this record also is (one records group)
        self.shared = best_shared_with(game.ruleset) if summary.record_after is not None else []
        self.pieces: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.countdown: Text | None = None  # a daily game's line counting down
        self._layout()

    def _lines(self) -> list[tuple[str, theme.Color, float, bool]]:
        s = self.summary
        lines: list[tuple[str, theme.Color, float, bool]] = [
            (over_words(self.game, s.over_reason or "") or _("Game over"), theme.MUTED, 18,
             False),
        ]
        shown = display(self.game.ruleset)
        if shown.score:
            lines.append((ngettext("{n} point", "{n} points", s.points).format(
                n=format_number(s.points)), theme.TEXT, 40, True))
        if s.practice:
            chosen = blockyard.gamecheck.chosen_position(self.game) is not None
            lines.append((_(CHOSEN_START if chosen else PRACTICE), theme.MUTED, 16, True))
        if s.hints:
            lines.append((_("Hints used: {n}").format(n=format_number(s.hints)), theme.MUTED,
                          16, False))
        if s.new_record:
            lines.append((_("NEW RECORD!"), theme.ACCENT, 26, True))
        if s.record_after is not None:
            before = "—" if s.record_before is None else format_number(s.record_before)
            lines.append((_("Record: {before} → {after}").format(
                before=before, after=format_number(s.record_after)), theme.TEXT, 16, False))
            if self.shared:
                lines.append((_("The best score is shared with {names}.").format(
                    names=", ".join(self.shared)), theme.MUTED, 13, False))
        n = s.lines_cleared
        lines.append((area_count(self.game.mode, n), theme.TEXT, 16, False))
        if self.session.challenge is not None:
            lines.append(challenge_line(s.points, self.session.challenge))
        if self.game.ruleset.is_daily:
            days = dailies.streak(self.session.records, self.game.ruleset, self.session.now())
            lines.append((dailies.streak_text(days), theme.TEXT, 16, True))
            lines.append((dailies.countdown(self.game.ruleset, self.session.now()),
                          theme.ACCENT, 16, True))
        if self.game.mode.has_tray and shown.score:
            # the factor alone: the rule file's combo words ("Combo x2") would say it twice
            combo = best_combo_text(shown, s.best_combo)
            lines.append((_("Best combo: {combo}").format(combo=combo), theme.TEXT, 16, False))
            if s.failed_pieces:
                lines.append((_("Did not fit:") if s.over_reason == "stuck"
                              else _("Left in the tray:"), theme.MUTED, 15, False))
        return lines

    BAND = 40.0
    """The most room (at scale 1) left between what the summary says and its
    buttons: a taller window shares the rest above and below the two."""

    def _layout(self) -> None:
        spare = self._place(0.0)
        if spare > 0:  # no empty band in the middle: the lines down, the buttons up
            self._place(float(round(spare / 2)))  # whole pixels: at half ones a glyph row is lost

    def _place(self, shift: float) -> float:
        """Lay the screen out with the lines ``shift`` lower and the buttons
        ``shift`` higher than against the window's edges; the room then left
        between them beyond :attr:`BAND`."""
        width, height = self.window.width, self.window.height
        scale = screen_scale(width, height)
        self.texts = []
        self.countdown = None
        y = height - 70 * scale - shift
        counting = dailies.countdown(self.game.ruleset, self.session.now())
        for text, color, size, bold in self._lines():
            line = Text(text, width / 2, y, color, size * scale, font_name=theme.FONT,
                        bold=bold, anchor_x="center", anchor_y="center")
            fit_text(line, width - 24, (size + 22) * scale, size * scale, smallest=9.0)
            self.texts.append(line)
            if counting and text == counting:
                self.countdown = line
            y -= (size + 22) * scale
        self.pieces.clear()
        failed = self.summary.failed_pieces
        if failed:
            cell = 22 * scale
            total = sum(p.width + 1 for p in failed) * cell
            left = width / 2 - total / 2
            top = y
            families = len(self.game.ruleset.families)
            for piece in failed:
                colour = theme.piece_colour(piece.colour, families)
                piece_sprites(piece.cells, colour, cell, left, top, self.pieces, piece.colour,
                              self.game.ruleset.looks.get(piece.colour))
                left += (piece.width + 1) * cell
            y -= (max(piece.height for piece in failed) + 1) * cell + 10 * scale
        self.tip = Text(_("Tip: {tip}").format(tip=engine_text(self.summary.tip))
                        if self.summary.tip else "",
                               width / 2, y - 10 * scale, theme.ACCENT, 15 * scale,
                               font_name=theme.FONT, anchor_x="center", anchor_y="top",
                               multiline=True, width=int(width * 0.85), align="center")
        # buttons a margin above the bottom edge; the code right under the tip (or the
        # lines), never lower than just above the buttons
        margin, bw, bh = 20 * scale + shift, 260 * scale, 52 * scale
        small = 40 * scale
        self.watch.place(Rect(width / 2 - 230 * scale, margin, 220 * scale, small), 15 * scale)
        self.stats.place(Rect(width / 2 + 10 * scale, margin, 220 * scale, small), 15 * scale)
        row = margin + small + 12 * scale
        self.again.place(Rect(width / 2 - bw - 10 * scale, row, bw, bh), 18 * scale)
        self.change.place(Rect(width / 2 + 10 * scale, row, bw, bh), 18 * scale)
        above = y - 10 * scale - (self.tip.content_height + 14 * scale if self.tip.text else 0)
        # Submit where the eye goes after the score: a wide button right above Play again
        top = row + bh
        if self.submit.visible:
            self.submit.place(Rect(width / 2 - bw - 10 * scale, top + 12 * scale,
                                   2 * bw + 20 * scale, 46 * scale), 18 * scale)
            top += 12 * scale + 46 * scale
        code_y = max(top + 28 * scale, above - 10 * scale)
        self.code_text = Text(
            _("Challenge a friend: {code}").format(code=self.code) if self.code else "",
            width / 2, code_y, theme.TEXT, 15 * scale, font_name=theme.FONT, bold=True,
            anchor_x="center", anchor_y="center")
        self._place_copy(width, code_y, scale)
        lowest = min(above, code_y - 18 * scale) if self.code else above
        return max(0.0, float(lowest - top - self.BAND * scale))

    def _place_copy(self, width: float, code_y: float, scale: float) -> None:
        """Copy beside the code it copies, the two centred together on one row (the
        code's text made smaller when the row would not fit the window)."""
        if not self.code:
            self.copy.place(Rect(0, 0, 0, 0))
            return
        gap, high = 12 * scale, 36 * scale
        shown, wide = self.copy.label, 0.0
        for label in (_("Copy code"), _("Copied ✓")):  # as wide before as after a copy
            self.copy.label = label
            wide = max(wide, self.copy.natural_width(15 * scale))
        self.copy.label = shown
        room = width - 24 - gap - wide
        fit_text(self.code_text, room, high, 15 * scale, smallest=9.0)
        left = width / 2 - (self.code_text.content_width + gap + wide) / 2
        self.code_text.anchor_x = "left"
        self.code_text.x = left
        self.copy.place(Rect(left + self.code_text.content_width + gap, code_y - high / 2,
                             wide, high), 15 * scale)

    def rebuild(self) -> None:
        """Build the texts again in the language now chosen."""
        self.again.label = _("Play again")
        self.change.label = _("Change ruleset")
        self.watch.label = _("Watch replay")
        self.stats.label = _("Statistics")
        self.submit.label = _("Submit")
        self.copy.label = _("Copied ✓") if self.copied else _("Copy code")
        self._layout()

    def watch_replay(self) -> None:
        if self.session.last_replay is not None:
            self.session.watch_replay(self.session.last_replay,
                                  back=lambda: self.session.show_summary(self.game, self.summary))

    def show_stats(self) -> None:
        def back() -> None:
            self.window.show_view(SummaryView(self.session, self.game, self.summary, fresh=False))

        self.session.show_stats(self.game.ruleset, back)

    def copy_code(self) -> None:
        """Put the challenge code on the clipboard (Ctrl+C); the button says it is
        done ("Copied ✓") from then on."""
        if self.code:
            self.window.set_clipboard_text(self.code)
            self.copied = True
            self.copy.label = _("Copied ✓")

    def submit_game(self) -> None:
        """Send the game to the server (U): its score and rank there."""
        if self.session.submit_game is not None:
            self.session.submit_game(self.game, lambda: self.window.show_view(
                SummaryView(self.session, self.game, self.summary, fresh=False)))

    def play_again(self) -> None:
        self.session.start_game(self.game.ruleset)  # a rule file by path has no id to find


    def on_resize(self, width: int, height: int) -> None:
        self._layout()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        for text in self.texts:
            text.draw()
        self.pieces.draw()
        self.tip.draw()
        self.code_text.draw()
        self.again.draw()
        self.change.draw()
        self.watch.draw()
        self.stats.draw()
        self.submit.draw()
        self.copy.draw()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons([self.again, self.change, self.watch, self.stats, self.submit,
                       self.copy], x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        click_buttons([self.again, self.change, self.watch, self.stats, self.submit,
                       self.copy], x, y)

    def on_update(self, delta_time: float) -> None:
        self.guard.advance(delta_time)
        if self.countdown is not None:  # a daily game: the next one, to the second
            words = dailies.countdown(self.game.ruleset, self.session.now())
            if words != self.countdown.text:
                self.countdown.text = words
                invalidate = getattr(self.window, "invalidate", None)
                if callable(invalidate):
                    invalidate()

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        self.guard.release(symbol)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if not self.guard.press(symbol):  # Enter/Space meant for the game a moment ago
            return
        if symbol == arcade.key.C and modifiers & (arcade.key.MOD_CTRL | arcade.key.MOD_COMMAND):
            self.copy_code()
            return
        if symbol in (arcade.key.ENTER, arcade.key.RETURN, arcade.key.SPACE):
            self.play_again()
        elif symbol in (arcade.key.ESCAPE, arcade.key.L):
            self.session.show_launcher()
        elif symbol == arcade.key.W:
            self.watch_replay()
        elif symbol == arcade.key.T:
            self.show_stats()
        elif symbol == arcade.key.U and self.submit.visible:
            self.submit_game()


def challenge_line(points: int, target: int) -> tuple[str, theme.Color, float, bool]:
    """The summary's line on a challenge code's score: beaten only by more points
    (the code's score is the one to beat), a tie when equal (neither player
    beat the other: a shared place, as at an online table), else not beaten."""
    if points > target:
        words, colour = _("Challenge: {points} vs {target} — beaten!"), theme.GOOD
    elif points == target:
        words, colour = _("Challenge: {points} vs {target} — a tie"), theme.ACCENT
    else:
        words, colour = _("Challenge: {points} vs {target} — not beaten"), theme.BAD
    return (words.format(points=format_number(points), target=format_number(target)),
            colour, 16, True)


def challenge_code(game: blockyard.Game) -> str:
    """The code of this game's deal with its score to beat ("" if it cannot have one)."""
    from blockyard.challenge import encode

    try:
        return encode(game.ruleset.id, game.seed, game.score)
    except ValueError:
        return ""
