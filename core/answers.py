"""The bounds of plugin answers and their checks, one per hook: what the rule
facade (:mod:`blockyard.rulehooks`) accepts from a plugin besides the type —
points, scores and combos within the snapshot's limits, end reasons, tips and
state updates within sizes, deals within the tray. MODDING.md's "What your
answers may be" lists them for plugin authors; ``blockyard plugins`` prints
:data:`ANSWER_BOUNDS`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .pieces import MAX_BOARD
from .results import Scoring

Check = Callable[[Any], bool]
"""A check of one hook's answer (``None`` is handled by the callers)."""


# ---------------------------------------------------------------------------
# bounds of plugin answers (MODDING.md, "What your answers may be"); a snapshot
# keeps figures within validate.MAX_COUNTER, so no answer may take a game past it
# ---------------------------------------------------------------------------

MAX_POINTS = 10**9
"""The most points (either sign) one move, landing or action may score."""
MAX_COMBO = 10**6
"""The highest combo counter a scoring answer may give."""
MAX_SCORE = 10**15
"""The score no game may pass (either sign): the snapshot limit."""
MAX_ERRORS = 10**6
"""The most errors a ``blockyard_max_errors`` answer may allow."""
MAX_REASON = 64
"""The longest end reason (``blockyard_end_reason``), in characters."""
MAX_TEXT = 300
"""The longest summary tip or invariant problem, in characters."""
MAX_TEXTS = 32
"""The most tips or invariant problems one plugin may give at once."""
MAX_DEAL = 64
"""The most pieces or stones one deal may hold."""
MAX_STATE_ITEMS = 1000
"""The most values (keys, items, scalars together) in one state update."""
MAX_STATE_DEPTH = 8
"""The deepest nesting of a state update's dicts and lists."""
MAX_STATE_TEXT = 1000
"""The longest string in a state update, in characters."""
MAX_TIME_LIMIT = 24 * 3600.0
"""The longest game clock (``blockyard_time_limit``), in seconds: a day."""

def reason_problem(reason: str) -> str | None:
    """Why ``reason`` (a string) cannot be a game's end reason, or ``None``: one
    line of 1 to :data:`MAX_REASON` printable characters (no NUL, newline, tab or
    other control character), as every screen and file shows it."""
    if not reason or len(reason) > MAX_REASON:
        return f"expected a reason of 1 to {MAX_REASON} characters, found {len(reason)}"
    if not reason.isprintable():
        bad = next(ch for ch in reason if not ch.isprintable())
        return (f"expected a reason of printable characters on one line, found {bad!r} in "
                f"{reason[:64]!r}")
    return None


ANSWER_BOUNDS: dict[str, str] = {
    "board_size": f"a (rows, cols) pair of integers, each from 1 to {MAX_BOARD}",
    "regions": "a list of Region, each with at least one cell and every cell on the board",
    "piece_families": "a list of PieceFamily whose pieces fit the board",
    "check_ruleset": "nothing",
    "falling_rules": "FallingRules",
    "time_limit": f"a number of seconds from 0.000001 (a microsecond, the clock's step) "
                  f"to {MAX_TIME_LIMIT:,.0f}",
    "max_errors": f"a whole number of errors from 1 to {MAX_ERRORS:,}",
    "actions": "a list of ActionSpec, each with a label and a name of at most 32 "
               "lower-case letters, digits, '-' and '_' (no reserved name)",
    "game_start": "nothing",
    "deal": f"a list of at most {MAX_DEAL} pieces or stones (a tray deal: exactly the "
            "tray's slots of Piece objects, each fitting the board)",
    "allowed_anchors": "an integer mask of anchors on the board (0 ≤ mask < 2**(rows × cols))",
    "clear": "Clearing whose regions are Region objects, whose board is the game's size, "
             "whose cleared mask is on the board (0 ≤ mask < 2**(rows × cols)) and whose "
             "row_drops give each of at most rows rows a fall of 0 to rows",
    "affected_cells": "an integer mask of board cells (0 ≤ mask < 2**(rows × cols))",
    "accept_stone": "a bool",
    "score": f"Scoring with integer points within ±{MAX_POINTS:,}, a combo from 0 to "
             f"{MAX_COMBO:,} and a state of JSON values within the bounds of MODDING.md",
    "move_state": "a dict of state updates (JSON values within the bounds of MODDING.md)",
    "end_reason": f"a string of at most {MAX_REASON} printable characters on one line "
                  "(an empty string: no reason)",
    "invariants": f"a list of at most {MAX_TEXTS} strings of at most {MAX_TEXT} characters",
    "summary_tips": f"a list of at most {MAX_TEXTS} strings of at most {MAX_TEXT} characters",
}
"""What each ruleset and game hook (name without ``blockyard_``) must answer:
the type and bounds the facade checks (``blockyard plugins`` shows them)."""

_STATE_SCALARS = (bool, type(None), float)
MAX_STATE_ITEMS_FLAT = 32
"""A state update of at most this many tables of at most this many figures is
checked by :func:`_flat_figures` without the walk."""


def _flat_figures(table: dict[Any, Any], inner: int) -> bool:
    """Whether ``table`` holds only short string keys and integers within the score
    limit, booleans, ``None`` and (when ``inner``) tables of at most ``inner`` such
    values: the shape of nearly every state update, checked without the walk
    (``False`` sends it to the full walk, which decides)."""
    for key, item in table.items():
        if type(key) is not str or len(key) > MAX_STATE_TEXT:
            return False
        kind = type(item)
        if kind is int:
            if not -MAX_SCORE <= item <= MAX_SCORE:
                return False
        elif kind is dict:
            if not inner or len(item) > inner:
                return False
            for key2, item2 in item.items():  # one level down, written out (every move)
                if type(key2) is not str or len(key2) > MAX_STATE_TEXT:
                    return False
                kind = type(item2)
                if kind is int:
                    if not -MAX_SCORE <= item2 <= MAX_SCORE:
                        return False
                elif kind is not bool and item2 is not None:
                    return False
        elif kind is not bool and item is not None:
            return False
    return True


def state_within(value: Any) -> bool:
    """Whether ``value`` is a state update a plugin may return: a dict of JSON
    values (string keys; dicts, lists, strings, integers within the score limit,
    finite floats, booleans, ``None``) within the bounds above."""
    if type(value) is not dict:
        return False
    if len(value) <= MAX_STATE_ITEMS_FLAT and _flat_figures(value, MAX_STATE_ITEMS_FLAT):
        return True  # the common update, asked on every move: a few figures
    budget = [MAX_STATE_ITEMS]

    def walk(item: Any, depth: int) -> bool:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_STATE_DEPTH:
            return False
        kind = type(item)
        if kind is int:
            return bool(-MAX_SCORE <= item <= MAX_SCORE)
        if kind is str:
            return len(item) <= MAX_STATE_TEXT
        if kind is dict:
            return all(type(k) is str and len(k) <= MAX_STATE_TEXT and walk(v, depth + 1)
                       for k, v in item.items())
        if kind is list:
            return all(walk(v, depth + 1) for v in item)
        if kind is float:
            return bool(item == item and abs(item) != float("inf"))
        return kind in _STATE_SCALARS
    return walk(value, 0)


def _shown(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # a hostile object's __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


def written_problem(game: Any, before: tuple[int, dict[str, Any], dict[str, Any]]
                    ) -> str | None:
    """What is out of bounds among the figures a plugin's code wrote into
    ``game`` since ``before`` (``game._figures()``: the score, the engine's
    counters and a copy of the plugins' state), or ``None``: the score an integer
    within ±:data:`MAX_SCORE` that moved by at most :data:`MAX_POINTS`, every
    counter a whole number from 0 to :data:`MAX_SCORE` (combos to
    :data:`MAX_COMBO`), the end reason a short string, and each state entry
    that changed JSON values within the bounds of a state update. The same
    bounds as a hook's answers (an action's ``perform`` and
    ``blockyard_game_start`` write these directly)."""
    score_before, counters, state_before = before
    score = game.score
    if type(score) is not int:
        return f"score = {_shown(score)} (of type {type(score).__name__}); expected an integer"
    if not -MAX_SCORE <= score <= MAX_SCORE:
        return f"score = {_shown(score)}, past ±{MAX_SCORE:,}"
    if not -MAX_POINTS <= score - score_before <= MAX_POINTS:
        return (f"score {score_before:,} → {score:,}: more than ±{MAX_POINTS:,} points at "
                "once")
    for name, old in counters.items():
        value = getattr(game, name, None)
        high = MAX_COMBO if "combo" in name else MAX_SCORE
        if value is old:
            continue
        if type(value) is not int or not 0 <= value <= high:
            return f"{name} = {_shown(value)}; expected a whole number from 0 to {high:,}"
    over = game.over_reason
    if over is not None and (type(over) is not str or reason_problem(over) is not None):
        return f"over_reason = {_shown(over)}; expected None or a reason of 1 to {MAX_REASON} " \
            "printable characters on one line"
    state = game.state
    if type(state) is not dict:
        return f"state = {_shown(state)}; expected a dict"
    for key, value in state.items():
        if key in state_before and state_before[key] == value:
            continue
        if type(key) is not str or len(key) > MAX_STATE_TEXT:
            return f"state key {_shown(key)}; expected a string of at most " \
                f"{MAX_STATE_TEXT} characters"
        if not state_within({key: value}):
            return (f"state[{key[:40]!r}] = {_shown(value)}, which is not JSON values within "
                    f"the bounds of a state update (at most {MAX_STATE_ITEMS} values, "
                    f"{MAX_STATE_DEPTH} levels deep, strings of at most {MAX_STATE_TEXT} "
                    f"characters, numbers within ±{MAX_SCORE:,})")
    return None


def _texts_within(limit: int) -> Check:
    def check(value: Any) -> bool:
        return isinstance(value, list | tuple) and len(value) <= MAX_TEXTS and all(
            isinstance(v, str) and len(v) <= limit for v in value)
    return check


# ---------------------------------------------------------------------------
# answer checks (one per hook; None is handled by the callers)
# ---------------------------------------------------------------------------

def _is_int(value: Any) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _list_of(kind: type | tuple[type, ...]) -> Check:
    def check(value: Any) -> bool:
        return isinstance(value, list | tuple) and all(isinstance(v, kind) for v in value)
    return check


def _size_ok(value: Any) -> bool:
    return isinstance(value, tuple | list) and len(value) == 2 and all(_is_int(x) for x in value)


def _scoring_ok(value: Any) -> bool:
    if type(value) is Scoring and type(value.points) is int and type(value.combo) is int:
        # the common answer, asked on every move
        return (-MAX_POINTS <= value.points <= MAX_POINTS and 0 <= value.combo <= MAX_COMBO
                and (not value.state or state_within(value.state)))
    return (isinstance(value, Scoring) and _is_int(value.points) and _is_int(value.combo)
            and -MAX_POINTS <= value.points <= MAX_POINTS and 0 <= value.combo <= MAX_COMBO
            and isinstance(value.state, dict) and state_within(value.state))


def _number_ok(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _deal_ok(value: Any) -> bool:
    return isinstance(value, list | tuple) and len(value) <= MAX_DEAL


def _anything(value: Any) -> bool:
    return True


