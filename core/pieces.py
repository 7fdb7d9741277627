"""Pieces: fixed-orientation polyominoes written as ASCII art (docs/rules.md §1)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .errors import RulesetError
from .params import Params, describe

Cell = tuple[int, int]


def parse_art(art: str) -> frozenset[Cell]:
    """Parse ASCII art into a normalised cell set.

    ``#`` is a filled cell and ``.`` an empty one. Rows are separated by newlines
    or by ``/`` (the compact form used in docs/rules.md). Leading and trailing blank
    lines and surrounding spaces are ignored. Raises ``ValueError`` naming the
    row on any other character, and for a piece with no filled cell.
    """
    text = art.replace("/", "\n")
    rows = [line.strip() for line in text.strip().splitlines()]
    cells: set[Cell] = set()
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch == "#":
                cells.add((r, c))
            elif ch != ".":
                raise ValueError(
                    f"piece art row {r + 1} ({line!r}): unexpected character {ch!r}; "
                    "use '#' for filled and '.' for empty"
                )
    if not cells:
        raise ValueError(f"piece art {art!r} has no filled cell")
    return normalise(cells)


def normalise(cells: Iterable[Cell]) -> frozenset[Cell]:
    """Shift ``cells`` so that their bounding box starts at (0, 0)."""
    cells = list(cells)
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return frozenset((r - top, c - left) for r, c in cells)


def parse_piece_name(text: str) -> tuple[str | None, frozenset[Cell]]:
    """Read a piece written as ``family:art`` (``"bomb:#"``, ``"l:#./#./##"``)
    or as art alone (``"##\n##"``): the family (``None`` when not named) and
    the normalised cells. ``ValueError`` naming what is wrong: an empty or
    malformed family name, or bad art (see :func:`parse_art`)."""
    family: str | None = None
    art = text
    if ":" in text:
        family, art = text.split(":", 1)
        family = family.strip()
        if not family or not all(ch.isalnum() or ch in "-_" for ch in family):
            raise ValueError(f"piece {text[:40]!r}: the family before ':' must be a name of "
                             "letters, digits, '-' and '_'")
    return family, parse_art(art)


def art_of(cells: frozenset[Cell]) -> str:
    """Render a cell set as multi-line ASCII art."""
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    return "\n".join(
        "".join("#" if (r, c) in cells else "." for c in range(width)) for r in range(height)
    )


def rotate_cells(cells: frozenset[Cell]) -> frozenset[Cell]:
    """Turn a cell set 90° clockwise and normalise it."""
    height = max(r for r, _ in cells) + 1
    return normalise((c, height - 1 - r) for r, c in cells)


PIECE_ID_CHARS = 200
"""The most characters a piece id a game keeps may have: a tray piece's in a
snapshot, a board cell's (:attr:`blockyard.geometry.Board.pieces`)."""

TURN = "+r"
"""What each quarter turn of a piece adds to its id (:meth:`Piece.rotated`)."""

_MARKS_BACKWARDS = re.compile(f"(?:{re.escape(TURN[::-1])})*")
"""The turn marks at the end of an id, matched on the id written backwards (one
pass, however long the id)."""
_UNBOUNDED_TURNS: ContextVar[bool] = ContextVar("blockyard_unbounded_turn_ids", default=False)


def turned_id(piece_id: str, turns: int = 1) -> str:
    """The id of the piece ``piece_id`` names turned ``turns`` quarter turns
    more: its id without the :data:`TURN` marks at its end, and one mark for
    each quarter turn of the whole, counted modulo 4. So ``"L-1"`` turned once
    is ``"L-1+r"``, three times ``"L-1+r+r+r"``, four times ``"L-1"`` again
    (four turns give the piece back): an id stays bounded however often a
    piece is turned. ``turned_id(id, 0)`` writes an id with any number of
    marks (as engines before this one wrote them, one mark per turn ever
    made) in this form."""
    if not piece_id.endswith(TURN):  # a piece as dealt: nearly every call
        return piece_id + TURN * (turns % 4)
    found = _MARKS_BACKWARDS.match(piece_id[::-1])  # always matches (zero marks or more)
    marks = found.end() // len(TURN) if found else 0
    return piece_id[:len(piece_id) - marks * len(TURN)] + TURN * ((marks + turns) % 4)


@contextlib.contextmanager
def unbounded_turn_ids() -> Iterator[None]:
    """Inside, :meth:`Piece.rotated` names pieces as engines before this one
    did, one :data:`TURN` mark more on every turn, never counted modulo 4:
    how a replay file those engines wrote is checked against the digest of
    the final position they recorded (:meth:`blockyard.replays.Replay.check`).
    Local to the thread or task that enters it."""
    token = _UNBOUNDED_TURNS.set(True)
    try:
        yield
    finally:
        _UNBOUNDED_TURNS.reset(token)


@dataclass(frozen=True, eq=False, slots=True)
class Piece:
    """A piece of a tray game.

    A piece is identified by its family and its shape: two pieces are equal
    (``==``) when their families and cell sets are, whatever their ids, so a
    one-cell ``bomb`` is not a one-cell ``dot``. :attr:`name` writes that
    identity as text (``"bomb:#"``), the form starting positions and logs use.
    ``colour`` is the index the frontend draws it with (1-based, by the
    family's position in the ruleset).
    """

    cells: frozenset[Cell]
    id: str = ""
    family: str = ""
    colour: int = 1
    height: int = field(init=False)
    width: int = field(init=False)
    size: int = field(init=False)
    """Number of cells (kept, not counted: every move reads it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "height", max(r for r, _ in self.cells) + 1)
        object.__setattr__(self, "width", max(c for _, c in self.cells) + 1)
        object.__setattr__(self, "size", len(self.cells))

    @classmethod
    def from_art(cls, art: str, *, id: str = "", family: str = "", colour: int = 1) -> Piece:
        """Build a piece from ASCII art (see :func:`parse_art`)."""
        return cls(parse_art(art), id=id or "custom", family=family, colour=colour)

    @property
    def art(self) -> str:
        """The piece as multi-line ASCII art."""
        return art_of(self.cells)

    @property
    def name(self) -> str:
        """The piece's identity as one line of text: ``family:art`` with the
        art's rows joined by ``/`` (``"bomb:#"``, ``"l:#./#./##"``), or the art
        alone for a piece without a family. :func:`parse_piece_name` reads it."""
        art = self.art.replace("\n", "/")
        return f"{self.family}:{art}" if self.family else art

    def rotated(self) -> Piece:
        """This piece turned 90° clockwise (same family and colour), its id
        :func:`turned_id`: the id names the piece it was dealt as and how far
        it is turned, so four turns give back the piece and its id."""
        piece_id = self.id + TURN if _UNBOUNDED_TURNS.get() else turned_id(self.id)
        return Piece(rotate_cells(self.cells), id=piece_id, family=self.family,
                     colour=self.colour)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Piece):
            return NotImplemented
        return self.cells == other.cells and self.family == other.family

    def __hash__(self) -> int:
        return hash(self.cells)

    def __repr__(self) -> str:
        return f"Piece({self.id!r}, {self.art.replace(chr(10), '/')!r})"


MARKS = ("star", "burst", "diamond", "ring", "dot", "cross", "bolt", "heart")
"""The marks a piece family's look may draw on each of its cells."""


@dataclass(frozen=True, slots=True)
class PieceLook:
    """How the window draws the cells of a piece family, beyond its colour (so a
    player tells a one-cell bomb from a one-cell dot before placing it):
    ``mark`` one of :data:`MARKS` drawn on every cell (``None``: none), and
    ``outline`` a dark edge around every cell. The same in the tray, the hand,
    the ghost, on the board and in replays, in every theme and palette (a mark
    takes the place of the colour-blind pattern)."""

    mark: str | None = None
    outline: bool = False

    def __post_init__(self) -> None:
        if self.mark is not None and self.mark not in MARKS:
            raise ValueError(f"unknown mark {self.mark!r}; choose from {', '.join(MARKS)}")
        if not isinstance(self.outline, bool):
            raise ValueError(f"outline: expected true or false, found {self.outline!r}")

    @property
    def plain(self) -> bool:
        """Whether the look adds nothing to the colour."""
        return self.mark is None and not self.outline


@dataclass(frozen=True, slots=True)
class PieceFamily:
    """A named group of pieces sharing one dealing weight, and their ``look``
    (``None``: the plain colour)."""

    name: str
    weight: float
    pieces: tuple[Piece, ...]
    look: PieceLook | None = None


def parse_look(value: Any, where: str, key: str) -> PieceLook:
    """A family's ``look = { mark = "star", outline = true }`` table; a
    :class:`~blockyard.RulesetError` naming the key for anything else."""
    if not isinstance(value, dict):
        raise RulesetError(f"expected a table like {{ mark = \"star\", outline = true }}, found "
                           f"{describe(value)}", path=where, key=key)
    params = Params(value, path=where, prefix=key)
    mark = params.string("mark", None, choices=MARKS) if params.has("mark") else None
    outline = params.boolean("outline", False)
    params.finish()
    return PieceLook(mark, outline)


def piece_json(piece: Piece) -> dict[str, Any]:
    """The saved form of a piece (snapshots): sorted ``[row, col]`` cells, id,
    family, colour."""
    return {"cells": sorted([r, c] for r, c in piece.cells), "id": piece.id,
            "family": piece.family, "colour": piece.colour}


def piece_from_json(data: dict[str, Any]) -> Piece:
    """The piece of :func:`piece_json`'s form (checked by the caller)."""
    return Piece(normalise(tuple(cell) for cell in data["cells"]), id=data["id"],
                 family=data["family"], colour=data["colour"])


# ---------------------------------------------------------------------------
# the [pieces] table of a rule file
# ---------------------------------------------------------------------------

MAX_SHAPES = 64
"""The most shapes a piece family of a rule file may have."""
MAX_FAMILIES = 128
"""The most piece families a rule file may give."""
MAX_BOARD = 32
"""The largest board side, in cells (a piece's art is refused well before)."""


def parse_families(table: Any, where: str) -> list[PieceFamily]:
    """The piece families of a rule file's ``[pieces]`` table (``weight`` and
    ``shapes``, ASCII art), in file order; a :class:`~blockyard.RulesetError`
    naming the key for anything else."""
    if not isinstance(table, dict):
        raise RulesetError(f"expected a table of piece families, found {describe(table)}",
                           path=where, key="pieces")
    if len(table) > MAX_FAMILIES:
        raise RulesetError(f"at most {MAX_FAMILIES} piece families, found {len(table)}",
                           path=where, key="pieces")
    families = []
    for name, spec in table.items():
        if not isinstance(spec, dict):
            raise RulesetError(f"expected a table with weight and shapes, found {describe(spec)}",
                               path=where, key=f"pieces.{name}")
        params = Params(spec, path=where, prefix=f"pieces.{name}")
        weight = params.number("weight", 1.0, minimum=0, maximum=1e6)
        look = parse_look(params.raw("look"), where, f"pieces.{name}.look") \
            if params.has("look") else None
        shapes = params.raw("shapes")
        if not isinstance(shapes, list) or not shapes:
            raise params.error("shapes", f"expected a non-empty array of ASCII-art strings, "
                               f"found {describe(shapes)}")
        if len(shapes) > MAX_SHAPES:
            raise params.error("shapes", f"at most {MAX_SHAPES} shapes, found {len(shapes)}")
        params.finish()
        pieces = []
        for i, art in enumerate(shapes):
            key = f"pieces.{name}.shapes[{i}]"
            if not isinstance(art, str):
                raise RulesetError(f"expected an ASCII-art string, found {describe(art)}",
                                   path=where, key=key)
            if len(art) > 2 * (MAX_BOARD + 1) * MAX_BOARD:
                raise RulesetError("the piece is larger than any board", path=where, key=key)
            try:
                cells = parse_art(art)
            except ValueError as exc:
                raise RulesetError(str(exc), path=where, key=key) from None
            pid = name if len(shapes) == 1 else f"{name}-{i + 1}"
            pieces.append(Piece(cells, id=pid, family=name))
        families.append(PieceFamily(name, float(weight), tuple(pieces), look))
    return families


def colour_families(families: list[PieceFamily]) -> list[PieceFamily]:
    """``families`` with each piece given its family's colour index (1, 2, …)."""
    out = []
    for index, fam in enumerate(families, start=1):
        out.append(PieceFamily(fam.name, fam.weight, tuple(
            Piece(p.cells, id=p.id, family=fam.name, colour=index) for p in fam.pieces),
            fam.look))
    return out
