"""Screen layout of the game views, computed from the window size alone.

Pure geometry (no Arcade), so it can be tested for every window size: portrait
windows stack HUD, board, a line for messages and the tray; landscape windows
put the board on the left and the HUD, the message line and the tray in a column
on the right, with tray cells at least half the size of board cells. A band at
the bottom can be kept free (the replay viewer's controls). Arcade's y axis
points up.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rect:
    """An axis-aligned rectangle in window pixels (origin bottom-left)."""

    left: float
    bottom: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def top(self) -> float:
        return self.bottom + self.height

    @property
    def center_x(self) -> float:
        return self.left + self.width / 2

    @property
    def center_y(self) -> float:
        return self.bottom + self.height / 2

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.bottom <= y < self.top

    def overlaps(self, other: Rect) -> bool:
        """Whether the two rectangles share some area (touching edges do not count)."""
        return (self.left < other.right and other.left < self.right
                and self.bottom < other.top and other.bottom < self.top)

    def raised(self, dy: float) -> Rect:
        """The same rectangle ``dy`` pixels higher."""
        return Rect(self.left, self.bottom + dy, self.width, self.height)


@dataclass(frozen=True, slots=True)
class GameLayout:
    """Where everything of a game screen goes."""

    width: int
    height: int
    portrait: bool
    cell: float          # board cell size
    board: Rect
    hud: Rect
    tray: Rect
    slots: tuple[Rect, ...]
    tray_cell: float     # cell size of pieces resting in the tray
    message: Rect        # the line of short messages ("It does not fit there")
    bottom: float = 0.0  # the band below this height is kept free

    def cell_center(self, row: float, col: float) -> tuple[float, float]:
        """Window position of the centre of board cell ``(row, col)`` (between cells
        for fractions)."""
        return (self.board.left + (col + 0.5) * self.cell,
                self.board.top - (row + 0.5) * self.cell)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The board cell under a window position, or ``None`` off the board."""
        if not self.board.contains(x, y):
            return None
        return (int((self.board.top - y) // self.cell), int((x - self.board.left) // self.cell))

    def slot_at(self, x: float, y: float) -> int | None:
        for i, rect in enumerate(self.slots):
            if rect.contains(x, y):
                return i
        return None


PIECE_SPAN = 5.5
"""A tray slot holds this many tray cells across (the largest pieces are 5 long)."""


def game_layout(width: int, height: int, rows: int, cols: int, slots: int = 3, *,
                bottom: float = 0.0) -> GameLayout:
    """The layout of a board of ``rows × cols`` with a tray of ``slots`` in a window,
    above a free band of ``bottom`` pixels."""
    h = max(1.0, height - bottom)
    margin = max(8.0, min(width, h) * 0.02)
    if height >= width:
        layout = _portrait(width, h, rows, cols, slots, margin)
    else:
        layout = max((_landscape_row(width, h, rows, cols, slots, margin),
                      _landscape_stack(width, h, rows, cols, slots, margin)),
                     key=lambda candidate: candidate[0])[1]
    board, hud, tray, slot_rects, message, cell, tray_cell = layout
    up = bottom
    return GameLayout(width, height, height >= width, cell, board.raised(up), hud.raised(up),
                      tray.raised(up), tuple(r.raised(up) for r in slot_rects), tray_cell,
                      message.raised(up), bottom)


_Parts = tuple[Rect, Rect, Rect, tuple[Rect, ...], Rect, float, float]


def _portrait(width: float, h: float, rows: int, cols: int, slots: int,
              margin: float) -> _Parts:
    hud_h = max(90.0, h * 0.13)
    tray_h = max(110.0, h * 0.2)
    message_h = max(22.0, h * 0.035)
    avail_w = width - 2 * margin
    avail_h = h - hud_h - tray_h - message_h - 4 * margin
    cell = max(4.0, min(avail_w / cols, avail_h / rows))
    board_w, board_h = cell * cols, cell * rows
    tray = Rect(margin, margin, width - 2 * margin, tray_h)
    message = Rect(margin, tray.top + margin / 2, width - 2 * margin, message_h)
    board_bottom = message.top + margin / 2 + (avail_h - board_h) / 2
    board = Rect((width - board_w) / 2, board_bottom, board_w, board_h)
    hud = Rect(margin, h - margin - hud_h, width - 2 * margin, hud_h)
    slot_w = tray.width / slots
    slot_rects = tuple(Rect(tray.left + i * slot_w, tray.bottom, slot_w, tray.height)
                       for i in range(slots))
    tray_cell = min(cell * 0.6, slot_w / PIECE_SPAN, tray.height / PIECE_SPAN)
    return board, hud, tray, slot_rects, message, cell, tray_cell


def _landscape_row(width: float, h: float, rows: int, cols: int, slots: int,
                   margin: float) -> tuple[float, _Parts]:
    """Board on the left; on the right the HUD, the message line and the tray's
    slots side by side, wide enough for tray cells of half a board cell."""
    message_h = max(22.0, h * 0.04)
    span = slots * PIECE_SPAN / 2 + 0.25  # side column width, in board cells
    cell = max(4.0, min((h - 2 * margin) / rows, (width - 3 * margin) / (cols + span)))
    side_w = max(240.0, span * cell, width * 0.32)
    side_w = min(side_w, width - 3 * margin - cols * cell)
    return cell, _landscape(width, h, rows, cols, slots, margin, cell, side_w, message_h,
                            stacked=False)


def _landscape_stack(width: float, h: float, rows: int, cols: int, slots: int,
                     margin: float) -> tuple[float, _Parts]:
    """Board on the left; on the right the HUD, the message line and the slots one
    above the other (for windows only a little wider than high)."""
    message_h = max(22.0, h * 0.04)
    side_w = max(240.0, width * 0.32)
    avail_w = width - side_w - 3 * margin
    cell = max(4.0, min(avail_w / cols, (h - 2 * margin) / rows))
    hud_h = h * 0.38
    slot_h = (h - hud_h - message_h - 3 * margin) / slots
    # tray cells at least half a board cell: the board gives way when the slots are small
    cell = max(4.0, min(cell, 2 * min(side_w, slot_h) / PIECE_SPAN))
    return cell, _landscape(width, h, rows, cols, slots, margin, cell, side_w, message_h,
                            stacked=True, hud_h=hud_h)


def _landscape(width: float, h: float, rows: int, cols: int, slots: int, margin: float,
               cell: float, side_w: float, message_h: float, *, stacked: bool,
               hud_h: float = 0.0) -> _Parts:
    board_w, board_h = cell * cols, cell * rows
    avail_w = width - side_w - 3 * margin
    board = Rect(margin + (avail_w - board_w) / 2, (h - board_h) / 2, board_w, board_h)
    side_left = width - side_w - margin
    gap = margin / 2
    if stacked:
        hud = Rect(side_left, h - margin - hud_h, side_w, hud_h)
        message = Rect(side_left, hud.bottom - gap - message_h, side_w, message_h)
        tray = Rect(side_left, margin, side_w, message.bottom - gap - margin)
        slot_h = tray.height / slots
        slot_rects = tuple(Rect(tray.left, tray.top - (i + 1) * slot_h, tray.width, slot_h)
                           for i in range(slots))
    else:
        slot_w = side_w / slots
        slot_h = min(slot_w, (h - 3 * margin - message_h) * 0.45)
        tray = Rect(side_left, margin, side_w, slot_h)
        slot_rects = tuple(Rect(tray.left + i * slot_w, tray.bottom, slot_w, tray.height)
                           for i in range(slots))
        message = Rect(side_left, tray.top + gap, side_w, message_h)
        hud = Rect(side_left, message.top + gap, side_w, h - margin - message.top - gap)
    slot = slot_rects[0]
    tray_cell = min(cell * 0.6, slot.width / PIECE_SPAN, slot.height / PIECE_SPAN)
    return board, hud, tray, slot_rects, message, cell, tray_cell
