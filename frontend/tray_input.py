"""The input controller of the tray game screen, without a window.

:class:`TrayInput` turns what the player does — press, drag and release the
pointer, select a slot by its number, steer with the arrows, confirm, click an
action's button or press its key, ask for a hint — into calls on the headless
:class:`blockyard.TrayGame`, and keeps the state of that input: the piece
selected, the one dragged, where the pointer is, where the keyboard has put the
piece, the action waiting for its confirming second click, the hint being
looked for. It draws nothing and imports no window or graphics: what the player
should see or hear is asked of the :class:`TrayScreen` it serves (the window's
:class:`~.tray_view.TrayGameView`, or a recorder in the tests), which reads the
controller's state back to draw the board and the tray.

Nothing here decides a rule: legality comes from ``Game.can_place``, points and
glow from ``Game.preview``, what an action does and how the window treats it
(its sound, whether it asks to be confirmed, whether it takes a tray slot) from
its :class:`~blockyard.ActionSpec`. The tray holds ``len(game.tray)`` slots.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import blockyard
from blockyard import IllegalMove
from blockyard.actions import ActionSpec
from blockyard.tray import TrayGame

from .hint import HintFinder
from .i18n import _, format_number, localise_digits
from .layout import GameLayout
from .rulewords import engine_text, key_name
from .sound import SOUNDS

TAP_DISTANCE = 8          # pixels a press may move and still count as a tap
LIFT_CELLS = 1.25         # a dragged piece floats with its bottom this many cells above the pointer
GRIP_CELLS = 0.5          # ...and drops where the pointer is in the top row of its ghost, so
                          # the ghost shows below the lifted piece, never under it
DOUBLE_CLICK = 0.35       # seconds

Board = tuple[tuple[int, ...], ...]


class TrayScreen(Protocol):
    """What :class:`TrayInput` asks of the screen it serves."""

    @property
    def prompting(self) -> bool:
        """The game is over and the prompt offering to go on shows."""
        ...

    def say(self, text: str, *shorter: str) -> None:
        """Show a short message (or the first of ``shorter`` that fits the line)."""

    def clear_message(self) -> None:
        """Take the message shown away (it is out of date)."""

    def play(self, name: str, combo: int = 1) -> None:
        """Play the sound effect ``name`` (one of :data:`.sound.SOUNDS`)."""

    def saved(self) -> None:
        """The game changed: save it."""

    def refresh(self) -> None:
        """Show the game and the controller's state again, all of it."""

    def show_target(self) -> None:
        """Show where the piece in hand would go (:attr:`TrayInput.target`) and the
        dragged piece (only these changed)."""

    def placed(self, result: blockyard.MoveResult, before: Board) -> None:
        """A piece was placed (``before``: the board before it): start its effects."""

    def refused(self) -> None:
        """A piece was dropped, or placed by key, where it cannot go: shake the board."""

    def reopened(self) -> None:
        """An action took the game on after its end."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where the piece in hand would go now: its ``slot``, the board cell
    ``(row, col)`` of its top-left corner (maybe off the board for a dragged
    piece), and the move's ``preview`` when it can be placed there (``None``
    when it cannot: the keyboard or a tap aims there all the same)."""

    slot: int
    row: int
    col: int
    preview: blockyard.MoveResult | None

    @property
    def fits(self) -> bool:
        return self.preview is not None


class TrayInput:
    """The input of one tray game (see the module documentation).

    ``layout`` is the screen's layout (window pixels; replace it when the window
    is resized); ``can_hint``: the player may ask for hints. The state the screen
    draws from: :attr:`selected`, :attr:`dragging`, :attr:`pointer`,
    :attr:`key_anchor`, :attr:`target` (and its :attr:`anchor` and
    :attr:`preview`), :attr:`armed`, :attr:`hint`, and for an action aimed at a
    board cell :attr:`aiming`, :attr:`aim_cell`, :attr:`aim_cells`, :attr:`aim_ok`.
    """

    def __init__(self, game: TrayGame, screen: TrayScreen, layout: GameLayout, *,
                 can_hint: bool = False) -> None:
        self.game = game
        self.screen = screen
        self.layout = layout
        self.can_hint = can_hint
        self.hint = HintFinder()
        self.specs: dict[str, ActionSpec] = dict(game.ruleset.action_specs)
        # the action a right-click or double-click on a tray piece takes (rotate)
        self.slot_action: ActionSpec | None = next(
            (spec for spec in self.specs.values()
             if spec.takes_slot and not spec.automatic and not spec.after_end), None)
        self.dragging: int | None = None      # the slot whose piece is being dragged
        self.press: tuple[float, float] | None = None  # where that drag began
        self.pointer: tuple[float, float] = (0.0, 0.0)
        self.selected: int | None = None      # the slot selected (tap-to-place, keyboard)
        self.key_anchor: tuple[int, int] | None = None  # where the keyboard put it
        self.target: Target | None = None
        self.armed: str | None = None  # the action waiting for its confirming second click
        self.aiming: str | None = None  # the action aimed at a cell (its target chosen now)
        self.aim_cell: tuple[int, int] | None = None  # the cell it is aimed at
        self.aim_cells: frozenset[tuple[int, int]] = frozenset()  # what it would change there
        self.aim_ok = False  # its plugin allows that cell
        self.last_tray_click: tuple[int, float] = (-1, 0.0)

    # -- state the screen reads -------------------------------------------------------------

    @property
    def anchor(self) -> tuple[int, int] | None:
        """Where the piece in hand lands if placed now, or ``None`` (no piece in hand,
        or it does not fit where it is aimed)."""
        target = self.target
        return (target.row, target.col) if target is not None and target.fits else None

    @property
    def preview(self) -> blockyard.MoveResult | None:
        """What placing the piece in hand where it is aimed would do, when it fits."""
        return self.target.preview if self.target is not None else None

    @property
    def in_hand(self) -> int | None:
        """The slot of the piece being dragged, else the one selected."""
        return self.dragging if self.dragging is not None else self.selected

    @property
    def hinted_slot(self) -> int | None:
        """The tray slot of the piece the hint shows on the board."""
        placement = self.hint.placement() if self.hint.active else None
        return placement[0] if placement is not None else None

    def slot_keys(self) -> str:
        """The keys that select a slot, as the player reads them (``1, 2, 3``)."""
        return ", ".join(localise_digits(str(i + 1)) for i in range(len(self.game.tray)))

    # -- geometry ---------------------------------------------------------------------------

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

    # -- aiming -----------------------------------------------------------------------------

    def aim(self) -> None:
        """Work out :attr:`target` for the piece dragged, selected or steered by
        key, and have the screen show it."""
        self.target = self._aimed()
        self.screen.show_target()

    def _refresh(self) -> None:
        """The state changed: aim again, then have the screen show it all."""
        self.target = self._aimed()
        self.screen.refresh()

    def _aimed(self) -> Target | None:
        game = self.game
        self._aim_action()
        slot = self.in_hand
        if slot is None or game.over or self.aiming is not None:
            return None
        piece = game.tray[slot]
        if piece is None:
            return None
        if self.dragging is not None:
            anchor: tuple[int, int] | None = self.drop_anchor(piece, *self.pointer)
        elif self.key_anchor is not None:
            anchor = self.key_anchor
        else:
            cell = self.layout.cell_at(*self.pointer)
            anchor = None if cell is None else self.tap_anchor(piece, *cell)
        if anchor is None:
            return None
        row, col = anchor
        if game.can_place(slot, row, col):
            return Target(slot, row, col, game.preview(slot, row, col))
        if self.dragging is None:  # keyboard or tap-to-place: shown where it does not fit
            return Target(slot, row, col, None)
        return None

    # -- selecting and placing --------------------------------------------------------------

    def select(self, slot: int) -> None:
        """Select a tray piece for tap-to-place or the keyboard. A piece that fits
        nowhere cannot be selected, unless an action on a tray piece could make a
        piece fit now (a turn: the action is a rescue)."""
        game = self.game
        if game.over or not 0 <= slot < len(game.tray) or game.tray[slot] is None:
            return
        if not game.fit_masks()[slot] and not any(
                action.takes_slot and action.rescue for action in game.actions()):
            self.screen.say(_("That piece fits nowhere"))
            self.refuse()
            return
        if self.aiming is not None and self.specs[self.aiming].target == "cell":
            self.aiming = self.aim_cell = None  # a piece taken up: the aiming ends
        if self.selected != slot:
            self.screen.play("pickup")
        self.selected = slot
        self._anchor_keyboard(slot)
        self._refresh()

    def _anchor_keyboard(self, slot: int) -> None:
        """Put the keyboard's piece on the middle one of its legal places."""
        moves = [m for m in self.game.legal_moves() if m[0] == slot]
        self.key_anchor = (moves[len(moves) // 2][1], moves[len(moves) // 2][2]) \
            if moves else (0, 0)

    def steer(self, drow: int, dcol: int) -> None:
        """Move the selected piece by ``(drow, dcol)`` cells, staying on the board
        (or the cell an action is aimed at)."""
        if self.aiming is not None and self.aim_cell is not None:
            self.aim_at(self.aim_cell[0] + drow, self.aim_cell[1] + dcol)
            return
        if self.selected is None:
            return
        piece = self.game.tray[self.selected]
        if piece is None:
            return
        r, c = self.key_anchor or (0, 0)
        self.key_anchor = (max(0, min(self.game.rows - piece.height, r + drow)),
                           max(0, min(self.game.cols - piece.width, c + dcol)))
        self.aim()

    def place_selected(self) -> None:
        """Place the selected piece where the keyboard (or the pointer) aims it (or
        take the action being aimed at a cell)."""
        if self.aiming is not None:
            self.confirm_aim()
            return
        if self.selected is None:
            return
        if self.key_anchor is None:
            self.aim()
        target = self.key_anchor or self.anchor
        if target is not None:
            self.try_place(self.selected, *target)

    def try_place(self, slot: int, row: int, col: int) -> bool:
        """Place through the game; effects and saving follow. False if refused."""
        try:
            before = self.game.board
            result = self.game.place(slot, row, col)
        except IllegalMove:
            self.screen.say(_("It does not fit there (row {row}, column {col})").format(
                row=format_number(row + 1), col=format_number(col + 1)))
            self.refuse()
            return False
        self.selected = None
        self.key_anchor = None
        self.armed = None
        self.screen.placed(result, before)
        self._sounds_of(result)
        self.screen.saved()
        self._refresh()
        return True

    def _sounds_of(self, result: blockyard.MoveResult) -> None:
        """The sounds of a placed piece: place, clear (higher with the combo),
        perfect clear, and game over when the move ended the game."""
        screen, game = self.screen, self.game
        screen.play("place")
        if result.lines:
            screen.play("clear", max(1, game.ruleset.display.factor(game.combo)))
        if result.perfect_clear:
            screen.play("perfect")
        if game.over and not screen.prompting:
            screen.play("game_over")

    def refuse(self) -> None:
        """A piece dropped (or placed by key) where it cannot go: a buzz and a shake."""
        self.screen.play("invalid")
        self.screen.refused()

    # -- actions ----------------------------------------------------------------------------

    # -- actions aimed at a board cell ------------------------------------------------------

    def _aim_action(self) -> None:
        """What the action being aimed would do at its cell: :attr:`aim_cells`
        (from its plugin's preview) and :attr:`aim_ok` (its plugin allows it)."""
        self.aim_cells, self.aim_ok = frozenset(), False
        if self.aiming is None or self.aim_cell is None:
            return
        try:
            self.aim_cells = self.game.action_preview(self.aiming, *self._aim_args())
            self.aim_ok = True
        except IllegalMove:
            pass

    def _aim_args(self) -> tuple[int, ...]:
        assert self.aim_cell is not None and self.aiming is not None
        if self.specs[self.aiming].target == "cell+slot":
            return (-1 if self.selected is None else self.selected, *self.aim_cell)
        return self.aim_cell

    def start_aiming(self, spec: ActionSpec) -> None:
        """The first press of an action aimed at a cell: the player now chooses the
        cell (the pointer or the arrows; a click or Enter takes it, Esc cancels).
        A second press of the action takes it where it is aimed."""
        if self.aiming == spec.name:
            self.confirm_aim()
            return
        game = self.game
        if spec.target == "cell+slot" and (self.selected is None
                                           or game.tray[self.selected] is None):
            self.screen.say(_("Select a piece first ({keys} or a tap), then {action}").format(
                keys=self.slot_keys(), action=engine_text(spec.label)))
            return
        targets = game.action_targets(spec.name)
        if not targets:
            self.screen.say(_("{action}: not possible now").format(
                action=engine_text(spec.label)))
            self._refresh()
            return
        if spec.target == "cell":
            self.selected = None
        self.aiming = spec.name
        first = targets[len(targets) // 2]
        self.aim_cell = (first[-2], first[-1])
        self.key_anchor = None
        key = key_name(spec.key)
        label = engine_text(spec.label)
        told = (_("{action}: choose a cell (click it, or the arrows and Enter or {key}); "
                  "Esc cancels.") if key else
                _("{action}: choose a cell (click it, or the arrows and Enter); Esc cancels.")
                ).format(action=label, key=key)
        self.screen.say(f"{told} {engine_text(spec.help)}".strip(), told)
        self._refresh()

    def aim_at(self, row: int, col: int) -> None:
        """Aim the action being aimed at ``(row, col)`` (on the board)."""
        if self.aiming is None:
            return
        self.aim_cell = (max(0, min(self.game.rows - 1, row)),
                         max(0, min(self.game.cols - 1, col)))
        self.aim()

    def confirm_aim(self) -> bool:
        """Take the action being aimed at its cell; a refused cell buzzes and the
        aiming goes on. True when it was taken."""
        if self.aiming is None or self.aim_cell is None:
            return False
        spec = self.specs[self.aiming]
        args = self._aim_args()
        try:
            self.game.action_preview(spec.name, *args)
        except IllegalMove:
            row, col = self.aim_cell
            self.screen.say(_("{action}: not possible there (row {row}, column {col})").format(
                action=engine_text(spec.label), row=format_number(row + 1),
                col=format_number(col + 1)))
            self.refuse()
            return False
        self.aiming = None
        self.aim_cell = None
        return self._perform(spec, *args)

    def cancel_aim(self) -> bool:
        """Stop aiming an action (Esc); True when one was being aimed."""
        if self.aiming is None:
            return False
        self.aiming = None
        self.aim_cell = None
        self.screen.clear_message()
        self._refresh()
        return True

    def use_action(self, name: str) -> None:
        """Take the action ``name`` (its button or key). An action on a tray piece
        applies to the selected one; one aimed at a board cell is aimed first
        (:meth:`start_aiming`); one whose spec asks for confirmation is armed by
        the first click (or key) and taken by the second."""
        spec = self.specs[name]
        if spec.target in ("cell", "cell+slot"):
            self.start_aiming(spec)
            return
        if self.aiming is not None:
            self.cancel_aim()
        if spec.takes_slot:
            self.act_on_slot(spec, self.selected)
            return
        if not spec.after_end and name not in {a.name for a in self.game.actions()}:
            self.armed = None
            self.screen.say(_("{action}: not possible now").format(
                action=engine_text(spec.label)))
            self._refresh()
            return
        if spec.asks_confirmation and self.armed != name:
            self.armed = name
            key = key_name(spec.key)
            label = engine_text(spec.label)
            again = (_("Click {action} again (or press {key}) to confirm.") if key
                     else _("Click {action} again to confirm.")).format(action=label, key=key)
            self.screen.say(f"{again} {engine_text(spec.help)}".strip(), again)
            self._refresh()
            return
        self.armed = None
        self._perform(spec)

    def action_key(self, name: str) -> None:
        """The key of action ``name``: another action's confirmation is dropped."""
        if self.armed not in (None, name):
            self.armed = None
        self.use_action(name)

    def act_on_slot(self, spec: ActionSpec, slot: int | None) -> None:
        """Take an action on the tray piece of ``slot`` (the selected one for its
        button or key). A selected piece that is still there afterwards stays
        selected, the keyboard's place moved onto the board if need be."""
        if slot is None or self.game.tray[slot] is None:
            self.screen.say(_("Select a piece first ({keys} or a tap), then {action}").format(
                keys=self.slot_keys(), action=engine_text(spec.label)))
            return
        if not self._perform(spec, slot):
            return
        piece = self.game.tray[slot]
        if self.selected == slot and piece is not None:
            r, c = self.key_anchor or (0, 0)
            self.key_anchor = (max(0, min(r, self.game.rows - piece.height)),
                               max(0, min(c, self.game.cols - piece.width)))
            if not self.game.can_place(slot, *self.key_anchor):
                self._anchor_keyboard(slot)
            self._refresh()

    def _perform(self, spec: ActionSpec, *args: int) -> bool:
        """Take ``spec``'s action through the game; False when it was refused."""
        game, screen = self.game, self.screen
        was_over = game.over
        tray = game.tray
        selected = self.selected
        try:
            game.act(spec.name, *args)
        except IllegalMove:
            screen.say(_("{action}: not possible now").format(action=engine_text(spec.label)))
            self._refresh()
            return False
        screen.clear_message()  # done: its "click again to confirm" is out of date
        if game.tray != tray:
            kept = spec.takes_slot and selected in args and game.tray[selected] is not None
            self.selected = selected if kept else None
            if not kept:
                self.key_anchor = None
        if spec.sound is not None and spec.sound in SOUNDS:
            screen.play(spec.sound)
        if game.over and not was_over and not screen.prompting:
            screen.play("game_over")
        if was_over and not game.over:
            screen.reopened()
            screen.say(_("{action}: play on!").format(action=engine_text(spec.label)))
        screen.saved()
        self._refresh()
        return True

    def disarm(self) -> None:
        """Drop the action waiting for confirmation (any other input does), and its
        "click again to confirm" line with it."""
        if self.armed is not None:
            self.armed = None
            self.screen.clear_message()
            self._refresh()

    def ask_hint(self) -> bool:
        """Start looking for the search bot's move (H, or the Hint button); a message
        when the rules allow no hint here. True when a hint is being looked for."""
        if not self.can_hint:
            self.screen.say(_("Hints are off in this game"))
            return False
        if self.game.over:
            return False
        self.hint.ask(self.game)
        return True

    # -- the pointer ------------------------------------------------------------------------

    def pointer_moved(self, x: float, y: float) -> None:
        """The pointer moved with no button down: a selected piece follows it over
        the board."""
        self.pointer = (x, y)
        if self.aiming is not None:
            cell = self.layout.cell_at(x, y)
            if cell is not None:
                self.aim_at(*cell)
            return
        if self.selected is not None and self.dragging is None:
            if self.layout.board.contains(x, y):
                self.key_anchor = None
            self.aim()

    def pressed(self, x: float, y: float, *, secondary: bool = False,
                now: float | None = None) -> None:
        """A button went down at ``(x, y)`` (``secondary``: the right one; ``now``:
        the time in seconds, for double clicks). On a tray piece: start dragging it,
        or take the action on a tray piece for a right-click or a double click; on
        the board with a piece selected: place it there."""
        now = time.monotonic() if now is None else now
        self.pointer = (x, y)
        self.disarm()
        game = self.game
        if game.over:
            return
        if self.aiming is not None:  # a click on the board takes the action there
            cell = self.layout.cell_at(x, y)
            if cell is not None:
                self.aim_cell = cell
                self.confirm_aim()
            else:
                self.cancel_aim()
            return
        slot = self.layout.slot_at(x, y)
        if slot is not None and slot < len(game.tray) and game.tray[slot] is not None:
            if self.slot_action is not None:
                last_slot, last_time = self.last_tray_click
                double = last_slot == slot and now - last_time < DOUBLE_CLICK
                if secondary or double:
                    self.last_tray_click = (-1, 0.0)
                    self.act_on_slot(self.slot_action, slot)
                    return
            if not game.fit_masks()[slot]:
                self.screen.say(_("That piece fits nowhere"))
                self.refuse()
                return
            self.screen.play("pickup")
            self.dragging = slot
            self.press = (x, y)
            self.key_anchor = None
            self._refresh()
            return
        if self.selected is not None and self.layout.board.contains(x, y):
            self.key_anchor = None
            self.aim()
            cell = self.layout.cell_at(x, y)
            piece = game.tray[self.selected]
            if cell is not None and piece is not None:  # where the ghost shows, fit or not
                self.try_place(self.selected, *self.tap_anchor(piece, *cell))

    def dragged(self, x: float, y: float) -> None:
        """The pointer moved with a button down: a dragged piece follows it."""
        self.pointer = (x, y)
        if self.dragging is not None:
            self.aim()

    def released(self, x: float, y: float, *, now: float | None = None) -> None:
        """The button came up at ``(x, y)``: a tap on a tray piece selects it (or
        unselects it); a dragged piece lands where its ghost is, or goes back."""
        now = time.monotonic() if now is None else now
        self.pointer = (x, y)
        if self.dragging is None:
            return
        slot = self.dragging
        moved = self.press is not None and (abs(x - self.press[0]) + abs(y - self.press[1])
                                            > TAP_DISTANCE)
        if moved:
            self.aim()  # where it is released, it lands
        anchor = self.anchor
        self.dragging = None
        self.press = None
        if not moved:
            self.last_tray_click = (slot, now)
            self.selected = None if self.selected == slot else slot
            self.key_anchor = None
            self._refresh()
            return
        if anchor is not None:  # where the ghost is, the piece lands
            self.try_place(slot, *anchor)
        else:
            if self.layout.board.contains(x, y):  # dropped on the board where it cannot go
                self.refuse()
            self._refresh()  # no ghost (off the board, over the tray, no fit): back

    def drop_drag(self) -> None:
        """A drag that a dialog interrupts ends: the piece goes back to its slot."""
        if self.dragging is not None:
            self.dragging = None
            self.press = None
            self._refresh()


__all__ = ["DOUBLE_CLICK", "GRIP_CELLS", "LIFT_CELLS", "TAP_DISTANCE", "Target", "TrayInput",
           "TrayScreen"]
