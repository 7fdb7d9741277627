"""Screen layout of the game views, computed from the window size alone.

Pure geometry (no Arcade), so it can be tested for every window size: portrait
windows stack HUD, board and tray; landscape windows put the board on the left
and the HUD and tray in a column on the right. Arcade's y axis points up.
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

    def cell_center(self, row: int, col: int) -> tuple[float, float]:
        """Window position of the centre of board cell ``(row, col)``."""
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


def game_layout(width: int, height: int, rows: int, cols: int, slots: int = 3) -> GameLayout:
    """The layout of a board of ``rows × cols`` with a tray of ``slots`` in a window."""
    margin = max(8.0, min(width, height) * 0.02)
    portrait = height >= width
    if portrait:
        hud_h = max(90.0, height * 0.13)
        tray_h = max(110.0, height * 0.2)
        avail_w = width - 2 * margin
        avail_h = height - hud_h - tray_h - 4 * margin
        cell = max(4.0, min(avail_w / cols, avail_h / rows))
        board_w, board_h = cell * cols, cell * rows
        tray = Rect(margin, margin, width - 2 * margin, tray_h)
        board_bottom = tray.top + margin + (avail_h - board_h) / 2
        board = Rect((width - board_w) / 2, board_bottom, board_w, board_h)
        hud = Rect(margin, height - margin - hud_h, width - 2 * margin, hud_h)
        slot_w = tray.width / slots
        slot_rects = tuple(Rect(tray.left + i * slot_w, tray.bottom, slot_w, tray.height)
                           for i in range(slots))
    else:
        side_w = max(240.0, width * 0.32)
        avail_w = width - side_w - 3 * margin
        avail_h = height - 2 * margin
        cell = max(4.0, min(avail_w / cols, avail_h / rows))
        board_w, board_h = cell * cols, cell * rows
        board = Rect(margin + (avail_w - board_w) / 2, (height - board_h) / 2, board_w, board_h)
        side_left = width - side_w - margin
        hud_h = height * 0.38
        hud = Rect(side_left, height - margin - hud_h, side_w, hud_h)
        tray = Rect(side_left, margin, side_w, hud.bottom - 2 * margin)
        slot_h = tray.height / slots
        slot_rects = tuple(Rect(tray.left, tray.top - (i + 1) * slot_h, tray.width, slot_h)
                           for i in range(slots))
    slot = slot_rects[0]
    tray_cell = min(cell * 0.6, slot.width / 5.5, slot.height / 5.5)
    return GameLayout(width, height, portrait, cell, board, hud, tray, slot_rects, tray_cell)
