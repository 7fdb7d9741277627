"""The live connections of one server process: its :class:`Room`.

A room holds every open live connection of the process — each table's
(:class:`Watcher`: ``/api/tables/{id}/live``, a player's or a spectator's) and
each player's own (:class:`Feed`: ``/api/me/live``) — and fans messages out to
them: whoever sends a message (the tables' hub after the referee decided and
the store committed, the players' pushes) hands it to the room, which puts it in
each connection's :class:`~blockyard.server.sockets.Outbox`; a task of each
connection writes it, so a slow reader never delays the others (it falls
behind alone, and too far behind it is closed). The room knows who is here:
the accounts and seats connected to this process (the sweep marks those seats
present in the database), and the tokens signed out lately: a token signed out
accepts nothing more, and every connection opened with it is closed (code 4401),
in every process (the sign-out is announced).

Nothing here decides a rule or touches the database: the referee
(:mod:`~blockyard.server.referee`) decides, the store
(:mod:`~blockyard.server.actionstore`, :mod:`~blockyard.server.tablestore`)
keeps, the hub (:mod:`~blockyard.server.tables`) connects the three.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket

from . import livecache, metrics
from .accounts import Account
from .sockets import Encoded, Outbox, encode

MAX_REVOKED = 10_000
"""How many tokens signed out lately a process keeps (:attr:`Room.revoked`)."""
MAX_FEEDS = 8
"""``/api/me/live`` connections one player may hold on one process."""


@dataclass(eq=False, slots=True)
class Connection:
    """One live connection, signed in (``account``) or not (slotted, as its
    subclasses: one is kept for every open connection)."""

    socket: WebSocket
    account: Account | None
    token: str | None = None
    """What the database keeps of the session token it was opened with (its hash)."""
    signed_out: bool = False
    """The token was signed out: nothing more it sends is accepted."""
    outbox: Outbox = field(init=False)
    """What is to be written to it, in order (never waited for)."""

    def __post_init__(self) -> None:
        self.outbox = Outbox(self.socket)

    def post(self, message: Mapping[str, Any] | Encoded) -> None:
        """Send ``message`` (queued: written by the connection's own task)."""
        self.outbox.post(message)


@dataclass(eq=False, slots=True)
class Watcher(Connection):
    """A table's live connection. Whether it is a player's is read from the table
    each time (a spectator may take a seat, a player may leave it while
    connected), never kept here."""

    round: int = 0
    seen: set[tuple[int, int]] | None = None
    """The (seat, n) of every move of :attr:`round` sent to this connection
    (``None`` before the first: an empty set is 0.2 kB)."""
    told: tuple[livecache.RoundMoves | None, int] = (None, 0)
    """The kept moves last sent from, and how many of them (they only grow: the
    next send starts there instead of looking at every move of the round)."""
    greeted: bool = False
    """Whether it was sent the table (who is there comes after that, never before)."""
    linked: int | None = None
    """The seat this connection is counted as one of the connections of (in the
    database: :mod:`~blockyard.server.presence`), until it closes."""


@dataclass(eq=False, slots=True)
class Feed(Connection):
    """A player's own live connection (``/api/me/live``): always signed in."""


class Room:
    """This process's live connections, by table (:class:`Watcher`) and by player
    (:class:`Feed`), and the tokens signed out lately."""

    def __init__(self) -> None:
        self.watchers: dict[int, set[Watcher]] = {}
        self.feeds: dict[int, set[Feed]] = {}
        self.revoked: OrderedDict[str, None] = OrderedDict()
        """The tokens (hashes) signed out lately, the last :data:`MAX_REVOKED`: a
        connection whose token was checked before its sign-out was announced is
        closed once it enters."""

    # -- who is here ------------------------------------------------------------------

    def enter(self, table_id: int, watcher: Watcher) -> bool:
        """Add a table's connection and start writing to it; ``False`` (and it is
        closed, 4401) when its token was signed out while it opened."""
        here = self.watchers.setdefault(table_id, set())
        if watcher not in here:
            here.add(watcher)
            metrics.live_connections.labels("table").inc()
        watcher.outbox.start()
        return self._admitted(watcher)

    def leave(self, table_id: int, watcher: Watcher) -> None:
        """A table's connection closed."""
        found = self.watchers.get(table_id)
        if found is not None and watcher in found:
            found.remove(watcher)
            metrics.live_connections.labels("table").dec()
            if not found:
                del self.watchers[table_id]

    def feeds_of(self, account_id: int) -> list[Feed]:
        return list(self.feeds.get(account_id, ()))

    def enter_feed(self, feed: Feed) -> bool | None:
        """Add a player's own connection and start writing to it: ``None`` when
        the player holds :data:`MAX_FEEDS` here already (not added), ``False``
        (closed, 4401) when its token was signed out while it opened."""
        assert feed.account is not None
        mine = self.feeds.setdefault(feed.account.id, set())
        if len(mine) >= MAX_FEEDS:
            return None
        if feed not in mine:
            mine.add(feed)
            metrics.live_connections.labels("player").inc()
        feed.outbox.start()
        return self._admitted(feed)

    def leave_feed(self, feed: Feed) -> None:
        assert feed.account is not None
        mine = self.feeds.get(feed.account.id)
        if mine is not None and feed in mine:
            mine.remove(feed)
            metrics.live_connections.labels("player").dec()
            if not mine:
                del self.feeds[feed.account.id]

    def at(self, table_id: int) -> list[Watcher]:
        """The connections of a table (a copy: safe to send to while they change)."""
        return list(self.watchers.get(table_id, ()))

    def watched(self) -> list[int]:
        """The tables with a connection here."""
        return list(self.watchers)

    def watching(self, table_id: int) -> bool:
        return bool(self.watchers.get(table_id))

    def seated_here(self) -> set[tuple[int, int]]:
        """``(table id, account id)`` of every signed-in table connection here."""
        return {(table_id, watcher.account.id) for table_id, found in self.watchers.items()
                for watcher in found if watcher.account is not None}

    def accounts(self) -> list[int]:
        """The players connected here (tables and feeds)."""
        ids = {account_id for account_id, feeds in self.feeds.items() if feeds}
        ids.update(account_id for _, account_id in self.seated_here())
        return sorted(ids)

    def all_feeds(self) -> Iterator[Feed]:
        for feeds in list(self.feeds.values()):
            yield from list(feeds)

    # -- fan-out ----------------------------------------------------------------------

    def send(self, table_id: int, *messages: Mapping[str, Any]) -> None:
        """Send ``messages`` to every connection of the table, in order (each
        encoded once for all of them)."""
        watchers = self.at(table_id)
        if not watchers:
            return
        texts = [encode(message) for message in messages]
        for watcher in watchers:
            for text in texts:
                watcher.post(text)

    def send_moves(self, table_id: int, known: livecache.RoundMoves,
                   only: Watcher | None = None) -> None:
        """Send each connection of the table (or ``only``) the moves of ``known``
        it has not had, in order. A connection not yet greeted (sent the table:
        :meth:`~blockyard.server.seatviews.SeatViews.greet`) is passed over: its
        own send after the table (``only``) gives it every move so far, so no
        move reaches it before the table does."""
        moves = known.moves
        texts: dict[tuple[int, int], Encoded] = {}  # each move encoded once
        for watcher in [only] if only else self.at(table_id):
            if only is None and not watcher.greeted:
                continue
            if watcher.round != known.round:
                watcher.round, watcher.seen = known.round, None
            kept, done = watcher.told
            seen = watcher.seen
            for move in moves[done:] if kept is known else moves:
                key = (move.seat, move.n)
                if seen is None or key not in seen:
                    if seen is None:
                        seen = watcher.seen = set()
                    seen.add(key)
                    text = texts.get(key)
                    if text is None:
                        text = texts[key] = encode(move.message())
                    watcher.post(text)
            watcher.told = (known, len(moves))

    # -- signing out ------------------------------------------------------------------

    def revoke(self, token: str) -> None:
        """Keep ``token`` (a hash) among the tokens signed out lately, and accept
        nothing more from this process's connections opened with it."""
        self.revoked[token] = None
        self.revoked.move_to_end(token)
        while len(self.revoked) > MAX_REVOKED:
            self.revoked.popitem(last=False)
        for connection in self._opened_with(token):
            connection.signed_out = True

    def close_signed_out(self, token: str) -> None:
        """The token was signed out (in any process): every connection here
        opened with it is closed (4401)."""
        self.revoke(token)
        for connection in self._opened_with(token):
            connection.outbox.close_signed_out()

    def _opened_with(self, token: str) -> list[Connection]:
        found: list[Connection] = [watcher for watchers in list(self.watchers.values())
                                   for watcher in list(watchers) if watcher.token == token]
        found.extend(feed for feed in self.all_feeds() if feed.token == token)
        return found

    def _admitted(self, connection: Connection) -> bool:
        if connection.token is not None and connection.token in self.revoked:
            connection.signed_out = True
            connection.outbox.close_signed_out()
            return False
        return True
