"""The announcements between server processes, typed: one :class:`~typing.TypedDict`
per kind (what goes on the wire as the JSON payload of PostgreSQL's ``NOTIFY``,
as the messages to clients are typed in :mod:`blockyard.protocol`), a function
making each, one :class:`Kind` per kind to :meth:`Subscribers.subscribe` a
handler to, and the one helper that sends them in a transaction
(:func:`notify`; the ``pg_notify`` SQL is written here alone, :func:`pg_notify`).

:mod:`~blockyard.server.events` carries them between processes (or, on SQLite,
straight to this process's subscribers); each one is only a nudge that something
stored changed, never state the database lacks. A handler reads an
announcement defensively (``event.get``): one from another process of another
version may lack a key or carry one of another type.

=================  ==========================================================
kind               said when
=================  ==========================================================
``table``          a table's row changed (seats, status, round); a round's end
                   says ``round`` and ``status``
``moves``          moves of a table were stored (the move itself when it fits)
``result``         a round's result was stored
``said``           a seated player's quick phrase
``signed-out``     a session token was revoked (its connections close)
``presence``       seats' presence rows changed (each row as it is now)
``paired``         Play now seated two players
``opened``         a player opened a public table (their followers are told)
``follows``        whom these players follow changed
``invites``        these players' invitations changed
``resync``         made by a process for itself: announcements may have been
                   missed (its listener reconnected)
=================  ==========================================================
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar

import sqlalchemy as sa

__all__ = ["CHANNEL", "KINDS", "MAX_PAYLOAD", "Kind", "Subscribers", "follows", "invites",
           "moves", "notify", "notify_payloads", "opened", "paired", "payload", "pg_notify",
           "presence", "result", "resync", "said", "signed_out", "table_changed"]

CHANNEL = "blockyard_tables"
"""The NOTIFY channel of the announcements."""
MAX_PAYLOAD = 7000
"""PostgreSQL's payload limit is 8000 bytes; announcements are far smaller."""

log = logging.getLogger("blockyard.server")


# -- the kinds -------------------------------------------------------------------------


class TableChanged(TypedDict):
    """``table``: the table's row changed; at a round's end, its ``round`` and
    ``status`` (``finished``: only the status changed)."""

    kind: Literal["table"]
    table: int
    round: NotRequired[int]
    status: NotRequired[str]


class Moves(TypedDict):
    """``moves``: moves of the table were stored; with ``seat`` and ``n``, that
    step of that seat, carried whole (``action``, ``score``, ``over``, ``at``)
    when it fits the payload (:mod:`~blockyard.server.livecache`)."""

    kind: Literal["moves"]
    table: int
    round: NotRequired[int]
    seat: NotRequired[int]
    n: NotRequired[int]
    action: NotRequired[list[Any]]
    score: NotRequired[int]
    over: NotRequired[bool]
    at: NotRequired[str | None]


class Result(TypedDict):
    """``result``: the round's result as its transaction stored it."""

    kind: Literal["result"]
    table: int
    scores: list[int]
    winner: Any
    ratings: Any
    left: list[int]
    aborted: bool


class Said(TypedDict):
    """``said``: a seated player's quick phrase."""

    kind: Literal["said"]
    table: int
    seat: int
    account: int
    name: str
    phrase: str


class SignedOut(TypedDict):
    """``signed-out``: the session token whose hash is ``token`` was revoked."""

    kind: Literal["signed-out"]
    token: str


class Presence(TypedDict):
    """``presence``: seats' presence rows of one table, each as it is now
    (``rows``) or deleted (``gone``: their seats) (:mod:`~blockyard.server.presence`)."""

    kind: Literal["presence"]
    table: int
    rows: NotRequired[list[list[Any]]]
    gone: NotRequired[list[int]]


class Paired(TypedDict):
    """``paired``: Play now seated these accounts (in seat order) at ``table``."""

    kind: Literal["paired"]
    table: int
    ruleset_id: str
    accounts: list[int]


class Opened(TypedDict):
    """``opened``: ``account`` opened the public ``table``."""

    kind: Literal["opened"]
    table: int
    ruleset_id: str
    account: int
    name: str


class Follows(TypedDict):
    """``follows``: whom these accounts follow changed."""

    kind: Literal["follows"]
    accounts: list[int]


class Invites(TypedDict):
    """``invites``: these accounts' invitations changed."""

    kind: Literal["invites"]
    accounts: list[int]


class Resync(TypedDict):
    """``resync``: announcements may have been missed (made by a process for
    itself, never sent)."""

    kind: Literal["resync"]


Announcement = (TableChanged | Moves | Result | Said | SignedOut | Presence | Paired | Opened
                | Follows | Invites | Resync)
"""Any announcement."""

E = TypeVar("E", bound=Mapping[str, object])


@dataclass(frozen=True)
class Kind(Generic[E]):
    """A kind of announcement, to subscribe to (:meth:`Subscribers.subscribe`)."""

    name: str


TABLE: Kind[TableChanged] = Kind("table")
MOVES: Kind[Moves] = Kind("moves")
RESULT: Kind[Result] = Kind("result")
SAID: Kind[Said] = Kind("said")
SIGNED_OUT: Kind[SignedOut] = Kind("signed-out")
PRESENCE: Kind[Presence] = Kind("presence")
PAIRED: Kind[Paired] = Kind("paired")
OPENED: Kind[Opened] = Kind("opened")
FOLLOWS: Kind[Follows] = Kind("follows")
INVITES: Kind[Invites] = Kind("invites")
RESYNC: Kind[Resync] = Kind("resync")

KINDS: tuple[Kind[Any], ...] = (TABLE, MOVES, RESULT, SAID, SIGNED_OUT, PRESENCE, PAIRED,
                                OPENED, FOLLOWS, INVITES, RESYNC)
"""Every kind."""


# -- making them -----------------------------------------------------------------------


def table_changed(table_id: int, *, round: int | None = None,
                  status: str | None = None) -> TableChanged:
    """A ``table`` announcement (with the round and its status at a round's end)."""
    event = TableChanged(kind="table", table=table_id)
    if round is not None:
        event["round"] = round
    if status is not None:
        event["status"] = status
    return event


def moves(table_id: int, *, round: int | None = None, seat: int | None = None,
          n: int | None = None) -> Moves:
    """A ``moves`` announcement: of the table, or of one step of a seat (the move
    itself added by :mod:`~blockyard.server.livecache` when it fits)."""
    event = Moves(kind="moves", table=table_id)
    if round is not None:
        event["round"] = round
    if seat is not None and n is not None:
        event["seat"], event["n"] = seat, n
    return event


def result(table_id: int, scores: Sequence[int], winner: Any, ratings: Any,
           left: Sequence[int], aborted: bool) -> Result:
    """A ``result`` announcement."""
    return Result(kind="result", table=table_id, scores=list(scores), winner=winner,
                  ratings=ratings, left=list(left), aborted=aborted)


def said(table_id: int, seat: int, account_id: int, name: str, phrase: str) -> Said:
    """A ``said`` announcement."""
    return Said(kind="said", table=table_id, seat=seat, account=account_id, name=name,
                phrase=phrase)


def signed_out(token: str) -> SignedOut:
    """A ``signed-out`` announcement (``token``: the session token's hash)."""
    return SignedOut(kind="signed-out", token=token)


def presence(table_id: int) -> Presence:
    """A ``presence`` announcement of one table, its rows and seats gone to be added."""
    return Presence(kind="presence", table=table_id)


def paired(table_id: int, ruleset_id: str, account_ids: Sequence[int]) -> Paired:
    """A ``paired`` announcement."""
    return Paired(kind="paired", table=table_id, ruleset_id=ruleset_id,
                  accounts=list(account_ids))


def opened(table_id: int, ruleset_id: str, account_id: int, name: str) -> Opened:
    """An ``opened`` announcement."""
    return Opened(kind="opened", table=table_id, ruleset_id=ruleset_id, account=account_id,
                  name=name)


def follows(account_ids: Sequence[int]) -> Follows:
    """A ``follows`` announcement."""
    return Follows(kind="follows", accounts=list(account_ids))


def invites(account_ids: Sequence[int]) -> Invites:
    """An ``invites`` announcement (each account once, in order)."""
    return Invites(kind="invites", accounts=sorted(set(account_ids)))


def resync() -> Resync:
    """The ``resync`` a process tells itself."""
    return Resync(kind="resync")


# -- sending them ----------------------------------------------------------------------


def payload(event: Mapping[str, Any]) -> str:
    """``event`` as an announcement's payload (compact JSON)."""
    return _COMPACT.encode(event)


_COMPACT = json.JSONEncoder(separators=(",", ":"))
"""Made once: ``json.dumps`` with ``separators`` makes an encoder at every call."""


def pg_notify(payload_sql: str) -> str:
    """The SQL announcing the payload ``payload_sql`` (an SQL expression of text) on
    :data:`CHANNEL`: the one place ``pg_notify`` is written."""
    return f"pg_notify('{CHANNEL}', {payload_sql})"


_NOTIFY = sa.text(f"SELECT {pg_notify(':payload')}")


def notify(conn: sa.Connection, events: Sequence[Mapping[str, Any]]) -> None:
    """Announce ``events`` at the commit of ``conn``'s transaction (PostgreSQL's
    ``NOTIFY``; on SQLite nothing: its one process is told by the caller once the
    transaction is committed)."""
    notify_payloads(conn, [payload(event) for event in events])


def notify_payloads(conn: sa.Connection, payloads: Sequence[str]) -> None:
    """:func:`notify` of announcements already written as payloads."""
    if payloads and conn.dialect.name == "postgresql":
        conn.execute(_NOTIFY, [{"payload": text} for text in payloads])


# -- handling them ---------------------------------------------------------------------


Handler = Callable[[Any], Awaitable[None]]


class Subscribers:
    """The handlers of each kind of announcement in this process, called in the
    order they subscribed."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}

    def subscribe(self, kind: Kind[E], handler: Callable[[E], Awaitable[None]]) -> None:
        """Call ``handler`` with every announcement of ``kind``."""
        self._handlers.setdefault(kind.name, []).append(handler)

    def kinds(self) -> set[str]:
        """The kinds some handler subscribed to."""
        return set(self._handlers)

    async def deliver(self, event: Mapping[str, Any]) -> None:
        """Call every handler of ``event``'s kind (none for an unknown kind), each
        whatever became of the others; the first exception raised is raised again
        once every handler was called."""
        failed: BaseException | None = None
        for handler in self._handlers.get(str(event.get("kind")), ()):
            try:
                await handler(event)
            except Exception as exc:
                if failed is None:
                    failed = exc
                else:  # the first is raised: the others logged
                    log.exception("announcement %s", event.get("kind"))
        if failed is not None:
            raise failed
