"""One live table as a client follows it, without a window: the seats, the
round, a game per seat rebuilt from the table's seed and every accepted move,
the scores, the result, the connection's state, and the table to reopen after
the window closed mid-round.

:class:`TableSession` reads the messages of a table's live channel
(:mod:`blockyard.protocol`, through a :class:`blockyard.online.LiveTable` or
anything with its methods, :class:`TableChannel`) when polled
(:meth:`TableSession.update`, once a frame in the window) and keeps what they
say as facts: names, numbers, kinds. It never words anything for a player —
the window says "bob left the table." from :attr:`TableSession.left`, and a
refusal from its ``kind`` — so it holds no language and no screen.

Who is there comes from the server too: each seat's presence
(:attr:`TableSession.presence`), whom the table waits for
(:attr:`TableSession.waiting_for`), the seats of the result that left rather
than finished (:attr:`TableSession.left_seats`), and the quick phrases heard
(:class:`Heard`, taken by the window with :meth:`TableSession.take_heard`, as
ids it words itself). :meth:`TableSession.say` and :meth:`TableSession.window`
go out through the channel; :meth:`TableSession.mute` through the account's
client.

The server is the judge: a move the server accepted is applied to the seat's
game here (:func:`blockyard.online.mirror_move`); a mirror that goes another
way (other plugins or rules here) is noted once per round in
:attr:`TableSession.divergence` and the server's score shown regardless. After
a reconnection the client's channel drops the moves it had already delivered,
so each accepted move arrives once.

Time comes from ``clock`` (``time.monotonic`` by default; tests pass a fake):
the round clock of a falling table is the server's elapsed seconds plus the
time since they were said.

:func:`remember_table`, :func:`remembered_table` and :func:`forget_table`
keep the table a player sits at in the configuration folder, so a window
closed mid-round reopens on it at the next start.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import tomllib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from . import paths, protocol
from .errors import IllegalMove, PluginError
from .falling import FallingGame
from .files import write_atomically
from .game import Game, new_game
from .online import (
    OnlineError,
    Pending,
    PlayerRating,
    RatingChange,
    mirror_divergence,
    mirror_move,
    parse_table_code,
    rating_changes,
    run_in_background,
    seat_ratings,
)
from .provenance import Mismatch, Provenance, of_ruleset
from .records import TableResult

LOG = logging.getLogger("blockyard.online")

MAX_INVITED = 32
"""The most invited names a ``table`` message is taken with."""
MAX_NAME = 40
"""The longest invited name kept (longer ones are cut)."""
LONGEST_ROUND = 86_400.0
"""A ``clock`` message's elapsed seconds above this (or below 0) are not taken."""

Connection = Literal["connecting", "open", "lost", "closed"]
CONNECTION_STATES: dict[str, Connection] = {
    "connecting": "connecting", "open": "open", "back": "open", "lost": "lost",
    "closed": "closed"}
"""A ``connection`` message's state → the session's :attr:`TableSession.connection`
(``back``: open again after a loss)."""


class TableChannel(Protocol):
    """What a session uses of a table's live channel
    (:class:`blockyard.online.LiveTable` has it all)."""

    @property
    def table_id(self) -> int: ...

    def poll(self) -> list[dict[str, Any]]: ...

    def act(self, action: Sequence[Any]) -> bool: ...

    def leave(self) -> bool: ...

    def rematch(self) -> bool: ...

    def say(self, phrase: str) -> bool: ...

    def window(self, state: str) -> bool: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Refused:
    """The table refused this client's last message: ``kind`` (one of
    :data:`blockyard.protocol.REFUSAL_KINDS`, or one a later server knows) and
    the server's ``reason`` in English."""

    kind: str
    reason: str


@dataclass(frozen=True, slots=True)
class Divergence:
    """Seat ``seat``'s game here went another way than the server's: ``how``, in
    English (for the log)."""

    seat: int
    how: str


@dataclass(frozen=True, slots=True)
class Heard:
    """A quick phrase another player said at the table: their ``seat`` and
    ``name``, and the ``phrase`` id (one of :data:`blockyard.protocol.PHRASES`;
    the window says it in its own language)."""

    seat: int
    name: str
    phrase: str


MAX_HEARD = 20
"""The most phrases heard kept for the window to take (the oldest dropped)."""


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """A seat as the waiting screen lists it: ``"player"`` (``name`` sits there),
    ``"invited"`` (free, ``name`` is invited and has not taken it) or ``"free"``
    (``name`` empty)."""

    kind: Literal["player", "invited", "free"]
    name: str = ""


class TableSession:
    """One table as a client follows it: ``seats`` (names, ``None`` free),
    ``status``, a game per seat once dealt (``games``), ``scores``, ``over``,
    the ``result`` and the last refusal. :attr:`me` is the player's seat
    (``None``: watching).

    ``check(here, ruleset_id)`` compares what this installation plays a ruleset
    with to what the server does (:meth:`blockyard.online.Client.compare`); it
    runs in the background once per ruleset the table deals, a difference kept
    in :attr:`differs`."""

    def __init__(self, live: TableChannel, name: str, code: str = "", server: str = "",
                 check: Callable[[Provenance, str], Mismatch | None] | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 mute: Callable[[str], None] | None = None,
                 unmute: Callable[[str], None] | None = None,
                 mutes: Callable[[], list[str]] | None = None) -> None:
        self.live = live
        # the account's calls (Client.mute, unmute, mutes), if signed in
        self.muter, self.unmuter = mute, unmute
        self.muting: Pending[list[str]] | None = run_in_background(mutes) if mutes else None
        """The account's mutes, asked of the server once (merged into :attr:`muted`)."""
        self.name = name
        self.code = code  # the table's code as players share it (ID-CODE), if known
        self.server = server  # the server's address as the player set it
        self.check = check
        self.now = clock
        self.checked = ""  # the ruleset id compared (or being compared)
        self.checking: Pending[Mismatch | None] | None = None
        self.differs: Mismatch | None = None
        """How this installation's plugins or rules of the table's ruleset differ
        from the server's; ``None`` when they agree (or it is not known)."""
        self.remembered = False  # kept for reopening (see remember_table)
        self.recorded_round: Any = None  # the round whose result is in the records
        self.ruleset_id = ""
        self.seed: int | None = None
        self.round: Any = None
        self.seats: list[str | None] = []
        self.status = "waiting"
        self.games: list[Game] = []
        self.over: list[bool] = []
        self.scores: list[int] = []
        self.result: dict[str, Any] | None = None
        self.refusal: Refused | None = None
        """The table's answer to this client's last refused message, until a move
        is accepted (the screen says it, then clears it)."""
        self.connection: Connection = "connecting"
        self.lost_kind = ""  # while lost: online.RESTARTING, or another kind of drop
        self.closed_reason = ""
        self.closed_kind = ""  # what ended the connection for good (online.ERROR_KINDS)
        self.unplayable = ""
        """Why the table's rules cannot be played here (the error of loading
        them, one line), or ""."""
        self.my_move: Callable[[list[Any]], None] | None = None  # the playing screen's
        self.my_refusal: Callable[[], None] | None = None  # the playing screen's
        self.clock: tuple[float, float] | None = None
        """A falling table's round clock: (seconds since the round started, as the
        server said; :attr:`now` then)."""
        self.rematch_by: int | None = None
        """The seat whose rematch dealt the current round (``None``: nobody's)."""
        self.invited: list[str] = []
        """The players invited to the table who have not answered (or taken a seat)."""
        self.players: list[str | None] = []
        """Who played each seat in the current round: a player who leaves after the
        result keeps their name in it (``seats`` then says the seat is free)."""
        self.left: str | None = None
        """Who last left the table (not this player), until a seat is taken again."""
        self.divergence: Divergence | None = None
        """The first game mirrored here that no longer follows the server's (its
        plugins or rules differ), for the rest of the round."""
        self.rated = False
        """Whether the table's rounds change the seats' ratings (a friendly table's
        do not)."""
        self.ratings: list[PlayerRating | None] = []
        """Each seat's rating in the table's ruleset, as the server last said
        (``None``: a free seat; empty from a server before ratings)."""
        self.changes: list[RatingChange] | None = None
        """Each seat's rating change in the round's result (``None``: no result
        yet, or a friendly table)."""
        self.presence: list[str | None] = []
        """Who is there, per seat, as the server last said (one of
        :data:`blockyard.protocol.PRESENCE_STATES`; ``None``: a free seat, or not
        said: a server before it)."""
        self.waiting_for: list[int] = []
        """The seats whose game is not finished at a playing table, as the server
        last said (whom a seat that finished waits for)."""
        self.left_seats: list[int] = []
        """The seats of the round's result whose player left rather than finished
        (empty before the result)."""
        self.aborted = False
        """Whether the round's result says a rated round was aborted (a seat made
        fewer than 2 actions of its own: nobody was rated)."""
        self.pair_limit: tuple[int, list[tuple[int, int]]] | None = None
        """Why the current round of a rated table is friendly, as the server said
        it: the rated rounds two players may play together a day, and the pairs
        of seats that played them (``None``: not said)."""
        self.heard: deque[Heard] = deque(maxlen=MAX_HEARD)
        """The quick phrases heard and not yet taken by the window
        (:meth:`take_heard`)."""
        self.muted: set[str] = set()
        """The players muted (their phrases no longer kept here; the server stops
        sending them once :meth:`mute` reached it): muted from this table, and the
        account's mutes as the server said them at the start."""

    @property
    def table_id(self) -> int:
        """The table's number on its server."""
        return int(self.live.table_id)

    @property
    def me(self) -> int | None:
        """The player's seat (``None``: watching)."""
        return self.seats.index(self.name) if self.name in self.seats else None

    def table_result(self) -> TableResult | None:
        """The round's result as the records keep it (``None`` before the result, or
        when the server is not known)."""
        result = self.result
        if result is None or not isinstance(self.round, int) or not self.server:
            return None
        scores = result.get("scores")
        winner = result.get("winner")
        if not isinstance(scores, list) or len(scores) != len(self.seats) \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in scores):
            return None
        return TableResult(self.server, self.table_id, self.round, self.ruleset_id,
                           tuple(self.player_name(i) for i in range(len(self.seats))),
                           tuple(scores),
                           winner if isinstance(winner, int) else None, self.me)

    def update(self) -> bool:
        """Take what arrived (and the rules' comparison, once done); whether
        anything changed."""
        messages = self.live.poll()
        for message in messages:
            self.take(message)
        muting = self.muting
        if muting is not None and muting.done:
            self.muting = None
            for name in muting.result or ():  # muted from another table, or before
                self._mute_here(name)
        checking = self.checking
        if checking is None or not checking.done:
            return bool(messages)
        self.checking = None
        if checking.failure is not None:  # not compared: the table says the rest
            LOG.info("online: table %s: rules not compared: %s", self.table_id,
                     checking.error)
        if checking.result is not None:
            LOG.warning("online: table %s: %s", self.table_id,
                        checking.result.sentence("this installation has", "the server has"))
            self.differs = checking.result
            return True
        return bool(messages)

    def take(self, message: dict[str, Any]) -> None:
        """Take one message of the table's channel (or of the client's connection:
        ``{"type": "connection", "state": ...}``); what is not understood is left."""
        kind = message.get("type")
        if kind == "table":
            self._take_table(message)
        elif kind == "move":
            self._take_move(message)
        elif kind == "refused":
            self.refusal = Refused(str(message.get("kind", "")), str(message.get("reason", "")))
            LOG.warning("online: refused by the table: %s (kind %s)", self.refusal.reason,
                        self.refusal.kind)
            # too many quick phrases: no action of the game was refused
            if self.my_refusal is not None and self.refusal.kind != "too-many":
                self.my_refusal()
        elif kind == "result":
            self.result = message
            self.status = "finished"
            left = message.get("left")
            self.left_seats = sorted({s for s in left if _seat_number(s, len(self.seats))}) \
                if isinstance(left, list) else []
            self.aborted = message.get("aborted") is True
            try:
                self.changes = rating_changes(message)
            except OnlineError:  # malformed: the result without its changes
                self.changes = None
        elif kind == "clock":
            elapsed = message.get("elapsed")
            if isinstance(elapsed, int | float) and not isinstance(elapsed, bool) \
                    and 0 <= elapsed <= LONGEST_ROUND:
                self.clock = (float(elapsed), self.now())
        elif kind == "connection":
            self._take_connection(message)
        elif kind == "seats":
            self._take_seats(message)
        elif kind == "said":
            self._take_said(message)

    def _take_seats(self, message: dict[str, Any]) -> None:
        """Who is there (a ``table`` or ``seats`` message): each seat's presence and
        whom the table waits for; a seat's player who comes to have left is
        :attr:`left`."""
        count = len(self.seats)
        states = message.get("presence")
        if isinstance(states, list):
            before = self.presence
            self.presence = [s if s in protocol.PRESENCE_STATES else None
                             for s in states[:count]]
            self.presence += [None] * (count - len(self.presence))
            for seat, state in enumerate(self.presence):
                was = before[seat] if seat < len(before) else None
                name = self.player_name(seat)
                if state == "left" and was != "left" and name and name != self.name:
                    self.left = name
        waiting = message.get("waiting_for")
        if isinstance(waiting, list):
            self.waiting_for = sorted({s for s in waiting if _seat_number(s, count)})

    def _take_said(self, message: dict[str, Any]) -> None:
        seat, name, phrase = message.get("seat"), message.get("name"), message.get("phrase")
        if not _seat_number(seat, len(self.seats)) or not isinstance(name, str) \
                or phrase not in protocol.PHRASES:
            return  # a phrase this client has no words for is not kept
        if name in self.muted:
            return  # sent before the server knew of the mute
        assert isinstance(seat, int) and isinstance(phrase, str)
        self.heard.append(Heard(seat, name[:MAX_NAME], phrase))

    def take_heard(self) -> list[Heard]:
        """The phrases heard since the last call, oldest first (then forgotten)."""
        out = list(self.heard)
        self.heard.clear()
        return out

    def seat_presence(self, seat: int) -> str | None:
        """Who is there at ``seat`` as the server said (``None``: a free seat, or
        not said)."""
        return self.presence[seat] if 0 <= seat < len(self.presence) else None

    def finished(self, seat: int) -> bool:
        """Whether ``seat``'s game is finished as the server says: over, and not
        among the seats the table waits for (a game over may still be offered an
        action after the end, eu's continue, until its player ends it)."""
        over = 0 <= seat < len(self.over) and bool(self.over[seat])
        return over and (not self.presence or seat not in self.waiting_for)

    def waiting_names(self) -> list[str]:
        """The names of the players the table waits for (their game not finished),
        but this player's."""
        names = (self.player_name(seat) for seat in self.waiting_for if seat != self.me)
        return [name for name in names if name]

    def say(self, phrase: str) -> bool:
        """Say a quick phrase (one of :data:`blockyard.protocol.PHRASES`) to the
        table; False when not connected now (nothing is sent) or watching (a
        spectator may not speak)."""
        if self.me is None:
            return False
        return bool(self.live.say(phrase))

    def window(self, state: str) -> bool:
        """Tell the table the window went to the background (``"away"``) or came
        back (``"active"``); False when not connected now."""
        return bool(self.live.window(state))

    def mute(self, name: str) -> Pending[None] | None:
        """Mute ``name`` from this table: their phrases are no longer kept here at
        once, and the account's mute is asked of the server in the background (its
        call, to poll; ``None`` without an account to mute with)."""
        self._mute_here(name)
        muter = self.muter
        if muter is None:
            return None
        return run_in_background(lambda: muter(name))

    def unmute(self, name: str) -> Pending[None] | None:
        """Hear ``name``'s phrases again: kept here from now on, and the account's
        mute dropped on the server in the background (its call; ``None`` without an
        account)."""
        self.muted.discard(name)
        unmuter = self.unmuter
        if unmuter is None:
            return None
        return run_in_background(lambda: unmuter(name))

    def _mute_here(self, name: str) -> None:
        self.muted.add(name)
        self.heard = deque((h for h in self.heard if h.name != name), maxlen=MAX_HEARD)

    def _take_table(self, message: dict[str, Any]) -> None:
        self.connection = "open"
        seats = message.get("seats")
        if isinstance(seats, list):
            before = self.seats
            self.seats = [s if isinstance(s, str) else None for s in seats]
            self._seats_changed(before)
        self.status = str(message.get("status", self.status))
        self.ruleset_id = str(message.get("ruleset_id", self.ruleset_id))
        self.rated = message.get("rated") is True
        self.pair_limit = _pair_limit(message.get("pair_limit"), len(self.seats))
        if self.status != "finished":
            self.aborted = False
        try:
            self.ratings = seat_ratings(message)
        except OnlineError:  # malformed: shown without ratings
            self.ratings = []
        by = message.get("rematch_by")
        self.rematch_by = by if isinstance(by, int) and not isinstance(by, bool) \
            and 0 <= by < len(self.seats) else None
        self._take_seats(message)
        invited = message.get("invited")
        self.invited = [n[:MAX_NAME] for n in invited if isinstance(n, str)][:MAX_INVITED] \
            if isinstance(invited, list) else []
        seed = message.get("seed")
        if message.get("round") != self.round or (self.games == [] and seed is not None):
            self.round = message.get("round")
            self.clock = None
            self.result = None
            self.changes = None
            self.left_seats = []
            self.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
            self.players = list(self.seats)
            self.divergence = None
            self._deal()

    def _take_move(self, message: dict[str, Any]) -> None:
        seat = message.get("seat")
        action = message.get("action")
        if not isinstance(seat, int) or isinstance(seat, bool) \
                or not 0 <= seat < len(self.games) or not isinstance(action, list):
            return
        mirrored = True  # whether the seat's game here has every accepted move
        if seat == self.me and self.my_move is not None:
            self.my_move(action)
            # a falling game runs ahead here: the server's moves are the ones it sent
            mirrored = not isinstance(self.games[seat], FallingGame)
        else:
            # the server's game is the truth: its score is kept whatever happens here
            try:
                mirror_move(self.games[seat], action)
            except (ValueError, IllegalMove, PluginError) as exc:
                self._diverged(seat, f"the server accepted {action!r}, refused here: {exc}")
                mirrored = False
        if mirrored:
            found = mirror_divergence(self.games[seat], message.get("score"),
                                      message.get("over"))
            if found is not None:
                self._diverged(seat, found)
        score = message.get("score")
        if isinstance(score, int) and not isinstance(score, bool):
            self.scores[seat] = score
        self.over[seat] = bool(message.get("over"))
        self.refusal = None

    def _take_connection(self, message: dict[str, Any]) -> None:
        state = str(message.get("state"))
        self.connection = CONNECTION_STATES.get(state, self.connection)
        if state == "lost":
            self.lost_kind = str(message.get("kind", ""))
        if state == "closed":
            self.closed_reason = str(message.get("reason", ""))
            self.closed_kind = str(message.get("kind", ""))
            if self.closed_reason:
                LOG.warning("online: table %s: %s", self.table_id, self.closed_reason)

    def _diverged(self, seat: int, how: str) -> None:
        """The seat's game here went another way than the server's (``how``): kept
        (and logged) once per round, never silently followed (the server's scores
        count)."""
        if self.divergence is None:
            LOG.warning("online: table %s, seat %s: the game here differs from the "
                        "server's: %s", self.table_id, seat, how)
            self.divergence = Divergence(seat, how)

    def _seats_changed(self, before: list[str | None]) -> None:
        """Keep the round's players and who left (the seats were ``before``)."""
        if len(self.players) != len(self.seats):
            self.players = list(self.seats)
        for i, (was, now) in enumerate(zip(before, self.seats, strict=False)):
            if now:
                self.players[i] = now
                if not was:
                    self.left = None  # a seat taken: the table goes on
            elif was and was != self.name:
                self.left = was

    def player_name(self, seat: int) -> str | None:
        """The name of who plays (or played, in this round) ``seat``; ``None`` for a
        seat nobody took."""
        if not 0 <= seat < len(self.seats):
            return None
        now = self.seats[seat]
        return now or (self.players[seat] if seat < len(self.players) else None)

    def friendly_with(self) -> tuple[int, str] | None:
        """At a rated table whose current round is friendly because this player
        played the day's rated rounds with another seat's player: that limit and
        the other player's name (the first such; ``None`` otherwise)."""
        me, limit = self.me, self.pair_limit
        if me is None or limit is None or self.rated:
            return None
        for a, b in limit[1]:
            if me in (a, b):
                name = self.player_name(b if a == me else a)
                if name:
                    return limit[0], name
        return None

    def seat_rating(self, seat: int) -> PlayerRating | None:
        """The rating of who holds ``seat``, as the server said (``None``: a free
        seat, or a server before ratings)."""
        return self.ratings[seat] if 0 <= seat < len(self.ratings) else None

    def _deal(self) -> None:
        if self.seed is None or not self.ruleset_id:
            self.games = []
            return
        try:
            self.games = [new_game(self.ruleset_id, seed=self.seed) for _ in self.seats]
        except Exception as exc:  # not installed here, or its plugin fails: said
            self.games = []
            self.unplayable = str(exc).splitlines()[0][:200] if str(exc) \
                else type(exc).__name__
            return
        self.unplayable = ""
        check = self.check
        if check is not None and self.checked != self.ruleset_id and self.games:
            ruleset_id = self.checked = self.ruleset_id
            here = of_ruleset(self.games[0].ruleset)  # read here, compared in the background
            self.differs = None
            self.checking = run_in_background(lambda: check(here, ruleset_id))
        self.over = [False] * len(self.seats)
        self.scores = [0] * len(self.seats)

    def round_elapsed(self) -> float | None:
        """Seconds since the current round of a realtime table (a falling game)
        started, by the server's last ``clock`` message and :attr:`now` since
        (``None`` before one came, and for other games)."""
        if self.clock is None:
            return None
        elapsed, at = self.clock
        return elapsed + (self.now() - at)

    def rank(self, seat: int) -> int:
        """``seat``'s place at the table by the scores now (1: the best; a tie shares
        its place)."""
        scores = self.scores
        if not 0 <= seat < len(scores):
            return 0
        return 1 + sum(1 for score in scores if score > scores[seat])

    def seat_holders(self) -> list[SeatHolder]:
        """Each seat as the waiting screen lists it: its player; a free seat an
        invited player has not taken yet (the invited in the order they were
        invited); or a free seat."""
        waiting = iter(self.invited)
        holders = []
        for seat in self.seats:
            if seat:
                holders.append(SeatHolder("player", seat))
                continue
            guest = next(waiting, None)
            holders.append(SeatHolder("invited", guest) if guest else SeatHolder("free"))
        return holders

    def invited_beyond_seats(self) -> list[str]:
        """The invited players beyond the free seats (the first to come are seated)."""
        free = sum(1 for seat in self.seats if not seat)
        return self.invited[free:]

    def leave(self) -> None:
        """Free the seat (a running game of it ends) and close the connection."""
        forget_table()
        self.live.leave()
        self.close()

    def close(self) -> None:
        """Close the connection (the seat stays taken until the server's timeout)."""
        self.live.close()


def _pair_limit(said: Any, seats: int) -> tuple[int, list[tuple[int, int]]] | None:
    """The ``table`` message's ``pair_limit`` as :attr:`TableSession.pair_limit`
    keeps it (``None``: not said, or malformed)."""
    if not isinstance(said, dict):
        return None
    rounds, pairs = said.get("rounds"), said.get("pairs")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not isinstance(pairs, list):
        return None
    found = [(int(p[0]), int(p[1])) for p in pairs
             if isinstance(p, list) and len(p) == 2
             and all(_seat_number(v, seats) for v in p)]
    return rounds, found


def _seat_number(value: object, count: int) -> bool:
    """Whether ``value`` is a seat's number at a table of ``count`` seats."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count


REOPEN_FILE = "online-table.toml"
"""The table a window was playing at (in the configuration folder): reopened at
the next start."""


def reopen_path() -> Path:
    """Where the table to reopen is kept."""
    return paths.config_dir() / REOPEN_FILE


def remember_table(table: TableSession) -> bool:
    """Keep the table the player is playing at (its server, the player's name and
    the table's code), so a window closed mid-round reopens on it; whether it was
    written (a folder that cannot be written: the round goes on, not kept)."""
    import tomli_w

    try:
        path = reopen_path()
        write_atomically(path, tomli_w.dumps({"server": table.server, "name": table.name,
                                              "table": table.code or str(table.table_id)}))
        os.chmod(path, 0o600)  # a private table's code is in it
    except OSError:
        return False
    return True


def forget_table() -> None:
    """Nothing to reopen any more (the table was left, or its round finished)."""
    with contextlib.suppress(OSError):
        reopen_path().unlink(missing_ok=True)


def remembered_table(server: str, name: str) -> str | None:
    """The code (``ID`` or ``ID-CODE``) of the table to reopen for this server and
    account, or ``None`` (none kept, another account's, or a damaged file: then
    it is dropped)."""
    try:
        data = tomllib.loads(reopen_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        forget_table()
        return None
    code = data.get("table")
    if data.get("server") != server or data.get("name") != name or not isinstance(code, str):
        return None
    try:
        parse_table_code(code)
    except ValueError:
        forget_table()
        return None
    return code


__all__ = ["LOG", "MAX_HEARD", "MAX_INVITED", "REOPEN_FILE", "Connection", "Divergence", "Heard",
           "Refused",
           "SeatHolder", "TableChannel", "TableSession", "forget_table", "remember_table",
           "remembered_table", "reopen_path"]
