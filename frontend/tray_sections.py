"""The drawing sections of the tray game screen: the board and the tray.

The :class:`BoardSection` draws the cells, the ghost and glow of the piece in
hand, the hint, and the effects of a move (flash, particles, combo, perfect
clear, fall, shake, the floating points); the :class:`TraySection` draws the
``len(game.tray)`` pieces to place (dimmed when they fit nowhere), the selected
slot and the dragged piece. Both only draw: what is selected, dragged or aimed
they read from the screen's input controller
(:class:`~.tray_input.TrayInput`), the rest from the headless game.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

import arcade

import blockyard

from . import theme
from .game_screen import ScreenSection
from .i18n import _
from .layout import GameLayout
from .rulewords import shaded_cells, signed
from .text import Text
from .tray_input import Board, Target
from .widgets import cell_sprite, fit_text, piece_sprites

if TYPE_CHECKING:
    from .tray_view import TrayGameView

FLASH_TIME = 0.25
LABEL_TIME = 0.8
PERFECT_TIME = 1.2
FALL_TIME = 0.18
HINT_EDGE = 0.08          # the hint's outline (board piece and tray slot), in cells
ONE_CELL = blockyard.Piece(frozenset({(0, 0)}))  # the outline of a hinted action's cell
PARTICLE_TIME = 0.7       # clear and perfect-clear particles
PARTICLES_PER_CELL = 3
MAX_PARTICLES = 600
COMBO_TIME = 0.9          # the combo factor shown big over the board
SHAKE_TIME = 0.3          # the board shakes and its edge flashes after an invalid drop
SHAKE_CELLS = 0.12        # how far it moves, in cells
LABEL_PAD = 0.25          # the backing of a floating "+N", around the text, in font sizes


@dataclass
class FloatingLabel:
    """A "+N" rising from a placed piece, on a backing of its own (readable over
    any piece colour)."""

    text: arcade.Text
    age: float
    life: float
    rise: float

    def backing(self) -> tuple[float, float, float, float]:
        """Left, right, bottom, top of the label's backing."""
        pad = self.text.font_size * LABEL_PAD
        half_w = self.text.content_width / 2 + pad
        half_h = self.text.content_height / 2 + pad / 2
        x, y = self.text.x, self.text.y
        return (x - half_w, x + half_w, y - half_h, y + half_h)


def label_colours() -> tuple[theme.Color, theme.Color]:
    """The text and backing colours of the floating "+N" of the current theme."""
    return theme.ACCENT, theme.BACKGROUND


class BoardSection(ScreenSection):
    """The board: its cells, the ghost and glow of the piece in hand, the hint, and
    the effects of a move (flash, particles, combo, perfect clear, fall, shake,
    the floating points)."""

    def __init__(self, screen: TrayGameView) -> None:
        super().__init__(screen, "board", accept_keyboard_keys=False,
                         accept_mouse_events=False)
        self.screen: TrayGameView = screen
        self.cells: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.glow: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.ghost: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.flash: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.particles: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.particle_motion: list[tuple[float, float]] = []
        self.hint_sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        # the hinted piece's outline (x1, y1, x2, y2 of each outer edge): seen on cells
        # of its own colour too
        self.hint_outline: list[tuple[float, float, float, float]] = []
        self.glow_pool: list[arcade.Sprite] = []
        self.empty_colours: list[theme.Color] = []
        self.fall_offsets: list[float] = []
        self.centres: list[tuple[float, float]] = []
        self.labels: list[FloatingLabel] = []
        self.flash_age = FLASH_TIME
        self.perfect_age = PERFECT_TIME
        self.fall_age = FALL_TIME
        self.particle_age = PARTICLE_TIME
        self.combo_age = COMBO_TIME
        self.shake_age = SHAKE_TIME
        self.shake_camera = arcade.Camera2D()
        font = theme.FONT
        self.preview_text = Text("", 0, 0, theme.ACCENT, 20, font_name=font, bold=True,
                                 anchor_x="center", anchor_y="center")
        self.perfect_text = Text(_("PERFECT CLEAR!"), 0, 0, theme.ACCENT, 40, font_name=font,
                                 bold=True, anchor_x="center", anchor_y="center")
        self.big_combo_text = Text("", 0, 0, theme.ACCENT, 52, font_name=font, bold=True,
                                   anchor_x="center", anchor_y="center")

    def place(self, layout: GameLayout, scale: float) -> None:
        game = self.screen.game
        self.set_area(layout.board)
        self.cells.clear()
        self.glow.clear()
        self.glow_pool = []  # one per cell; only glowing ones are drawn
        for r in range(game.rows):
            for c in range(game.cols):
                x, y = layout.cell_center(r, c)
                self.cells.append(cell_sprite(theme.EMPTY_CELL, layout.cell * 0.94, x, y))
                self.glow_pool.append(cell_sprite(theme.GLOW, layout.cell * 0.94, x, y))
        self.empty_colours = block_shading(game.ruleset, game.rows, game.cols)
        self.fall_offsets = [0.0] * len(self.cells)
        self.centres = [layout.cell_center(r, c) for r in range(game.rows)
                        for c in range(game.cols)]
        board = layout.board
        self.perfect_text.position = (board.center_x, board.center_y)
        self.big_combo_text.position = (board.center_x, board.center_y + board.height * 0.18)
        fit_text(self.perfect_text, board.width * 0.95, board.height, 40 * scale)

    def refresh(self) -> None:
        """Cell colours from the game's board."""
        view = self.screen
        plain = theme.cell_texture()
        looks = view.game.ruleset.looks
        for sprite, value, empty in zip(self.cells,
                                        (v for row in view.game.board for v in row),
                                        self.empty_colours, strict=True):
            color = view.colour(value) if value else empty
            if sprite.color != color:
                sprite.color = color
            texture = theme.piece_texture(value, looks.get(value)) \
                if value and (theme.patterns_on or value in looks) else plain
            if sprite.texture is not texture:
                sprite.texture = texture

    def show_target(self, target: Target | None) -> None:
        """The ghost and glow of the piece in hand where it is aimed: in its colour
        and look, the cells it would clear and those it would affect beyond them
        (``game.affected_cells``: a bomb's blast area) glowing and the points it
        would score, when it fits; dark (and outlined in red when drawn) where it
        does not."""
        view = self.screen
        layout = view.layout
        self.ghost.clear()
        self.glow.clear()
        self.preview_text.text = ""
        control = view.input
        if control.aiming is not None and control.aim_cell is not None:
            # an action aimed at a cell: what it would change glows, the cell is marked
            cols = view.game.cols
            for index in sorted({r * cols + c for r, c in control.aim_cells}):
                self.glow.append(self.glow_pool[index])
            row, col = control.aim_cell
            accent = theme.ACCENT
            mark = (accent[0], accent[1], accent[2], theme.GHOST_ALPHA) if control.aim_ok \
                else theme.NO_FIT
            self.ghost.append(cell_sprite(mark, layout.cell * 0.94,
                                          *layout.cell_center(row, col)))
            return
        piece = None if target is None else view.game.tray[target.slot]
        if target is None or piece is None:
            return
        row, col = target.row, target.col
        preview = target.preview
        if preview is not None:
            color = view.colour(piece.colour)
            ghost_color = (color[0], color[1], color[2], theme.GHOST_ALPHA)
            cols = view.game.cols
            glowing = preview.cleared_cells | view.game.affected_cells(target.slot, row, col)
            for index in sorted({r * cols + c for r, c in glowing}):
                self.glow.append(self.glow_pool[index])
            if preview.lines:
                self.preview_text.text = f"+{preview.points}"
                x, y = layout.cell_center(row, col + piece.width / 2 - 0.5)
                self.preview_text.position = (x, y + layout.cell * 0.9)
        else:
            ghost_color = theme.NO_FIT
        size = layout.cell
        piece_sprites(piece.cells, ghost_color, size, layout.board.left + col * size,
                      layout.board.top - row * size, self.ghost, piece.colour,
                      view.game.ruleset.looks.get(piece.colour))

    def show_hint(self) -> None:
        """The hinted placement, once found: the piece on the board, outlined; or
        the cell a hinted action is aimed at (a hammer's), marked and outlined."""
        view = self.screen
        layout = view.layout
        self.hint_sprites.clear()
        self.hint_outline.clear()
        placement = view.input.hint.placement()
        if placement is None:
            self._show_aimed_hint()
            return
        slot, row, col = placement
        piece = view.game.tray[slot] if slot < len(view.game.tray) else None
        if piece is None:
            return
        size = layout.cell * 0.94
        texture = theme.piece_texture(piece.colour, view.game.ruleset.looks.get(piece.colour))
        for r, c in piece.cells:
            x, y = layout.cell_center(row + r, col + c)
            self.hint_sprites.append(cell_sprite(view.colour(piece.colour), size, x, y,
                                                 texture))
        self.hint_outline.extend(piece_outline(piece, layout.board.left + col * layout.cell,
                                               layout.board.top - row * layout.cell,
                                               layout.cell))

    def _show_aimed_hint(self) -> None:
        """The cell of a hinted action aimed at a cell or at a slot and a cell, as
        the bot chose it (its last two arguments: ``row, col``)."""
        view = self.screen
        action = view.input.hint.action()
        spec = None if action is None else view.game.ruleset.action_specs.get(action[0])
        if action is None or spec is None or spec.target not in ("cell", "cell+slot"):
            return
        row, col = int(action[-2]), int(action[-1])
        layout = view.layout
        x, y = layout.cell_center(row, col)
        self.hint_sprites.append(cell_sprite(theme.ACCENT, layout.cell * 0.94, x, y))
        self.hint_outline.extend(piece_outline(ONE_CELL, layout.board.left + col * layout.cell,
                                               layout.board.top - row * layout.cell,
                                               layout.cell))

    # -- effects ------------------------------------------------------------------------------

    def start_effects(self, result: blockyard.MoveResult, before: Board) -> None:
        """The effects of a placed piece: flash and particles on the cleared cells
        (of every region kind), the big combo, the perfect clear, the points rising,
        rows falling."""
        view = self.screen
        game, layout, motion = view.game, view.layout, view.motion
        cleared = result.cleared_cells
        self.flash.clear()
        for r, c in sorted(cleared):
            x, y = layout.cell_center(r, c)
            value = before[r][c] or result.piece.colour
            self.flash.append(cell_sprite(view.colour(value), layout.cell * 0.94, x, y))
        self.flash_age = 0.0 if motion else FLASH_TIME
        if motion and cleared:
            self.burst([(layout.cell_center(r, c), view.colour(before[r][c]
                                                               or result.piece.colour))
                        for r, c in sorted(cleared)], PARTICLES_PER_CELL, 2.5)
            view.effects.append("particles")
        combo = game.ruleset.display.combo_text(game.combo) if result.lines else ""
        if combo and motion:
            self.big_combo_text.text = combo
            fit_text(self.big_combo_text, layout.board.width * 0.9, layout.board.height * 0.3,
                     52 * view.scale)
            self.combo_age = 0.0
            view.effects.append("combo")
        if result.perfect_clear and motion:
            board = layout.board
            colours = [view.colour(i + 1) for i in range(8)]
            self.burst([((board.center_x, board.center_y), colours[i % 8])
                        for i in range(40)], 4, 7.0)
            view.effects.append("perfect")
        if result.points and game.ruleset.display.score:
            x, y = layout.cell_center(result.row, result.col)
            y += layout.cell  # from just above the piece, not over it
            rise = layout.cell * 1.5
            # the label rises on the board, never into the header
            y = min(y, layout.board.top - rise - layout.cell * 0.5)
            text = Text(signed(result.points), x, y, label_colours()[0], 22 * view.scale,
                        font_name=theme.FONT, bold=True, anchor_x="center",
                        anchor_y="center")
            self.labels.append(FloatingLabel(text, 0.0, LABEL_TIME, rise))
        if result.perfect_clear:
            self.perfect_age = 0.0
        if any(result.row_drops) and motion:  # rows fell (gravity): slide them down from above
            cols = game.cols
            self.fall_offsets = [result.row_drops[r] * layout.cell
                                 for r in range(game.rows) for _ in range(cols)]
            self.fall_age = 0.0

    def burst(self, sources: list[tuple[tuple[float, float], theme.Color]], per_source: int,
              speed_cells: float) -> None:
        """Particles flying out of each source point (seeded by the move number, so
        a replay shows the same)."""
        cell = self.screen.layout.cell
        rng = random.Random(self.screen.game.moves)
        if self.particle_age >= PARTICLE_TIME:
            self.particles.clear()
            self.particle_motion = []
        size = max(3.0, cell * 0.22)
        texture = theme.cell_texture()
        for (x, y), colour in sources:
            for _i in range(per_source):
                if len(self.particles) >= MAX_PARTICLES:
                    break
                angle = rng.uniform(0, 2 * math.pi)
                speed = rng.uniform(0.4, 1.0) * speed_cells * cell
                self.particles.append(cell_sprite(colour, size, x, y, texture))
                self.particle_motion.append((math.cos(angle) * speed,
                                             math.sin(angle) * speed + cell))
        self.particle_age = 0.0

    def shake(self) -> None:
        self.shake_age = 0.0

    def advance(self, delta_time: float) -> None:
        self.flash_age += delta_time
        self.perfect_age += delta_time
        self.combo_age += delta_time
        self.shake_age += delta_time
        if self.particle_age < PARTICLE_TIME:
            self.particle_age += delta_time
            fall = self.screen.layout.cell * 6 * delta_time
            alpha = max(0, int(255 * (1 - self.particle_age / PARTICLE_TIME)))
            for i, (sprite, (vx, vy)) in enumerate(zip(self.particles, self.particle_motion,
                                                       strict=True)):
                sprite.center_x += vx * delta_time
                sprite.center_y += vy * delta_time
                self.particle_motion[i] = (vx, vy - fall)
            self.particles.alpha = alpha
            if self.particle_age >= PARTICLE_TIME:
                self.particles.clear()
                self.particle_motion = []
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

    def animating(self) -> bool:
        return (self.flash_age < FLASH_TIME or self.perfect_age < PERFECT_TIME
                or self.particle_age < PARTICLE_TIME or self.combo_age < COMBO_TIME
                or self.shake_age < SHAKE_TIME or self.fall_age < FALL_TIME
                or bool(self.labels))

    # -- drawing ------------------------------------------------------------------------------

    def on_draw(self) -> None:
        view = self.screen
        layout = view.layout
        board = layout.board
        pad = layout.cell * 0.12
        shaking = self.shake_age < SHAKE_TIME
        if shaking:  # a damped side-to-side shake of the board
            k = 1 - self.shake_age / SHAKE_TIME
            dx = math.sin(self.shake_age * 70) * SHAKE_CELLS * layout.cell * k
            self.shake_camera.match_window()
            self.shake_camera.position = (layout.width / 2 - dx, layout.height / 2)
            self.shake_camera.use()
        arcade.draw_lrbt_rectangle_filled(board.left - pad, board.right + pad,
                                          board.bottom - pad, board.top + pad, theme.BOARD_BG)
        self.cells.draw()
        self.glow.draw()
        hint = view.input.hint
        if len(self.hint_sprites) and hint.active:
            self.hint_sprites.alpha = hint.alpha()
            self.hint_sprites.draw()
            width = max(2.0, layout.cell * HINT_EDGE)
            for x1, y1, x2, y2 in self.hint_outline:
                arcade.draw_line(x1, y1, x2, y2, theme.TEXT, width)
        self.ghost.draw()
        if shaking:
            arcade.draw_lrbt_rectangle_outline(board.left - pad, board.right + pad,
                                               board.bottom - pad, board.top + pad, theme.BAD,
                                               max(3.0, pad))
            view.window.default_camera.use()
        if view.input.anchor is None and len(self.ghost):  # the piece does not fit there
            half = layout.cell * 0.45
            for sprite in self.ghost:
                arcade.draw_lrbt_rectangle_outline(sprite.center_x - half, sprite.center_x + half,
                                                   sprite.center_y - half, sprite.center_y + half,
                                                   theme.BAD, 2)
        if self.flash_age < FLASH_TIME:
            self.flash.alpha = int(255 * (1 - self.flash_age / FLASH_TIME))
            self.flash.draw()
        if self.particle_age < PARTICLE_TIME:
            self.particles.draw()
        self.preview_text.draw()
        text_colour, backing = label_colours()
        for label in self.labels:
            alpha = int(255 * (1 - label.age / label.life))
            left, right, bottom, top = label.backing()
            arcade.draw_lrbt_rectangle_filled(left, right, bottom, top, (*backing[:3], alpha))
            label.text.color = (*text_colour[:3], alpha)
            label.text.draw()
        if self.perfect_age < PERFECT_TIME:
            self.perfect_text.draw()
        if self.combo_age < COMBO_TIME:  # grows a little, then fades
            k = self.combo_age / COMBO_TIME
            self.big_combo_text.color = (*theme.ACCENT[:3], int(255 * min(1.0, 2 * (1 - k))))
            self.big_combo_text.draw()


class TraySection(ScreenSection):
    """The tray: the pieces to place (dimmed when they fit nowhere), the selected
    slot, and the piece being dragged (drawn above everything on the board)."""

    def __init__(self, screen: TrayGameView) -> None:
        super().__init__(screen, "tray", accept_keyboard_keys=False,
                         accept_mouse_events=False)
        self.screen: TrayGameView = screen
        self.pieces: list[arcade.SpriteList[arcade.Sprite]] = [
            arcade.SpriteList() for _ in screen.game.tray]
        self.drag_sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()

    def place(self, layout: GameLayout) -> None:
        self.set_area(layout.tray)

    def refresh(self) -> None:
        view = self.screen
        game, layout, control = view.game, view.layout, view.input
        fits = game.fit_masks()
        for slot, (sprites, piece, rect) in enumerate(zip(self.pieces, game.tray, layout.slots,
                                                          strict=True)):
            sprites.clear()
            if piece is None or slot == control.dragging:
                continue
            size = layout.tray_cell
            if slot == control.selected:
                size *= 1.15
            left = rect.center_x - piece.width * size / 2
            top = rect.center_y + piece.height * size / 2
            color = view.colour(piece.colour)
            if not fits[slot]:
                color = (color[0], color[1], color[2], 70)  # fits nowhere: dimmed
            piece_sprites(piece.cells, color, size, left, top, sprites, piece.colour,
                          game.ruleset.looks.get(piece.colour))

    def update_drag(self) -> None:
        """The dragged piece, floating above the pointer."""
        view = self.screen
        control = view.input
        self.drag_sprites.clear()
        piece = None if control.dragging is None else view.game.tray[control.dragging]
        if piece is None:
            return
        left, top = control.lifted_at(piece, *control.pointer)
        piece_sprites(piece.cells, view.colour(piece.colour), view.layout.cell, left, top,
                      self.drag_sprites, piece.colour, view.game.ruleset.looks.get(piece.colour))

    def on_draw(self) -> None:
        view = self.screen
        control = view.input
        if control.selected is not None and control.dragging is None:
            rect = view.layout.slots[control.selected]
            arcade.draw_lrbt_rectangle_filled(rect.left + 3, rect.right - 3, rect.bottom + 3,
                                              rect.top - 3, theme.SELECTED)
            arcade.draw_lrbt_rectangle_outline(rect.left + 3, rect.right - 3, rect.bottom + 3,
                                               rect.top - 3, theme.ACCENT, 3)
        hinted = control.hinted_slot
        if hinted is not None and hinted != control.dragging:  # the piece the hint means
            rect = view.layout.slots[hinted]
            arcade.draw_lrbt_rectangle_outline(rect.left + 3, rect.right - 3, rect.bottom + 3,
                                               rect.top - 3, theme.TEXT,
                                               max(2.0, view.layout.cell * HINT_EDGE))
        for sprites in self.pieces:
            sprites.draw()
        self.drag_sprites.draw()


def piece_outline(piece: blockyard.Piece, left: float, top: float, cell: float
                  ) -> list[tuple[float, float, float, float]]:
    """The outer edges ``(x1, y1, x2, y2)`` of a piece whose top-left corner is at
    ``(left, top)``, in cells of ``cell`` pixels: the sides of its cells that no
    other cell of it shares."""
    cells = set(piece.cells)
    edges = []
    for r, c in sorted(cells):
        x0, x1 = left + c * cell, left + (c + 1) * cell
        y1, y0 = top - r * cell, top - (r + 1) * cell
        if (r - 1, c) not in cells:
            edges.append((x0, y1, x1, y1))
        if (r + 1, c) not in cells:
            edges.append((x0, y0, x1, y0))
        if (r, c - 1) not in cells:
            edges.append((x0, y0, x0, y1))
        if (r, c + 1) not in cells:
            edges.append((x1, y0, x1, y1))
    return edges


def block_shading(ruleset: blockyard.Ruleset, rows: int, cols: int) -> list[theme.Color]:
    """The colour of each empty cell: the shaded blocks' (:func:`.rulewords.shaded_cells`)
    or the plain empty cell's."""
    shaded = shaded_cells(ruleset)
    return [theme.BLOCK_SHADE if (r, c) in shaded else theme.EMPTY_CELL
            for r in range(rows) for c in range(cols)]
