"""The Sudoku Bloxx screen: falling stones on a 9×9 board.

Keys: ←/→ move, ↓ soft drop (while held), Space hard drop, Esc pause; the same
controls are buttons under the board for the mouse or a touch screen (soft drop
while the button is held). A shadow shows where the stone would land. The view
only renders the headless ``FallingGame`` and forwards input; every rule,
landing and point comes from the game, every number shown from its rules.

It is a :class:`~.game_screen.GameScreen` (HUD, messages, the pause dialog)
with a :class:`StoneBoardSection` (board, stones, shadow, sweep, points) and a
:class:`ControlsSection` (the on-screen controls and the key help).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import arcade
import pyglet

import blockyard
from blockyard.falling import FallingGame
from blockyard.results import LandResult
from blockyard.stones import Stone

from . import rulewords, theme
from .duel import duel_turn_text
from .game_screen import GameScreen, ScreenSection
from .i18n import _, format_number
from .layout import Rect
from .rulewords import signed
from .text import Text
from .widgets import Button, cell_sprite, fit_text, hover_buttons

if TYPE_CHECKING:
    from .session import Session

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


class StoneBoardSection(ScreenSection):
    """The board of a falling-stone game: the stones with their digits, the block
    outlines of the rules, the full columns (where a stone is discarded), the
    falling stone and its landing shadow, the sweep of completed areas and the
    points rising."""

    def __init__(self, screen: SudokuView) -> None:
        super().__init__(screen, "board", accept_keyboard_keys=False,
                         accept_mouse_events=False)
        self.screen: SudokuView = screen
        self.cells: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.overlay_sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.batch = pyglet.graphics.Batch()
        self.digits: list[arcade.Text] = []
        self.sweep: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.sweep_age = SWEEP_TIME
        self.labels: list[tuple[arcade.Text, float]] = []
        self.shown: list[int] = []
        self.current_text = Text("", 0, 0, (20, 20, 30, 255), 20, font_name=theme.FONT,
                                 bold=True, anchor_x="center", anchor_y="center")
        self.shadow = cell_sprite(theme.GLOW, 10)
        self.falling = cell_sprite(theme.STONE, 10)
        self.discard_marks: list[Text] = []
        self.block_lines: list[tuple[float, float, float, float]] = []

    def place(self, board: Rect, cell: float) -> None:
        screen = self.screen
        game = screen.game
        self.set_area(board)
        self.shadow = cell_sprite(theme.GLOW, cell * 0.92)
        self.shadow.alpha = 70
        self.cells.clear()
        self.digits = []
        self.batch = pyglet.graphics.Batch()
        for r in range(game.rows):
            for c in range(game.cols):
                x, y = screen.cell_center(r, c)
                self.cells.append(cell_sprite(theme.EMPTY_CELL, cell * 0.92, x, y))
                self.digits.append(Text("", x, y, (20, 20, 30, 255), cell * 0.45,
                                        font_name=theme.FONT, bold=True,
                                        anchor_x="center", anchor_y="center",
                                        batch=self.batch))
        self.shown = [-1] * (game.rows * game.cols)
        self.discard_marks = [Text(screen.discard_label, board.left + (c + 0.5) * cell,
                                   board.top + cell * 0.24, theme.TEXT, cell * 0.2,
                                   font_name=theme.FONT, bold=True, anchor_x="center",
                                   anchor_y="center")
                              for c in range(game.cols)]
        self.falling = cell_sprite(theme.STONE, cell * 0.92)
        self.current_text.font_size = cell * 0.45
        self.overlay_sprites.clear()
        self.overlay_sprites.append(self.shadow)
        self.overlay_sprites.append(self.falling)
        self.block_lines = block_lines(game.ruleset, board, cell)

    def refresh(self) -> None:
        for i, code in enumerate(self.screen.game.grid.colours):
            if self.shown[i] == code:
                continue
            self.shown[i] = code
            if code:
                stone = Stone.from_code(code)
                self.cells[i].color = stone_colour(stone)
                self.digits[i].text = stone_glyph(stone)
                self.digits[i].color = theme.SYMBOL_INK if (stone.symbol or stone.joker) \
                    else (20, 20, 30, 255)
            else:
                self.cells[i].color = theme.EMPTY_CELL
                self.digits[i].text = ""
        self.place_falling()

    def place_falling(self) -> None:
        screen = self.screen
        game = screen.game
        current = game.current
        if current is None:
            self.falling.visible = False
            self.shadow.visible = False
            self.current_text.text = ""
            return
        self.falling.visible = True
        landing = game.landing_row()
        self.shadow.visible = landing > current.row
        self.shadow.position = screen.cell_center(max(landing, 0), current.col)
        # smooth: between its row and the next by the share of the fall interval elapsed
        progress = 0.0
        if landing > current.row:  # still falling: glide towards the next row
            progress = game.fall_progress
        # a new stone starts above the board (row -1): it shows in row 0 until it falls
        # on, never across the board's top edge
        x, y = screen.cell_center(max(0.0, current.row + progress), current.col)
        self.falling.position = (x, y)
        self.falling.color = stone_colour(current.stone)
        self.current_text.text = stone_glyph(current.stone)
        marked = current.stone.symbol or current.stone.joker
        self.current_text.color = theme.SYMBOL_INK if marked else (20, 20, 30, 255)
        self.current_text.position = (x, y)

    def add_label(self, text: str, row: int, col: int, color: theme.Color) -> None:
        screen = self.screen
        x, y = screen.cell_center(row, col)
        self.labels.append((Text(text, x, y + screen.cell * 0.6, color, 20 * screen.scale,
                                 font_name=theme.FONT, bold=True, anchor_x="center",
                                 anchor_y="center"), 0.0))

    def start_sweep(self, completed: list[tuple[str, int]]) -> None:
        """Light up the cells of the completed areas (not under reduced motion)."""
        screen = self.screen
        if not screen.motion:
            return
        done = {tuple(area) for area in completed}
        cells = {cell for region in screen.game.ruleset.regions
                 if (region.kind, region.index) in done for cell in region.cells}
        self.sweep.clear()
        for r, c in sorted(cells):
            x, y = screen.cell_center(r, c)
            self.sweep.append(cell_sprite(theme.ACCENT, screen.cell * 0.92, x, y))
        self.sweep_age = 0.0
        screen.effects.append("sweep")

    def advance(self, delta_time: float) -> None:
        self.labels = [(text, age + delta_time) for text, age in self.labels
                       if age + delta_time < LABEL_TIME]
        if self.screen.motion:
            for text, _size in self.labels:
                text.y += self.screen.cell * delta_time
        if self.sweep_age < SWEEP_TIME:
            self.sweep_age += delta_time
            self.sweep.alpha = max(0, int(200 * (1 - self.sweep_age / SWEEP_TIME)))

    def animating(self) -> bool:
        return bool(self.labels) or self.sweep_age < SWEEP_TIME

    def on_draw(self) -> None:
        screen = self.screen
        b, cell = screen.board, screen.cell
        pad = cell * 0.1
        arcade.draw_lrbt_rectangle_filled(b.left - pad, b.right + pad, b.bottom - pad,
                                          b.top + pad, theme.BOARD_BG)
        # full columns: the place to discard, marked with what it scores now (−100),
        # while there is a game to discard in
        for col in range(screen.game.cols):
            if not screen.game.over and screen.game.column_full(col):
                x = b.left + col * cell
                arcade.draw_lrbt_rectangle_filled(x + 2, x + cell - 2, b.top + pad,
                                                  b.top + cell * 0.38, theme.BAD)
                self.discard_marks[col].draw()
        self.cells.draw()
        if self.sweep_age < SWEEP_TIME:
            self.sweep.draw()
        self.batch.draw()
        for left, right, bottom, top in self.block_lines:
            arcade.draw_lrbt_rectangle_outline(left, right, bottom, top, theme.ACCENT, 3)
        self.overlay_sprites.draw()
        self.current_text.draw()
        for text, _age in self.labels:
            text.draw()


class ControlsSection(ScreenSection):
    """The on-screen controls under the board (move, soft drop while held, hard
    drop) and the line of key help; hidden while watching a replay."""

    def __init__(self, screen: SudokuView) -> None:
        super().__init__(screen, "controls", accept_keyboard_keys=False,
                         accept_mouse_events={"on_mouse_press", "on_mouse_release",
                                              "on_mouse_motion", "on_mouse_leave"},
                         prevent_dispatch_view={"on_mouse_press", "on_mouse_release"})
        self.screen: SudokuView = screen
        self.buttons = {
            "left": Button("◀", lambda: screen.control("left"), font_size=22),
            "soft": Button(_("▼ soft"), lambda: screen.control("soft"), font_size=15),
            "hard": Button(_("▼▼ drop"), lambda: screen.control("hard"), font_size=15),
            "right": Button("▶", lambda: screen.control("right"), font_size=22),
        }
        self.held: str | None = None
        self.help_text = Text(_("Keys: ←/→ move   ↓ soft drop   Space hard drop   Esc pause"),
                              0, 0, theme.MUTED, 12, font_name=theme.FONT, anchor_x="center",
                              anchor_y="center")

    def place(self, width: float, bottom: float, height: float, scale: float) -> None:
        self.set_area(Rect(0, bottom, width, height))
        gap = 8 * scale
        control_h = 56 * scale
        cw = min(120 * scale, (width - 5 * gap) / 4)
        left = width / 2 - (4 * cw + 3 * gap) / 2
        for i, button in enumerate(self.buttons.values()):
            button.place(Rect(left + i * (cw + gap), bottom + 30 * scale, cw, control_h),
                         button.font_size)
        self.help_text.position = (width / 2, bottom + 14 * scale)
        fit_text(self.help_text, width - 16, 20 * scale, 12 * scale)

    def on_draw(self) -> None:
        self.help_text.draw()
        if not self.screen.spectator:
            for button in self.buttons.values():
                button.draw()

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        hover_buttons(self.buttons.values(), x, y)

    def on_mouse_leave(self, x: float, y: float) -> None:
        hover_buttons(self.buttons.values(), -1, -1)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> bool:
        if self.screen.spectator:
            return False
        for name, control in self.buttons.items():
            if control.hit(x, y):
                self.held = name
                self.screen.control(name)
                return True
        return False

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> bool:
        self.release()
        return True

    def release(self) -> None:
        """The held control is let go (soft drop stops)."""
        if self.held == "soft":
            self.screen.release_soft_drop()
        self.held = None


class SudokuView(GameScreen):
    """Plays one falling-stone game: the shared game screen with a stone board and
    on-screen controls."""

    def __init__(self, session: Session, game: FallingGame, *,
                 spectator: bool = False, reserve_bottom: float = 0.0) -> None:
        super().__init__(session, game, spectator=spectator, reserve_bottom=reserve_bottom)
        self.game: FallingGame = game
        self.over_delay = OVER_DELAY
        self.over_sounded = game.over
        self.shown_moves = -1
        font = theme.FONT
        self.score_text = Text("0", 0, 0, theme.TEXT, 28, font_name=font, bold=True,
                               anchor_x="center", anchor_y="center")
        self.clock_text = Text("", 0, 0, theme.TEXT, 18, font_name=font,
                               anchor_x="center", anchor_y="center")
        # the errors made (✗, in the bad colour) and the ones left (·, muted), as one line
        self.errors_text = Text("", 0, 0, theme.BAD, 22, font_name=font, bold=True,
                                anchor_x="left", anchor_y="center")
        self.spare_text = Text("", 0, 0, theme.MUTED, 22, font_name=font, bold=True,
                               anchor_x="left", anchor_y="center")
        self.errors_at = (0.0, 0.0)  # where the line is centred (set by the layout)
        self.next_text = Text(_("Next"), 0, 0, theme.MUTED, 13, font_name=font,
                              anchor_x="left", anchor_y="center")
        self.upcoming_texts = [Text("", 0, 0, (20, 20, 30, 255), 14, font_name=font,
                                    bold=True, anchor_x="center", anchor_y="center")
                               for _ in range(3)]
        self.max_errors = game.errors_allowed
        self.discard_label = ""  # what a discard scores now (from the scoring hook)
        self.errors_label = Text(_("Errors"), 0, 0, theme.MUTED, 12, font_name=font,
                                 anchor_x="center", anchor_y="center")
        self.upcoming: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.hud.texts = [self.score_text, self.clock_text, self.errors_text, self.spare_text,
                          self.errors_label, self.next_text, *self.upcoming_texts]
        self.hud.sprites = [self.upcoming]
        self.board_section = StoneBoardSection(self)
        self.controls_section = ControlsSection(self)
        self.add(self.board_section, 0)
        self.add(self.controls_section, 10)
        self.place_sections(self.window.width, self.window.height)
        self.refresh()

    # -- layout and sprites -----------------------------------------------------------------

    @property
    def hud_buttons(self) -> list[Button]:
        return [] if self.spectator and not self.menu_while_watching else [self.menu_button]

    def place_sections(self, width: int, height: int) -> None:
        game = self.game
        low = self.reserve_bottom
        scale = max(0.7, min(1.3, min(width, height - low) / 720))
        self.scale = scale
        top_band = 130 * scale
        control_h = 56 * scale
        bottom_band = control_h + 44 * scale
        cell = min((width - 40 * scale) / game.cols,
                   (height - low - top_band - bottom_band) / game.rows)
        self.cell = cell
        bw, bh = cell * game.cols, cell * game.rows
        self.board = Rect((width - bw) / 2, low + bottom_band, bw, bh)
        self.controls_section.place(width, low, bottom_band, scale)
        self.menu_button.place(Rect(width - 110 * scale, height - 44 * scale, 100 * scale,
                                    34 * scale), 13 * scale)
        self.hud.set_area(Rect(0, height - top_band, width, top_band))
        self.board_section.place(self.board, cell)
        self.upcoming.clear()
        for i in range(3):
            sprite = cell_sprite(theme.STONE, cell * 0.62)
            sprite.position = (24 * scale + cell * 0.4 + i * cell * 0.75, height - 78 * scale)
            self.upcoming_texts[i].position = sprite.position
            self.upcoming_texts[i].font_size = cell * 0.3
            self.upcoming.append(sprite)
        self.next_text.position = (24 * scale, height - 40 * scale)
        self.score_text.position = (width / 2, height - 50 * scale)
        self.clock_text.position = (width / 2, height - 90 * scale)
        self.errors_at = (width - 170 * scale, height - 50 * scale)  # the line's centre
        self._place_errors()
        self.errors_label.position = (width - 170 * scale, height - 78 * scale)
        self.message_line.place(Rect(0, self.board.bottom - 26 * scale, width, 24 * scale),
                                14 * scale)
        self.dialog.place(width, height, scale)

    def _place_errors(self) -> None:
        """Centre the errors line (made, then left) on :attr:`errors_at`."""
        x, y = self.errors_at
        made = self.errors_text.content_width if self.errors_text.text else 0.0
        left = x - (made + (self.spare_text.content_width if self.spare_text.text else 0.0)) / 2
        self.errors_text.position = (left, y)
        self.spare_text.position = (left + made, y)

    def cell_center(self, row: float, col: float) -> tuple[float, float]:
        return (self.board.left + (col + 0.5) * self.cell,
                self.board.top - (row + 0.5) * self.cell)

    def refresh(self) -> None:
        game = self.game
        self.board_section.refresh()
        self.score_text.text = format_number(game.score)
        self._update_clock()
        self.shown_moves = game.moves
        if any(game.column_full(col) for col in range(game.cols)):
            points = game.discard_points()
            label = signed(points) if points else format_number(0)
            if label != self.discard_label:
                self.discard_label = label
                for mark in self.board_section.discard_marks:
                    mark.text = label
        if self.max_errors is not None:
            self.errors_text.text = "✗" * game.errors
            self.spare_text.text = "·" * max(0, self.max_errors - game.errors)
            self.errors_label.text = _("Errors {n} of {most}").format(
                n=format_number(game.errors), most=format_number(self.max_errors))
        else:
            self.errors_text.text = self.spare_text.text = ""
            self.errors_label.text = _("Errors {n}").format(
                n=format_number(game.errors)) if game.errors else ""
        self._place_errors()
        for sprite, text, stone in zip(self.upcoming, self.upcoming_texts, game.upcoming,
                                       strict=False):
            sprite.color = stone_colour(stone)
            text.text = stone_glyph(stone)
            text.color = theme.SYMBOL_INK if (stone.symbol or stone.joker) else (20, 20, 30, 255)
        super().refresh()

    def _update_clock(self) -> None:
        left = self.game.time_left or 0
        clock = rulewords.clock(left)
        if self.session.duel is not None and not self.spectator:
            clock += "   ·   " + duel_turn_text(self.session.duel)
        elif self.session.challenge is not None and not self.spectator:
            clock += "   ·   " + _("to beat {points}").format(
                points=format_number(self.session.challenge))
        if self.clock_text.text != clock:
            self.clock_text.text = clock

    # -- game flow ----------------------------------------------------------------------------

    def _landed(self, results: Sequence[LandResult | None]) -> None:
        board = self.board_section
        for result in results:
            if result is None:
                continue
            if result.error:
                self.play("error")
            elif result.discarded:
                self.play("discard")
            else:
                self.play("place")
                if result.completed:
                    self.play("clear", len(result.completed))
                    if not self.spectator:
                        board.start_sweep(result.completed)
        for result in results:
            if result is None:
                continue
            if result.points or result.error:
                text = _("Error!") if result.error else signed(result.points)
                color = theme.BAD if result.error or result.points < 0 else theme.ACCENT
                board.add_label(text, max(result.row, 0), result.col, color)
        if results:
            self.saved()

    def perform(self, action: list[Any]) -> None:
        """Perform a logged action with its effects (the replay viewer)."""
        moves = self.game.moves
        outcome = self.game.apply(action)
        if action[0] == "tick":
            self._landed(outcome)
        elif self.game.moves != moves:
            self._landed([self.game.last_landing])
        self.refresh()

    def game_update(self, delta_time: float) -> None:
        self._landed(self.game.tick(delta_time))

    def on_update(self, delta_time: float) -> None:
        super().on_update(delta_time)
        if self.game.over and not self.over_sounded and not self.spectator:
            self.over_sounded = True
            self.play("game_over")
        if self.game.moves != self.shown_moves or self.game.over:
            self.refresh()  # a stone landed: board, score, upcoming stones
        else:
            self._update_clock()
            self.board_section.place_falling()

    # -- input ----------------------------------------------------------------------------------

    def open_pause(self) -> None:
        self.release_soft_drop()
        super().open_pause()

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
        self.saved()
        self.refresh()

    def release_soft_drop(self) -> None:
        if not self.game.over and self.game.soft and not self.spectator:
            self.game.soft_drop(False)
            self.saved()

    def use_action(self, name: str) -> None:
        """An action of the rules by name (falling games offer none on screen but
        what the rules allow after the end)."""
        try:
            self.game.act(name)
        except blockyard.IllegalMove:
            return  # a plugin's fault goes on to the window's plugin fault screen
        self.saved()
        self.refresh()

    def animating(self) -> bool:
        """Falling stones move every frame while the game runs; labels fade."""
        return super().animating() or (not self.game.over and not self.paused) \
            or (self.game.over and not self.recorded and not self.spectator)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
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

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.controls_section.release()  # a held control let go off its button


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
