"""Checking snapshots and logs before a game is built from them.

Snapshots, logs and replay files may come from strangers, so
:func:`blockyard.restore` and :func:`blockyard.replay` check everything they
are given before they build a game: every field is present, of its type and
inside its range; cells lie on the board and agree with the bitboard; tray
pieces fit the board; stones are stones; counters are not negative; the
plugins' saved state has the shape a game of the ruleset gives it; and the
restored game passes the ruleset's invariants. Anything else is a
:class:`~blockyard.DataError` whose message names the field and what was wrong
(the embedded rule text is checked by the rule-file loader and gives a
:class:`~blockyard.RulesetError`).

Everything here only reads what it is given: nothing is built or changed before
the checks pass.
"""

from __future__ import annotations

import copy
import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .answers import MAX_REASON, reason_problem
from .errors import DataError, IllegalMove, PluginError
from .pieces import PIECE_ID_CHARS, Piece, piece_from_json, turned_id
from .ruleset import MAX_TRAY_SLOTS
from .stones import GOLDEN, JOKER, SYMBOL

if TYPE_CHECKING:
    from .modes import Mode

MAX_DEPTH = 32
"""Nesting of lists and tables allowed in saved data (plugin state included)."""
MAX_ITEMS = 100_000
"""Items of one list or table in saved data (the log excepted)."""
MAX_LOG_ENTRIES = 500_000
"""Entries of a game log; a real game of any length stays far below."""
MAX_TEXT = 1 << 20
"""Characters of one string in saved data."""
MAX_COUNTER = 10**15
"""The largest score, move count, clock (µs) or other counter a snapshot may hold."""
MAX_SEED = 1 << 63
"""Seeds lie in ``-MAX_SEED <= seed < MAX_SEED`` (what the records database stores)."""
MAX_TICK_US = 86_400_000_000
"""The longest clock step one ``tick`` may log, in microseconds (a day)."""
MAX_QUEUE = 10_000
"""Stones waiting in a falling game's queue."""
MAX_COLOUR = 255
MAX_PIECE_ID = PIECE_ID_CHARS
"""Characters of a tray piece's id in a snapshot (its turns counted modulo 4,
:func:`blockyard.pieces.turned_id`), and of a cell's piece id."""

DIGIT_CODES = frozenset(d | g for d in range(1, 10) for g in (0, GOLDEN))
STREAM_CODES = DIGIT_CODES | {SYMBOL, JOKER}
"""Codes of stones that can fall (digits, golden digits, symbol stones, jokers)."""
CELL_CODES = STREAM_CODES | {JOKER | d for d in range(1, 10)}
"""Codes a falling game's cell may hold (a joker remembers its digit)."""

_FILLED_DIGIT = bytes([ord("0")] + [ord("1")] * 255)
"""``bytes.translate`` table: a cell code to ``'1'`` when filled, ``'0'`` when empty."""

def _fail(where: str, message: str) -> DataError:
    return DataError(f"{where}: {message}")


def _show(value: Any) -> str:
    """A short description of a value for messages (never a huge string)."""
    try:
        text = repr(value)
    except Exception:  # a hostile object's __repr__
        text = f"<{type(value).__name__}>"
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


SCALARS = frozenset((int, str, float, bool, type(None)))
"""The types of JSON scalars (``None`` included)."""


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, tuples, scalars) — the game's
    state, log and snapshots — much cheaper than ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: copy_json(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [copy_json(v) for v in value] if kind is list else \
            tuple(copy_json(v) for v in value)
    if kind in SCALARS:
        return value
    return copy.deepcopy(value)


# ---------------------------------------------------------------------------
# plain values
# ---------------------------------------------------------------------------

def check_int(value: Any, where: str, low: int, high: int) -> int:
    """``value`` if it is an integer (not a bool) with ``low <= value <= high``."""
    if type(value) is not int:
        raise _fail(where, f"expected an integer, found {_show(value)}")
    if not low <= value <= high:
        raise _fail(where, f"expected an integer from {low} to {high}, found {_show(value)}")
    return value


def check_bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise _fail(where, f"expected true or false, found {_show(value)}")
    return value


def check_str(value: Any, where: str, limit: int = MAX_TEXT, *, empty: bool = True) -> str:
    if type(value) is not str:
        raise _fail(where, f"expected a string, found {_show(value)}")
    if len(value) > limit:
        raise _fail(where, f"expected at most {limit} characters, found {len(value)}")
    if not empty and not value:
        raise _fail(where, "expected a non-empty string")
    return value


def check_list(value: Any, where: str, limit: int = MAX_ITEMS) -> list[Any]:
    if type(value) not in (list, tuple):
        raise _fail(where, f"expected a list, found {_show(value)}")
    if len(value) > limit:
        raise _fail(where, f"expected at most {limit} items, found {len(value)}")
    return value if type(value) is list else list(value)  # read only: no copy of a list


def check_table(value: Any, where: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise _fail(where, f"expected a table, found {_show(value)}")
    if len(value) > MAX_ITEMS:
        raise _fail(where, f"expected at most {MAX_ITEMS} entries, found {len(value)}")
    return value


def check_date(value: Any, where: str) -> str | None:
    """``None`` or an ISO date ``YYYY-MM-DD``."""
    if value is None:
        return None
    check_str(value, where, 10)
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        raise _fail(where, f"expected a date YYYY-MM-DD, found {_show(value)}") from None
    return str(value)


def check_json(value: Any, where: str, depth: int = 0) -> None:
    """Refuse anything that is not JSON-safe data of bounded size: ``None``,
    booleans, integers within ±2⁶³, finite numbers, strings, lists and tables
    with string keys, nested at most :data:`MAX_DEPTH` deep."""
    if depth > MAX_DEPTH:
        raise _fail(where, f"nested deeper than {MAX_DEPTH}")
    kind = type(value)
    if value is None or kind is bool:
        return
    if kind is int:
        if not -MAX_SEED <= value < MAX_SEED:
            raise _fail(where, f"integer out of range: {_show(value)}")
        return
    if kind is float:
        if not math.isfinite(value):
            raise _fail(where, f"expected a finite number, found {value!r}")
        return
    if kind is str:
        check_str(value, where)
        return
    if kind in (list, tuple):
        for i, item in enumerate(check_list(value, where)):
            if type(item) is not int or not -MAX_SEED <= item < MAX_SEED:
                check_json(item, f"{where}[{i}]", depth + 1)  # the path written only here
        return
    if kind is dict:
        for key, item in check_table(value, where).items():
            if type(key) is not str:
                raise _fail(where, f"expected string keys, found {_show(key)}")
            if type(item) is not int or not -MAX_SEED <= item < MAX_SEED:
                check_json(item, f"{where}.{key[:40]}", depth + 1)
        return
    raise _fail(where, f"expected JSON data, found {_show(value)}")


def check_same_shape(value: Any, model: Any, where: str) -> None:
    """``value`` has the types ``model`` (a fresh game's) has, where both have
    a key: a plugin reading its state never meets a table where it keeps a
    number."""
    if model is None:
        return
    if type(model) is dict:  # the plugins' tables, the common case: asked first
        table = check_table(value, where)
        for key, item in model.items():
            if key in table:
                found = table[key]
                if type(found) is type(item) and type(item) in (int, str, bool):
                    continue  # the same scalar type: nothing more to check
                check_same_shape(found, item, f"{where}.{key}")
    elif isinstance(model, bool):
        check_bool(value, where)
    elif isinstance(model, int):
        if type(value) is not int:
            raise _fail(where, f"expected an integer, found {_show(value)}")
    elif isinstance(model, float):
        if type(value) not in (int, float):
            raise _fail(where, f"expected a number, found {_show(value)}")
    elif isinstance(model, str):
        check_str(value, where)
    elif isinstance(model, list | tuple):
        items = check_list(value, where)
        if model:
            for i, item in enumerate(items):
                check_same_shape(item, model[0], f"{where}[{i}]")
    elif isinstance(model, dict):  # a dict subclass
        check_same_shape(value, dict(model), where)


# ---------------------------------------------------------------------------
# logs
# ---------------------------------------------------------------------------

_START_KEYS = frozenset(("ruleset", "id", "seed", "date", "board", "stream", "tray"))


def check_start(entry: Any, where: str = "log[0]") -> dict[str, Any]:
    """The table of a log's ``["start", {...}]`` entry, checked."""
    entry = check_list(entry, where, 2)
    if len(entry) != 2 or entry[0] != "start":
        raise _fail(where, "a game log starts with [\"start\", {...}]")
    start = check_table(entry[1], f"{where}[1]")
    if not start.keys() <= _START_KEYS:  # the known keys are checked one by one below
        check_json({key: value for key, value in start.items() if key not in _START_KEYS},
                   f"{where}[1]")
    # the common case told at once, the path of a message written only when needed
    text, name, seed = start.get("ruleset"), start.get("id", ""), start.get("seed")
    if type(text) is not str or len(text) > MAX_TEXT:
        check_str(text, f"{where}[1].ruleset")
    if type(name) is not str or len(name) > 64:
        check_str(name, f"{where}[1].id", 64)
    if type(seed) is not int or not -MAX_SEED <= seed < MAX_SEED:
        check_int(seed, f"{where}[1].seed", -MAX_SEED, MAX_SEED - 1)
    if start.get("date") is not None:
        check_date(start["date"], f"{where}[1].date")
    for key in ("board", "stream"):
        if start.get(key) is not None:
            check_str(start[key], f"{where}[1].{key}", 1 << 16)
    if start.get("tray") is not None:
        tray = check_list(start["tray"], f"{where}[1].tray", MAX_TRAY_SLOTS)
        for i, item in enumerate(tray):
            if item is not None:
                check_str(item, f"{where}[1].tray[{i}]", 4096)
    return start


def _plain_move(entry: Any, arity: Mapping[str, int]) -> bool:
    """The common case of :func:`check_entry`, at once: a list naming one of the
    engine's moves (not ``tick``) with its number of integer arguments."""
    if type(entry) is not list or not entry or type(entry[0]) is not str \
            or arity.get(entry[0]) != len(entry) - 1 or entry[0] == "tick":
        return False
    for arg in entry[1:]:  # noqa: SIM110 (no generator on this path)
        if type(arg) is not int or not -MAX_SEED <= arg < MAX_SEED:
            return False
    return True


def check_entry(entry: Any, index: int, mode: Mode) -> list[Any]:
    """A logged action after the start: ``[name, *args]`` with a name and
    JSON-safe scalar arguments; the engine's own actions of ``mode``
    (:attr:`~blockyard.modes.Mode.engine_actions`) with their arity."""
    if _plain_move(entry, mode.engine_actions):
        return entry  # type: ignore[no-any-return]
    where = f"log[{index}]"
    items = check_list(entry, where, 8)
    if not items:
        raise _fail(where, "an empty entry")
    name = items[0]
    check_str(name, f"{where}[0]", 64, empty=False)
    if name == "start":
        raise _fail(where, "a second start")
    for i, arg in enumerate(items[1:], start=1):
        if arg is not None and type(arg) not in (bool, int, float, str):
            raise _fail(f"{where}[{i}]", f"expected a number, a string or a boolean, "
                        f"found {_show(arg)}")
        check_json(arg, f"{where}[{i}]")
    arity = mode.engine_actions.get(name)
    if arity is not None and len(items) - 1 != arity:
        raise _fail(where, f"{name!r} takes {arity} argument{'s' * (arity != 1)}, "
                    f"found {len(items) - 1}")
    if name == "tick":
        check_int(items[1], f"{where} tick (whole microseconds)", 0, 86_400_000_000)
    return items


def check_log(log: Any) -> list[Any]:
    """A log's entries (a list), its start checked; the other entries are
    checked one by one as they are replayed (:func:`check_entry`)."""
    if type(log) is not list and (isinstance(log, str | bytes)
                                  or not isinstance(log, Sequence)):
        raise _fail("log", f"expected a list of entries, found {_show(log)}")
    entries = check_list(log, "log", MAX_LOG_ENTRIES)
    if not entries:
        raise _fail("log", "empty; a game log starts with a 'start' entry")
    check_start(entries[0])
    return entries


# ---------------------------------------------------------------------------
# snapshots
# ---------------------------------------------------------------------------

SNAPSHOT_COMMON = ("format", "kind", "ruleset", "seed", "date", "log", "score", "moves",
                   "over_reason", "elapsed_us", "cells", "bits", "state")


_REQUIRED: dict[tuple[str, tuple[str, ...], tuple[str, ...]], frozenset[str]] = {}
"""The keys a snapshot of a mode (its name and own fields) with given state
fields must have."""


def snapshot_header(snap: Any, expected_format: str) -> tuple[str, str]:
    """The rule text and kind of a snapshot, after checking it is one."""
    if type(snap) is not dict and not isinstance(snap, Mapping):
        raise DataError(f"not a Blockyard snapshot: expected a table, found {_show(snap)}")
    if snap.get("format") != expected_format:
        raise DataError(f"not a Blockyard snapshot (missing or unknown 'format': "
                        f"{_show(snap.get('format'))}; expected {expected_format!r})")
    text = check_str(snap.get("ruleset"), "snapshot.ruleset")
    kind = check_str(snap.get("kind"), "snapshot.kind", 32)
    return text, kind


def check_snapshot(snap: Mapping[str, Any], ruleset: Any, mode: Mode,
                   fields: tuple[str, ...]) -> dict[str, Any]:
    """Check every field of a snapshot of a game of ``ruleset``, whose mode is
    ``mode``; ``fields`` are the state fields the engine restores. Returns
    what the checks built, for the restored game to own: ``log``, a copy of
    the snapshot's log, and what the mode's ``check_snapshot`` built (for
    tray games ``tray``, its :class:`Piece` objects)."""
    where = "snapshot"
    own = mode.snapshot_fields
    key = (mode.name, own, fields)
    required = _REQUIRED.get(key)
    if required is None:
        required = _REQUIRED[key] = frozenset((*SNAPSHOT_COMMON, *fields, *own))
    missing = [] if snap.keys() >= required else \
        [f for f in (*SNAPSHOT_COMMON, *fields, *own) if f not in snap]
    if missing:
        raise _fail(where, f"missing {', '.join(repr(m) for m in missing)}")
    seed = check_int(snap["seed"], "snapshot.seed", -MAX_SEED, MAX_SEED - 1)
    date = check_date(snap["date"], "snapshot.date")
    check_int(snap["score"], "snapshot.score", -MAX_COUNTER, MAX_COUNTER)
    check_int(snap["moves"], "snapshot.moves", 0, MAX_COUNTER)
    over = snap["over_reason"]
    if over is not None:
        check_str(over, "snapshot.over_reason", MAX_REASON, empty=False)
        problem = reason_problem(over)
        if problem is not None:
            raise _fail("snapshot.over_reason", problem)
    limit = ruleset.time_limit
    high = MAX_COUNTER if limit is None else round(limit * 1_000_000)
    # the tick that ends a game may run past the limit (by at most the longest
    # tick, a day): the clock keeps what was played
    elapsed = check_int(snap["elapsed_us"], "snapshot.elapsed_us", 0,
                        high if limit is None or over is None else high + MAX_TICK_US)
    if limit is not None and over is None and elapsed >= high:
        raise _fail("snapshot.elapsed_us", "the clock has run out but the game is not over")
    _check_board(snap, ruleset)
    state = check_table(snap["state"], "snapshot.state")
    check_json(state, "snapshot.state")
    for old in ("swaps_left", "continues_used"):
        if old in snap:
            check_int(snap[old], f"snapshot.{old}", 0, 10**9)
    built = dict(mode.check_snapshot(snap, ruleset))
    built["log"] = _check_snapshot_log(snap["log"], snap["ruleset"], seed, date, mode)
    return built


def _check_board(snap: Mapping[str, Any], ruleset: Any) -> None:
    rows, cols = ruleset.rows, ruleset.cols
    size = rows * cols
    cells = check_list(snap["cells"], "snapshot.cells", size)
    if len(cells) != size:
        raise _fail("snapshot.cells", f"expected {size} cells ({rows}×{cols}), "
                    f"found {len(cells)}")
    bits = check_int(snap["bits"], "snapshot.bits", 0, (1 << size) - 1)
    if cells and list(map(type, cells)).count(int) == size:  # common case
        try:
            raw = bytes(cells)  # every code from 0 to MAX_COLOUR (255), or ValueError
        except ValueError:
            raw = b""
        # the cells as '0'/'1' digits (filled or not), read as a binary number
        if raw and int(raw.translate(_FILLED_DIGIT)[::-1], 2) & ~bits == 0:
            return
    for i, code in enumerate(cells):  # the common case, fast; the messages below
        if type(code) is not int or not 0 <= code <= MAX_COLOUR \
                or (code and not bits >> i & 1):
            break
    else:
        return
    for i, code in enumerate(cells):
        at = f"snapshot.cells[{i}] (row {i // cols}, column {i % cols})"
        check_int(code, at, 0, MAX_COLOUR)
        filled = bits >> i & 1
        if code and not filled:
            raise _fail(at, f"holds {code} but the bitboard says the cell is empty")


def _check_piece(data: Any, where: str, ruleset: Any) -> Piece:
    """The piece a snapshot's tray slot saves, checked."""
    if type(data) is dict:  # the common case: exactly the saved form of a ruleset piece
        known = ruleset.saved_pieces.get(data.get("id"))
        if known is not None and known[0] == data:
            return known[1]  # type: ignore[no-any-return]
    table = check_table(data, where)
    for key in ("cells", "id", "family", "colour"):
        if key not in table:
            raise _fail(where, f"missing {key!r}")
    piece_id = check_str(table["id"], f"{where}.id")
    if len(piece_id) > MAX_PIECE_ID and len(turned_id(piece_id, 0)) > MAX_PIECE_ID:
        # (an earlier engine's turned piece, a mark for every turn, is read as turned)
        raise _fail(f"{where}.id", f"expected at most {MAX_PIECE_ID} characters, found "
                    f"{len(piece_id)}")
    check_str(table["family"], f"{where}.family", 200)
    check_int(table["colour"], f"{where}.colour", 0, MAX_COLOUR)
    cells = check_list(table["cells"], f"{where}.cells", ruleset.rows * ruleset.cols)
    if not cells:
        raise _fail(f"{where}.cells", "a piece has at least one cell")
    seen = set()
    for i, cell in enumerate(cells):
        pair = check_list(cell, f"{where}.cells[{i}]", 2)
        if len(pair) != 2:
            raise _fail(f"{where}.cells[{i}]", f"expected [row, col], found {_show(cell)}")
        r = check_int(pair[0], f"{where}.cells[{i}][0]", 0, ruleset.rows - 1)
        c = check_int(pair[1], f"{where}.cells[{i}][1]", 0, ruleset.cols - 1)
        seen.add((r, c))
    top = min(r for r, _ in seen)
    left = min(c for _, c in seen)
    height = max(r for r, _ in seen) - top + 1
    width = max(c for _, c in seen) - left + 1
    if height > ruleset.rows or width > ruleset.cols:
        raise _fail(where, "the piece is larger than the board")
    return piece_from_json(table)


def check_tray_fields(snap: Mapping[str, Any], ruleset: Any) -> dict[str, Any]:
    """The tray mode's own fields of a snapshot checked (its ``check_snapshot``);
    returns ``{"tray": pieces}``, the tray's :class:`Piece` objects."""
    return {"tray": _check_tray_fields(snap, ruleset)}


def _check_tray_fields(snap: Mapping[str, Any], ruleset: Any) -> list[Piece | None]:
    """The tray game's fields checked; returns the tray's pieces."""
    for name, high in (("set_index", 10**9), ("combo", 10**9), ("best_combo", 10**9),
                       ("lines_cleared", MAX_COUNTER)):
        value = snap[name]
        if type(value) is not int or not 0 <= value <= high:
            check_int(value, f"snapshot.{name}", 0, high)
    if snap["best_combo"] < snap["combo"]:
        raise _fail("snapshot.best_combo", f"{snap['best_combo']} is below the current combo "
                    f"{snap['combo']}")
    slots = ruleset.tray_slots
    tray = check_list(snap["tray"], "snapshot.tray", slots)
    if len(tray) != slots:
        raise _fail("snapshot.tray", f"expected {slots} slots ([tray] slots), found "
                    f"{len(tray)}")
    pieces = [None if piece is None else _check_piece(piece, f"snapshot.tray[{slot}]", ruleset)
              for slot, piece in enumerate(tray)]
    if "cell_pieces" in snap:  # (absent from snapshots written before they were kept)
        _check_cell_pieces(snap, ruleset)
    if snap["over_reason"] is None and all(piece is None for piece in pieces):
        raise _fail("snapshot.tray", "the game is not over but the tray is empty")
    return pieces


def _check_cell_pieces(snap: Mapping[str, Any], ruleset: Any) -> None:
    """A tray snapshot's ``cell_pieces``: a piece id (a string of at most
    ``MAX_PIECE_ID`` characters) or ``None`` per cell, an id only on a filled cell."""
    rows, cols = ruleset.rows, ruleset.cols
    size = rows * cols
    ids = check_list(snap["cell_pieces"], "snapshot.cell_pieces", size)
    if len(ids) != size:
        raise _fail("snapshot.cell_pieces", f"expected {size} cells ({rows}×{cols}), "
                    f"found {len(ids)}")
    bits = snap["bits"]
    for i, piece_id in enumerate(ids):
        if piece_id is None:
            continue
        at = f"snapshot.cell_pieces[{i}] (row {i // cols}, column {i % cols})"
        check_str(piece_id, at, MAX_PIECE_ID)
        if not bits >> i & 1:
            raise _fail(at, f"names piece {piece_id[:40]!r} but the bitboard says the cell "
                        "is empty")


def check_falling_fields(snap: Mapping[str, Any], ruleset: Any) -> dict[str, Any]:
    """The falling mode's own fields of a snapshot checked (its
    ``check_snapshot``): every filled cell holds a stone code, the queue, the
    falling stone and its clock; builds nothing (returns ``{}``)."""
    cols = ruleset.cols
    cells, bits = snap["cells"], snap["bits"]
    for i, code in enumerate(cells):
        if bits >> i & 1 and code not in CELL_CODES:
            raise _fail(f"snapshot.cells[{i}] (row {i // cols}, column {i % cols})",
                        f"expected a stone code, found {code}")
    _check_falling_fields(snap, ruleset)
    return {}


def _check_falling_fields(snap: Mapping[str, Any], ruleset: Any) -> None:
    rows, cols = ruleset.rows, ruleset.cols
    check_int(snap["errors"], "snapshot.errors", 0, 10**9)
    check_int(snap["lines_cleared"], "snapshot.lines_cleared", 0, MAX_COUNTER)
    check_int(snap["batch_index"], "snapshot.batch_index", 0, 10**9)
    queue = check_list(snap["queue"], "snapshot.queue", MAX_QUEUE)
    for i, code in enumerate(queue):
        check_int(code, f"snapshot.queue[{i}]", 0, MAX_COLOUR)
        if code not in STREAM_CODES:
            raise _fail(f"snapshot.queue[{i}]", f"expected a stone code, found {code}")
    code = check_int(snap["cur_code"], "snapshot.cur_code", 0, MAX_COLOUR)
    if code not in STREAM_CODES:
        raise _fail("snapshot.cur_code", f"expected a stone code, found {code}")
    row = check_int(snap["cur_row"], "snapshot.cur_row", -1, rows - 1)
    col = check_int(snap["cur_col"], "snapshot.cur_col", 0, cols - 1)
    soft = check_bool(snap["soft"], "snapshot.soft")
    rules = ruleset.hooks.falling_rules(ruleset, "restore")
    if rules is None:
        raise _fail("snapshot", f"ruleset {ruleset.id!r} has no falling rules")
    interval = round((rules.soft_drop_seconds if soft else rules.fall_seconds) * 1_000_000)
    check_int(snap["fall_us"], "snapshot.fall_us", 0, interval)
    if row >= 0 and snap["bits"] >> (row * cols + col) & 1:
        raise _fail("snapshot.cur_row", f"the falling stone at ({row}, {col}) overlaps a "
                    "filled cell")


def _check_snapshot_log(log: Any, text: str, seed: int, date: str | None, mode: Mode
                        ) -> list[list[Any]]:
    """The snapshot's log checked, as a copy the game can own: the start table
    copied, every action a new list (checked and copied in one pass)."""
    entries = check_log(log)
    start = entries[0][1]
    if start["ruleset"] != text:
        raise _fail("snapshot.log[0]", "the log starts with other rules than the snapshot's")
    if start["seed"] != seed or start.get("date") != date:
        raise _fail("snapshot.log[0]", "the log starts with another seed or date than the "
                    "snapshot's")
    start = {key: value if type(value) in SCALARS else copy_json(value)
             for key, value in start.items()}
    out: list[list[Any]] = [["start", start]]
    add = out.append
    arity = mode.engine_actions
    for index in range(1, len(entries)):
        entry = entries[index]
        add(entry[:] if _plain_move(entry, arity) else list(check_entry(entry, index, mode)))
    return out


def check_state_shape(state: Mapping[str, Any], model: Mapping[str, Any]) -> None:
    """The plugins' saved state has the types a fresh game of the ruleset gives it."""
    for key, value in state.items():
        if key in model:
            check_same_shape(value, model[key], f"snapshot.state.{key[:40]}")


def check_restored(game: Any) -> None:
    """Ask the restored game what a player would ask first (its actions, its
    fits, its invariants): a plugin that cannot read the state, or a state that
    breaks the ruleset's invariants, refuses the snapshot."""
    try:
        game._available_actions()  # the plugins asked as game.actions() asks them
        if game.mode.has_tray:
            game.fit_masks()
        problems = game.ruleset.hooks.invariants(game, "restore") \
            if "invariants" in game.ruleset.implemented else []
    except (PluginError, IllegalMove) as exc:
        raise DataError(f"snapshot: the ruleset's plugins cannot use its state: {exc}") from None
    if problems:
        raise DataError(f"snapshot: the position breaks the rules: {'; '.join(problems[:3])}")


def turns_counted(snap: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a tray game's snapshot whose tray pieces' ids have their turns
    counted modulo 4 (:func:`blockyard.pieces.turned_id`), the form this engine
    gives them: engines before it added a mark for every turn ever made."""
    out = dict(snap)
    tray = snap.get("tray")
    if type(tray) is list:
        out["tray"] = [{**piece, "id": turned_id(piece["id"], 0)}
                       if type(piece) is dict and type(piece.get("id")) is str else piece
                       for piece in tray]
    return out


def first_difference(given: Any, truth: Any, where: str) -> str | None:
    """The path (``snapshot.state.swaps.left``, ``snapshot.cells[12]``) of the first
    place where ``given`` differs from ``truth`` (JSON values, compared exactly:
    ``1`` is not ``True``), or ``None`` when they are equal."""
    if type(given) is not type(truth) and not (
            isinstance(given, Mapping) and isinstance(truth, Mapping)) and not (
            isinstance(given, list | tuple) and isinstance(truth, list | tuple)):
        return where
    if isinstance(truth, Mapping):
        for key in truth:
            if key not in given:
                return f"{where}.{key}"
            found = first_difference(given[key], truth[key], f"{where}.{key}")
            if found is not None:
                return found
        extra = next((key for key in given if key not in truth), None)
        return None if extra is None else f"{where}.{str(extra)[:40]}"
    if isinstance(truth, list | tuple):
        if given == truth:
            return None
        for index, (a, b) in enumerate(zip(given, truth, strict=False)):
            found = first_difference(a, b, f"{where}[{index}]")
            if found is not None:
                return found
        return f"{where} (length {len(given)}, not {len(truth)})"
    return None if given == truth else where
