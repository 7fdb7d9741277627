"""Live tables in the database: tables, seats, invitations, every accepted
action and every round's result. All table state lives here (a server process
keeps only caches), so a stopped process loses nothing: the seats' games are
rebuilt from the stored actions."""

from __future__ import annotations

import datetime as _dt
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from .. import protocol, ratings
from ..ratings import Rating
from . import announcements, db
from .accounts import Account, now
from .referee import Move

if TYPE_CHECKING:
    from .presence import SeatView

__all__ = ["Move", "Table", "TableError"]

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
MIN_SEATS, MAX_SEATS = 2, 8
MAX_INVITES = 32
INVITE_HOURS = 24
"""An unanswered invitation lapses after this many hours."""
STATUSES = ("waiting", "playing", "finished")
MIN_ACTIONS = 2
"""A round in which a seat made fewer actions of its own than this (placements or
ruleset actions: not ``tick`` or ``end``) is aborted: it rates nobody."""
PAIR_ROUNDS = 3
"""At most this many rounds between the same two accounts change ratings in any
:data:`PAIR_HOURS` hours (the server's clock); later ones are friendly."""
PAIR_HOURS = 24
"""The window in which :data:`PAIR_ROUNDS` is counted."""
MAX_SEATS_HELD = 3
"""The most seats one account holds at tables that are waiting or playing (the
seats of tables it created and of Play now's tables included): one more table
or join is refused (``429``), so that nobody crowds the others out."""


class TableError(Exception):
    """A table call that cannot be done: ``status`` and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Table:
    """A table as stored."""

    id: int
    code: str
    ruleset_id: str
    seats: int
    private: bool
    status: str
    round: int
    seed: int
    date: str | None
    started: _dt.datetime | None
    """When the current round started (UTC)."""
    players: tuple[str | None, ...]
    """The name in each seat, or ``None``."""
    player_ids: tuple[int | None, ...]
    invited: frozenset[int]
    """Account ids invited."""
    rematch_by: int | None = None
    """The seat whose ``rematch`` dealt the current round (``None``: the first round)."""
    invited_names: tuple[str, ...] = ()
    """The names of the players with a pending invitation (unanswered, younger than
    a day, the table waiting, not seated), in the order they were invited."""
    rated: bool = False
    """Whether its rounds' results change the seats' ratings."""
    ratings: tuple[Rating | None, ...] = ()
    """Each seat's rating in the table's ruleset (a newcomer's for a player never
    rated in it; ``None`` for a free seat)."""
    friendly_pairs: tuple[tuple[int, int], ...] = ()
    """The pairs of seats that had played :data:`PAIR_ROUNDS` rated rounds together
    in the :data:`PAIR_HOURS` hours before the current round was dealt: the round
    is friendly (``rated`` is then false), said before it starts."""

    def seat_of(self, account: Account | None) -> int | None:
        """The seat ``account`` holds, or ``None``."""
        if account is None:
            return None
        for seat, holder in enumerate(self.player_ids):
            if holder == account.id:
                return seat
        return None

    def may_watch(self, account: Account | None, code: str | None) -> bool:
        """Whether ``account`` may watch (a private table: seated, invited, or the code)."""
        if not self.private:
            return True
        if code is not None and secrets.compare_digest(code.upper(), self.code):
            return True
        return account is not None and (account.id in self.invited
                                        or self.seat_of(account) is not None)

    def message(self, view: SeatView | None = None) -> protocol.TableMessage:
        """The ``table`` message of the live protocol, with who is there when
        ``view`` is given (:func:`~blockyard.server.presence.seat_view`)."""
        return protocol.table(id=self.id, ruleset_id=self.ruleset_id, seed=self.seed,
                              seats=self.players, status=self.status, round=self.round,
                              rematch_by=self.rematch_by, invited=self.invited_names,
                              rated=self.rated, ratings=self.shown_ratings(),
                              pair_limit=self.pair_limit(),
                              presence=None if view is None else view.presence,
                              waiting_for=() if view is None else view.waiting_for)

    def pair_limit(self) -> protocol.PairLimit | None:
        """Why a round of a rated table is friendly, as the ``table`` message says
        it: the pairs of seats that reached the limit (``None``: none did)."""
        if not self.friendly_pairs:
            return None
        return protocol.pair_limit(PAIR_ROUNDS, PAIR_HOURS, self.friendly_pairs)

    def shown_ratings(self) -> list[protocol.SeatRating | None]:
        """Each seat's rating as the messages carry it (``None``: a free seat)."""
        return [None if r is None else r.shown() for r in self.ratings]


def no_table(table_id: int) -> str:
    """The answer's sentence for a table id that names no table (also a private
    table's, to whom may not watch it: the same words, so they say nothing)."""
    return f"no table {table_id}"


def new_code() -> str:
    """A table's random code (8 letters and digits, none of them look-alikes)."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def new_seed() -> int:
    """A new deal's seed."""
    return secrets.randbits(48)


def _account_ids(conn: Connection, names: list[str]) -> dict[str, int]:
    keys = [name.lower() for name in names]
    rows = conn.execute(sa.select(db.accounts.c.id, db.accounts.c.name_key)
                        .where(db.accounts.c.name_key.in_(keys))).all()
    return {row.name_key: int(row.id) for row in rows}


def create_table(engine: Engine, creator: Account, ruleset_id: str, seats: int,
                 private: bool, invite: list[str], date: str | None,
                 rated: bool = False,
                 admit: Callable[[Connection], object] | None = None) -> Table:
    """A new table; the creator holds seat 0 (``TableError`` 422 for an invited
    name with no account, 429 when the creator holds :data:`MAX_SEATS_HELD` seats
    already: counted in the transaction that opens the table, holding the
    creator's account, so two at once cannot both pass). ``rated``: its results
    change the seats' ratings. ``admit``: called in that transaction, holding the
    creator's and the invited players' accounts (:func:`lock_accounts`), before
    anything is stored; what it raises refuses the table (the limits of
    invitations, :func:`blockyard.server.social.invites_allowed`)."""
    with engine.begin() as conn:
        # first: on SQLite it takes the write lock
        lock_accounts(conn, creator.id, invite)
        check_seats_held(conn, creator.id)
        if admit is not None:
            admit(conn)
        found = _account_ids(conn, invite) if invite else {}
        missing = [name for name in invite if name.lower() not in found]
        if missing:
            raise TableError(422, f"invite: no account named {missing[0]!r}")
        result = conn.execute(sa.insert(db.tables).values(
            code=new_code(), ruleset_id=ruleset_id, seats=seats, private=private,
            status="waiting", round=1, seed=new_seed(), date=date,
            creator_id=creator.id, created=now(), rated=rated))
        key = result.inserted_primary_key
        assert key is not None
        table_id = int(key[0])
        conn.execute(sa.insert(db.table_seats).values(table_id=table_id, seat=0,
                                                      account_id=creator.id))
        moment = now()
        for account_id in sorted(set(found.values())):
            conn.execute(sa.insert(db.table_invites).values(
                table_id=table_id, account_id=account_id, inviter_id=creator.id,
                created=moment))
        return _load(conn, table_id)


def _load(conn: Connection, table_id: int) -> Table:
    row = conn.execute(sa.select(db.tables).where(db.tables.c.id == table_id)).first()
    if row is None:
        raise TableError(404, no_table(table_id))
    rated_in = db.ratings
    seated = conn.execute(
        sa.select(db.table_seats.c.seat, db.table_seats.c.account_id, db.accounts.c.name,
                  rated_in.c.mu, rated_in.c.sigma, rated_in.c.games)
        .join(db.accounts, db.accounts.c.id == db.table_seats.c.account_id)
        .outerjoin(rated_in, sa.and_(rated_in.c.account_id == db.table_seats.c.account_id,
                                     rated_in.c.ruleset_id == row.ruleset_id))
        .where(db.table_seats.c.table_id == table_id)).all()
    names: list[str | None] = [None] * int(row.seats)
    ids: list[int | None] = [None] * int(row.seats)
    held: list[Rating | None] = [None] * int(row.seats)
    for seat in seated:
        names[seat.seat] = str(seat.name)
        ids[seat.seat] = int(seat.account_id)
        held[seat.seat] = Rating() if seat.mu is None else \
            Rating(float(seat.mu), float(seat.sigma), int(seat.games))
    invites = db.table_invites
    # who is invited matters to a private table (who may watch it) and to a
    # waiting one (the invitations still pending): not read for the others
    invited = conn.execute(sa.select(invites.c.account_id, invites.c.answer,
                                     invites.c.created, db.accounts.c.name)
                           .join(db.accounts, db.accounts.c.id == invites.c.account_id)
                           .where(invites.c.table_id == table_id)
                           .order_by(invites.c.created, invites.c.account_id)).all() \
        if row.private or row.status == "waiting" else []
    lapse = now() - _dt.timedelta(hours=INVITE_HOURS)
    pending = tuple(str(i.name) for i in invited
                    if row.status == "waiting" and i.answer is None
                    and (_utc(i.created) or lapse) > lapse and int(i.account_id) not in ids)
    rematch_by = row.rematch_by
    pairs = _pairs(row.friendly_pairs) if row.status != "waiting" else ()
    return Table(int(row.id), str(row.code), str(row.ruleset_id), int(row.seats),
                 bool(row.private), str(row.status), int(row.round), int(row.seed),
                 row.date, _utc(row.started), tuple(names), tuple(ids),
                 frozenset(int(i.account_id) for i in invited),
                 int(rematch_by) if rematch_by is not None else None, pending,
                 bool(row.rated) and not pairs, tuple(held), pairs)


def _pairs(text: str | None) -> tuple[tuple[int, int], ...]:
    """The pairs of seats of ``tables.friendly_pairs`` (JSON, or NULL)."""
    if not text:
        return ()
    return tuple((int(a), int(b)) for a, b in json.loads(text))


def pairs_at_limit(conn: Connection, player_ids: Sequence[int | None],
                   moment: _dt.datetime) -> list[tuple[int, int]]:
    """The pairs of seats ``(a, b)``, ``a < b``, whose two accounts have played
    :data:`PAIR_ROUNDS` rated rounds together within :data:`PAIR_HOURS` hours of
    ``moment``, before or after it (read in ``conn``'s transaction: a round that
    another transaction stored meanwhile may carry a later moment than this one's,
    taken before its locks were held): a round between them now is friendly."""
    held = [(seat, holder) for seat, holder in enumerate(player_ids) if holder is not None]
    if len(held) < 2:
        return []
    since = moment - _dt.timedelta(hours=PAIR_HOURS)
    mine, theirs, r = (db.table_result_seats.alias("mine"),
                       db.table_result_seats.alias("theirs"), db.table_results)
    ids = [holder for _, holder in held]
    rows = conn.execute(
        sa.select(mine.c.account_id, theirs.c.account_id, sa.func.count())
        .join(theirs, sa.and_(theirs.c.table_id == mine.c.table_id,
                              theirs.c.round == mine.c.round,
                              theirs.c.account_id > mine.c.account_id))
        .join(r, sa.and_(r.c.table_id == mine.c.table_id, r.c.round == mine.c.round))
        .where(mine.c.account_id.in_(ids), theirs.c.account_id.in_(ids),
               # and after: a result another process stored meanwhile may carry a
               # later moment than this one's (taken before its locks were held)
               r.c.rated.is_(True), r.c.created > since,
               r.c.created < moment + _dt.timedelta(hours=PAIR_HOURS))
        .group_by(mine.c.account_id, theirs.c.account_id)).all()
    seat_of = {holder: seat for seat, holder in held}
    found = []
    for a, b, n in rows:
        if int(n) >= PAIR_ROUNDS:
            first, second = sorted((seat_of[int(a)], seat_of[int(b)]))
            found.append((first, second))
    return sorted(found)


def decide_rated(conn: Connection, table_id: int, moment: _dt.datetime) -> None:
    """Decide whether the round a full rated table starts now is rated (the
    ``table`` message says it before the round starts): friendly when two of its
    seats reached the limit of rated rounds together (:func:`pairs_at_limit`)."""
    row = conn.execute(sa.select(db.tables.c.rated).where(db.tables.c.id == table_id)
                       ).first()
    ids = conn.execute(sa.select(db.table_seats.c.seat, db.table_seats.c.account_id)
                       .where(db.table_seats.c.table_id == table_id)
                       .order_by(db.table_seats.c.seat)).all()
    seats: list[int | None] = [None] * (1 + max((int(i.seat) for i in ids), default=0))
    for seated in ids:
        seats[int(seated.seat)] = int(seated.account_id)
    pairs = pairs_at_limit(conn, seats, moment) if row is not None and row.rated else []
    conn.execute(sa.update(db.tables).where(db.tables.c.id == table_id)
                 .values(friendly_pairs=json.dumps(pairs) if pairs else None))


def _utc(moment: _dt.datetime | None) -> _dt.datetime | None:
    if moment is not None and moment.tzinfo is None:  # SQLite keeps no time zone: UTC
        return moment.replace(tzinfo=_dt.UTC)
    return moment


def lock_account(conn: Connection, account_id: int) -> None:
    """Hold the account's row until the end of ``conn``'s transaction, so that two
    transactions counting its seats (:func:`check_seats_held`, of any process) run
    one after the other: ``SELECT … FOR NO KEY UPDATE`` on PostgreSQL (rows
    referring to the account are still added meanwhile); on SQLite a write of the
    row, which takes the database's one write lock before anything is read."""
    a = db.accounts
    if conn.dialect.name == "sqlite":
        # a column no key or index holds, written as it is: the write lock, nothing else
        conn.execute(sa.update(a).where(a.c.id == account_id).values(created=a.c.created))
        return
    conn.execute(sa.select(a.c.id).where(a.c.id == account_id)
                 .with_for_update(key_share=True)).first()


def lock_accounts(conn: Connection, account_id: int, names: Sequence[str]) -> None:
    """Hold the rows of the account ``account_id`` and of the accounts named
    ``names`` (any case) as :func:`lock_account` holds one, in one statement and in
    account order (the order every transaction that holds several accounts takes
    them in): the counts of a table's invitations, by its inviter and by each
    invited player, are then made one transaction after the other."""
    a = db.accounts
    which = sa.or_(a.c.id == account_id, a.c.name_key.in_([n.lower() for n in names]))
    if conn.dialect.name == "sqlite":
        conn.execute(sa.update(a).where(which).values(created=a.c.created))
        return
    conn.execute(sa.select(a.c.id).where(which).order_by(a.c.id)
                 .with_for_update(key_share=True)).all()


def seats_held(conn: Connection, account_id: int) -> int:
    """How many seats the account holds at tables that are waiting or playing."""
    s, t = db.table_seats, db.tables
    return int(conn.execute(sa.select(sa.func.count()).select_from(s)
                            .join(t, t.c.id == s.c.table_id)
                            .where(s.c.account_id == account_id,
                                   t.c.status.in_(("waiting", "playing")))).scalar_one())


def check_seats_held(conn: Connection, account_id: int, name: str | None = None) -> None:
    """``TableError`` 429 when the account holds :data:`MAX_SEATS_HELD` seats at
    tables that are waiting or playing; decided holding the account's row
    (:func:`lock_account`) until the end of ``conn``'s transaction, in which the
    caller then takes the seat. ``name``: the account's, when the seat is taken
    for another player than the caller (a rematch deals every seat again)."""
    lock_account(conn, account_id)
    held = seats_held(conn, account_id)
    if held >= MAX_SEATS_HELD:
        if name is not None:
            raise TableError(429, f"{name} holds a seat at {held} other tables that are "
                                  f"waiting or playing, the most one player may hold "
                                  f"({MAX_SEATS_HELD}): the next round cannot start until "
                                  "they finish or leave one")
        raise TableError(429, f"you hold a seat at {held} tables that are waiting or "
                              f"playing, the most one player may hold "
                              f"({MAX_SEATS_HELD}); finish or leave one first")


def load_table(engine: Engine, table_id: int) -> Table:
    """The table (``TableError`` 404 when there is none)."""
    with engine.connect() as conn:
        return _load(conn, table_id)


def list_tables(engine: Engine, limit: int = 100) -> list[Table]:
    """Public tables that are waiting or playing, newest first."""
    with engine.connect() as conn:
        ids = conn.execute(sa.select(db.tables.c.id)
                           .where(db.tables.c.private.is_(False),
                                  db.tables.c.status.in_(("waiting", "playing")))
                           .order_by(db.tables.c.id.desc()).limit(limit)).scalars().all()
        return [_load(conn, int(i)) for i in ids]


def count_tables(engine: Engine) -> dict[str, int]:
    """The number of live tables by status (``waiting``, ``playing``,
    ``finished``): the figures of ``/metrics``."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(db.tables.c.status, sa.func.count())
                            .group_by(db.tables.c.status)).all()
    return {str(status): int(n) for status, n in rows}


def lock_table(conn: Connection, table_id: int) -> bool:
    """Hold the table's row until the end of ``conn``'s transaction, so that the
    transaction's reads and writes of the table and its seats are not interleaved
    with another one's (of any process): ``SELECT … FOR NO KEY UPDATE`` on
    PostgreSQL (rows referring to the table, its actions, are still added
    meanwhile); on SQLite a write of the row, which takes the database's one
    write lock before anything is read. Whether the table exists."""
    t = db.tables
    if conn.dialect.name == "sqlite":
        touched = conn.execute(sa.update(t).where(t.c.id == table_id)
                               .values(round=t.c.round))
        return bool(touched.rowcount)
    return conn.execute(sa.select(t.c.id).where(t.c.id == table_id)
                        .with_for_update(key_share=True)).first() is not None


def join_table(engine: Engine, table_id: int, account: Account, code: str | None,
               moment: _dt.datetime | None = None) -> Table:
    """Take the lowest free seat (or keep the one held): 403 for a private table
    without invitation or code, 409 when full or no longer waiting (a closed or
    finished table says so), 404 for no table, 429 when the account holds
    :data:`MAX_SEATS_HELD` seats at other tables that are waiting or playing
    (counted holding the account, :func:`check_seats_held`). The table starts
    when full. One transaction holding the table (:func:`lock_table`): the seat
    is taken only while the table is waiting, and it starts playing only when
    every seat is taken, counted in that transaction (its round starting at ``moment``: now
    unless told, as the server's clock says)."""
    with engine.begin() as conn:
        if not lock_table(conn, table_id):
            raise TableError(404, no_table(table_id))
        table = _load(conn, table_id)
        if table.seat_of(account) is not None:
            return table
        if table.private and not (account.id in table.invited or (
                code is not None and secrets.compare_digest(code.upper(), table.code))):
            raise TableError(403, "this table is private: an invitation or its code is "
                                  "needed")
        if table.status == "finished":
            if all(holder is None for holder in table.player_ids):
                raise TableError(409, "this table is closed: everybody left it")
            raise TableError(409, "this table is finished: a seat is taken only while it "
                                  "waits for players")
        free = [n for n, holder in enumerate(table.player_ids) if holder is None]
        if not free or table.status != "waiting":
            raise TableError(409, "this table is full")
        check_seats_held(conn, account.id)
        conn.execute(sa.insert(db.table_seats).values(
            table_id=table_id, seat=free[0], account_id=account.id))
        held = conn.execute(sa.select(sa.func.count()).select_from(db.table_seats)
                            .where(db.table_seats.c.table_id == table_id)).scalar_one()
        if int(held) == table.seats:
            started = moment or now()
            conn.execute(sa.update(db.tables).where(db.tables.c.id == table_id,
                                                    db.tables.c.status == "waiting")
                         .values(status="playing", started=started))
            decide_rated(conn, table_id, started)
        return _load(conn, table_id)


def free_seat(engine: Engine, table: Table, seat: int) -> Table:
    """Free ``seat`` of a table that is waiting, or finished (its player left
    after the result: a rematch then waits for a player to take it). A waiting
    table left with nobody is closed (status ``finished``, no result), as the
    sweep of absent seats closes one. The table's status is checked in the same
    transaction (a playing table's seat is left held: see :func:`leave_table`)."""
    with engine.begin() as conn:
        lock_table(conn, table.id)
        current = _load(conn, table.id)
        if current.status in ("waiting", "finished"):
            conn.execute(sa.delete(db.table_seats).where(
                db.table_seats.c.table_id == table.id, db.table_seats.c.seat == seat))
            _close_if_empty(conn, table.id)
        return _load(conn, table.id)


LEAVE_OUTCOMES = ("none", "freed", "declined", "end")


def leave_table(engine: Engine, table_id: int, account: Account, date: str | None
                ) -> tuple[str, Table, int | None]:
    """A player leaves a table, decided in one transaction holding the table (so a
    rematch, a join or another process's leave at the same moment is seen): the
    outcome (one of :data:`LEAVE_OUTCOMES`), the table after it and the seat.
    ``"none"``: ``account`` holds no seat. ``"freed"``: the table was waiting or
    finished and the seat is free (a waiting table left with nobody is closed).
    ``"declined"``: the table plays a round another seat's rematch dealt in which
    this seat has not acted: the seat is freed and the round dealt again, waiting
    for a player (``date``: the new deal's date). ``"end"``: the table plays and
    the seat keeps it: the caller ends the seat's game (the ``end`` action)."""
    with engine.begin() as conn:
        if not lock_table(conn, table_id):
            raise TableError(404, no_table(table_id))
        table = _load(conn, table_id)
        seat = table.seat_of(account)
        if seat is None:
            return "none", table, None
        if table.status in ("waiting", "finished"):
            conn.execute(sa.delete(db.table_seats).where(
                db.table_seats.c.table_id == table_id, db.table_seats.c.seat == seat))
            _close_if_empty(conn, table_id)
            return "freed", _load(conn, table_id), seat
        if _decline(conn, table, seat, date):
            return "declined", _load(conn, table_id), seat
        return "end", table, seat


def _close_if_empty(conn: Connection, table_id: int) -> None:
    nobody = ~sa.exists().where(db.table_seats.c.table_id == table_id)
    conn.execute(sa.update(db.tables).where(db.tables.c.id == table_id,
                                            db.tables.c.status == "waiting", nobody)
                 .values(status="finished"))


def actions(engine: Engine, table_id: int, round_: int) -> list[Move]:
    """Every accepted action of the round, in the order they were stored."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(db.table_actions)
                            .where(db.table_actions.c.table_id == table_id,
                                   db.table_actions.c.round == round_)
                            .order_by(db.table_actions.c.id)).all()
    return [Move(int(r.seat), int(r.n), json.loads(r.action), int(r.score), bool(r.over),
                 _utc(r.created)) for r in rows]


def add_action(engine: Engine, table: Table, seat: int, n: int, action: list[Any],
               score: int, over: bool) -> None:
    """Store an accepted action (the ``n``-th of the seat's log)."""
    with engine.begin() as conn:
        conn.execute(sa.insert(db.table_actions).values(
            table_id=table.id, round=table.round, seat=seat, n=n,
            action=json.dumps(action), score=score, over=over, created=now()))


Changes = list[protocol.RatingChange] | None
"""Each seat's rating change of a rated round (:func:`blockyard.ratings.changes`),
``None`` for an unrated one."""


@dataclass(frozen=True)
class Finished:
    """A round's result as :func:`finish_round` stored it: the ``winner`` (the seat
    alone in first place, the seats in ``left`` ranked below every seat that
    finished; ``None`` on a tie), ``ratings``, each seat's rating change
    (``None``: not rated), ``left`` (the seats that left the round rather than
    finished it) and ``aborted`` (a rated round in which a seat made fewer than
    :data:`MIN_ACTIONS` actions of its own: it rates nobody)."""

    ratings: Changes
    winner: int | None = None
    left: tuple[int, ...] = ()
    aborted: bool = False


def own_actions(conn: Connection, table: Table) -> list[int]:
    """How many actions of its own (placements or ruleset actions: not ``tick`` or
    ``end``) each seat made in the table's current round, read in ``conn``'s
    transaction (one query)."""
    a = db.table_actions
    own_action = sa.and_(a.c.action != json.dumps(["end"]), ~a.c.action.like('["tick"%'))
    rows = conn.execute(sa.select(a.c.seat, sa.func.count())
                        .where(a.c.table_id == table.id, a.c.round == table.round,
                               own_action)
                        .group_by(a.c.seat)).all()
    own = [0] * table.seats
    for seat, counted in rows:
        if 0 <= int(seat) < table.seats:
            own[int(seat)] = int(counted)
    return own


def _left_round(conn: Connection, table: Table) -> set[int]:
    """The seats whose player left the table's round rather than finished it:
    ``leave``, abandoned (signed out included: their connections closed) or idle
    (:func:`~blockyard.server.presence.mark_left`)."""
    here = db.seat_presence
    return {int(seat) for seat in conn.execute(
        sa.select(here.c.seat).where(here.c.table_id == table.id,
                                     here.c.left_round == table.round)).scalars()}


def finish_round(engine: Engine, table: Table, scores: list[int],
                 announce: Callable[[Finished], Sequence[Mapping[str, Any]]] | None = None,
                 moment: _dt.datetime | None = None) -> Finished | None:
    """Store the round's result and mark the table finished, all in one
    transaction, judging there the rules of a rated round (docs/online.md,
    "Ratings"): the seats that left the round rather than finished it (the
    ``leave`` message, abandoned or idle, as :mod:`~blockyard.server.presence`
    stored it) rank below every seat that finished (the ``winner`` says so); at
    a rated table a round in which a seat made fewer than :data:`MIN_ACTIONS`
    actions of its own is aborted, one between two accounts that played
    :data:`PAIR_ROUNDS` rated rounds together in the last :data:`PAIR_HOURS`
    hours is friendly, and any other rates the seats (:func:`rate_round`), the
    seats that left ranked last. What was stored, or ``None`` when
    another process was first. When this call did it, the events ``announce``
    makes of the stored result are announced to every process at the same
    commit (PostgreSQL's ``NOTIFY``, :mod:`~blockyard.server.events`).
    ``moment``: now unless told (the server's clock)."""
    moment = moment or now()
    with engine.begin() as conn:
        updated = conn.execute(sa.update(db.tables)
                               .where(db.tables.c.id == table.id,
                                      db.tables.c.round == table.round,
                                      db.tables.c.status == "playing")
                               .values(status="finished"))
        if not updated.rowcount:
            return None
        left = tuple(sorted(s for s in _left_round(conn, table) if 0 <= s < len(scores)))
        aborted = table.rated and any(n < MIN_ACTIONS for n in own_actions(conn, table))
        changes = rate_round(conn, table, scores, moment, left) \
            if table.rated and not aborted else None
        done = Finished(changes, ratings.winner(scores, left), left, aborted)
        result = {"seats": list(table.players), "scores": scores, "winner": done.winner,
                  "ratings": changes, "left": list(left), "aborted": aborted}
        conn.execute(sa.insert(db.table_results).values(
            table_id=table.id, round=table.round, result=json.dumps(result),
            created=moment, rated=changes is not None))
        seated = [{"table_id": table.id, "round": table.round, "seat": seat,
                   "account_id": holder}
                  for seat, holder in enumerate(table.player_ids) if holder is not None]
        if seated:
            conn.execute(sa.insert(db.table_result_seats), seated)
        told = list(announce(done)) if announce is not None else []
        announcements.notify(conn, told)
        return done


def rate_round(conn: Connection, table: Table, scores: Sequence[int],
               moment: _dt.datetime, left: Sequence[int] = ()) -> Changes:
    """Rate the seats of ``table``'s finished round on ``scores`` in ``conn``'s
    transaction (the round's result is stored in the same one), the seats of
    ``left`` ranked last (:func:`blockyard.ratings.rate`): each seat's rating
    in the table's ruleset is read holding its row (``FOR UPDATE`` on PostgreSQL,
    in account order, so two tables finishing at once with a player in common
    rate one after the other), rated and written back. Holding them, the rated
    rounds its pairs of seats played together are counted
    (:func:`pairs_at_limit`): two that reached the limit make the round friendly
    (as two tables with them finishing at once see each other's result). Each
    seat's change, or ``None`` when a seat is free or the round is friendly."""
    ids = list(table.player_ids)
    if any(holder is None for holder in ids) or len(ids) < ratings.MIN_SEATS:
        return None
    held = [int(holder) for holder in ids if holder is not None]
    r = db.ratings
    fresh = Rating()
    new_rows = [{"account_id": holder, "ruleset_id": table.ruleset_id, "mu": fresh.mu,
                 "sigma": fresh.sigma, "games": 0, "value": fresh.value, "updated": moment}
                for holder in sorted(held)]
    conn.execute(_insert_missing(conn, r, new_rows))
    rows = conn.execute(sa.select(r.c.account_id, r.c.mu, r.c.sigma, r.c.games)
                        .where(r.c.ruleset_id == table.ruleset_id,
                               r.c.account_id.in_(held))
                        .order_by(r.c.account_id).with_for_update()).all()
    if pairs_at_limit(conn, ids, moment):
        return None
    found = {int(row.account_id): Rating(float(row.mu), float(row.sigma), int(row.games))
             for row in rows}
    before = [found[holder] for holder in held]
    after = ratings.rate(before, scores, left)
    for holder, rating in zip(held, after, strict=True):
        conn.execute(sa.update(r).where(r.c.account_id == holder,
                                        r.c.ruleset_id == table.ruleset_id)
                     .values(mu=rating.mu, sigma=rating.sigma, games=rating.games,
                             value=rating.value, updated=moment))
    return ratings.changes(before, after)


def _insert_missing(conn: Connection, target: sa.Table, rows: list[dict[str, Any]]
                    ) -> sa.Executable:
    """An insert of ``rows`` that leaves a row already there (by its key) as it is."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(target).values(rows).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(target).values(rows).on_conflict_do_nothing()


def results(engine: Engine, table_id: int) -> list[dict[str, Any]]:
    """Every finished round's result, oldest first: ``{"round", "seats", "scores",
    "winner", "ratings", "left", "aborted"}`` (``left`` missing from a round stored
    before the seats that left were stored with it)."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(db.table_results.c.round, db.table_results.c.result)
                            .where(db.table_results.c.table_id == table_id)
                            .order_by(db.table_results.c.round)).all()
    # a round stored before ratings existed was not rated, before aborts none was
    # (and before its leavers were stored with it, it has no "left")
    return [{"round": int(r.round), "ratings": None, "aborted": False,
             **json.loads(r.result)} for r in rows]


def account_results(engine: Engine, name: str, limit: int) -> list[dict[str, Any]] | None:
    """The finished rounds an account played at public tables, newest first
    (``None``: no such account; a private table's rounds are shown only to whom
    may watch it, never on a player's public page): each ``{"table_id", "round",
    "ruleset_id", "date", "seats", "scores", "winner", "seat"}`` with ``date``
    when the round finished (UTC, ISO 8601) and ``seat`` the account's own."""
    a, rs, r, t = db.accounts, db.table_result_seats, db.table_results, db.tables
    with engine.connect() as conn:
        account = conn.execute(sa.select(a.c.id).where(a.c.name_key == name.lower())).first()
        if account is None:
            return None
        rows = conn.execute(
            sa.select(rs.c.table_id, rs.c.round, rs.c.seat, r.c.result, r.c.created,
                      t.c.ruleset_id)
            .join(r, sa.and_(r.c.table_id == rs.c.table_id, r.c.round == rs.c.round))
            .join(t, t.c.id == rs.c.table_id)
            .where(rs.c.account_id == account.id, t.c.private.is_(False))
            .order_by(r.c.created.desc(), rs.c.table_id.desc(), rs.c.round.desc())
            .limit(limit)).all()
    found = []
    for row in rows:
        result = json.loads(row.result)
        finished = _utc(row.created)
        found.append({"table_id": int(row.table_id), "round": int(row.round),
                      "ruleset_id": str(row.ruleset_id),
                      "date": finished.isoformat() if finished else None,
                      "seats": result["seats"], "scores": result["scores"],
                      "winner": result["winner"], "seat": int(row.seat),
                      "rating": _own(result.get("ratings"), int(row.seat))})
    return found


def _own(changes: Any, seat: int) -> Any:
    """A seat's rating change of a stored result (``None``: not rated)."""
    return changes[seat] if isinstance(changes, list) and 0 <= seat < len(changes) else None


def rematch(engine: Engine, table: Table, date: str | None, seat: int | None = None,
            moment: _dt.datetime | None = None) -> Table:
    """Start the next round at a finished table: a new deal for every seat; when a
    player has left the table since, the round waits for a player to take the
    free seat (it starts when the table is full, as a new table does). ``seat``
    asked for it (the ``table`` message's ``rematch_by``). The seats are counted
    in the transaction that deals (holding the table), so a leave at the same
    moment never leaves a playing table with a free seat; nothing is done when the
    table has moved on from ``table``'s round or is not finished. A round that
    starts at once starts at ``moment`` (now unless told). Asking for it takes a
    seat again: ``TableError`` 429 when ``seat``'s player holds
    :data:`MAX_SEATS_HELD` seats at other tables that are waiting or playing
    (:func:`check_seats_held`, in the same transaction), nothing done; the same
    when another seat's player does (the round deals their seat again too: an old
    opponent's rematches cannot seat a player at more tables than the limit)."""
    with engine.begin() as conn:
        lock_table(conn, table.id)
        asker = table.player_ids[seat] if seat is not None else None
        if conn.execute(sa.select(db.tables.c.status).where(db.tables.c.id == table.id)
                        ).scalar() == "finished":
            # every seated account, in account order (the order every transaction
            # that holds several accounts takes them in)
            seated = sorted({(holder, name) for holder, name
                             in zip(table.player_ids, table.players, strict=True)
                             if holder is not None}, key=lambda pair: pair[0])
            for holder, name in seated:
                check_seats_held(conn, holder, None if holder == asker else name)
        held = conn.execute(sa.select(sa.func.count()).select_from(db.table_seats)
                            .where(db.table_seats.c.table_id == table.id)).scalar_one()
        full = int(held) == table.seats
        dealt = conn.execute(
            sa.update(db.tables)
            .where(db.tables.c.id == table.id, db.tables.c.round == table.round,
                   db.tables.c.status == "finished")
            .values(status="playing" if full else "waiting", round=table.round + 1,
                    seed=new_seed(), date=date, started=(moment or now()) if full else None,
                    rematch_by=seat, friendly_pairs=None))
        if full and dealt.rowcount:
            decide_rated(conn, table.id, moment or now())
        return _load(conn, table.id)


def _decline(conn: Connection, table: Table, seat: int, date: str | None) -> bool:
    acted = conn.execute(sa.select(db.table_actions.c.id)
                         .where(db.table_actions.c.table_id == table.id,
                                db.table_actions.c.round == table.round,
                                db.table_actions.c.seat == seat).limit(1)).first()
    if acted is not None or table.rematch_by is None or table.rematch_by == seat:
        return False
    updated = conn.execute(sa.update(db.tables)
                           .where(db.tables.c.id == table.id,
                                  db.tables.c.round == table.round,
                                  db.tables.c.status == "playing")
                           .values(status="waiting", round=table.round + 1,
                                   seed=new_seed(), date=date, started=None,
                                   rematch_by=None, friendly_pairs=None))
    if not updated.rowcount:
        return False
    conn.execute(sa.delete(db.table_seats).where(db.table_seats.c.table_id == table.id,
                                                 db.table_seats.c.seat == seat))
    _close_if_empty(conn, table.id)
    return True


def decline_rematch(engine: Engine, table: Table, seat: int, date: str | None) -> bool:
    """A player leaves a round that another seat's rematch dealt, before acting in
    it: their seat is freed and the round is dealt again, waiting for a player (as
    a rematch after a player left; nobody asked for that round: ``rematch_by``
    ``None``, so whoever takes the seat joins it as any table); whether it was
    done (``False``: the seat has acted in the round, or the table moved on
    meanwhile). Decided in one transaction holding the table."""
    with engine.begin() as conn:
        lock_table(conn, table.id)
        current = _load(conn, table.id)
        if current.round != table.round or current.player_ids[seat] != table.player_ids[seat]:
            return False
        return _decline(conn, current, seat, date)
