"""The referee's game check: which games count, and when two games are one.

A finished game counts (on a server's leaderboard, in a player's records) only
when the rules dealt it. Three checks, the same wherever a game is judged
(``blockyard serve``'s ``POST /api/games``, the records, the window):

- **The rules' own deal** (:func:`dealt_game`): the log's start entry is what
  ``new_game(ruleset, seed=…, date=…)`` writes — no ``board``, ``tray`` or
  ``stream`` of the player's choosing, and for a daily ruleset the seed that its
  date deals (:func:`blockyard.rng.daily_seed`). A start entry that spells the
  dealt start differently (an empty board written out, the dealt tray named) is
  that deal; one that builds another position is a *chosen start*: a headless
  feature for tests, puzzles and tutorials (``new_game(board=…)``,
  ``blockyard play --tray``), never counted.
- **Bounded work** (:func:`check_work`): a log is refused before it is replayed
  when it holds more entries than a real game of its ruleset can hold: per move
  (a placement, a dropped stone) at most :func:`moves_allowance` other entries
  (:data:`ENTRIES_PER_MOVE`, and :data:`TURNS_PER_MOVE` a tray slot for each
  action the ruleset lets a player take as often as they like, a piece's
  turn), for a game on a clock at most :data:`ENTRIES_PER_SECOND` per second of
  its game clock, and never more than :data:`MAX_ENTRIES`.
- **One game, one identity** (:func:`game_identity`): the SHA-256 of the
  rules' digest, the dealt start, the moves and where they led, in one canonical
  JSON form (:func:`canonical_json`), however the submitted file spelt them and
  whatever it did between moves that left the game as it was. The server's
  duplicate check uses it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import rng
from .errors import DataError
from .game import Game

if TYPE_CHECKING:
    from .ruleset import Ruleset

POSITION_KEYS = ("board", "tray", "stream")
"""The start entry's keys that can carry a starting position."""
ENTRIES_PER_MOVE = 16
"""Log entries other than moves (turns, swaps, continues, a stone's steps) a
real game can need per move, and before its first one."""
TURNS_PER_MOVE = 64
"""How often a real game takes, between two moves, an action whose uses no
plugin counts (``uses_left`` is ``None``: arcadeforge-rotate's ``rotate``, as
often as the player likes) on each tray slot: sixteen full turns of every piece
in the tray, where three turns reach any side (the issue 52 fuzz's heaviest
legal game turned 40 times a placement)."""
ENTRIES_PER_SECOND = 60
"""Log entries a game on a clock can need per second of its game clock (one a
frame at 60 frames a second, far above any player's keys)."""
MAX_ENTRIES = 200_000
"""The most log entries a game of any ruleset may have to be verified."""
IDENTITY_FORMAT = "blockyard-game/2"
"""The first item of what :func:`game_identity` and :func:`identity_of` hash
(``blockyard-game/1`` hashed Python's ``repr`` of the moves and figures: slower;
migration 0008 recomputed the stored games' identities)."""

_POSITION_WORDS = {"board": "board", "tray": "tray", "stream": "stone stream"}


class NotCounted(DataError):
    """A game that cannot count: not the rules' own deal, or more work than a
    real game of its ruleset needs. The message says which, in a sentence."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                              allow_nan=False)
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, allow_nan=False,
                            check_circular=False)
# made once: json.dumps with any argument builds a new encoder for every call
_NAME = operator.itemgetter(0)
"""An entry's action name."""


def canonical_json(value: Any) -> str:
    """``value`` as one canonical JSON text: keys sorted, no spaces, ASCII only."""
    return _CANONICAL.encode(value)


def _date(value: Any) -> _dt.date | None:
    return _dt.date.fromisoformat(value) if isinstance(value, str) and value else None


def dealt_seed(ruleset: Ruleset, start: Mapping[str, Any]) -> int:
    """The seed the rules deal for a game whose start entry is ``start``: its own
    seed, and for a daily ruleset the seed of its date (:class:`NotCounted` for a
    daily game that names another seed or no date)."""
    seed = int(start["seed"])
    if not ruleset.is_daily:
        if start.get("date") is not None:
            raise NotCounted(f"this game of {ruleset.id!r} names a date "
                             f"({str(start['date'])[:10]}), but {ruleset.id!r} is not a daily "
                             "ruleset: its deal is its seed's alone, and a date is no part of "
                             "its game")
        return seed
    day = _date(start.get("date"))
    if day is None:
        raise NotCounted(f"a daily game of {ruleset.id!r} must name its date; the rules "
                         "deal each date's game from it")
    expected = rng.daily_seed(ruleset.id, day)
    if seed != expected:
        raise NotCounted(f"this daily game of {ruleset.id!r} was played on seed {seed}, but "
                         f"the rules deal {day.isoformat()}'s game from seed {expected}: "
                         "only the date's own deal counts")
    return seed


def dealt_game(ruleset: Ruleset, start: Mapping[str, Any]) -> Game:
    """A new game of ``ruleset`` as the rules deal it for the log start entry
    ``start`` (checked by :func:`blockyard.validate.check_start`): its seed (the
    date's for a daily ruleset) and date, at its start. :class:`NotCounted`
    when ``start`` names another seed or builds a chosen starting position."""
    return _dealt_position(ruleset, dealt_seed(ruleset, start), start)


def _dealt_position(ruleset: Ruleset, seed: int, start: Mapping[str, Any]) -> Game:
    """A new game of ``ruleset`` on ``seed`` at the position the rules deal:
    :class:`NotCounted` when ``start`` builds another one."""
    day = _date(start.get("date"))
    game = Game.start(ruleset, seed=seed, date=day)
    dealt = game.log[0][1]
    if all(start.get(key) == dealt.get(key) for key in POSITION_KEYS):
        return game
    chosen = [key for key in POSITION_KEYS if start.get(key) != dealt.get(key)]
    try:  # the same position spelt another way (an empty board written out) is the deal
        built = Game.start(ruleset, seed=seed, date=day, board=start.get("board"),
                           tray=start.get("tray"), stream=start.get("stream"))
        same = _position(built) == _position(game)
    except ValueError:  # IllegalMove and DataError included: not even a position
        same = False
    if same:
        return game
    words = " and ".join(_POSITION_WORDS[key] for key in chosen)
    raise NotCounted(f"this game starts from a chosen {words}, not the rules' own deal of "
                     f"seed {seed}: games from a chosen start are for practice and never "
                     "count")


def _position(game: Game) -> dict[str, Any]:
    """Everything of a game's state but its log (what decides how it goes on)."""
    snap = game.snapshot()
    snap.pop("log", None)
    return snap


def chosen_position(game: Game) -> str | None:
    """Why ``game`` starts from a position the rules did not deal (a sentence), or
    ``None``: its start entry's ``board``, ``tray`` and ``stream`` are the deal
    of its seed. A player's records count such a game as practice."""
    start = game.log[0][1]
    if all(start.get(key) is None for key in POSITION_KEYS):
        return None
    try:
        _dealt_position(game.ruleset, int(game.seed), start)
    except NotCounted as exc:
        return str(exc)
    return None


def chosen_start(game: Game) -> str | None:
    """Why ``game`` is not the rules' own deal (a sentence), or ``None`` when it is:
    a started game's own log judged as :func:`dealt_game` judges a file's (a
    chosen position, or a daily game on another seed than its date's)."""
    try:
        dealt_seed(game.ruleset, game.log[0][1])
    except NotCounted as exc:
        return str(exc)
    return chosen_position(game)


def moves_allowance(ruleset: Ruleset) -> int:
    """The log entries besides the moves a real game of ``ruleset`` can hold per
    move, and before its first: :data:`ENTRIES_PER_MOVE` (the limited actions
    of a game: its swaps, its continue, its end), and for each action a player
    may take as often as they like (no ``uses_left``; not ``after_end``,
    ``ends_game`` or ``automatic``) :data:`TURNS_PER_MOVE`, times the tray's
    slots for an action aimed at a slot."""
    allowance = ENTRIES_PER_MOVE
    for spec in ruleset.action_specs.values():
        if spec.uses_left is None and not (spec.after_end or spec.ends_game or spec.automatic):
            aimed = spec.target in ("slot", "cell+slot")
            allowance += TURNS_PER_MOVE * (ruleset.tray_slots if aimed else 1)
    return allowance


def work_limit(ruleset: Ruleset, moves: int, clock_us: int) -> int:
    """The most log entries (the start excepted) a real game of ``ruleset`` with
    ``moves`` moves and ``clock_us`` µs of game clock can hold."""
    limit = moves_allowance(ruleset) * (moves + 1) + moves
    if ruleset.mode_record.realtime or ruleset.time_limit is not None:
        limit += ENTRIES_PER_SECOND * (clock_us // 1_000_000 + 1)
    return min(limit, MAX_ENTRIES)


def check_length(ruleset_id: str, log: Sequence[Any]) -> None:
    """:class:`NotCounted` when ``log`` is longer than any game is verified
    (:data:`MAX_ENTRIES` actions): told from its length alone."""
    actions = len(log) - 1
    if actions > MAX_ENTRIES:
        raise NotCounted(f"the log has {actions} actions; a game of {ruleset_id!r} is "
                         f"verified up to {MAX_ENTRIES}")


def check_work(ruleset: Ruleset, log: Sequence[Any]) -> None:
    """:class:`NotCounted` when ``log`` (a game log, its entries not yet checked)
    holds more entries than a real game of ``ruleset`` can need
    (:func:`work_limit`); counted without replaying anything."""
    actions = len(log) - 1
    if actions <= ENTRIES_PER_MOVE:  # within any ruleset's allowance
        return
    check_length(ruleset.id, log)
    move_names = frozenset(ruleset.mode_record.move_actions)
    moves = 0
    clock_us = 0
    for entry in itertools.islice(log, 1, None):
        if type(entry) is list and entry:
            name = entry[0]
            if name in move_names:
                moves += 1
            elif name == "tick" and len(entry) == 2 and type(entry[1]) is int \
                    and 0 < entry[1] <= 86_400_000_000:
                clock_us += entry[1]
    if ruleset.time_limit is not None:  # the clock stops at the limit: no more to claim
        clock_us = min(clock_us, round(ruleset.time_limit * 1_000_000))
    limit = work_limit(ruleset, moves, clock_us)
    if actions > limit:
        clock = f" and {clock_us / 1_000_000:.0f} s of game clock" \
            if ruleset.mode_record.realtime or ruleset.time_limit is not None else ""
        raise NotCounted(f"the log has {actions} actions for {moves} moves{clock}; a real game "
                         f"of {ruleset.id!r} needs at most {limit}")


def actions_json(actions: Sequence[Any]) -> str:
    """A log's actions (the entries after its start) as one compact JSON text:
    lists of scalars, so this is their one canonical form."""
    return _COMPACT.encode(list(actions))  # no cycle in a list of lists of scalars


class WorkMeter:
    """The work bound of :func:`check_work`, kept while a log is replayed: at
    every entry, no more entries so far than a real game with the moves and the
    game clock *played* so far can need (the counts of a log's own entries can
    be claims: a placement that cannot be played, a tick past the time limit).
    ``check(index, game)`` once ``index`` passes :attr:`bound` (one comparison an
    entry until then)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.bound = work_limit(ruleset, 0, 0)
        """Entries the game may have so far before it must be asked again."""

    def check(self, index: int, game: Game) -> int:
        """The new :attr:`bound` for a game ``index`` entries after its start, or
        :class:`NotCounted` when that is more than the game so far can need."""
        if index <= self.bound:
            return self.bound
        self.bound = work_limit(self.ruleset, game.moves, game.elapsed_us)
        self._limit = self.bound
        if index > self._limit:
            clock = f" and {game.elapsed_us / 1_000_000:.0f} s of game clock" \
                if self.ruleset.mode_record.realtime or self.ruleset.time_limit is not None \
                else ""
            raise NotCounted(f"the log has {index} actions by {game.moves} moves{clock}; a "
                             f"real game of {self.ruleset.id!r} needs at most {self._limit}")
        return self.bound


def identity_of(digest: str, start: Mapping[str, Any], actions: Sequence[Any]) -> str:
    """The identity of a game's log as it stands, judged by no engine: the SHA-256
    of the canonical JSON of ``[IDENTITY_FORMAT, digest, start, actions]`` (its
    rule text left out: the digest stands for it). For a stored game whose rules
    this server no longer serves; :func:`game_identity` is the identity of a
    game played."""
    head = {key: value for key, value in start.items() if key != "ruleset"}
    text = canonical_json([IDENTITY_FORMAT, digest, head]) + "\n" + actions_json(actions)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def game_identity(game: Game, actions: str | None = None) -> str:
    """The identity of ``game``: one hex SHA-256 for one game, however a file spelt
    it. What makes a game is its rules (their digest), the dealt start, the moves
    it made (its placements, its dropped stones: the log's move entries as the
    engine wrote them) and where they led (score, moves, lines, the end, the
    board's cells). Whatever else a log holds between two moves (turns of a
    piece, a stone's steps and its clock) counts through where it led: actions
    that leave the game as it was (four turns of a piece, a step left and back)
    make no other game. ``actions``: :func:`actions_json` of ``game.log[1:]``
    when the caller has it already (a log of moves only is then not encoded
    again).

    What is hashed (format :data:`IDENTITY_FORMAT`), in UTF-8, one part a line:
    the :func:`canonical_json` of ``[IDENTITY_FORMAT, rules digest, start entry
    without its rule text]``; the :func:`actions_json` of the move entries;
    ``score,moves,lines,over_reason (canonical JSON),bits`` in decimal; then
    ``B`` and the cells' colour indices as bytes (``J`` and their JSON when one
    is 256 or more)."""
    names = game.mode.move_actions
    after = game.log[1:]
    if actions is not None and names.issuperset(map(_NAME, after)):
        moves_text = actions  # a log of moves only
    else:
        moves_text = actions_json([entry for entry in after if entry[0] in names])
    grid = game.grid
    head = {key: value for key, value in game.log[0][1].items() if key != "ruleset"}
    digest = hashlib.sha256(canonical_json([IDENTITY_FORMAT, game.ruleset.digest, head])
                            .encode("utf-8"))
    digest.update(b"\n")
    digest.update(moves_text.encode("ascii"))
    digest.update(f"\n{game.score},{game.moves},{game.lines_cleared},"
                  f"{canonical_json(game.over_reason)},{grid.bits}\n".encode("ascii"))
    digest.update(colour_bytes(grid.colours))
    return digest.hexdigest()


def colour_bytes(colours: Sequence[int]) -> bytes:
    """The cells' colour indices as hashed: ``B`` and one byte each, or ``J`` and
    their JSON when one is 256 or more."""
    try:
        return b"B" + bytes(colours)
    except ValueError:  # a colour index of 256 or more
        return b"J" + canonical_json(list(colours)).encode("ascii")
