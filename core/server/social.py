"""Players online and invitations (their routes: :mod:`.routes.social`: ``GET
/api/players/online``, ``GET /api/me/invitations``, ``POST
/api/me/invitations/{table}/accept`` and ``/decline``, and the player's own
WebSocket ``/api/me/live``).

**Presence.** A signed-in player is online while they made an authenticated
call or held a live connection (a table's or ``/api/me/live``) within the last
:data:`~blockyard.server.settings.PRESENCE_SECONDS`
(``BLOCKYARD_SERVER_PRESENCE_SECONDS``). The moment is
kept in the database (``accounts.last_seen``), so every server process on one
database sees the same players online: an authenticated call writes it (at most
once every sixth of that time per player and process), and each process writes
it for every player connected to it every third of that time. A process that
dies stops writing: its players drop out of the list within that time.

**Invitations.** ``POST /api/tables`` with ``"invite": [names]`` stores one
invitation per name (who sent it, when). An invitation is pending while it is
unanswered, younger than :data:`INVITE_HOURS`, its table is still waiting and
the player holds no seat there. Accepting takes a seat (as
``POST /api/tables/{id}/join``, which an invitation admits to a private
table); declining takes it off the list. Floods are bounded in the database
(so across processes): at most :data:`MAX_PENDING_FROM_ONE` pending invitations
from one player to another, :data:`MAX_PENDING` pending per invited player from
players they do not follow (an invitation from a player they follow is never
refused for a list that strangers filled), the pending invitations one player
has sent (:data:`~blockyard.server.settings.PENDING_INVITES`,
``BLOCKYARD_SERVER_PENDING_INVITES``), and :data:`INVITES_PER_MINUTE`
invitations sent per player per minute; over them ``POST /api/tables`` answers
``429`` and opens no table.

**Pushed.** ``/api/me/live`` (its first message ``{"type": "hello", "token":
TOKEN}``) sends ``{"type": "invitations",
"invitations": [...]}`` on connect and whenever the list changes (an invitation
arrives, is answered, or its table fills or starts), and ``{"type": "online",
"players": [...]}`` on connect and whenever the players online changed (checked
every third of the presence time). Changes travel between processes as
``invites`` announcements on the table events'
channel (:mod:`.events`).

**Friends.** It also sends ``{"type": "friends", "online": [names]}``, the
players the player follows (:mod:`.friends`) who are online, on connect and
whenever that changes (looked at with the players online, and at once when
the player follows or unfollows someone: ``follows``), and
``{"type": "opened", "table", "ruleset_id", "name"}`` when a followed player
opens a public table (``opened``, to every process).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import logging
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from starlette.concurrency import run_in_threadpool

from .. import protocol
from ..discovery import load_ruleset
from ..game import today_in
from . import announcements, db, friends, pairing, tablestore
from .accounts import Account, now
from .clock import Clock, SystemClock
from .room import Feed
from .settings import PENDING_INVITES
from .tablestore import TableError

if TYPE_CHECKING:
    from .state import Server
    from .tables import Hub

INVITE_HOURS = tablestore.INVITE_HOURS
"""An unanswered invitation lapses after this many hours."""
MAX_PENDING_FROM_ONE = 3
"""Pending invitations one player may have from one other player."""
MAX_PENDING = 50
"""Pending invitations one player may hold from players they do not follow."""
MAX_LISTED_INVITATIONS = 2 * MAX_PENDING
"""The most pending invitations ``GET /api/me/invitations`` lists (strangers'
fill at most half of it)."""
INVITES_PER_MINUTE = 60
"""Invitations one player may send in a minute (every name counts)."""
MAX_ONLINE = 200
"""The most names ``GET /api/players/online`` lists."""
log = logging.getLogger("blockyard.server")


class InviteRefused(Exception):
    """Invitations that cannot be sent: ``status`` (422, 429) and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# -- presence -----------------------------------------------------------------------------


class Presence:
    """Writes ``accounts.last_seen`` and reads the players online."""

    def __init__(self, engine: Engine, seconds: float, clock: Clock | None = None) -> None:
        self.engine = engine
        self.seconds = seconds
        self.clock = clock or SystemClock()
        self._written: dict[int, float] = {}

    def seen(self, account_id: int) -> None:
        """An authenticated call of ``account_id`` (written at most every sixth of
        :attr:`seconds` by this process)."""
        moment = self.clock.seconds()
        last = self._written.get(account_id)
        if last is not None and moment - last < self.seconds / 6:
            return
        try:
            self.seen_now([account_id])
        except sa.exc.SQLAlchemyError as exc:  # presence must not fail the call itself
            self._written.pop(account_id, None)
            log.warning("players online: could not note a call (%s)", type(exc).__name__)

    def seen_now(self, account_ids: list[int]) -> None:
        """Mark these players as seen now (connected to this process)."""
        if not account_ids:
            return
        moment = self.clock.seconds()
        if len(self._written) > 100_000:
            self._written.clear()
        for account_id in account_ids:
            self._written[account_id] = moment
        with self.engine.begin() as conn:
            conn.execute(sa.update(db.accounts)
                         .where(db.accounts.c.id.in_(sorted(set(account_ids))))
                         .values(last_seen=self.clock.now()))

    def online(self, limit: int = MAX_ONLINE) -> list[str]:
        """The names of the players online, in alphabetical order (at most ``limit``)."""
        return online_players(self.engine,
                              self.clock.now() - _dt.timedelta(seconds=self.seconds), limit)


def online_players(engine: Engine, since: _dt.datetime, limit: int = MAX_ONLINE) -> list[str]:
    """The names of the players seen at ``since`` or later, alphabetically."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(db.accounts.c.name)
                            .where(db.accounts.c.last_seen >= since)
                            .order_by(db.accounts.c.name_key).limit(limit)).scalars().all()
    return [str(name) for name in rows]


# -- invitations --------------------------------------------------------------------------


def _pending(moment: _dt.datetime) -> list[sa.ColumnElement[bool]]:
    """The conditions of a pending invitation (``table_invites`` joined to ``tables``)."""
    invites = db.table_invites
    seated = sa.select(db.table_seats.c.seat).where(
        db.table_seats.c.table_id == invites.c.table_id,
        db.table_seats.c.account_id == invites.c.account_id).exists()
    return [invites.c.answer.is_(None), db.tables.c.status == "waiting",
            invites.c.created >= moment - _dt.timedelta(hours=INVITE_HOURS), ~seated]


def pending_invitations(engine: Engine, account_id: int,
                        moment: _dt.datetime | None = None) -> list[dict[str, Any]]:
    """The pending invitations of ``account_id``, newest first: ``{"table",
    "ruleset_id", "from", "seats", "private", "created"}``."""
    moment = moment or now()
    invites, tables = db.table_invites, db.tables
    inviter = db.accounts.alias("inviter")
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(invites.c.table_id, invites.c.created, tables.c.ruleset_id,
                      tables.c.private, inviter.c.name)
            .join(tables, tables.c.id == invites.c.table_id)
            .join(inviter, inviter.c.id == sa.func.coalesce(invites.c.inviter_id,
                                                            tables.c.creator_id))
            .where(invites.c.account_id == account_id, *_pending(moment))
            .order_by(invites.c.created.desc(), invites.c.table_id.desc())
            .limit(MAX_LISTED_INVITATIONS)).all()
        seats = _seats(conn, [int(r.table_id) for r in rows])
    return [{"table": int(r.table_id), "ruleset_id": str(r.ruleset_id), "from": str(r.name),
             "seats": seats.get(int(r.table_id), []), "private": bool(r.private),
             "created": _iso(r.created)} for r in rows]


def _seats(conn: Connection, table_ids: list[int]) -> dict[int, list[str | None]]:
    if not table_ids:
        return {}
    out: dict[int, list[str | None]] = {}
    for row in conn.execute(sa.select(db.tables.c.id, db.tables.c.seats)
                            .where(db.tables.c.id.in_(table_ids))):
        out[int(row.id)] = [None] * int(row.seats)
    for held in conn.execute(
            sa.select(db.table_seats.c.table_id, db.table_seats.c.seat, db.accounts.c.name)
            .join(db.accounts, db.accounts.c.id == db.table_seats.c.account_id)
            .where(db.table_seats.c.table_id.in_(table_ids))):
        seats = out.get(int(held.table_id))
        if seats is not None and 0 <= held.seat < len(seats):
            seats[held.seat] = str(held.name)
    return out


def _iso(moment: _dt.datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:  # SQLite keeps no time zone: UTC
        moment = moment.replace(tzinfo=_dt.UTC)
    return moment.astimezone(_dt.UTC).isoformat(timespec="seconds")


def check_invites(engine: Engine, inviter: Account, names: list[str],
                  moment: _dt.datetime | None = None, *,
                  most_sent: int = PENDING_INVITES) -> list[int]:
    """The account ids of ``names`` that ``inviter`` may invite now (themselves
    left out). :class:`InviteRefused`: ``422`` for a name with no account,
    ``429`` over :data:`INVITES_PER_MINUTE`, over ``most_sent`` pending
    invitations sent by ``inviter`` (these ones included), over
    :data:`MAX_PENDING_FROM_ONE`, or over :data:`MAX_PENDING` for a player who
    does not follow ``inviter``."""
    if not names:
        return []
    with engine.connect() as conn:
        return invites_allowed(conn, inviter, names, moment, most_sent=most_sent)


def invites_allowed(conn: Connection, inviter: Account, names: list[str],
                    moment: _dt.datetime | None = None, *,
                    most_sent: int = PENDING_INVITES) -> list[int]:
    """:func:`check_invites` in ``conn``'s transaction: called again where the
    table and its invitations are stored (:func:`.tablestore.create_table`, holding
    the inviter's and the invited players' accounts), so that invitations sent at
    the same moment are counted one after the other and none passes a limit."""
    if not names:
        return []
    moment = moment or now()
    invites = db.table_invites
    keys = list(dict.fromkeys(name.lower() for name in names))
    found = {str(r.name_key): (int(r.id), str(r.name)) for r in conn.execute(
        sa.select(db.accounts.c.id, db.accounts.c.name, db.accounts.c.name_key)
        .where(db.accounts.c.name_key.in_(keys)))}
    missing = [name for name in names if name.lower() not in found]
    if missing:
        raise InviteRefused(422, f"invite: no account named {missing[0]!r}")
    targets = {found[key][0]: found[key][1] for key in keys
               if found[key][0] != inviter.id}
    if not targets:
        return []
    sent = conn.execute(sa.select(sa.func.count()).select_from(invites)
                        .where(invites.c.inviter_id == inviter.id,
                               invites.c.created >= moment - _dt.timedelta(minutes=1))
                        ).scalar_one()
    if int(sent) + len(targets) > INVITES_PER_MINUTE:
        raise InviteRefused(429, f"invite: at most {INVITES_PER_MINUTE} invitations a "
                                 "minute; try again in a minute")
    out = conn.execute(sa.select(sa.func.count()).select_from(invites)
                       .join(db.tables, db.tables.c.id == invites.c.table_id)
                       .where(invites.c.inviter_id == inviter.id, *_pending(moment))
                       ).scalar_one()
    if int(out) + len(targets) > most_sent:
        raise InviteRefused(429, f"invite: you have {int(out)} pending invitations "
                                 f"and may have {most_sent} at most; wait for answers "
                                 "or for your tables to start")
    pending = (sa.select(invites.c.account_id, invites.c.inviter_id,
                         sa.func.count().label("n"))
               .join(db.tables, db.tables.c.id == invites.c.table_id)
               .where(invites.c.account_id.in_(list(targets)), *_pending(moment))
               .group_by(invites.c.account_id, invites.c.inviter_id))
    follows = db.follows
    followed = {(int(row.account_id), int(row.followed_id)) for row in conn.execute(
        sa.select(follows.c.account_id, follows.c.followed_id)
        .where(follows.c.account_id.in_(list(targets))))}
    from_strangers: dict[int, int] = {}
    from_me: dict[int, int] = {}
    for row in conn.execute(pending):
        invited, by = int(row.account_id), row.inviter_id
        if by is None or (invited, int(by)) not in followed:
            from_strangers[invited] = from_strangers.get(invited, 0) + int(row.n)
        if by == inviter.id:
            from_me[invited] = int(row.n)
    for account_id, name in targets.items():
        if from_me.get(account_id, 0) >= MAX_PENDING_FROM_ONE:
            raise InviteRefused(429, f"invite: {name} has {MAX_PENDING_FROM_ONE} pending "
                                     "invitations from you already; wait for an answer")
        if (account_id, inviter.id) not in followed \
                and from_strangers.get(account_id, 0) >= MAX_PENDING:
            raise InviteRefused(429, f"invite: {name} has {MAX_PENDING} pending "
                                     "invitations already")
    return sorted(targets)


def is_pending(engine: Engine, account_id: int, table_id: int) -> bool:
    """Whether ``account_id`` has a pending invitation to ``table_id``."""
    invites = db.table_invites
    with engine.connect() as conn:
        row = conn.execute(sa.select(invites.c.table_id)
                           .join(db.tables, db.tables.c.id == invites.c.table_id)
                           .where(invites.c.account_id == account_id,
                                  invites.c.table_id == table_id, *_pending(now()))).first()
    return row is not None


def set_answer(engine: Engine, account_id: int, table_id: int, answer: str) -> None:
    """Store the answer (``accepted``, ``declined``) to an invitation."""
    invites = db.table_invites
    with engine.begin() as conn:
        conn.execute(sa.update(invites).where(invites.c.account_id == account_id,
                                              invites.c.table_id == table_id)
                     .values(answer=answer))


def accept(engine: Engine, account: Account, table_id: int,
           moment: _dt.datetime | None = None) -> tablestore.Table:
    """Accept a pending invitation: take a seat at its table (a round that starts
    then starts at ``moment``, now unless told). ``TableError``: 404 no pending
    invitation, 409 the table is full."""
    if not is_pending(engine, account.id, table_id):
        raise TableError(404, f"no pending invitation to table {table_id}")
    table = tablestore.join_table(engine, table_id, account, None, moment)
    set_answer(engine, account.id, table_id, "accepted")
    return table


def decline(engine: Engine, account: Account, table_id: int) -> None:
    """Decline a pending invitation (``TableError`` 404 when there is none)."""
    if not is_pending(engine, account.id, table_id):
        raise TableError(404, f"no pending invitation to table {table_id}")
    set_answer(engine, account.id, table_id, "declined")


def invited_to(engine: Engine, table_id: int) -> list[int]:
    """The account ids invited to ``table_id``."""
    with engine.connect() as conn:
        return [int(i) for i in conn.execute(
            sa.select(db.table_invites.c.account_id)
            .where(db.table_invites.c.table_id == table_id)).scalars()]


def deal_date(ruleset_id: str) -> str | None:
    """The date a new deal of ``ruleset_id`` plays: today's for a daily ruleset."""
    ruleset = load_ruleset(ruleset_id)
    return today_in(ruleset.timezone).isoformat() if ruleset.is_daily else None


# -- the pushed feed ----------------------------------------------------------------------


class Social:
    """This process's ``/api/me/live`` connections and its presence heartbeat."""

    def __init__(self, server: Server, hub: Hub) -> None:
        self.server = server
        self.engine = server.engine
        self.presence: Presence = server.online
        self.hub = hub
        self.room = hub.room
        self.task: asyncio.Task[None] | None = None
        self.pairer: asyncio.Task[None] | None = None
        self.pairing_lock = asyncio.Lock()
        """This process's pairing passes, one at a time (the database's lock holds
        the other processes')."""
        self.last_online: list[str] | None = None
        self.last_friends: dict[int, list[str]] = {}
        """The followed players online last sent to each player with a feed here."""
        # after the tables' handlers (the hub subscribed first)
        subscribe = hub.events.subscribe
        subscribe(announcements.PAIRED, self._on_paired)
        subscribe(announcements.OPENED, self._on_opened)
        subscribe(announcements.FOLLOWS, self._on_follows)
        subscribe(announcements.INVITES, self._on_invites)
        subscribe(announcements.TABLE, self._on_table)
        subscribe(announcements.RESYNC, self._on_resync)

    async def start(self) -> None:
        self.task = asyncio.create_task(self.heartbeat())
        self.pairer = asyncio.create_task(self.pairing_loop())

    async def stop(self) -> None:
        for task in (self.task, self.pairer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    # -- Play now -------------------------------------------------------------------------

    async def pairing_loop(self) -> None:
        """A pairing pass every :data:`~blockyard.server.pairing.BEAT` seconds (runs
        forever)."""
        while True:
            await asyncio.sleep(pairing.BEAT)
            try:
                await self.pair_now()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database away for a moment: the next pass
                log.warning("pairing pass failed (%s)", type(exc).__name__)

    async def pair_now(self) -> list[pairing.Paired]:
        """One pairing pass (:func:`~blockyard.server.pairing.pair`) on the server's
        clock: the pairs seated, their seats present from now on (the abandon time
        counts from the table's start), and both players told (``paired``, through
        every process); the pairs."""
        async with self.pairing_lock:
            moment = self.server.clock.now()
            online_since = moment - _dt.timedelta(seconds=self.presence.seconds)
            seated = await run_in_threadpool(pairing.pair, self.engine, moment,
                                             online_since, deal_date)
        for done in seated:
            await self.hub.touch([(done.table_id, 0), (done.table_id, 1)], moment)
            if not self.hub.events.shared:  # PostgreSQL: announced at the commit
                await self.hub.events.publish(done.event())
        return seated

    async def push_paired(self, account_id: int, only: Feed | None = None) -> None:
        """Tell the player's feeds (or ``only``) the playing table Play now seated
        them at, if any (a window that connects after the pairing learns it too)."""
        found = await run_in_threadpool(pairing.paired_table, self.engine, account_id)
        if found is None:
            return
        for feed in [only] if only is not None else self.room.feeds_of(account_id):
            feed.post(protocol.paired(*found))

    def connected(self) -> list[int]:
        """The players connected to this process (tables and feeds)."""
        return self.room.accounts()

    async def heartbeat(self) -> None:
        """Keep the connected players online; push the players online when they
        changed (runs forever)."""
        while True:
            await asyncio.sleep(self.presence.seconds / 3)
            with contextlib.suppress(Exception):  # the database is away: next time
                await run_in_threadpool(self.presence.seen_now, self.connected())
                await self.push_online()
                await self.push_friends(list(self.room.feeds))

    async def push_online(self, only: Feed | None = None) -> None:
        if not self.room.feeds:
            self.last_online = None
            return
        players = await run_in_threadpool(self.presence.online)
        if only is not None:
            only.post(protocol.online(players))
            return
        if players == self.last_online:
            return
        self.last_online = players
        for feed in self.room.all_feeds():
            feed.post(protocol.online(players))

    async def push_friends(self, account_ids: list[int], only: Feed | None = None) -> None:
        """Send the players' feeds here (or ``only``) the players they follow who
        are online, when that changed since last sent (``only``: always)."""
        for gone in [i for i in self.last_friends if i not in self.room.feeds]:
            del self.last_friends[gone]
        wanted = [i for i in account_ids if self.room.feeds_of(i)]
        if not wanted:
            return
        since = self.presence.clock.now() - _dt.timedelta(seconds=self.presence.seconds)
        found = await run_in_threadpool(friends.friends_online, self.engine, wanted, since)
        for account_id, names in found.items():
            if only is not None:
                only.post(protocol.friends(names))
                continue
            if self.last_friends.get(account_id) == names:
                continue
            self.last_friends[account_id] = names
            for feed in self.room.feeds_of(account_id):
                feed.post(protocol.friends(names))

    async def announce_opened(self, table: tablestore.Table, account: Account) -> None:
        """Tell every process that ``account`` opened the public ``table`` (its
        followers are told)."""
        await self.hub.events.publish(announcements.opened(
            table.id, table.ruleset_id, account.id, account.name))

    async def announce_follows(self, account_id: int) -> None:
        """Tell every process that whom ``account_id`` follows changed."""
        await self.hub.events.publish(announcements.follows([account_id]))

    async def _tell_opened(self, event: announcements.Opened) -> None:
        table, ruleset_id, by, name = (event.get("table"), event.get("ruleset_id"),
                                       event.get("account"), event.get("name"))
        if not isinstance(table, int) or not isinstance(ruleset_id, str) \
                or not isinstance(by, int) or not isinstance(name, str):
            return
        here = [i for i in self.room.feeds if i != by]
        for account_id in sorted(await run_in_threadpool(friends.followers_of, self.engine,
                                                         by, here)):
            for feed in self.room.feeds_of(account_id):
                feed.post(protocol.opened(table, ruleset_id, name))

    async def push_invitations(self, account_id: int) -> None:
        feeds = self.room.feeds_of(account_id)
        if not feeds:
            return
        found = await run_in_threadpool(pending_invitations, self.engine, account_id)
        for feed in feeds:
            feed.post(protocol.invitations(found))

    async def announce(self, account_ids: list[int]) -> None:
        """Tell every process that these players' invitations changed."""
        if account_ids:
            await self.hub.events.publish(announcements.invites(account_ids))

    # -- announcements from any process (this one too) ---------------------------------

    async def _on_paired(self, event: announcements.Paired) -> None:
        if self.room.feeds:
            self._tell_paired(event)

    async def _on_opened(self, event: announcements.Opened) -> None:
        if self.room.feeds:
            await self._tell_opened(event)

    async def _on_follows(self, event: announcements.Follows) -> None:
        """Whom these players follow changed: their followed players online again."""
        ids = event.get("accounts")
        if not self.room.feeds or not isinstance(ids, list):
            return
        mine = [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]
        for account_id in mine:
            self.last_friends.pop(account_id, None)
        await self.push_friends(mine)

    async def _on_invites(self, event: announcements.Invites) -> None:
        """These players' invitations changed."""
        if not self.room.feeds:
            return
        ids = event.get("accounts")
        await self._push_invitations(
            [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]
            if isinstance(ids, list) else [])

    async def _on_table(self, event: announcements.TableChanged) -> None:
        """A table changed: the invitations of whom it invites."""
        table_id = event.get("table")
        if self.room.feeds and isinstance(table_id, int):
            await self._push_invitations(
                await run_in_threadpool(invited_to, self.engine, table_id))

    async def _on_resync(self, event: announcements.Resync) -> None:
        """Announcements may have been missed: every feed's invitations again."""
        if self.room.feeds:
            await self._push_invitations(list(self.room.feeds))

    async def _push_invitations(self, account_ids: list[int]) -> None:
        for account_id in account_ids:
            await self.push_invitations(account_id)

    def _tell_paired(self, event: announcements.Paired) -> None:
        table, ruleset_id, ids = event.get("table"), event.get("ruleset_id"), \
            event.get("accounts")
        if not isinstance(table, int) or not isinstance(ruleset_id, str) \
                or not isinstance(ids, list):
            return
        for seat, account_id in enumerate(ids):
            if isinstance(account_id, int):
                for feed in self.room.feeds_of(account_id):
                    feed.post(protocol.paired(table, ruleset_id, seat))
