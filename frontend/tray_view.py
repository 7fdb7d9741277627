"""The game screen of tray rulesets: board, tray, HUD, drag and drop, keyboard.

A :class:`~.game_screen.GameScreen` with two sections of its own: the
:class:`BoardSection` (cells, ghost, glow, clear flash, particles, floating
points) and the :class:`TraySection` (the three pieces, the selection, the
dragged piece). The view itself is the input controller: the pointer and the
keys pick, drag, select, steer and place pieces through the headless ``Game``.

The view never decides a rule: legality comes from ``Game.can_place``, points
and glow from ``Game.preview``, dimming from ``Game.fit_masks``, and every
action goes through the headless ``Game``. Drawing uses sprite lists: one
sprite per board cell whose colour changes, plus small lists for the ghost,
the glow, the tray and the dragged piece.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import arcade

import blockyard
from blockyard import IllegalMove

from . import theme
from .game_screen import GameScreen, ScreenSection
from .hint import HintFinder, hints_allowed
from .i18n import _, format_number, localise_digits
from .layout import GameLayout, Rect, game_layout
from .rulewords import (
    action_label,
    clock,
    display,
    engine_text,
    game_title,
    key_name,
    ruleset_name,
    signed,
)
from .text import Text
from .widgets import Button, cell_sprite, fit_text, piece_sprites

if TYPE_CHECKING:
    from .session import Session

TAP_DISTANCE = 8          # pixels a press may move and still count as a tap
LIFT_CELLS = 1.25         # a dragged piece floats with its bottom this many cells above the pointer
GRIP_CELLS = 0.5          # ...and drops where the pointer is in the top row of its ghost, so
                          # the ghost shows below the lifted piece, never under it
DOUBLE_CLICK = 0.35       # seconds
FLASH_TIME = 0.25
LABEL_TIME = 0.8
PERFECT_TIME = 1.2
FALL_TIME = 0.18
TITLE_SMALLEST = 9.0      # points (12 px): the ruleset's title in the HUD is never smaller
                          # (it takes two lines, or is cut short)
HINT_EDGE = 0.08          # the hint's outline (board piece and tray slot), in cells
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
        self.cells = arcade.SpriteList()
        self.glow = arcade.SpriteList()
        self.ghost = arcade.SpriteList()
        self.flash = arcade.SpriteList()
        self.particles = arcade.SpriteList()
        self.particle_motion: list[tuple[float, float]] = []
        self.hint_sprites = arcade.SpriteList()
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
        for sprite, value, empty in zip(self.cells,
                                        (v for row in view.game.board for v in row),
                                        self.empty_colours, strict=True):
            color = view.colour(value) if value else empty
            if sprite.color != color:
                sprite.color = color
            texture = theme.piece_texture(value) if theme.patterns_on and value else plain
            if sprite.texture is not texture:
                sprite.texture = texture

    # -- effects ------------------------------------------------------------------------------

    def start_effects(self, result: blockyard.MoveResult, before: Any) -> None:
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
        if len(self.hint_sprites) and view.hint.active:
            self.hint_sprites.alpha = view.hint.alpha()
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
        if view.anchor is None and len(self.ghost):  # the piece does not fit there
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
        self.pieces: list[arcade.SpriteList] = [arcade.SpriteList() for _ in range(3)]
        self.drag_sprites = arcade.SpriteList()

    def place(self, layout: GameLayout) -> None:
        self.set_area(layout.tray)

    def refresh(self) -> None:
        view = self.screen
        game, layout = view.game, view.layout
        fits = game.fit_masks()
        for slot in range(3):
            sprites = self.pieces[slot]
            sprites.clear()
            piece = game.tray[slot]
            if piece is None or slot == view.dragging:
                continue
            rect = layout.slots[slot]
            size = layout.tray_cell
            if slot == view.selected:
                size *= 1.15
            left = rect.center_x - piece.width * size / 2
            top = rect.center_y + piece.height * size / 2
            color = view.colour(piece.colour)
            if not fits[slot]:
                color = (color[0], color[1], color[2], 70)  # fits nowhere: dimmed
            piece_sprites(piece.cells, color, size, left, top, sprites, piece.colour)

    def update_drag(self) -> None:
        """The dragged piece, floating above the pointer."""
        view = self.screen
        self.drag_sprites.clear()
        if view.dragging is None:
            return
        piece = view.game.tray[view.dragging]
        left, top = view.lifted_at(piece, *view.pointer)
        piece_sprites(piece.cells, view.colour(piece.colour), view.layout.cell, left, top,
                      self.drag_sprites, piece.colour)

    def on_draw(self) -> None:
        view = self.screen
        if view.selected is not None and view.dragging is None:
            rect = view.layout.slots[view.selected]
            arcade.draw_lrbt_rectangle_filled(rect.left + 3, rect.right - 3, rect.bottom + 3,
                                              rect.top - 3, theme.SELECTED)
            arcade.draw_lrbt_rectangle_outline(rect.left + 3, rect.right - 3, rect.bottom + 3,
                                               rect.top - 3, theme.ACCENT, 3)
        hinted = view.hinted_slot
        if hinted is not None and hinted != view.dragging:  # the piece the hint means
            rect = view.layout.slots[hinted]
            arcade.draw_lrbt_rectangle_outline(rect.left + 3, rect.right - 3, rect.bottom + 3,
                                               rect.top - 3, theme.TEXT,
                                               max(2.0, view.layout.cell * HINT_EDGE))
        for sprites in self.pieces:
            sprites.draw()
        self.drag_sprites.draw()


class TrayGameView(GameScreen):
    """Plays one tray game: the shared game screen with a board and a tray."""

    def __init__(self, session: Session, game: blockyard.TrayGame, *,
                 spectator: bool = False, reserve_bottom: float = 0.0) -> None:
        super().__init__(session, game, spectator=spectator, reserve_bottom=reserve_bottom)
        self.game: blockyard.TrayGame = game
        self.can_rotate = game.has_action("rotate")
        self.layout: GameLayout = game_layout(self.window.width, self.window.height,
                                              game.rows, game.cols, bottom=reserve_bottom)
        # interaction state (the view is the input controller of board and tray)
        self.dragging: int | None = None
        self.press: tuple[float, float] | None = None
        self.pointer: tuple[float, float] = (0.0, 0.0)
        self.selected: int | None = None
        self.key_anchor: tuple[int, int] | None = None
        self.anchor: tuple[int, int] | None = None
        self.preview: blockyard.MoveResult | None = None
        self.armed: str | None = None  # the action waiting for its confirming second click
        self.last_tray_click: tuple[int, float] = (-1, 0.0)
        self.save_age = 0.0
        self.practice = (not spectator and game.ruleset.is_daily
                         and session.records.played_today(game.ruleset, game.date) is not None)
        # the hint: the search bot's move, found a little each frame
        self.hint = HintFinder()
        self.can_hint = not spectator and hints_allowed(game.ruleset, session.duel is not None)
        self.board_section = BoardSection(self)
        self.tray_section = TraySection(self)
        self.add(self.board_section, 0)
        self.add(self.tray_section, 1)
        self._build_hud()
        self.place_sections(self.window.width, self.window.height)
        self.refresh()

    # -- building --------------------------------------------------------------------------

    def _build_hud(self) -> None:
        font = theme.FONT
        self.score_text = Text("0", 0, 0, theme.TEXT, 32, font_name=font, bold=True,
                               anchor_x="center", anchor_y="center")
        self.best_text = Text("", 0, 0, theme.MUTED, 14, font_name=font,
                              anchor_x="center", anchor_y="center")
        self.combo_text = Text("", 0, 0, theme.ACCENT, 18, font_name=font, bold=True,
                               anchor_x="center", anchor_y="center")
        self.clock_text = Text("", 0, 0, theme.TEXT, 18, font_name=font,
                               anchor_x="center", anchor_y="center")
        self.title_text = Text(game_title(self.game), 0, 0, theme.MUTED, 12,
                               font_name=font, anchor_x="center", anchor_y="top",
                               multiline=True, width=200)
        self.note_text = Text(display(self.game.ruleset).note, 0, 0, theme.MUTED, 14,
                              font_name=font, anchor_x="center", anchor_y="center")
        self.hud.texts = [self.title_text, self.score_text, self.best_text, self.note_text,
                          self.combo_text, self.clock_text]
        self.hint_button = Button(_("Hint"), self.ask_hint, font_size=13)
        # one button per action the rules contribute (swap, rotate, end round, a mod's own)
        self.action_specs = [spec for spec in self.game.ruleset.action_specs.values()
                             if not spec.automatic and not spec.after_end]
        self.action_buttons = {spec.name: Button(engine_text(spec.label),
                                                 self.clicker(spec.name), font_size=13)
                               for spec in self.action_specs}

    @property
    def swap_button(self) -> Button:
        return self.action_buttons["swap"]

    @property
    def end_button(self) -> Button:
        return self.action_buttons["end"]

    @property
    def hud_buttons(self) -> list[Button]:
        hint = [self.hint_button] if self.can_hint else []
        return [self.menu_button, *hint, *self.action_buttons.values()]

    def place_sections(self, width: int, height: int) -> None:
        self.layout = game_layout(width, height, self.game.rows, self.game.cols,
                                  bottom=self.reserve_bottom)
        layout, hud = self.layout, self.layout.hud
        scale = max(0.7, min(1.4, min(layout.width, layout.height) / 720))
        self.scale = scale
        self.board_section.place(layout, scale)
        self.tray_section.place(layout)
        self.hud.set_area(hud)
        self.score_text.font_size = 32 * scale
        self.combo_text.font_size = 18 * scale
        buttons = self.hud_buttons
        if layout.portrait:
            bw = min(130 * scale, hud.width * 0.3)
            bh = min(34 * scale, hud.height / len(buttons) - 4)
            for i, button in enumerate(buttons):
                button.place(Rect(hud.right - bw, hud.top - (i + 1) * bh - i * 4, bw, bh),
                             13 * scale)
            middle = hud.width - 2 * bw - 16
            self.score_text.position = (hud.center_x, hud.top - hud.height * 0.35)
            self.best_text.position = (hud.center_x, hud.top - hud.height * 0.68)
            self.combo_text.position = (hud.center_x, hud.bottom + hud.height * 0.08)
            self.note_text.position = (hud.center_x, hud.top - hud.height * 0.68)
            self.title_text.anchor_x = "left"
            self.title_text.align = "left"
            self.title_text.position = (hud.left, hud.top - 2 * scale)
            self.clock_text.position = (hud.left + bw / 2, hud.center_y - 8 * scale)
            side = bw
        else:
            per_row = 3
            rows = -(-len(buttons) // per_row)
            gap = hud.width * 0.04
            bw = (hud.width - gap * (per_row - 1)) / per_row
            bh = 32 * scale
            for i, button in enumerate(buttons):
                row, col = divmod(i, per_row)
                button.place(Rect(hud.left + col * (bw + gap),
                                  hud.bottom + (rows - 1 - row) * (bh + 6), bw, bh), 12 * scale)
            self.title_text.anchor_x = "center"
            self.title_text.align = "center"
            self.title_text.position = (hud.center_x, hud.top - 2 * scale)
            self.score_text.position = (hud.center_x, hud.top - hud.height * 0.25)
            self.best_text.position = (hud.center_x, hud.top - hud.height * 0.45)
            self.note_text.position = (hud.center_x, hud.top - hud.height * 0.45)
            self.combo_text.position = (hud.center_x, hud.top - hud.height * 0.6)
            self.clock_text.position = (hud.center_x, hud.top - hud.height * 0.74)
            middle = hud.width
            side = hud.width
        name = ruleset_name(self.game.ruleset)
        title = game_title(self.game)  # the name, and a daily game's date (kept whole)
        tail = title[len(name):] if title.startswith(name) else ""
        fit_title(self.title_text, title[:len(title) - len(tail)],
                  side if layout.portrait else hud.width, max(TITLE_SMALLEST, 20 * scale),
                  tail=tail)
        fit_text(self.best_text, middle, 22 * scale, 14 * scale)
        fit_text(self.note_text, middle, 22 * scale, 14 * scale)
        self.message_line.place(layout.message, 16 * scale)
        self.dialog.place(layout.width, layout.height, scale)
        if self.hint.placement() is not None:  # a hint shown: where it is now
            self._show_hint()

    # -- the hint ---------------------------------------------------------------------------

    def ask_hint(self) -> None:
        """Show the search bot's move (H, or the Hint button); counted as a hint used."""
        if not self.can_hint or self.game.over or self.spectator:
            return
        self.hint.ask(self.game)
        self.session.count_hint(self.game)
        self.board_section.hint_sprites.clear()
        self.board_section.hint_outline.clear()

    @property
    def hinted_slot(self) -> int | None:
        """The tray slot of the piece the hint shows on the board (outlined in the tray)."""
        placement = self.hint.placement() if self.hint.active else None
        return placement[0] if placement is not None else None

    def _show_hint(self) -> None:
        sprites = self.board_section.hint_sprites
        sprites.clear()
        outline = self.board_section.hint_outline
        outline.clear()
        placement = self.hint.placement()
        if placement is not None:
            slot, row, col = placement
            piece = self.game.tray[slot]
            if piece is not None:
                size = self.layout.cell * 0.94
                for r, c in piece.cells:
                    x, y = self.layout.cell_center(row + r, col + c)
                    sprites.append(cell_sprite(self.colour(piece.colour), size, x, y))
                outline.extend(piece_outline(piece, self.layout.board.left + col *
                                             self.layout.cell,
                                             self.layout.board.top - row * self.layout.cell,
                                             self.layout.cell))
            return
        action = self.hint.action()
        if action is not None:
            spec = self.game.ruleset.action_specs.get(action[0])
            self.say(_("Hint: {action}").format(
                action=engine_text(spec.label) if spec is not None else action[0]))

    # -- state → sprites --------------------------------------------------------------------

    def colour(self, index: int) -> theme.Color:
        """The drawing colour of colour index ``index`` in this ruleset."""
        return theme.piece_colour(index, len(self.game.ruleset.families))

    def refresh(self) -> None:
        """Bring every sprite and text up to date with the game."""
        game = self.game
        self.board_section.refresh()
        self.tray_section.refresh()
        shows_score = game.ruleset.display.score
        self.score_text.text = format_number(game.score) if shows_score else ""
        challenge = self.session.challenge
        if self.practice:
            counted = self.session.records.played_today(game.ruleset, game.date)
            self.best_text.text = _("Practice — today's game counted {points}").format(
                points=format_number(counted))
        elif challenge is not None and not self.spectator:
            self.best_text.text = _("To beat {points}").format(points=format_number(challenge))
        elif not shows_score or game.ruleset.record_kind == "none":
            self.best_text.text = ""
        else:
            best = self.session.records.best(game.ruleset, game.date)
            shown = max(best or 0, game.score)
            self.best_text.text = _("Best {points}").format(points=format_number(shown)) + (
                "  " + _("NEW!") if best is not None and game.score > best else "")
        self.combo_text.text = localise_digits(display(game.ruleset).combo_text(game.combo))
        left = game.time_left
        self.clock_text.text = "" if left is None else clock(left)
        self._refresh_buttons()
        super().refresh()
        self._update_ghost()

    def _refresh_buttons(self) -> None:
        """Labels, uses left and the enabled look of the action buttons, from
        ``game.actions()``."""
        game = self.game
        available = {action.name: action for action in game.actions()}
        for spec in self.action_specs:
            button = self.action_buttons[spec.name]
            action = available.get(spec.name)
            uses = action.uses_left if action is not None else self._uses_left(spec)
            if self.armed == spec.name:
                button.label = f"{engine_text(spec.label)}?"
            else:
                button.label = action_label(spec.label, uses)
            enabled = action is not None and not self.spectator
            if spec.takes_slot:
                enabled = enabled and self.selected is not None
            button.enabled = enabled
            button.visible = not self.spectator  # a replay is watched, not played
        self.menu_button.visible = not self.spectator

    def _uses_left(self, spec: Any) -> int | None:
        if spec.uses_left is None:
            return None
        try:
            return int(spec.uses_left(self.game))
        except Exception:  # a plugin's answer is only shown here; the game asks it again
            return None

    def _current_slot(self) -> int | None:
        return self.dragging if self.dragging is not None else self.selected

    def _update_ghost(self) -> None:
        """Ghost and glow for the piece being dragged, selected or keyboard-steered."""
        board = self.board_section
        board.ghost.clear()
        board.glow.clear()
        board.preview_text.text = ""
        self.preview = None
        self.anchor = None
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
                board.glow.append(board.glow_pool[index])
            if self.preview.lines:
                board.preview_text.text = f"+{self.preview.points}"
                x, y = self.layout.cell_center(row, col + piece.width / 2 - 0.5)
                board.preview_text.position = (x, y + self.layout.cell * 0.9)
        elif self.dragging is None:
            # keyboard or tap-to-place: where it would go does not fit (dark, outlined in red)
            ghost_color = theme.NO_FIT
        else:
            return
        size = self.layout.cell
        piece_sprites(piece.cells, ghost_color, size, self.layout.board.left + col * size,
                      self.layout.board.top - row * size, board.ghost, piece.colour)

    def _target_anchor(self, slot: int) -> tuple[int, int] | None:
        piece = self.game.tray[slot]
        layout = self.layout
        if self.dragging is not None:
            return self.drop_anchor(piece, *self.pointer)
        if self.key_anchor is not None:
            return self.key_anchor
        cell = layout.cell_at(*self.pointer)
        if cell is None:
            return None
        return self.tap_anchor(piece, *cell)

    def lifted_at(self, piece: blockyard.Piece, x: float, y: float) -> tuple[float, float]:
        """The top-left corner of a piece dragged with the pointer at ``(x, y)``, as it
        is drawn: centred on the pointer across, its bottom :data:`LIFT_CELLS` cells
        above it (where it drops is the same corner moved down by its height plus
        ``LIFT_CELLS - GRIP_CELLS`` cells, snapped to the board: just below it)."""
        size = self.layout.cell
        return (x - piece.width * size / 2, y + (LIFT_CELLS + piece.height) * size)

    def drop_anchor(self, piece: blockyard.Piece, x: float, y: float) -> tuple[int, int]:
        """The board cell (row, column; maybe off the board) where the top-left cell of
        a piece dragged with the pointer at ``(x, y)`` drops: the corner of
        :meth:`lifted_at` moved down by the piece's height plus ``LIFT_CELLS -
        GRIP_CELLS`` cells, snapped to the nearest cell."""
        layout = self.layout
        size = layout.cell
        left, top = self.lifted_at(piece, x, y)
        top -= (piece.height + LIFT_CELLS - GRIP_CELLS) * size
        return (round((layout.board.top - top) / size),
                round((left - layout.board.left) / size))

    def drag_point(self, piece: blockyard.Piece, row: int, col: int) -> tuple[float, float]:
        """Where the pointer drops a dragged ``piece`` with its top-left cell on
        ``(row, col)``: across its middle, in the middle of its top row."""
        layout = self.layout
        size = layout.cell
        return (layout.board.left + (col + piece.width / 2) * size,
                layout.board.top - (row + GRIP_CELLS) * size)

    def tap_anchor(self, piece: blockyard.Piece, row: int, col: int) -> tuple[int, int]:
        """Where a selected piece goes for a tap on board cell ``(row, col)``: centred
        on it, moved in as little as needed to lie wholly on the board."""
        r = row - (piece.height - 1) // 2
        c = col - (piece.width - 1) // 2
        return (max(0, min(self.game.rows - piece.height, r)),
                max(0, min(self.game.cols - piece.width, c)))

    # -- actions ---------------------------------------------------------------------------

    def try_place(self, slot: int, row: int, col: int) -> bool:
        """Place through the game; effects and saving follow. False if refused."""
        try:
            before = self.game.board
            result = self.game.place(slot, row, col)
        except IllegalMove:
            self.say(_("It does not fit there (row {row}, column {col})").format(
                row=format_number(row + 1), col=format_number(col + 1)))
            self.invalid_drop()
            return False
        self.selected = None
        self.key_anchor = None
        self.armed = None
        self.board_section.start_effects(result, before)
        self._sounds_of(result)
        self.saved()
        self.refresh()
        return True

    def _sounds_of(self, result: blockyard.MoveResult) -> None:
        """The sounds of a placed piece: place, clear (higher with the combo),
        perfect clear, and game over when the move ended the game."""
        self.play("place")
        if result.lines:
            self.play("clear", max(1, self.game.ruleset.display.factor(self.game.combo)))
        if result.perfect_clear:
            self.play("perfect")
        if self.game.over and not self.prompting:
            self.play("game_over")

    def invalid_drop(self) -> None:
        """A piece dropped (or placed by key) where it cannot go: a buzz, and a short
        shake with a red edge on the board unless motion is reduced."""
        self.play("invalid")
        if self.motion:
            self.board_section.shake()
            self.effects.append("shake")

    def perform(self, action: list[Any]) -> None:
        """Perform a logged action with its effects (the replay viewer)."""
        if action[0] == "place":
            self.try_place(*action[1:])
            return
        super().perform(action)

    def select(self, slot: int) -> None:
        """Select a tray piece for tap-to-place or the keyboard. A piece that fits
        nowhere cannot be selected, unless turning it would make it fit."""
        piece = self.game.tray[slot]
        if self.game.over or piece is None:
            return
        if not self.game.fit_masks()[slot] and not (
                self.can_rotate and any(self.game.piece_fits_somewhere(turned)
                                        for turned in _turns(piece))):
            self.say(_("That piece fits nowhere"))
            self.invalid_drop()
            return
        if self.selected != slot:
            self.play("pickup")
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
            self.game.act("rotate", slot)
        except IllegalMove:
            self.say(_("That piece cannot be turned now"))
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

    def use_action(self, name: str) -> None:
        """Take the action ``name`` (a button or its key). An action on a tray piece
        applies to the selected one; any other asks first (click or key again)."""
        spec = self.game.ruleset.action_specs[name]
        if spec.takes_slot:
            if name == "rotate":
                self.rotate(self.selected)
            elif self.selected is None:
                self.say(_("Select a piece first (1, 2, 3 or a tap), then {action}").format(
                    action=engine_text(spec.label)))
            else:
                self._perform(spec, self.selected)
            return
        if not spec.after_end and not spec.takes_slot and \
                name not in {a.name for a in self.game.actions()}:
            self.armed = None
            self.say(_("{action}: not possible now").format(action=engine_text(spec.label)))
            self.refresh()
            return
        if not spec.after_end and self.armed != name:
            self.armed = name
            key = key_name(spec.key)
            label = engine_text(spec.label)
            again = (_("Click {action} again (or press {key}) to confirm.") if key
                     else _("Click {action} again to confirm.")).format(action=label, key=key)
            self.say(f"{again} {engine_text(spec.help)}".strip())
            self.refresh()
            return
        self.armed = None
        self._perform(spec)

    def _perform(self, spec: Any, *args: Any) -> None:
        was_over = self.game.over
        tray = self.game.tray
        try:
            self.game.act(spec.name, *args)
        except IllegalMove:
            self.say(_("{action}: not possible now").format(action=engine_text(spec.label)))
            self.refresh()
            return
        except blockyard.PluginError:
            self.say(_("{action} failed; the game is unchanged").format(
                action=engine_text(spec.label)))
            self.refresh()
            return
        self.message_line.clear()  # done: its "click again to confirm" is out of date
        if self.game.tray != tray:
            self.selected = self.key_anchor = None
        if spec.name == "swap":
            self.play("swap")
        if self.game.over and not was_over and not self.prompting:
            self.play("game_over")
        if was_over and not self.game.over:
            self.over_age = 0.0
            self.say(_("{action}: play on!").format(action=engine_text(spec.label)))
        self.saved()
        self.refresh()

    def click_swap(self) -> None:
        self.use_action("swap")

    def click_end(self) -> None:
        self.use_action("end")

    def do_continue(self) -> None:
        if self.game.over and any(a.name == "continue" for a in self.game.actions()):
            self.use_action("continue")

    @property
    def swap_armed(self) -> bool:
        return self.armed == "swap"

    @property
    def end_armed(self) -> bool:
        return self.armed == "end"

    def open_pause(self) -> None:
        self._drop_drag()
        super().open_pause()

    def _drop_drag(self) -> None:
        """A drag that a dialog interrupts ends: the piece goes back to its slot."""
        if self.dragging is not None:
            self.dragging = None
            self.press = None
            self.tray_section.drag_sprites.clear()
            self.refresh()

    # -- Arcade events -------------------------------------------------------------------------

    def game_update(self, delta_time: float) -> None:
        game = self.game
        if game.time_left is None:
            return
        game.tick(delta_time)
        if game.over:
            self.play("game_over")
        self.save_age += delta_time
        if game.over or self.save_age > 2.0:
            self.save_age = 0.0
            self.saved()
        text = clock(game.time_left)
        if self.clock_text.text != text:
            self.clock_text.text = text

    def on_update(self, delta_time: float) -> None:
        if self.hint.active and self.hint.update(self.game):
            self._show_hint()
        super().on_update(delta_time)

    def animating(self) -> bool:
        game = self.game
        return super().animating() \
            or (game.time_left is not None and not game.over and not self.paused
                and not self.spectator) \
            or self.hint.active

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self.pointer = (x, y)
        if self.selected is not None and self.dragging is None:
            if self.layout.board.contains(x, y):
                self.key_anchor = None
            self._update_ghost()

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.pointer = (x, y)
        if self.armed is not None:
            self.armed = None
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
                self.say(_("That piece fits nowhere"))
                self.invalid_drop()
                return
            self.play("pickup")
            self.dragging = slot
            self.press = (x, y)
            self.key_anchor = None
            self.refresh()
            self.tray_section.update_drag()
            return
        if self.selected is not None and self.layout.board.contains(x, y):
            self.key_anchor = None
            self._update_ghost()
            cell = self.layout.cell_at(x, y)
            piece = self.game.tray[self.selected]
            if cell is not None and piece is not None:  # where the ghost shows, fit or not
                self.try_place(self.selected, *self.tap_anchor(piece, *cell))

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int,
                      modifiers: int) -> None:
        self.pointer = (x, y)
        if self.dragging is not None:
            self.tray_section.update_drag()
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
        self.tray_section.drag_sprites.clear()
        if not moved:
            self.last_tray_click = (slot, time.monotonic())
            self.selected = None if self.selected == slot else slot
            self.key_anchor = None
            self.refresh()
            return
        if anchor is not None:  # where the ghost is, the piece lands
            self.try_place(slot, *anchor)
        else:
            if self.layout.board.contains(x, y):  # dropped on the board where it cannot go
                self.invalid_drop()
            self.refresh()  # no ghost (off the board, over the tray, no fit): back to its slot

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key = arcade.key
        if symbol == key.ESCAPE:
            self.open_pause()
            return
        if self.game.over:
            return
        name = self.action_for_key(symbol, self.action_specs)
        if name is not None:
            if self.armed not in (None, name):
                self.armed = None
            self.use_action(name)
            return
        if symbol == key.H:
            if self.can_hint:
                self.ask_hint()
            else:
                self.say(_("Hints are off in this game"))
            return
        if symbol == key.S and not self.game.has_action("swap"):
            self.say(_("This ruleset has no swaps"))
            return
        if self.armed is not None:  # any other key cancels a confirmation
            self.armed = None
            self.refresh()
        if symbol in (key.KEY_1, key.KEY_2, key.KEY_3, key.NUM_1, key.NUM_2, key.NUM_3):
            slot = {key.KEY_1: 0, key.KEY_2: 1, key.KEY_3: 2,
                    key.NUM_1: 0, key.NUM_2: 1, key.NUM_3: 2}[symbol]
            self.select(slot)
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


def fit_title(text: Text, title: str, width: float, size: float,
              smallest: float = TITLE_SMALLEST, tail: str = "") -> None:
    """Show ``title + tail`` in at most two lines of ``width`` pixels, at the largest
    font size from ``size`` down to ``smallest``; when two lines at ``smallest`` do
    not hold it, ``title`` is cut short with "…" (``tail``, a daily game's date, is
    kept whole). Never drawn smaller than ``smallest``."""
    text.multiline = True
    text.width = max(1, int(width))
    full = title
    title += tail

    def fits(line: float) -> bool:
        return text.content_width <= width and text.content_height <= 2 * line + 1

    font = size
    while True:
        text.font_size = font
        text.text = "Ag"
        line = text.content_height  # one line at this size
        text.text = title
        if fits(line) or font <= smallest:
            break
        font = max(smallest, font * 0.9)
    cut = len(full)
    while not fits(line) and cut > 1:
        cut -= 1
        text.text = full[:cut].rstrip() + "…" + tail


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
    """The colour of each empty cell: every other region of kind "block" (woodoku's
    3×3 blocks, sudoku's) is shaded, so the blocks that clear can be seen."""
    colours = [theme.EMPTY_CELL] * (rows * cols)
    for region in ruleset.regions:
        if region.kind != "block" or not region.cells:
            continue
        top = min(r for r, _ in region.cells)
        left = min(c for _, c in region.cells)
        height = max(r for r, _ in region.cells) - top + 1
        width = max(c for _, c in region.cells) - left + 1
        if (top // height + left // width) % 2:
            for r, c in region.cells:
                colours[r * cols + c] = theme.BLOCK_SHADE
    return colours


def _turns(piece: blockyard.Piece) -> list[blockyard.Piece]:
    """The other three quarter turns of a piece."""
    out = []
    turned = piece
    for _turn in range(3):
        turned = turned.rotated()
        out.append(turned)
    return out
