"""The game screen of tray rulesets: board, tray, HUD, drag and drop, keyboard.

The view never decides a rule: legality comes from ``Game.can_place``, points
and glow from ``Game.preview``, dimming from ``Game.fit_masks``, and every
action goes through the headless ``Game``. Drawing uses sprite lists: one
sprite per board cell whose colour changes, plus small lists for the ghost,
the glow, the tray and the dragged piece.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard import IllegalMove

from . import theme
from .layout import GameLayout, Rect, game_layout
from .widgets import (
    Button,
    PauseMenu,
    cell_sprite,
    click_buttons,
    hover_buttons,
    piece_sprites,
)

if TYPE_CHECKING:
    from .app import BlockyardApp

TAP_DISTANCE = 8          # pixels a press may move and still count as a tap
LIFT_CELLS = 0.8          # a dragged piece floats this many cells above the pointer
DOUBLE_CLICK = 0.35       # seconds
FLASH_TIME = 0.25
LABEL_TIME = 0.8
PERFECT_TIME = 1.2
FALL_TIME = 0.18
OVER_DELAY = 0.6


@dataclass
class FloatingLabel:
    text: arcade.Text
    age: float
    life: float
    rise: float


class TrayGameView(arcade.View):
    """Plays one tray game."""

    def __init__(self, app: BlockyardApp, game: blockyard.TrayGame, *,
                 spectator: bool = False) -> None:
        super().__init__()
        self.app = app
        self.game = game
        self.spectator = spectator  # replays: shown, never played, saved or recorded
        self.can_rotate = game.has_action("rotate")
        self.layout: GameLayout = game_layout(self.window.width, self.window.height,
                                              game.rows, game.cols)
        self.cells = arcade.SpriteList()
        self.glow = arcade.SpriteList()
        self.ghost = arcade.SpriteList()
        self.flash = arcade.SpriteList()
        self.tray_sprites: list[arcade.SpriteList] = [arcade.SpriteList() for _ in range(3)]
        self.drag_sprites = arcade.SpriteList()
        # interaction state
        self.dragging: int | None = None
        self.press: tuple[float, float] | None = None
        self.pointer: tuple[float, float] = (0.0, 0.0)
        self.selected: int | None = None
        self.key_anchor: tuple[int, int] | None = None
        self.anchor: tuple[int, int] | None = None
        self.preview: blockyard.MoveResult | None = None
        self.swap_armed = False
        self.end_armed = False
        self.last_tray_click: tuple[int, float] = (-1, 0.0)
        self.message = ""
        self.message_age = 0.0
        # effects
        self.labels: list[FloatingLabel] = []
        self.flash_age = 0.0
        self.perfect_age = PERFECT_TIME
        self.fall_offsets: list[float] = []
        self.fall_age = FALL_TIME
        self.over_age = 0.0
        self.recorded = False
        self.save_age = 0.0
        self._build_hud()
        self._build_board()
        self.refresh()

    # -- building --------------------------------------------------------------------------

    def _build_hud(self) -> None:
        font = theme.FONT
        self.score_text = arcade.Text("0", 0, 0, theme.TEXT, 32, font_name=font, bold=True,
                                      anchor_x="center", anchor_y="center")
        self.best_text = arcade.Text("", 0, 0, theme.MUTED, 14, font_name=font,
                                     anchor_x="center", anchor_y="center")
        self.combo_text = arcade.Text("", 0, 0, theme.ACCENT, 18, font_name=font, bold=True,
                                      anchor_x="center", anchor_y="center")
        self.clock_text = arcade.Text("", 0, 0, theme.TEXT, 18, font_name=font,
                                      anchor_x="center", anchor_y="center")
        self.message_text = arcade.Text("", 0, 0, theme.ACCENT, 16, font_name=font,
                                        anchor_x="center", anchor_y="center")
        self.preview_text = arcade.Text("", 0, 0, theme.ACCENT, 20, font_name=font, bold=True,
                                        anchor_x="center", anchor_y="center")
        self.perfect_text = arcade.Text("PERFECT CLEAR!", 0, 0, theme.ACCENT, 40, font_name=font,
                                        bold=True, anchor_x="center", anchor_y="center")
        self.title_text = arcade.Text(self.game.ruleset.name, 0, 0, theme.MUTED, 12,
                                      font_name=font, anchor_x="center", anchor_y="center")
        self.menu_button = Button("Menu", self.open_pause, font_size=13)
        self.swap_button = Button("Swap", self.click_swap, font_size=13)
        self.end_button = Button("End round", self.click_end, font_size=13)
        self.continue_button = Button("Continue", self.do_continue, font_size=18,
                                      color=(40, 120, 80, 255))
        self.give_up_button = Button("Finish", self.finish, font_size=18)
        self.pause = PauseMenu(self.restart, self.to_launcher)
        self.overlay_text = arcade.Text("", 0, 0, theme.TEXT, 26, font_name=font, bold=True,
                                        anchor_x="center", anchor_y="center")

    def _build_board(self) -> None:
        layout = self.layout
        self.cells.clear()
        self.glow.clear()
        self.glow_pool: list[arcade.Sprite] = []  # one per cell; only glowing ones are drawn
        for r in range(self.game.rows):
            for c in range(self.game.cols):
                x, y = layout.cell_center(r, c)
                self.cells.append(cell_sprite(theme.EMPTY_CELL, layout.cell * 0.94, x, y))
                self.glow_pool.append(cell_sprite(theme.GLOW, layout.cell * 0.94, x, y))
        self.fall_offsets = [0.0] * len(self.cells)
        self.centres = [layout.cell_center(r, c) for r in range(self.game.rows)
                        for c in range(self.game.cols)]
        self._place_hud()

    def _place_hud(self) -> None:
        layout, hud = self.layout, self.layout.hud
        scale = max(0.7, min(1.4, min(layout.width, layout.height) / 720))
        self.score_text.font_size = 32 * scale
        self.combo_text.font_size = 18 * scale
        if layout.portrait:
            self.score_text.position = (hud.center_x, hud.top - hud.height * 0.35)
            self.best_text.position = (hud.center_x, hud.top - hud.height * 0.68)
            self.combo_text.position = (hud.center_x, hud.bottom + hud.height * 0.08)
            self.title_text.position = (hud.left + 90 * scale, hud.top - 12 * scale)
            self.clock_text.position = (hud.left + 70 * scale, hud.center_y - 8 * scale)
            bw, bh = 112 * scale, 34 * scale
            self.menu_button.place(Rect(hud.right - bw, hud.top - bh, bw, bh), 13 * scale)
            self.swap_button.place(Rect(hud.right - bw, hud.top - 2.2 * bh, bw, bh), 13 * scale)
            self.end_button.place(Rect(hud.right - bw, hud.top - 3.4 * bh, bw, bh), 13 * scale)
        else:
            self.title_text.position = (hud.center_x, hud.top - 10 * scale)
            self.score_text.position = (hud.center_x, hud.top - hud.height * 0.25)
            self.best_text.position = (hud.center_x, hud.top - hud.height * 0.45)
            self.combo_text.position = (hud.center_x, hud.top - hud.height * 0.6)
            self.clock_text.position = (hud.center_x, hud.top - hud.height * 0.74)
            bw, bh = hud.width / 3.3, 32 * scale
            for i, button in enumerate((self.menu_button, self.swap_button, self.end_button)):
                button.place(Rect(hud.left + i * (bw + hud.width * 0.05), hud.bottom, bw, bh),
                             12 * scale)
        board = layout.board
        self.message_text.position = (board.center_x, board.bottom - 14 * scale
                                      if layout.portrait else board.bottom + 14)
        self.perfect_text.position = (board.center_x, board.center_y)
        self.perfect_text.font_size = 40 * scale
        self.overlay_text.position = (layout.width / 2, layout.height * 0.66)
        self.pause.place(layout.width, layout.height, scale)
        self.continue_button.place(Rect(layout.width / 2 - 150 * scale, layout.height * 0.5,
                                        300 * scale, 50 * scale), 18 * scale)
        self.give_up_button.place(Rect(layout.width / 2 - 150 * scale,
                                       layout.height * 0.5 - 64 * scale, 300 * scale, 50 * scale),
                                  18 * scale)

    def on_resize(self, width: int, height: int) -> None:
        self.layout = game_layout(width, height, self.game.rows, self.game.cols)
        self._build_board()
        self.refresh()

    # -- state → sprites --------------------------------------------------------------------

    def colour(self, index: int) -> theme.Color:
        """The drawing colour of colour index ``index`` in this ruleset."""
        return theme.piece_colour(index, len(self.game.ruleset.families))

    def refresh(self) -> None:
        """Bring every sprite and text up to date with the game."""
        game = self.game
        for sprite, value in zip(self.cells, (v for row in game.board for v in row), strict=True):
            color = self.colour(value) if value else theme.EMPTY_CELL
            if sprite.color != color:
                sprite.color = color
        fits = game.fit_masks()
        for slot in range(3):
            sprites = self.tray_sprites[slot]
            sprites.clear()
            piece = game.tray[slot]
            if piece is None or slot == self.dragging:
                continue
            rect = self.layout.slots[slot]
            size = self.layout.tray_cell
            if slot == self.selected:
                size *= 1.15
            left = rect.center_x - piece.width * size / 2
            top = rect.center_y + piece.height * size / 2
            color = self.colour(piece.colour)
            if not fits[slot]:
                color = (color[0], color[1], color[2], 70)  # fits nowhere: dimmed
            piece_sprites(piece.cells, color, size, left, top, sprites)
        self.score_text.text = str(game.score)
        best = self.app.records.best(game.ruleset, game.date)
        if self.app.challenge_score is not None and not self.spectator:
            self.best_text.text = f"To beat {self.app.challenge_score}"
        elif game.ruleset.record_kind == "none":
            self.best_text.text = "Zen: no score"
        else:
            shown = max(best or 0, game.score)
            self.best_text.text = f"Best {shown}" + ("  NEW!" if best is not None
                                                     and game.score > best else "")
        self.combo_text.text = game.ruleset.display.combo_text(game.combo)
        left = game.time_left
        self.clock_text.text = "" if left is None else f"{int(left) // 60}:{int(left) % 60:02d}"
        has_swaps = game.has_action("swap")
        self.swap_button.visible = has_swaps
        self.swap_button.enabled = game.swaps_left > 0 and not game.over
        self.swap_button.label = ("Confirm swap?" if self.swap_armed
                                  else f"Swap ({game.swaps_left})")
        self.end_button.label = "Confirm end?" if self.end_armed else "End round"
        self.end_button.enabled = not game.over
        self._update_ghost()

    def _current_slot(self) -> int | None:
        return self.dragging if self.dragging is not None else self.selected

    def _update_ghost(self) -> None:
        """Ghost and glow for the piece being dragged, selected or keyboard-steered."""
        self.ghost.clear()
        self.glow.clear()
        self.preview = None
        self.anchor = None
        self.preview_text.text = ""
        slot = self._current_slot()
        if slot is None or self.game.over or self.game.tray[slot] is None:
            return
        anchor = self._target_anchor(slot)
        if anchor is None:
            return
        piece = self.game.tray[slot]
        row, col = anchor
        color = self.colour(piece.colour)
        if self.game.can_place(slot, row, col):
            self.anchor = anchor
            self.preview = self.game.preview(slot, row, col)
            ghost_color = (color[0], color[1], color[2], theme.GHOST_ALPHA)
            cols = self.game.cols
            glowing = {r * cols + c for r, c in self.preview.cleared_cells}
            for index in sorted(glowing):
                self.glow.append(self.glow_pool[index])
            if self.preview.lines:
                self.preview_text.text = f"+{self.preview.points}"
                x, y = self.layout.cell_center(row, col + piece.width / 2 - 0.5)
                self.preview_text.position = (x, y + self.layout.cell * 0.9)
        elif self.dragging is None and self.key_anchor is not None:
            ghost_color = (theme.BAD[0], theme.BAD[1], theme.BAD[2], 90)  # keyboard: no fit
        else:
            return
        board = self.layout.board
        size = self.layout.cell
        piece_sprites(piece.cells, ghost_color, size, board.left + col * size,
                      board.top - row * size, self.ghost)

    def _target_anchor(self, slot: int) -> tuple[int, int] | None:
        piece = self.game.tray[slot]
        layout = self.layout
        size = layout.cell
        if self.dragging is not None:
            x, y = self.pointer
            left = x - piece.width * size / 2
            top = y + LIFT_CELLS * size + piece.height * size
            return (round((layout.board.top - top) / size),
                    round((left - layout.board.left) / size))
        if self.key_anchor is not None:
            return self.key_anchor
        cell = layout.cell_at(*self.pointer)
        if cell is None:
            return None
        return (cell[0] - (piece.height - 1) // 2, cell[1] - (piece.width - 1) // 2)

    def _update_drag_sprites(self) -> None:
        self.drag_sprites.clear()
        if self.dragging is None:
            return
        piece = self.game.tray[self.dragging]
        size = self.layout.cell
        x, y = self.pointer
        piece_sprites(piece.cells, self.colour(piece.colour), size,
                      x - piece.width * size / 2, y + LIFT_CELLS * size + piece.height * size,
                      self.drag_sprites)

    # -- actions ---------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.message = text
        self.message_text.text = text
        self.message_age = 0.0

    def try_place(self, slot: int, row: int, col: int) -> bool:
        """Place through the game; effects and saving follow. False if refused."""
        try:
            before = self.game.board
            result = self.game.place(slot, row, col)
        except IllegalMove as exc:
            self.say(str(exc))
            return False
        self.selected = None
        self.key_anchor = None
        self.swap_armed = self.end_armed = False
        self._start_effects(result, before)
        self.saved()
        self.refresh()
        return True

    def saved(self) -> None:
        """Save the game in progress (not for a replay)."""
        if not self.spectator:
            self.app.after_action(self.game)

    def perform(self, action: list) -> None:
        """Perform a logged action with its effects (the replay viewer)."""
        if action[0] == "place":
            self.try_place(*action[1:])
            return
        self.game.apply(action)
        self.refresh()

    def _start_effects(self, result: blockyard.MoveResult, before: Any) -> None:
        game, layout = self.game, self.layout
        cleared = result.cleared_cells
        self.flash.clear()
        for r, c in sorted(cleared):
            x, y = layout.cell_center(r, c)
            value = before[r][c] or result.piece.colour
            self.flash.append(cell_sprite(self.colour(value),
                                          layout.cell * 0.94, x, y))
        self.flash_age = 0.0
        if result.points:
            x, y = layout.cell_center(result.row, result.col)
            text = arcade.Text(f"+{result.points}", x, y, theme.ACCENT, 22, font_name=theme.FONT,
                               bold=True, anchor_x="center", anchor_y="center")
            self.labels.append(FloatingLabel(text, 0.0, LABEL_TIME, layout.cell * 1.5))
        if result.perfect_clear:
            self.perfect_age = 0.0
        if any(result.row_drops):  # rows fell (gravity): slide them down from above
            cols = game.cols
            self.fall_offsets = [result.row_drops[r] * layout.cell
                                 for r in range(game.rows) for _ in range(cols)]
            self.fall_age = 0.0

    def select(self, slot: int) -> None:
        """Select a tray piece for tap-to-place or the keyboard. A piece that fits
        nowhere cannot be selected, unless turning it would make it fit."""
        piece = self.game.tray[slot]
        if self.game.over or piece is None:
            return
        if not self.game.fit_masks()[slot] and not (
                self.can_rotate and any(self.game.piece_fits_somewhere(turned)
                                        for turned in _turns(piece))):
            self.say("That piece fits nowhere")
            return
        self.selected = slot
        self._anchor_keyboard(slot)
        self.refresh()

    def _anchor_keyboard(self, slot: int) -> None:
        moves = [m for m in self.game.legal_moves() if m[0] == slot]
        self.key_anchor = (moves[len(moves) // 2][1], moves[len(moves) // 2][2]) \
            if moves else (0, 0)

    def rotate(self, slot: int | None) -> None:
        if slot is None or self.game.tray[slot] is None:
            return
        try:
            self.game.rotate(slot)
        except IllegalMove as exc:
            self.say(str(exc))
            return
        self.saved()
        if self.selected == slot:
            piece = self.game.tray[slot]
            r, c = self.key_anchor or (0, 0)
            self.key_anchor = (min(r, self.game.rows - piece.height),
                               min(c, self.game.cols - piece.width))
            if not self.game.can_place(slot, *self.key_anchor):
                self._anchor_keyboard(slot)
        self.refresh()

    def _armed(self, flag: str, prompt: str) -> bool:
        """Two-click confirmation: the first click arms ``flag`` and asks; the
        second (flag already set) disarms it and returns True."""
        if not getattr(self, flag):
            setattr(self, flag, True)
            self.say(prompt)
            self.refresh()
            return False
        setattr(self, flag, False)
        return True

    def click_swap(self) -> None:
        if not self._armed("swap_armed", "Click Swap again (or press S) to swap the tray"):
            return
        try:
            self.game.swap()
        except IllegalMove as exc:
            self.say(str(exc))
        else:
            self.selected = self.key_anchor = None
            self.say("New pieces!")
            self.saved()
        self.refresh()

    def click_end(self) -> None:
        if not self._armed("end_armed", "Click again to end the round"):
            return
        if not self.game.over:
            self.game.end_round()
            self.saved()
        self.refresh()

    def do_continue(self) -> None:
        if self.game.can_continue:
            self.game.continue_game()
            self.over_age = 0.0
            self.say("Rows emptied — go on!")
            self.saved()
            self.refresh()

    def finish(self) -> None:
        self.over_age = OVER_DELAY
        self._show_summary()

    @property
    def paused(self) -> bool:
        return self.pause.open

    def open_pause(self) -> None:
        self.pause.show()

    def restart(self) -> None:
        self.app.restart(self.game)

    def to_launcher(self) -> None:
        self.app.show_launcher()

    def _show_summary(self) -> None:
        if not self.recorded and not self.spectator:
            self.recorded = True
            self.app.finish_game(self.game)

    # -- Arcade events -------------------------------------------------------------------------

    def on_update(self, delta_time: float) -> None:
        game = self.game
        if not self.spectator and not self.paused and not game.over \
                and game.time_left is not None:
            game.tick(delta_time)
            self.save_age += delta_time
            if game.over or self.save_age > 2.0:
                self.save_age = 0.0
                self.saved()
            left = game.time_left
            text = f"{int(left) // 60}:{int(left) % 60:02d}"
            if self.clock_text.text != text:
                self.clock_text.text = text
        self.flash_age += delta_time
        self.perfect_age += delta_time
        self.message_age += delta_time
        if self.message and self.message_age > 2.5:
            self.message = ""
            self.message_text.text = ""
        for label in self.labels:
            label.age += delta_time
            label.text.y += label.rise * delta_time / label.life
        self.labels = [label for label in self.labels if label.age < label.life]
        if self.fall_age < FALL_TIME:
            self.fall_age += delta_time
            k = max(0.0, 1 - self.fall_age / FALL_TIME)
            for sprite, offset, (x, y) in zip(self.cells, self.fall_offsets, self.centres,
                                              strict=True):
                sprite.center_y = y + offset * k
                sprite.center_x = x
        if game.over and not self.paused and not self.spectator:
            if game.can_continue:
                return
            self.over_age += delta_time
            if self.over_age >= OVER_DELAY:
                self._show_summary()

    def on_draw(self) -> None:
        self.clear(color=theme.BACKGROUND)
        board = self.layout.board
        pad = self.layout.cell * 0.12
        arcade.draw_lrbt_rectangle_filled(board.left - pad, board.right + pad,
                                          board.bottom - pad, board.top + pad, theme.BOARD_BG)
        self.cells.draw()
        self.glow.draw()
        self.ghost.draw()
        if self.flash_age < FLASH_TIME:
            alpha = int(255 * (1 - self.flash_age / FLASH_TIME))
            self.flash.alpha = alpha
            self.flash.draw()
        for sprites in self.tray_sprites:
            sprites.draw()
        self.drag_sprites.draw()
        for text in (self.title_text, self.score_text, self.best_text, self.combo_text,
                     self.clock_text, self.message_text, self.preview_text):
            text.draw()
        for label in self.labels:
            label.text.color = (*theme.ACCENT[:3], int(255 * (1 - label.age / label.life)))
            label.text.draw()
        for button in (self.menu_button, self.swap_button, self.end_button):
            button.draw()
        if self.perfect_age < PERFECT_TIME:
            self.perfect_text.draw()
        if self.game.over and self.game.can_continue and not self.spectator:
            self._draw_overlay("Stuck! Continue once?")
            self.continue_button.draw()
            self.give_up_button.draw()
        else:
            self.pause.draw()

    def _draw_overlay(self, title: str) -> None:
        arcade.draw_lrbt_rectangle_filled(0, self.layout.width, 0, self.layout.height,
                                          theme.OVERLAY)
        self.overlay_text.text = title
        self.overlay_text.draw()

    def _modal_buttons(self) -> list[Button]:
        if self.game.over and self.game.can_continue:
            return [self.continue_button, self.give_up_button]
        if self.paused:
            return self.pause.buttons
        return []

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self.pointer = (x, y)
        modal = self._modal_buttons()
        hover_buttons(modal or [self.menu_button, self.swap_button, self.end_button], x, y)
        if self.selected is not None and self.dragging is None and not modal:
            if self.layout.board.contains(x, y):
                self.key_anchor = None
            self._update_ghost()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.pointer = (x, y)
        modal = self._modal_buttons()
        if modal:
            click_buttons(modal, x, y)
            return
        if click_buttons([self.menu_button, self.swap_button, self.end_button], x, y):
            return
        if self.swap_armed or self.end_armed:
            self.swap_armed = self.end_armed = False
            self.refresh()
        if self.game.over:
            return
        slot = self.layout.slot_at(x, y)
        if slot is not None and self.game.tray[slot] is not None:
            if self.can_rotate:
                last_slot, last_time = self.last_tray_click
                double = last_slot == slot and time.monotonic() - last_time < DOUBLE_CLICK
                if button == arcade.MOUSE_BUTTON_RIGHT or double:
                    self.last_tray_click = (-1, 0.0)
                    self.rotate(slot)
                    return
            if not self.game.fit_masks()[slot]:
                self.say("That piece fits nowhere")
                return
            self.dragging = slot
            self.press = (x, y)
            self.key_anchor = None
            self.refresh()
            self._update_drag_sprites()
            return
        if self.selected is not None and self.layout.board.contains(x, y):
            self.key_anchor = None
            self._update_ghost()
            if self.anchor is not None:
                self.try_place(self.selected, *self.anchor)

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int,
                      modifiers: int) -> None:
        self.pointer = (x, y)
        if self.dragging is not None:
            self._update_drag_sprites()
            self._update_ghost()

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.pointer = (x, y)
        if self.dragging is None:
            return
        slot = self.dragging
        moved = self.press is not None and (abs(x - self.press[0]) + abs(y - self.press[1])
                                            > TAP_DISTANCE)
        anchor = self.anchor
        self.dragging = None
        self.press = None
        self.drag_sprites.clear()
        if not moved:
            self.last_tray_click = (slot, time.monotonic())
            self.selected = None if self.selected == slot else slot
            self.key_anchor = None
            self.refresh()
            return
        if anchor is not None:  # where the ghost is, the piece lands
            self.try_place(slot, *anchor)
        else:
            self.refresh()  # no ghost (off the board, over the tray, no fit): back to its slot

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if self.game.over and self.game.can_continue:
            if symbol in (key.C, key.ENTER, key.RETURN):
                self.do_continue()
            elif symbol in (key.ESCAPE, key.F):
                self.finish()
            return
        if self.pause.on_key(symbol):
            return
        if symbol == key.ESCAPE:
            self.open_pause()
            return
        if self.game.over:
            return
        if symbol == key.S:
            self.end_armed = False
            if not self.game.has_action("swap"):
                self.say("This ruleset has no swaps")
                return
            self.click_swap()
            return
        if symbol == key.E:
            self.swap_armed = False
            self.click_end()
            return
        if self.swap_armed or self.end_armed:  # any other key cancels a confirmation
            self.swap_armed = self.end_armed = False
            self.refresh()
        if symbol in (key.KEY_1, key.KEY_2, key.KEY_3, key.NUM_1, key.NUM_2, key.NUM_3):
            slot = {key.KEY_1: 0, key.KEY_2: 1, key.KEY_3: 2,
                    key.NUM_1: 0, key.NUM_2: 1, key.NUM_3: 2}[symbol]
            self.select(slot)
        elif symbol == key.R:
            self.rotate(self.selected)
        elif symbol in (key.LEFT, key.RIGHT, key.UP, key.DOWN) and self.selected is not None:
            piece = self.game.tray[self.selected]
            r, c = self.key_anchor or (0, 0)
            dr, dc = {key.LEFT: (0, -1), key.RIGHT: (0, 1), key.UP: (-1, 0),
                      key.DOWN: (1, 0)}[symbol]
            self.key_anchor = (max(0, min(self.game.rows - piece.height, r + dr)),
                               max(0, min(self.game.cols - piece.width, c + dc)))
            self._update_ghost()
        elif symbol in (key.ENTER, key.RETURN, key.SPACE) and self.selected is not None:
            if self.key_anchor is None:
                self._update_ghost()
            target = self.key_anchor or self.anchor
            if target is not None:
                self.try_place(self.selected, *target)


def _turns(piece: blockyard.Piece) -> list[blockyard.Piece]:
    """The other three quarter turns of a piece."""
    out = []
    turned = piece
    for _ in range(3):
        turned = turned.rotated()
        out.append(turned)
    return out
