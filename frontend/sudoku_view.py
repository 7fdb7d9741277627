"""The Sudoku Bloxx screen: falling stones on a 9×9 board.

Keys: ←/→ move, ↓ soft drop (while held), Space hard drop, Esc pause; the same
controls are buttons under the board for the mouse or a touch screen (soft drop
while the button is held). A shadow shows where the stone would land. The view
only renders the headless ``FallingGame`` and forwards input; every rule,
landing and point comes from the game, every number shown from its rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade
import pyglet

import blockyard
from blockyard.stones import Stone

from . import rulewords, theme
from .i18n import _, format_number
from .layout import Rect
from .rulewords import discard_points, max_errors, signed
from .text import Text
from .widgets import Button, PauseMenu, cell_sprite, fit_text, hover_buttons

if TYPE_CHECKING:
    from .app import BlockyardApp

LABEL_TIME = 0.9
SWEEP_TIME = 0.45   # completed rows, columns and blocks light up and fade
OVER_DELAY = 0.8


def stone_colour(stone: Stone) -> theme.Color:
    if stone.symbol or stone.joker:
        return theme.SYMBOL_STONE
    return theme.GOLDEN_STONE if stone.golden else theme.STONE


def stone_glyph(stone: Stone) -> str:
    if stone.symbol:
        return "✦"
    if stone.joker:
        return "★"
    return str(stone.digit)


class SudokuView(arcade.View):
    """Plays one falling-stone game."""

    def __init__(self, app: BlockyardApp, game: blockyard.Game, *,
                 spectator: bool = False) -> None:
        super().__init__()
        self.app = app
        self.game = game
        self.spectator = spectator  # replays: shown, never played, saved or recorded
        self.cells = arcade.SpriteList()
        self.overlay_sprites = arcade.SpriteList()
        self.batch = pyglet.graphics.Batch()
        self.digits: list[arcade.Text] = []
        self.over_age = 0.0
        self.over_sounded = game.over
        self.sweep = arcade.SpriteList()
        self.sweep_age = SWEEP_TIME
        self.effects: list[str] = []  # the effects started, in order (tests)
        self.recorded = False
        self.labels: list[tuple[arcade.Text, float]] = []
        self.shown: list[int] = []
        font = theme.FONT
        self.score_text = Text("0", 0, 0, theme.TEXT, 28, font_name=font, bold=True,
                                      anchor_x="center", anchor_y="center")
        self.clock_text = Text("", 0, 0, theme.TEXT, 18, font_name=font,
                                      anchor_x="center", anchor_y="center")
        self.errors_text = Text("", 0, 0, theme.BAD, 22, font_name=font, bold=True,
                                       anchor_x="center", anchor_y="center")
        self.next_text = Text(_("Next"), 0, 0, theme.MUTED, 13, font_name=font,
                                     anchor_x="left", anchor_y="center")
        self.current_text = Text("", 0, 0, (20, 20, 30, 255), 20, font_name=font,
                                        bold=True, anchor_x="center", anchor_y="center")
        self.upcoming_texts = [Text("", 0, 0, (20, 20, 30, 255), 14, font_name=font,
                                           bold=True, anchor_x="center", anchor_y="center")
                               for _ in range(3)]
        self.help_text = Text(_("Keys: ←/→ move   ↓ soft drop   Space hard drop   Esc pause"),
                                     0, 0, theme.MUTED, 12, font_name=font, anchor_x="center",
                                     anchor_y="center")
        self.max_errors = max_errors(game.ruleset)
        discard = discard_points(game.ruleset)
        self.discard_label = signed(discard) if discard is not None else ""
        self.errors_label = Text(_("Errors"), 0, 0, theme.MUTED, 12, font_name=font,
                                        anchor_x="center", anchor_y="center")
        self.menu_button = Button(_("Menu"), self.open_pause, font_size=13)
        self.controls = {
            "left": Button("◀", lambda: self.control("left"), font_size=22),
            "soft": Button(_("▼ soft"), lambda: self.control("soft"), font_size=15),
            "hard": Button(_("▼▼ drop"), lambda: self.control("hard"), font_size=15),
            "right": Button("▶", lambda: self.control("right"), font_size=22),
        }
        self.shadow = cell_sprite(theme.GLOW, 10)
        self.held: str | None = None
        self.pause = PauseMenu(lambda: self.app.confirm_restart(self.game, self),
                               self.app.show_launcher,
                               lambda: self.app.show_help(game.ruleset.id,
                                                          lambda: self.app.show_game(game)),
                               lambda: self.app.show_settings(lambda: self.app.show_game(game)))
        self._layout()

    # -- layout and sprites -----------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        game = self.game
        scale = max(0.7, min(1.3, min(width, height) / 720))
        self.scale = scale
        top_band = 130 * scale
        control_h = 56 * scale
        bottom_band = control_h + 44 * scale
        cell = min((width - 40 * scale) / game.cols,
                   (height - top_band - bottom_band) / game.rows)
        self.cell = cell
        bw, bh = cell * game.cols, cell * game.rows
        self.board = Rect((width - bw) / 2, bottom_band, bw, bh)
        gap = 8 * scale
        cw = min(120 * scale, (width - 5 * gap) / 4)
        left = width / 2 - (4 * cw + 3 * gap) / 2
        for i, button in enumerate(self.controls.values()):
            button.place(Rect(left + i * (cw + gap), 30 * scale, cw, control_h),
                         button.font_size)
        self.menu_button.place(Rect(width - 110 * scale, height - 44 * scale, 100 * scale,
                                    34 * scale), 13 * scale)
        self.shadow = cell_sprite(theme.GLOW, cell * 0.92)
        self.shadow.alpha = 70
        self.cells.clear()
        self.digits = []
        self.batch = pyglet.graphics.Batch()
        for r in range(game.rows):
            for c in range(game.cols):
                x, y = self.cell_center(r, c)
                self.cells.append(cell_sprite(theme.EMPTY_CELL, cell * 0.92, x, y))
                self.digits.append(Text("", x, y, (20, 20, 30, 255), cell * 0.45,
                                               font_name=theme.FONT, bold=True,
                                               anchor_x="center", anchor_y="center",
                                               batch=self.batch))
        self.shown = [-1] * (game.rows * game.cols)
        self.discard_marks = [Text(self.discard_label, self.board.left + (c + 0.5) * cell,
                                          self.board.top + cell * 0.24, theme.TEXT,
                                          cell * 0.2, font_name=theme.FONT, bold=True,
                                          anchor_x="center", anchor_y="center")
                              for c in range(game.cols)]
        self.falling = cell_sprite(theme.STONE, cell * 0.92)
        self.current_text.font_size = cell * 0.45
        self.upcoming_sprites = [cell_sprite(theme.STONE, cell * 0.62) for _ in range(3)]
        self.overlay_sprites.clear()
        self.overlay_sprites.append(self.shadow)
        self.overlay_sprites.append(self.falling)
        for i, sprite in enumerate(self.upcoming_sprites):
            sprite.position = (24 * scale + cell * 0.4 + i * cell * 0.75,
                               height - 78 * scale)
            self.upcoming_texts[i].position = sprite.position
            self.upcoming_texts[i].font_size = cell * 0.3
            self.overlay_sprites.append(sprite)
        self.next_text.position = (24 * scale, height - 40 * scale)
        self.score_text.position = (width / 2, height - 50 * scale)
        self.clock_text.position = (width / 2, height - 90 * scale)
        self.errors_text.position = (width - 170 * scale, height - 50 * scale)
        self.errors_label.position = (width - 170 * scale, height - 78 * scale)
        self.help_text.position = (width / 2, 14 * scale)
        fit_text(self.help_text, width - 16, 20 * scale, 12 * scale)
        self.block_lines = block_lines(game.ruleset, self.board, cell)
        self.pause.place(width, height, scale)
        self.refresh()

    def cell_center(self, row: float, col: float) -> tuple[float, float]:
        return (self.board.left + (col + 0.5) * self.cell,
                self.board.top - (row + 0.5) * self.cell)

    def refresh(self) -> None:
        game = self.game
        codes = game.grid.colours
        for i, code in enumerate(codes):
            if self.shown[i] == code:
                continue
            self.shown[i] = code
            if code:
                stone = Stone.from_code(code)
                self.cells[i].color = stone_colour(stone)
                self.digits[i].text = stone_glyph(stone)
                self.digits[i].color = theme.TEXT if (stone.symbol or stone.joker) \
                    else (20, 20, 30, 255)
            else:
                self.cells[i].color = theme.EMPTY_CELL
                self.digits[i].text = ""
        self.score_text.text = format_number(game.score)
        self._update_clock()
        self.shown_moves = game.moves
        if self.max_errors is not None:
            self.errors_text.text = "✗" * game.errors + "·" * max(0, self.max_errors - game.errors)
            self.errors_label.text = _("Errors {n} of {most}").format(
                n=format_number(game.errors), most=format_number(self.max_errors))
        else:
            self.errors_text.text = ""
            self.errors_label.text = _("Errors {n}").format(
                n=format_number(game.errors)) if game.errors else ""
        for sprite, text, stone in zip(self.upcoming_sprites, self.upcoming_texts,
                                       game.upcoming, strict=False):
            sprite.color = stone_colour(stone)
            text.text = stone_glyph(stone)
            text.color = theme.TEXT if (stone.symbol or stone.joker) else (20, 20, 30, 255)
        self._place_falling()

    def _update_clock(self) -> None:
        left = self.game.time_left or 0
        clock = rulewords.clock(left)
        if self.app.challenge_score is not None and not self.spectator:
            clock += "   ·   " + _("to beat {points}").format(
                points=format_number(self.app.challenge_score))
        if self.clock_text.text != clock:
            self.clock_text.text = clock

    def _place_falling(self) -> None:
        current = self.game.current
        if current is None:
            self.falling.visible = False
            self.shadow.visible = False
            self.current_text.text = ""
            return
        self.falling.visible = True
        landing = self.game.landing_row()
        self.shadow.visible = landing > current.row
        self.shadow.position = self.cell_center(max(landing, 0), current.col)
        # smooth: between its row and the next by the share of the fall interval elapsed
        progress = 0.0
        if self.game.landing_row() > current.row:  # still falling: glide towards the next row
            progress = self.game.fall_progress
        x, y = self.cell_center(current.row + progress, current.col)
        self.falling.position = (x, y)
        self.falling.color = stone_colour(current.stone)
        self.current_text.text = stone_glyph(current.stone)
        self.current_text.color = theme.TEXT if (current.stone.symbol or current.stone.joker) \
            else (20, 20, 30, 255)
        self.current_text.position = (x, y)

    # -- game flow ----------------------------------------------------------------------------

    def _landed(self, results: list) -> None:
        if not self.spectator:
            for result in results:
                if result is None:
                    continue
                if result.error:
                    self.app.sounds.play("error")
                elif result.discarded:
                    self.app.sounds.play("discard")
                else:
                    self.app.sounds.play("place")
                    if result.completed:
                        self.app.sounds.play("clear", len(result.completed))
                        self._sweep(result.completed)
        for result in results:
            if result.points or result.error:
                text = _("Error!") if result.error else signed(result.points)
                row = max(result.row, 0)
                x, y = self.cell_center(row, result.col)
                color = theme.BAD if result.error or result.points < 0 else theme.ACCENT
                label = Text(text, x, y + self.cell * 0.6, color, 20 * self.scale,
                                    font_name=theme.FONT, bold=True, anchor_x="center",
                                    anchor_y="center")
                self.labels.append((label, 0.0))
        if results and not self.spectator:
            self.app.after_action(self.game)

    def _sweep(self, completed: list) -> None:
        """Light up the cells of the completed areas (not under reduced motion)."""
        if self.app.settings.reduced_motion:
            return
        done = {tuple(area) for area in completed}
        cells = {cell for region in self.game.ruleset.regions
                 if (region.kind, region.index) in done for cell in region.cells}
        self.sweep.clear()
        for r, c in sorted(cells):
            x, y = self.cell_center(r, c)
            self.sweep.append(cell_sprite(theme.ACCENT, self.cell * 0.92, x, y))
        self.sweep_age = 0.0
        self.effects.append("sweep")

    def perform(self, action: list) -> None:
        """Perform a logged action with its effects (the replay viewer)."""
        moves = self.game.moves
        outcome = self.game.apply(action)
        if action[0] == "tick":
            self._landed(outcome)
        elif self.game.moves != moves:
            self._landed([self.game.last_landing])
        self.refresh()

    def on_update(self, delta_time: float) -> None:
        if not self.paused and not self.game.over and not self.spectator:
            self._landed(self.game.tick(delta_time))
        if self.game.over and not self.over_sounded and not self.spectator:
            self.over_sounded = True
            self.app.sounds.play("game_over")
        self.labels = [(text, age + delta_time) for text, age in self.labels
                       if age + delta_time < LABEL_TIME]
        if not self.app.settings.reduced_motion:
            for text, _size in self.labels:
                text.y += self.cell * delta_time
        if self.sweep_age < SWEEP_TIME:
            self.sweep_age += delta_time
            self.sweep.alpha = max(0, int(200 * (1 - self.sweep_age / SWEEP_TIME)))
        if self.game.moves != self.shown_moves or self.game.over:
            self.refresh()  # a stone landed: board, score, upcoming stones
        else:
            self._update_clock()
            self._place_falling()
        if self.game.over and not self.spectator:
            self.over_age += delta_time
            if self.over_age > OVER_DELAY and not self.recorded:
                self.recorded = True
                self.app.finish_game(self.game)

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        b = self.board
        pad = self.cell * 0.1
        arcade.draw_lrbt_rectangle_filled(b.left - pad, b.right + pad, b.bottom - pad,
                                          b.top + pad, theme.BOARD_BG)
        # full columns: the place to discard (−100)
        for col in range(self.game.cols):
            if self.game.column_full(col):
                x = b.left + col * self.cell
                arcade.draw_lrbt_rectangle_filled(x + 2, x + self.cell - 2, b.top + pad,
                                                  b.top + self.cell * 0.38, theme.BAD)
                self.discard_marks[col].draw()
        self.cells.draw()
        if self.sweep_age < SWEEP_TIME:
            self.sweep.draw()
        self.batch.draw()
        for left, right, bottom, top in self.block_lines:
            arcade.draw_lrbt_rectangle_outline(left, right, bottom, top, theme.ACCENT, 3)
        self.overlay_sprites.draw()
        self.current_text.draw()
        for text in self.upcoming_texts:
            text.draw()
        for text in (self.score_text, self.clock_text, self.errors_text, self.errors_label,
                     self.next_text, self.help_text):
            text.draw()
        for text, _age in self.labels:
            text.draw()
        if not self.spectator:
            self.menu_button.draw()
            for button in self.controls.values():
                button.draw()
        self.pause.draw()

    # -- input ----------------------------------------------------------------------------------

    @property
    def paused(self) -> bool:
        return self.pause.open

    def open_pause(self) -> None:
        self.release_soft_drop()
        self.pause.show()

    def control(self, name: str) -> None:
        """One of the controls, by key or button: left, right, soft, hard."""
        if self.game.over or self.paused or self.spectator:
            return
        moves = self.game.moves
        if name == "left":
            self.game.move(-1)
        elif name == "right":
            self.game.move(1)
        elif name == "soft":
            self.game.soft_drop(True)
        elif name == "hard":
            self.game.hard_drop()
        if self.game.moves != moves:  # a hard drop, or a move onto a resting place
            self._landed([self.game.last_landing])
        self.app.after_action(self.game)
        self.refresh()

    def release_soft_drop(self) -> None:
        if not self.game.over and self.game.soft and not self.spectator:
            self.game.soft_drop(False)
            self.app.after_action(self.game)

    def animating(self) -> bool:
        """Falling stones move every frame while the game runs; labels fade."""
        return bool(self.labels) or self.sweep_age < SWEEP_TIME \
            or (not self.game.over and not self.paused) \
            or (self.game.over and not self.recorded)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if self.pause.on_key(symbol):
            return
        if symbol == key.ESCAPE:
            self.open_pause()
            return
        name = {key.LEFT: "left", key.RIGHT: "right", key.DOWN: "soft",
                key.SPACE: "hard"}.get(symbol)
        if name is not None:
            self.control(name)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.DOWN:
            self.release_soft_drop()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        if self.paused:
            self.pause.on_mouse_motion(x, y)
        else:
            hover_buttons([self.menu_button, *self.controls.values()], x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.pause.on_mouse_press(x, y) or self.spectator:
            return
        if self.menu_button.hit(x, y):
            self.open_pause()
            return
        for name, control in self.controls.items():
            if control.hit(x, y):
                self.held = name
                self.control(name)
                return

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        if self.held == "soft":
            self.release_soft_drop()
        self.held = None

    def on_resize(self, width: int, height: int) -> None:
        self._layout()


def block_lines(ruleset: blockyard.Ruleset, board: Rect, cell: float
                ) -> list[tuple[float, float, float, float]]:
    """The outline (left, right, bottom, top) of every region of kind "block" of the
    ruleset: the sudoku blocks, however large the rule file makes them."""
    out = []
    for region in ruleset.regions:
        if region.kind != "block" or not region.cells:
            continue
        top = min(r for r, _ in region.cells)
        bottom = max(r for r, _ in region.cells) + 1
        left = min(c for _, c in region.cells)
        right = max(c for _, c in region.cells) + 1
        out.append((board.left + left * cell, board.left + right * cell,
                    board.top - bottom * cell, board.top - top * cell))
    return out
