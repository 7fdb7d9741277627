"""Stones of falling games (sudoku-bloxx): digits, golden digits, symbol stones, jokers.

On the board a stone is an integer code (the same cell array tray games keep
colours in): the digit 1–9, +16 if golden; 32 for a symbol stone; 64 + the old
digit for a joker.
"""

from __future__ import annotations

from dataclasses import dataclass

GOLDEN = 16
SYMBOL = 32
JOKER = 64


@dataclass(frozen=True, slots=True)
class Stone:
    """A stone: ``digit`` 1–9 (``None`` for symbol stones and jokers), ``golden``,
    ``symbol`` (a symbol stone), ``joker`` (a digit turned into a joker)."""

    digit: int | None
    golden: bool = False
    symbol: bool = False
    joker: bool = False

    @property
    def code(self) -> int:
        if self.symbol:
            return SYMBOL
        if self.joker:
            return JOKER
        assert self.digit is not None
        return self.digit | (GOLDEN if self.golden else 0)

    @classmethod
    def from_code(cls, code: int) -> Stone:
        if code & JOKER:
            return cls(None, joker=True)
        if code & SYMBOL:
            return cls(None, symbol=True)
        return cls(code & 15, golden=bool(code & GOLDEN))

    @classmethod
    def parse(cls, token: str) -> Stone:
        """``"5"`` a digit, ``"5*"`` a golden digit, ``"S"`` a symbol stone, ``"J"`` a joker."""
        if token == "S":
            return cls(None, symbol=True)
        if token == "J":
            return cls(None, joker=True)
        golden = token.endswith("*")
        digit = token[:-1] if golden else token
        if len(digit) != 1 or digit not in "123456789":
            raise ValueError(f"unknown stone {token!r} (use 1-9, 5* for golden, S for a symbol)")
        return cls(int(digit), golden=golden)

    @property
    def char(self) -> str:
        """The board-text character: the digit, ``S`` or ``J``."""
        if self.symbol:
            return "S"
        if self.joker:
            return "J"
        return str(self.digit)

    @property
    def token(self) -> str:
        """The stream token: ``5``, ``5*``, ``S`` or ``J``."""
        return self.char + ("*" if self.golden else "")

    def __repr__(self) -> str:
        return f"Stone({self.token})"


def digit_of(code: int) -> int | None:
    """The digit a board code counts as (``None`` for empty, symbol and joker cells)."""
    if not code or code & (SYMBOL | JOKER):
        return None
    return code & 15
