"""The Sudoku Bloxx screen: falling stones on a 9×9 board.

Keys: ←/→ move, ↓ soft drop (while held), Space hard drop, Esc pause. The view
only renders the headless ``FallingGame`` and forwards keys; every rule,
landing and point comes from the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade
import pyglet

import blockyard
from blockyard.stones import Stone

from . import theme
from .layout import Rect
from .widgets import PauseMenu, cell_sprite

if TYPE_CHECKING:
    from .app import BlockyardApp

LABEL_TIME = 0.9
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
        self.recorded = False
        self.labels: list[tuple[arcade.Text, float]] = []
        self.shown: list[int] = []
        font = theme.FONT
        self.score_text = arcade.Text("0", 0, 0, theme.TEXT, 28, font_name=font, bold=True,
                                      anchor_x="center", anchor_y="center")
        self.clock_text = arcade.Text("", 0, 0, theme.TEXT, 18, font_name=font,
                                      anchor_x="center", anchor_y="center")
        self.errors_text = arcade.Text("", 0, 0, theme.BAD, 22, font_name=font, bold=True,
                                       anchor_x="center", anchor_y="center")
        self.next_text = arcade.Text("Next", 0, 0, theme.MUTED, 13, font_name=font,
                                     anchor_x="left", anchor_y="center")
        self.current_text = arcade.Text("", 0, 0, (20, 20, 30, 255), 20, font_name=font,
                                        bold=True, anchor_x="center", anchor_y="center")
        self.upcoming_texts = [arcade.Text("", 0, 0, (20, 20, 30, 255), 14, font_name=font,
                                           bold=True, anchor_x="center", anchor_y="center")
                               for _ in range(3)]
        self.help_text = arcade.Text("←/→ move   ↓ soft drop   Space hard drop   Esc pause", 0, 0,
                                     theme.MUTED, 12, font_name=font, anchor_x="center",
                                     anchor_y="center")
        self.pause = PauseMenu(lambda: self.app.restart(self.game), self.app.show_launcher)
        self._layout()

    # -- layout and sprites -----------------------------------------------------------------

    def _layout(self) -> None:
        width, height = self.window.width, self.window.height
        game = self.game
        scale = max(0.7, min(1.3, min(width, height) / 720))
        self.scale = scale
        top_band = 130 * scale
        cell = min((width - 40 * scale) / game.cols, (height - top_band - 70 * scale) / game.rows)
        self.cell = cell
        bw, bh = cell * game.cols, cell * game.rows
        self.board = Rect((width - bw) / 2, 40 * scale, bw, bh)
        self.cells.clear()
        self.digits = []
        self.batch = pyglet.graphics.Batch()
        for r in range(game.rows):
            for c in range(game.cols):
                x, y = self.cell_center(r, c)
                self.cells.append(cell_sprite(theme.EMPTY_CELL, cell * 0.92, x, y))
                self.digits.append(arcade.Text("", x, y, (20, 20, 30, 255), cell * 0.45,
                                               font_name=theme.FONT, bold=True,
                                               anchor_x="center", anchor_y="center",
                                               batch=self.batch))
        self.shown = [-1] * (game.rows * game.cols)
        self.discard_marks = [arcade.Text("−100", self.board.left + (c + 0.5) * cell,
                                          self.board.top + cell * 0.24, theme.TEXT,
                                          cell * 0.2, font_name=theme.FONT, bold=True,
                                          anchor_x="center", anchor_y="center")
                              for c in range(game.cols)]
        self.falling = cell_sprite(theme.STONE, cell * 0.92)
        self.current_text.font_size = cell * 0.45
        self.upcoming_sprites = [cell_sprite(theme.STONE, cell * 0.62) for _ in range(3)]
        self.overlay_sprites.clear()
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
        self.errors_text.position = (width - 90 * scale, height - 50 * scale)
        self.help_text.position = (width / 2, 16 * scale)
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
        self.score_text.text = str(game.score)
        self._update_clock()
        self.shown_moves = game.moves
        self.errors_text.text = "✗" * game.errors + "·" * max(0, 3 - game.errors)
        for sprite, text, stone in zip(self.upcoming_sprites, self.upcoming_texts,
                                       game.upcoming, strict=False):
            sprite.color = stone_colour(stone)
            text.text = stone_glyph(stone)
            text.color = theme.TEXT if (stone.symbol or stone.joker) else (20, 20, 30, 255)
        self._place_falling()

    def _update_clock(self) -> None:
        left = self.game.time_left or 0
        clock = f"{int(left) // 60}:{int(left) % 60:02d}"
        if self.app.challenge_score is not None and not self.spectator:
            clock += f"   ·   to beat {self.app.challenge_score}"
        if self.clock_text.text != clock:
            self.clock_text.text = clock

    def _place_falling(self) -> None:
        current = self.game.current
        if current is None:
            self.falling.visible = False
            self.current_text.text = ""
            return
        self.falling.visible = True
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
        for result in results:
            if result.points or result.error:
                text = "Error!" if result.error else f"{result.points:+d}"
                row = max(result.row, 0)
                x, y = self.cell_center(row, result.col)
                color = theme.BAD if result.error or result.points < 0 else theme.ACCENT
                label = arcade.Text(text, x, y + self.cell * 0.6, color, 20 * self.scale,
                                    font_name=theme.FONT, bold=True, anchor_x="center",
                                    anchor_y="center")
                self.labels.append((label, 0.0))
        if results and not self.spectator:
            self.app.after_action(self.game)

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
        self.labels = [(text, age + delta_time) for text, age in self.labels
                       if age + delta_time < LABEL_TIME]
        for text, _ in self.labels:
            text.y += self.cell * delta_time
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
        self.batch.draw()
        for i in range(0, self.game.cols + 1, 3):
            x = b.left + i * self.cell
            arcade.draw_line(x, b.bottom, x, b.top, theme.ACCENT, 3)
        for i in range(0, self.game.rows + 1, 3):
            y = b.bottom + i * self.cell
            arcade.draw_line(b.left, y, b.right, y, theme.ACCENT, 3)
        self.overlay_sprites.draw()
        self.current_text.draw()
        for text in self.upcoming_texts:
            text.draw()
        for text in (self.score_text, self.clock_text, self.errors_text, self.next_text,
                     self.help_text):
            text.draw()
        for text, _age in self.labels:
            text.draw()
        self.pause.draw()

    # -- input ----------------------------------------------------------------------------------

    @property
    def paused(self) -> bool:
        return self.pause.open

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if self.pause.on_key(symbol):
            return
        if symbol == key.ESCAPE:
            self.pause.show()
            return
        if self.game.over:
            return
        moves = self.game.moves
        if symbol == key.LEFT:
            self.game.move(-1)
        elif symbol == key.RIGHT:
            self.game.move(1)
        elif symbol == key.DOWN:
            self.game.soft_drop(True)
        elif symbol == key.SPACE:
            self.game.hard_drop()
        else:
            return
        if self.game.moves != moves:  # a hard drop, or a move onto a resting place
            self._landed([self.game.last_landing])
        self.app.after_action(self.game)
        self.refresh()

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.DOWN and not self.game.over and self.game.soft:
            self.game.soft_drop(False)

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self.pause.on_mouse_motion(x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.pause.on_mouse_press(x, y)

    def on_resize(self, width: int, height: int) -> None:
        self._layout()
