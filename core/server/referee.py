"""The referee of one live table: every rule of a table, and nothing else.

A :class:`Referee` takes the table (its rules, seed, seats, status and round),
the seats' accepted actions with the times they were accepted, and the time of
each new question from the clock it is asked with; it answers with an accepted
:class:`Move` (to be stored and sent) or a :class:`Refusal` (its ``kind`` one of
:data:`REFUSAL_KINDS`), the moves the clock calls for (:meth:`Referee.due`) and,
once every seat is finished, the :class:`Result`. It holds no socket and no
database connection and reads no clock of its own: the server's hub
(:mod:`~blockyard.server.tables`) feeds it, stores what it accepts and delivers
it. So every rule of a table, those of time included, is tested in a test's
process on a :class:`~blockyard.server.clock.FakeClock`.

The rules it keeps (docs/rules.md §7.6 online, docs/online.md "Live tables"):

- only a seated player acts, only at a playing table, only on their own seat's
  game, and each action is judged by the engine, as offline: an action the rules
  offer after the end (eu's continue) is accepted too; a seat is *finished* once
  its game is over with no such action left, or its player (or the server for
  them) ends it with ``["end"]`` (an ``["end"]`` of a game already over finishes
  the seat and changes nothing in the game);
- every seat's game is the rules' own deal of the table's seed (no chosen
  start) and is held to the work a real game can need (:mod:`blockyard.gamecheck`'s
  work bound, the one a submitted game is held to);
- a falling game's clock may not run slow: an action (other than ``tick`` and
  ``end``) is refused (kind ``clock``) while the seat's game clock is more than
  :attr:`Timing.clock_tolerance` seconds behind the table's;
- a falling round ends on the table's clock at its time limit: the seat's game
  is ticked to its limit, as the player's own clock would have;
- a seat whose player takes no action (a falling game's ticks are its clock, not
  the player's) for :attr:`Timing.idle_seconds` is ended, connected or not;
- a seat whose player is away from the table for :attr:`Timing.abandon_seconds`
  is ended (playing) or freed (waiting), counted only while the server's own
  database answers (:class:`Outages`): a player cannot come back while it is away;
- a rematch is asked for by a seated player of a finished table.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import gamecheck, protocol, validate
from ..discovery import load_ruleset
from ..errors import DataError, IllegalMove, PluginError, RulesetError
from ..game import Game
from ..protocol import REFUSAL_KINDS, Refusal, refused

__all__ = ["ABANDON_ENV", "ABANDON_SECONDS", "CLOCK_ENV", "CLOCK_TOLERANCE", "END", "IDLE_ENV",
           "IDLE_SECONDS", "MAX_ACTION_ARGS", "REFUSAL_KINDS", "Move", "Outages", "Referee",
           "Refusal", "Result", "TableLike", "Timing", "check_action", "refused",
           "round_elapsed"]

IDLE_ENV = "BLOCKYARD_SERVER_IDLE_SECONDS"
IDLE_SECONDS = 300.0
"""A seat whose game is not finished and whose player has taken no action this
long (connected or not) is ended."""
ABANDON_ENV = "BLOCKYARD_SERVER_ABANDON_SECONDS"
ABANDON_SECONDS = 120.0
"""A seat whose player has no connection to its table (in any server process) this
long is ended (a playing table) or freed (a waiting one)."""
CLOCK_ENV = "BLOCKYARD_SERVER_CLOCK_TOLERANCE"
CLOCK_TOLERANCE = 5.0
"""Falling games: an action is refused while the seat's game clock (the sum of
its ``tick`` actions) is more than this many seconds behind the time since the
round started on the table's clock: the client's clock may not run slow."""
MAX_ACTION_ARGS = 8


END = ["end"]
"""The action that ends a seat's game (the player's, or the server's for them)."""


@dataclass(frozen=True)
class Timing:
    """A table's rules of time, in seconds (the server reads them once, from its
    environment: :data:`IDLE_ENV`, :data:`ABANDON_ENV`, :data:`CLOCK_ENV`)."""

    idle_seconds: float = IDLE_SECONDS
    abandon_seconds: float = ABANDON_SECONDS
    clock_tolerance: float = CLOCK_TOLERANCE


class TableLike(Protocol):
    """What the referee reads of a table (the store's
    :class:`~blockyard.server.tablestore.Table` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def ruleset_id(self) -> str: ...
    @property
    def seats(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def date(self) -> str | None: ...
    @property
    def started(self) -> _dt.datetime | None: ...
    @property
    def player_ids(self) -> tuple[int | None, ...]: ...
    @property
    def rematch_by(self) -> int | None: ...


@dataclass(frozen=True)
class Move:
    """An accepted action: the ``n``-th of its seat's accepted actions in the
    round (1: the first), with the seat's score and whether its game is over
    after it, and when it was accepted (``at``, UTC; not part of its equality)."""

    seat: int
    n: int
    action: list[Any]
    score: int
    over: bool
    at: _dt.datetime | None = field(default=None, compare=False)

    def message(self) -> protocol.MoveMessage:
        """The ``move`` message of the live protocol."""
        return protocol.move(self.seat, self.action, self.score, self.over)


@dataclass(frozen=True)
class Result:
    """A round's result: every seat's score, and the winner (the seat of the best
    score; ``None`` on a tie for the best)."""

    scores: list[int]
    winner: int | None

    def message(self) -> protocol.ResultMessage:
        """The ``result`` message of the live protocol."""
        return protocol.result(self.scores, self.winner)


def check_action(action: Any, index: int, game: Game) -> str | None:
    """Why ``action`` is not a well-formed log action, or ``None``."""
    if not isinstance(action, list) or not action or not isinstance(action[0], str) \
            or len(action) > MAX_ACTION_ARGS + 1:
        return "action: expected [name, *arguments] as written in game.log"
    try:
        validate.check_entry(action, index, game.mode)
    except (DataError, ValueError) as exc:
        return f"action: {str(exc)[:200]}"
    return None


def _date(text: str | None) -> _dt.date | None:
    return _dt.date.fromisoformat(text) if text else None


def round_elapsed(table: TableLike, now: _dt.datetime) -> float | None:
    """Seconds since the round started at ``now``, for a playing table of a
    falling game (a realtime mode: the ``clock`` message); ``None`` for other
    tables (and for rules this server no longer loads)."""
    if table.status != "playing" or table.started is None:
        return None
    try:
        realtime = load_ruleset(table.ruleset_id).mode_record.realtime
    except (RulesetError, PluginError):
        return None
    return max(0.0, (now - table.started).total_seconds()) if realtime else None


class Referee:
    """The rules of one round of one table. Built from the table and the round's
    stored moves (in the order they were stored), brought up to date with moves
    another process accepted (:meth:`learn`), asked each action with the time it
    came (:meth:`act`). A move it answers is already applied to its seat's game:
    if it cannot be stored, the referee is thrown away and built again from what
    is stored.

    A move it learns is played on its seat's game only when a question needs that
    game (:meth:`game`: the seat acts here, is ended here, or its game is over
    and what it still offers is asked); until then what the move says of its
    seat (its score, whether the game is over, when it was accepted) answers for
    it. Every move it learns was judged by a referee of the same rules before it
    was stored, so a process that only watches a seat (most seats: a player's
    moves are judged where the player is connected) never plays them again."""

    def __init__(self, table: TableLike, moves: Iterable[Move] = (), *,
                 timing: Timing | None = None) -> None:
        self.table = table
        self.timing = timing or Timing()
        self.ruleset = load_ruleset(table.ruleset_id)
        # the rules' own deal of the table's seed (a daily ruleset's on the table's
        # date: a table deals a seed of its own, every seat the same)
        self._games = [Game.start(self.ruleset, seed=table.seed, date=_date(table.date))
                       for _ in range(table.seats)]
        """Per seat: its game with the moves played on it so far (:meth:`game`)."""
        self._unplayed: list[list[Move]] = [[] for _ in range(table.seats)]
        """Per seat: the moves learned and not yet played on its game, in order."""
        self.meters = [gamecheck.WorkMeter(self.ruleset) for _ in range(table.seats)]
        self.counts = [0] * table.seats
        """Per seat: how many of its moves are known (its moves 1 … count)."""
        self.ended: set[int] = set()
        """The seats ended by ``["end"]`` (the player's, or the server's for them)."""
        self.acted: list[_dt.datetime | None] = [None] * table.seats
        """Per seat: when its player last acted (a tick is the clock, not an act)."""
        self.idled: set[int] = set()
        """The seats :meth:`due` ended for their player's idling, their game not over
        (they left the round rather than finished it: ranked last)."""
        self._due: tuple[_dt.datetime | None, TableLike, int, _dt.datetime | None] | None \
            = None
        """:meth:`next_due`'s last answer, with what it was asked on: ``back``, the
        table and how many moves it had taken (what it depends on changes only with
        a move or the table; it is asked at every action)."""
        for move in moves:
            if not self.learn(move):
                raise ValueError(f"table {table.id}: seat {move.seat}'s move {move.n} "
                                 "does not follow the ones before it")

    # -- what it says -----------------------------------------------------------------

    @property
    def inline(self) -> bool:
        """Whether the table's rules are Blockyard's own plugins only: engine code,
        held to its speed by its tests (an action costs microseconds), asked
        where the action arrives. Rules with a plugin of another package are asked
        in a worker thread, where the hook watchdog stops a slow hook without
        holding every other table meanwhile."""
        return not self.ruleset.hooks.timed

    @property
    def realtime(self) -> bool:
        """Whether the table's games run on a clock of their own (falling games)."""
        return bool(self.ruleset.mode_record.realtime)

    def seat_of(self, account_id: int | None) -> int | None:
        """The seat ``account_id`` holds, or ``None`` (a spectator)."""
        if account_id is None:
            return None
        for seat, holder in enumerate(self.table.player_ids):
            if holder == account_id:
                return seat
        return None

    def game(self, seat: int) -> Game:
        """The seat's game with every move known of it played (those learned and
        not played yet are played now)."""
        game, unplayed = self._games[seat], self._unplayed[seat]
        while unplayed:
            move = unplayed.pop(0)
            self._play(game, move.action)
        return game

    @property
    def games(self) -> list[Game]:
        """Every seat's game with every move known of it played."""
        return [self.game(seat) for seat in range(self.table.seats)]

    def _over(self, seat: int) -> bool:
        """Whether the seat's game is over (as its last move known says)."""
        unplayed = self._unplayed[seat]
        return unplayed[-1].over if unplayed else self._games[seat].over

    def _score(self, seat: int) -> int:
        """The seat's score (as its last move known says)."""
        unplayed = self._unplayed[seat]
        return unplayed[-1].score if unplayed else int(self._games[seat].score)

    def finished(self, seat: int) -> bool:
        """Whether the seat is done: its game over with no action offered after the
        end left, or ended (``["end"]``)."""
        if seat in self.ended:
            return True
        if not self._over(seat):
            return False
        return not any(action.after_end for action in self.game(seat).actions())

    def result(self) -> Result | None:
        """The round's result once every seat is finished, else ``None``."""
        if not all(self.finished(seat) for seat in range(self.table.seats)):
            return None
        scores = [self._score(seat) for seat in range(self.table.seats)]
        best = max(scores)
        return Result(scores, scores.index(best) if scores.count(best) == 1 else None)

    def elapsed(self, now: _dt.datetime) -> float | None:
        """Seconds since the round started on the table's clock, for a playing
        table of a falling game (the ``clock`` message); ``None`` otherwise (as
        :func:`round_elapsed`, with the rules loaded already)."""
        table = self.table
        if not self.realtime or table.status != "playing" or table.started is None:
            return None
        return max(0.0, (now - table.started).total_seconds())

    def clock_behind(self, seat: int, now: _dt.datetime) -> float:
        """How many seconds the seat's game clock is behind the table's (0 when it
        is not behind, and for games without a clock of their own)."""
        elapsed = self.elapsed(now)
        if elapsed is None:
            return 0.0
        return max(0.0, elapsed - self.game(seat).elapsed_us / 1_000_000)

    # -- the moves of the round ---------------------------------------------------------

    def learn(self, move: Move) -> bool:
        """Take a move stored already (by this process or another; played on its
        seat's game when that game is next asked for: :meth:`game`): ``False``
        (nothing taken) when it is not the seat's next one."""
        if not 0 <= move.seat < self.table.seats or move.n != self.counts[move.seat] + 1:
            return False
        self._unplayed[move.seat].append(move)
        self._count(move.seat, move.action, move.at)
        return True

    @staticmethod
    def _play(game: Game, action: Sequence[Any]) -> None:
        if list(action) != END or not game.over:  # an end of a game over changes nothing
            game.apply(action)

    def _count(self, seat: int, action: Sequence[Any], at: _dt.datetime | None) -> None:
        """What a move played on the seat says besides its game: counted, the seat
        ended by ``["end"]``, when its player last acted."""
        if action[0] == "end":
            self.ended.add(seat)
        self.counts[seat] += 1
        if action[0] != "tick" and at is not None:
            self.acted[seat] = at

    def _accept(self, seat: int, action: list[Any], now: _dt.datetime) -> Move:
        game = self.game(seat)
        self._play(game, action)
        self._count(seat, action, now)
        return Move(seat, self.counts[seat], action, int(game.score), bool(game.over), now)

    def act(self, seat: int | None, action: Any, now: _dt.datetime) -> Move | Refusal:
        """Judge ``action`` of the player at ``seat`` (``None``: a spectator) at
        ``now``: the move, applied to the seat's game, or why not."""
        table = self.table
        if seat is None:
            return Refusal("spectators cannot act: take a seat to play", "spectator")
        if table.status != "playing":
            return Refusal(f"the table is {table.status}, not playing", "not-now")
        game = self.game(seat)
        if self.finished(seat):
            return Refusal(f"your game is over ({game.over_reason})", "game-over")
        problem = check_action(action, len(game.log), game)
        if problem:
            return Refusal(problem, "illegal")
        if list(action) == END:
            return self._accept(seat, list(action), now)  # ending needs no clock
        if game.over and action[0] not in {a.name for a in game.actions() if a.after_end}:
            return Refusal(f"your game is over ({game.over_reason}): only "
                           + ", ".join(a.name for a in game.actions() if a.after_end)
                           + " or end", "game-over")
        behind = self.clock_behind(seat, now)
        if action[0] != "tick" and behind > self.timing.clock_tolerance:
            return Refusal(f"your game clock is {behind:.1f} s behind the table's (at most "
                           f"{self.timing.clock_tolerance:g} s allowed): send the ticks "
                           "first", "clock")
        try:
            self.meters[seat].check(len(game.log), game)
        except gamecheck.NotCounted as exc:
            return Refusal(str(exc)[:300], "illegal")
        before = len(game.log)
        try:
            return self._accept(seat, list(action), now)
        except (IllegalMove, DataError, PluginError, ValueError, TypeError) as exc:
            if len(game.log) != before:  # pragma: no cover - the engine undoes its own
                raise
            return Refusal(str(exc)[:300], "illegal")

    def end_seat(self, seat: int, now: _dt.datetime) -> Move | None:
        """End the seat's game for its player (who left, or is away or idle past
        the limit): the ``["end"]`` move, or ``None`` when the seat is finished
        already or the table is not playing."""
        if self.table.status != "playing" or self.finished(seat):
            return None
        return self._accept(seat, list(END), now)

    # -- the clock ------------------------------------------------------------------------

    def _round_ends(self) -> _dt.datetime | None:
        limit = self.ruleset.time_limit
        if not self.realtime or limit is None or self.table.started is None:
            return None
        return self.table.started + _dt.timedelta(seconds=limit)

    def _idle_from(self, seat: int, back: _dt.datetime | None) -> _dt.datetime | None:
        since = self.acted[seat] or self.table.started
        return max(since, back) if since is not None and back is not None else since

    def next_due(self, back: _dt.datetime | None = None) -> _dt.datetime | None:
        """The next moment the clock calls for a move of its own (:meth:`due`):
        a falling round's end, or a seat going idle; ``None`` for none. ``back``:
        when the server's database last came back after being away (no one is
        idle for the time nobody could act)."""
        kept, taken = self._due, sum(self.counts)
        if kept is not None and kept[0] == back and kept[1] is self.table \
                and kept[2] == taken:
            return kept[3]
        due = self._next_due(back)
        self._due = (back, self.table, taken, due)
        return due

    def _next_due(self, back: _dt.datetime | None) -> _dt.datetime | None:
        if self.table.status != "playing":
            return None
        moments = []
        ends = self._round_ends()
        idle = _dt.timedelta(seconds=self.timing.idle_seconds)
        for seat in range(self.table.seats):
            if self.finished(seat):
                continue
            if ends is not None and not self._over(seat):
                moments.append(ends)
            since = self._idle_from(seat, back)
            if since is not None:
                moments.append(since + idle)
        return min(moments) if moments else None

    def due(self, now: _dt.datetime, back: _dt.datetime | None = None) -> list[Move]:
        """The moves the clock calls for at ``now``, applied: each falling game
        still running at its round's end ticked to its time limit (the table's
        clock ends the round), each seat idle for :attr:`Timing.idle_seconds`
        ended (counted from ``back`` at the earliest, as :meth:`next_due`)."""
        if self.table.status != "playing":
            return []
        out: list[Move] = []
        ends = self._round_ends()
        limit = self.ruleset.time_limit
        idle = _dt.timedelta(seconds=self.timing.idle_seconds)
        for seat in range(self.table.seats):
            if self.finished(seat):
                continue
            game = self.game(seat)
            if ends is not None and limit is not None and now >= ends and not game.over:
                left = round(limit * 1_000_000) - game.elapsed_us
                if left > 0:
                    out.append(self._accept(seat, ["tick", left], now))
            since = self._idle_from(seat, back)
            if not self.finished(seat) and since is not None and now - since >= idle:
                if not game.over:
                    self.idled.add(seat)
                out.append(self._accept(seat, list(END), now))
            elif not self.finished(seat) and game.over and ends is not None and now >= ends:
                out.append(self._accept(seat, list(END), now))  # the round is over
        return out

    def rematch(self, seat: int | None) -> Refusal | None:
        """Why the player at ``seat`` may not ask for a rematch now, or ``None``."""
        if seat is None:
            return Refusal("only a player at the table can ask for a rematch", "spectator")
        if self.table.status != "finished":
            return Refusal(f"the table is {self.table.status}: a rematch starts only when "
                           "every game is over", "not-now")
        return None


class Outages:
    """When the server's own database was away, as one process saw it: the time
    a player is away from a table counts against them only while the database
    answers (a player cannot come back while it is away). Told by the server of
    every failed and answered call that says so (:meth:`failed`, :meth:`answered`)."""

    def __init__(self) -> None:
        self.away_since: _dt.datetime | None = None
        self.back_at: _dt.datetime | None = None

    def failed(self, now: _dt.datetime) -> None:
        """The database did not answer at ``now``."""
        if self.away_since is None:
            self.away_since = now

    def answered(self, now: _dt.datetime) -> None:
        """The database answered at ``now``."""
        if self.away_since is not None:
            self.away_since = None
            self.back_at = now

    def abandon_cutoff(self, now: _dt.datetime, abandon_seconds: float
                       ) -> _dt.datetime | None:
        """The moment before which a seat's last presence makes it abandoned at
        ``now``, or ``None`` when no seat can be: the database is away, or came
        back less than ``abandon_seconds`` ago (its players are given the whole
        time from then on to come back)."""
        if self.away_since is not None:
            return None
        cutoff = now - _dt.timedelta(seconds=abandon_seconds)
        if self.back_at is not None and self.back_at > cutoff:
            return None
        return cutoff
