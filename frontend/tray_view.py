"""The game screen of tray rulesets: board, tray, HUD; pointer and keys.

A :class:`~.game_screen.GameScreen` with two sections of its own (in
:mod:`.tray_sections`): the :class:`~.tray_sections.BoardSection` (cells,
ghost, glow, hint, the effects of a move) and the
:class:`~.tray_sections.TraySection` (the ``len(game.tray)`` pieces, the
selection, the dragged piece). Its input controller is a
:class:`~.tray_input.TrayInput`, which needs no window: the view hands it the
pointer and key events (keys 1 to N select slot N, the arrows steer, Enter or
Space places, each action's own key takes it), and draws what the controller
and the game hold. The view never decides a rule: every action goes through the
headless ``Game``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import arcade

import blockyard
from blockyard.actions import ActionSpec

from . import theme
from .duel import duel_turn_text
from .game_screen import GameScreen
from .hint import hints_allowed
from .i18n import _, format_number, localise_digits
from .layout import GameLayout, Rect, game_layout
from .rulewords import (
    action_label,
    clock,
    display,
    engine_text,
    game_title,
    ruleset_name,
)
from .text import Text
from .tray_input import LIFT_CELLS, Board, TrayInput
from .tray_sections import LABEL_TIME, BoardSection, TraySection, label_colours
from .widgets import Button, fit_text

if TYPE_CHECKING:
    from .session import Session

TITLE_SMALLEST = 9.0      # points (12 px): the ruleset's title in the HUD is never smaller
                          # (it takes two lines, or is cut short)
SLOT_KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9")
"""The keys that select tray slots 1, 2, … (and the same on the number pad)."""


class TrayGameView(GameScreen):
    """Plays one tray game: the shared game screen with a board and a tray, its
    input handled by a :class:`~.tray_input.TrayInput` (``self.input``)."""

    def __init__(self, session: Session, game: blockyard.TrayGame, *,
                 spectator: bool = False, reserve_bottom: float = 0.0) -> None:
        super().__init__(session, game, spectator=spectator, reserve_bottom=reserve_bottom)
        self.game: blockyard.TrayGame = game
        self.layout: GameLayout = self._layout(self.window.width, self.window.height)
        self.input = TrayInput(game, self, self.layout, can_hint=not spectator and hints_allowed(
            game.ruleset, session.duel is not None))
        self.save_age = 0.0
        self.practice = (not spectator and game.ruleset.is_daily
                         and session.records.played_today(game.ruleset, game.date) is not None)
        self.board_section = BoardSection(self)
        self.tray_section = TraySection(self)
        self.add(self.board_section, 0)
        self.add(self.tray_section, 1)
        self._build_hud()
        self.place_sections(self.window.width, self.window.height)
        self.refresh()

    def _layout(self, width: int, height: int) -> GameLayout:
        return game_layout(width, height, self.game.rows, self.game.cols, len(self.game.tray),
                           bottom=self.reserve_bottom)

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
    def hud_buttons(self) -> list[Button]:
        hint = [self.hint_button] if self.input.can_hint else []
        return [self.menu_button, *hint, *self.action_buttons.values()]

    def place_sections(self, width: int, height: int) -> None:
        self.layout = self.input.layout = self._layout(width, height)
        layout, hud = self.layout, self.layout.hud
        scale = max(0.7, min(1.4, min(layout.width, layout.height) / 720))
        self.scale = scale
        self.board_section.place(layout, scale)
        self.tray_section.place(layout)
        self.hud.set_area(hud)
        self.score_text.font_size = 32 * scale
        self.combo_text.font_size = 18 * scale
        bw = place_buttons(self.hud_buttons, hud, layout.portrait, scale)
        if layout.portrait:
            # the title's column left of the score: as wide as the buttons' at least
            side = max(bw, 0.3 * hud.width)
            middle = hud.width - 2 * side - 16
            self.score_text.position = (hud.center_x, hud.top - hud.height * 0.35)
            self.best_text.position = (hud.center_x, hud.top - hud.height * 0.68)
            self.combo_text.position = (hud.center_x, hud.bottom + hud.height * 0.08)
            self.note_text.position = (hud.center_x, hud.top - hud.height * 0.68)
            self.title_text.anchor_x = "left"
            self.title_text.align = "left"
            self.title_text.position = (hud.left, hud.top - 2 * scale)
            self.clock_text.position = (hud.left + bw / 2, hud.center_y - 8 * scale)
        else:
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
        title = title[:len(title) - len(tail)]
        if tail:  # a daily game's date: a line of its own under the name
            tail = "\n" + tail.strip(" ·")
        fit_title(self.title_text, title,
                  side if layout.portrait else hud.width, max(TITLE_SMALLEST, 20 * scale),
                  tail=tail)
        fit_text(self.best_text, middle, 22 * scale, 14 * scale)
        fit_text(self.note_text, middle, 22 * scale, 14 * scale)
        self.message_line.place(layout.message, 16 * scale)
        self.dialog.place(layout.width, layout.height, scale)
        if self.input.hint.placement() is not None:  # a hint shown: where it is now
            self.board_section.show_hint()

    # -- what the input controller asks (TrayScreen) ----------------------------------------

    def ask_hint(self) -> None:
        """Show the search bot's move (H, or the Hint button); counted as a hint used."""
        if self.game.over or self.spectator:
            return
        if self.input.ask_hint():
            self.session.count_hint(self.game)
            self.board_section.show_hint()

    def _show_hint(self) -> None:
        self.board_section.show_hint()
        action = self.input.hint.action()
        if action is not None:
            spec = self.game.ruleset.action_specs.get(action[0])
            self.say(_("Hint: {action}").format(
                action=engine_text(spec.label) if spec is not None else action[0]))

    def show_target(self) -> None:
        self.board_section.show_target(self.input.target)
        self.tray_section.update_drag()

    def placed(self, result: blockyard.MoveResult, before: Board) -> None:
        self.board_section.start_effects(result, before)

    def refused(self) -> None:
        """A refused drop: a short shake with a red edge, unless motion is reduced."""
        if self.motion:
            self.board_section.shake()
            self.effects.append("shake")

    def reopened(self) -> None:
        self.over_age = 0.0

    def clear_message(self) -> None:
        self.message_line.clear()

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
                points=format_number(counted if counted is not None else 0))
        elif self.spectator and self.session.watching:  # another player's game: theirs
            self.best_text.text = self.session.watching
        elif self.session.duel is not None and not self.spectator:
            self.best_text.text = duel_turn_text(self.session.duel)
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
        self.input.aim()

    def _refresh_buttons(self) -> None:
        """Labels, uses left and the enabled look of the action buttons, from
        ``game.actions()``."""
        game = self.game
        available = {action.name: action for action in game.actions()}
        for spec in self.action_specs:
            button = self.action_buttons[spec.name]
            action = available.get(spec.name)
            uses = action.uses_left if action is not None else self._uses_left(spec)
            if self.input.armed == spec.name or self.input.aiming == spec.name:
                button.label = f"{engine_text(spec.label)}?"
            else:
                button.label = action_label(spec.label, uses)
            enabled = action is not None and not self.spectator
            if spec.takes_slot:
                enabled = enabled and self.input.selected is not None
            button.enabled = enabled
            button.visible = not self.spectator  # a replay is watched, not played
        self.menu_button.visible = not self.spectator or self.menu_while_watching

    def _uses_left(self, spec: ActionSpec) -> int | None:
        if spec.uses_left is None:
            return None
        try:
            left = spec.uses_left(self.game)
            return None if left is None else int(left)
        except Exception:  # a plugin's answer is only shown here; the game asks it again
            return None

    # -- actions ---------------------------------------------------------------------------

    def use_action(self, name: str) -> None:
        """Take the action ``name`` (a button or its key), through the controller."""
        self.input.use_action(name)

    def perform(self, action: list[object]) -> None:
        """Perform a logged action with its effects (the replay viewer)."""
        if action[0] == "place":
            slot, row, col = (int(str(value)) for value in action[1:4])
            self.input.try_place(slot, row, col)
            return
        super().perform(action)

    def open_pause(self) -> None:
        self.input.drop_drag()
        super().open_pause()

    # -- Arcade events -------------------------------------------------------------------------

    def game_update(self, delta_time: float) -> None:
        game = self.game
        if game.time_left is None:  # no clock: the time on screen is the game's play time
            if self.session.count_time is not None:
                self.session.count_time(game, delta_time)
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
        hint = self.input.hint
        if hint.active and hint.update(self.game):
            self._show_hint()
        super().on_update(delta_time)

    def animating(self) -> bool:
        game = self.game
        return super().animating() \
            or (game.time_left is not None and not game.over and not self.paused
                and not self.spectator) \
            or self.input.hint.active

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self.input.pointer_moved(x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.input.pressed(x, y, secondary=button == arcade.MOUSE_BUTTON_RIGHT)

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int,
                      modifiers: int) -> None:
        self.input.dragged(x, y)

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.input.released(x, y)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        key, control = arcade.key, self.input
        if symbol == key.ESCAPE:
            if not control.cancel_aim():  # Esc first ends the aiming of an action
                self.open_pause()
            return
        if self.game.over:
            return
        name = self.action_for_key(symbol, self.action_specs)
        if name is not None:
            control.action_key(name)
            return
        if symbol == key.H:
            self.ask_hint()
            return
        if control.armed is not None and symbol in (key.ENTER, key.RETURN, key.NUM_ENTER):
            control.use_action(control.armed)  # Enter at "…again to confirm" confirms
            return
        control.disarm()  # any other key cancels a confirmation
        slot = slot_of_key(symbol)
        steer = {key.LEFT: (0, -1), key.RIGHT: (0, 1), key.UP: (-1, 0),
                 key.DOWN: (1, 0)}.get(symbol)
        if slot is not None and slot < len(self.game.tray):
            control.select(slot)
        elif steer is not None:
            control.steer(*steer)
        elif symbol in (key.ENTER, key.RETURN, key.SPACE):
            control.place_selected()


def place_buttons(buttons: list[Button], hud: Rect, portrait: bool, scale: float) -> float:
    """Place the HUD's buttons: in a column at its right (portrait windows) or in
    rows of three along its bottom. Their width."""
    if portrait:  # as wide as the longest label needs at full size, within reason
        widest = max((b.natural_width(13 * scale) for b in buttons), default=0.0)
        bw = min(max(130 * scale, widest), hud.width * 0.3)
        bh = min(34 * scale, hud.height / len(buttons) - 4)
        for i, button in enumerate(buttons):
            button.place(Rect(hud.right - bw, hud.top - (i + 1) * bh - i * 4, bw, bh),
                         13 * scale)
        return bw
    per_row = 3
    rows = -(-len(buttons) // per_row)
    gap = hud.width * 0.04
    bw = (hud.width - gap * (per_row - 1)) / per_row
    bh = 32 * scale
    for i, button in enumerate(buttons):
        row, col = divmod(i, per_row)
        button.place(Rect(hud.left + col * (bw + gap),
                          hud.bottom + (rows - 1 - row) * (bh + 6), bw, bh), 12 * scale)
    return bw


def slot_of_key(symbol: int) -> int | None:
    """The tray slot a digit key selects (``1`` or number-pad ``1``: slot 0), or
    ``None`` for any other key."""
    for slot, digit in enumerate(SLOT_KEYS):
        if symbol in (getattr(arcade.key, f"KEY_{digit}"), getattr(arcade.key, f"NUM_{digit}")):
            return slot
    return None


def fit_title(text: Text, title: str, width: float, size: float,
              smallest: float = TITLE_SMALLEST, tail: str = "") -> None:
    """Show ``title + tail`` in at most two lines of ``width`` pixels (and one more
    for each line break in ``tail``), at the largest font size from ``size`` down to
    ``smallest``; when those lines at ``smallest`` do not hold it, ``title`` is cut
    short with "…" (``tail``, a daily game's date, is kept whole). Never drawn
    smaller than ``smallest``."""
    text.multiline = True
    text.width = max(1, int(width))
    full = title
    title += tail
    lines = 2 + tail.count("\n")

    def fits(line: float) -> bool:
        return text.content_width <= width and text.content_height <= lines * line + 1

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


__all__ = ["LABEL_TIME", "LIFT_CELLS", "TITLE_SMALLEST", "TrayGameView", "fit_title",
           "label_colours", "place_buttons", "slot_of_key"]
