"""Play now: a pool of players waiting for an opponent in one ruleset, paired by
rating (their routes: :mod:`.routes.ratings`: ``POST``, ``GET`` and ``DELETE
/api/pairing``).

The pool is a table of the database (``pairing``), so every server process on
one database pairs from the same pool: a player may enter it through one process
and be paired with a player who entered through another. A pass
(:func:`pair`) runs under a lock that holds every other process's pass (on
PostgreSQL a transaction-level advisory lock; an SQLite file has one process,
whose passes run one at a time), so no player is seated twice. Each process runs a
pass every :data:`BEAT` seconds and at once when a player enters.

Two players are paired when their ``mu`` (:mod:`blockyard.ratings`, the rating
of the ruleset when they entered) differ by at most :func:`allowed_gap` of the
longer wait of the two: :data:`BASE_GAP` at once, widening by
:data:`WIDEN_PER_SECOND` for every second waited, so a player nobody close to
them is waiting with still gets a game. Waiting time is the server's clock's
(:mod:`.clock`). Only players online (:mod:`.social`'s presence: an
authenticated call or a live connection lately) are paired; an entry whose player
has not been online for :data:`LAPSE_SECONDS` leaves the pool, so a window closed
without leaving it does not seat a player who is gone.

A pair is seated at a new public, rated table of two seats (the player who waited
longer in seat 0) that starts at once, in the transaction that takes both out of
the pool; their entries keep the table's id (``GET /api/pairing`` says it), and
both players are told on their own live channel (``/api/me/live``): a ``paired``
message with the table's id and their seat, announced to every process at the
commit (a ``paired`` announcement, :mod:`~blockyard.server.announcements`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from ..ratings import Rating
from . import announcements, db
from .tablestore import decide_rated, new_code, new_seed

BASE_GAP = 2.0
"""The ``mu`` two players may differ by when paired at once."""
WIDEN_PER_SECOND = 0.25
"""How much the allowed gap widens for every second the longer waiter has waited
(after 30 s: 9.5, more than a newcomer's ``sigma``)."""
BEAT = 2.0
"""Seconds between two pairing passes of a process."""
LAPSE_SECONDS = 120.0
"""An entry whose player has not been online this long leaves the pool."""
PAIRING_LOCK = 0x426C6F6350
"""The PostgreSQL advisory lock a pairing pass holds."""


class PairingError(Exception):
    """A pairing call that cannot be done: ``status`` and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Waiting:
    """A player in the pool: their account, ruleset, ``mu`` and when they entered."""

    account_id: int
    ruleset_id: str
    mu: float
    joined: _dt.datetime


@dataclass(frozen=True)
class Paired:
    """A pair seated: the table, its ruleset and the accounts in seat order."""

    table_id: int
    ruleset_id: str
    account_ids: tuple[int, int]

    def event(self) -> announcements.Paired:
        """The announcement to every process (each tells its own connections)."""
        return announcements.paired(self.table_id, self.ruleset_id, self.account_ids)


def allowed_gap(waited: float) -> float:
    """The ``mu`` two players may differ by when the longer waiter of them has
    waited ``waited`` seconds."""
    return BASE_GAP + WIDEN_PER_SECOND * max(0.0, waited)


def match(waiting: Sequence[Waiting], moment: _dt.datetime) -> list[tuple[Waiting, Waiting]]:
    """The pairs to seat now among ``waiting`` (one ruleset or several): the
    longest waiter first, each paired with the closest ``mu`` of the same ruleset
    still unpaired when within :func:`allowed_gap` of its wait (ties: the longer
    waiter). A pure function of the pool and the moment."""
    order = sorted(waiting, key=lambda w: (w.joined, w.account_id))
    taken: set[int] = set()
    pairs = []
    for first in order:
        if first.account_id in taken:
            continue
        gap = allowed_gap((moment - first.joined).total_seconds())
        others = [w for w in order if w.account_id not in taken
                  and w.account_id != first.account_id and w.ruleset_id == first.ruleset_id]
        if not others:
            continue
        closest = min(others, key=lambda w: (abs(w.mu - first.mu), w.joined, w.account_id))
        if abs(closest.mu - first.mu) <= gap:
            taken.update((first.account_id, closest.account_id))
            pairs.append((first, closest))
    return pairs


def _utc(moment: _dt.datetime) -> _dt.datetime:
    return moment.replace(tzinfo=_dt.UTC) if moment.tzinfo is None else moment


def enter(engine: Engine, account_id: int, ruleset_id: str, moment: _dt.datetime
          ) -> Waiting:
    """Put the player in the pool for ``ruleset_id`` (their ``mu`` in it, a
    newcomer's when never rated). ``PairingError`` 409 when they wait already
    (in any ruleset) or hold a seat at a table that is waiting or playing (Play
    now seats a player once: they finish or leave that table first); an entry
    of an earlier pairing is replaced."""
    p, r, t, seats = db.pairing, db.ratings, db.tables, db.table_seats
    with engine.begin() as conn:
        held = conn.execute(sa.select(p.c.ruleset_id, p.c.table_id)
                            .where(p.c.account_id == account_id)).first()
        if held is not None and held.table_id is None:
            raise PairingError(409, f"already waiting for a game of {held.ruleset_id!r}: "
                                    "leave the pool first (DELETE /api/pairing)")
        seated = conn.execute(sa.select(t.c.id).join(seats, seats.c.table_id == t.c.id)
                              .where(seats.c.account_id == account_id,
                                     t.c.status.in_(("waiting", "playing")))
                              .order_by(t.c.id).limit(1)).scalar_one_or_none()
        if seated is not None:
            raise PairingError(409, f"you are seated at table {int(seated)}: finish or "
                                    "leave it first")
        if held is not None:
            conn.execute(sa.delete(p).where(p.c.account_id == account_id))
        mu = conn.execute(sa.select(r.c.mu).where(r.c.account_id == account_id,
                                                  r.c.ruleset_id == ruleset_id)
                          ).scalar_one_or_none()
        entry = Waiting(account_id, ruleset_id, Rating().mu if mu is None else float(mu),
                        moment)
        try:
            conn.execute(sa.insert(p).values(account_id=account_id, ruleset_id=ruleset_id,
                                             mu=entry.mu, joined=moment))
        except sa.exc.IntegrityError:  # another call of the same player was first
            raise PairingError(409, "already waiting for a game: leave the pool first "
                                    "(DELETE /api/pairing)") from None
    return entry


def leave(engine: Engine, account_id: int) -> bool:
    """Take the player out of the pool; whether they were waiting."""
    p = db.pairing
    with engine.begin() as conn:
        gone = conn.execute(sa.delete(p).where(p.c.account_id == account_id,
                                               p.c.table_id.is_(None)))
    return bool(gone.rowcount)


def status(engine: Engine, account_id: int, moment: _dt.datetime) -> dict[str, Any] | None:
    """The player's entry as ``GET /api/pairing`` answers it, or ``None`` when they
    have none: ``{"ruleset_id", "since", "waited", "gap", "table", "seat"}`` (the
    seconds waited and the gap allowed now while waiting; the table and seat once
    paired, else ``None``)."""
    p, seats = db.pairing, db.table_seats
    with engine.connect() as conn:
        row = conn.execute(sa.select(p).where(p.c.account_id == account_id)).first()
        if row is None:
            return None
        seat = None if row.table_id is None else conn.execute(
            sa.select(seats.c.seat).where(seats.c.table_id == row.table_id,
                                          seats.c.account_id == account_id)
        ).scalar_one_or_none()
    joined = _utc(row.joined)
    waited = max(0.0, (moment - joined).total_seconds())
    paired = row.table_id is not None
    return {"ruleset_id": str(row.ruleset_id),
            "since": joined.isoformat(timespec="seconds"),
            "waited": None if paired else round(waited, 3),
            "gap": None if paired else round(allowed_gap(waited), 3),
            "table": None if row.table_id is None else int(row.table_id),
            "seat": None if seat is None else int(seat)}


def pair(engine: Engine, moment: _dt.datetime, online_since: _dt.datetime,
         deal_date: Callable[[str], str | None]) -> list[Paired]:
    """One pairing pass over the whole pool, in one transaction holding every
    other process's pass: the entries whose players have not been online since
    ``moment - LAPSE_SECONDS`` leave the pool; of the rest, those online since
    ``online_since`` are paired (:func:`match`) and each pair seated at a new
    rated table starting at ``moment`` (``deal_date``: the date a new deal of a
    ruleset plays, ``None`` for a ruleset that is not daily). On PostgreSQL the
    pairs are announced to every process at the commit; the pairs seated."""
    p, a = db.pairing, db.accounts
    lapse = moment - _dt.timedelta(seconds=LAPSE_SECONDS)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(PAIRING_LOCK)))
        rows = conn.execute(sa.select(p.c.account_id, p.c.ruleset_id, p.c.mu, p.c.joined,
                                      a.c.last_seen)
                            .join(a, a.c.id == p.c.account_id)
                            .where(p.c.table_id.is_(None))
                            .order_by(p.c.joined, p.c.account_id)).all()
        if not rows:
            return []
        gone = [int(row.account_id) for row in rows
                if row.last_seen is None or _utc(row.last_seen) < lapse]
        if gone:
            conn.execute(sa.delete(p).where(p.c.account_id.in_(gone),
                                            p.c.table_id.is_(None)))
        present = [Waiting(int(row.account_id), str(row.ruleset_id), float(row.mu),
                           _utc(row.joined)) for row in rows
                   if row.last_seen is not None and _utc(row.last_seen) >= online_since]
        if present:  # seated meanwhile (a join since they entered): not seated twice
            t, seats = db.tables, db.table_seats
            busy = set(conn.execute(
                sa.select(seats.c.account_id).join(t, t.c.id == seats.c.table_id)
                .where(seats.c.account_id.in_([w.account_id for w in present]),
                       t.c.status.in_(("waiting", "playing")))).scalars())
            present = [w for w in present if w.account_id not in busy]
        seated = [_seat(conn, first, second, moment, deal_date(first.ruleset_id))
                  for first, second in match(present, moment)]
        announcements.notify(conn, [done.event() for done in seated])
    return seated


def _seat(conn: Connection, first: Waiting, second: Waiting, moment: _dt.datetime,
          date: str | None) -> Paired:
    """A new public, rated table of two seats, both taken and playing from
    ``moment``; both entries marked with it."""
    t, p = db.tables, db.pairing
    result = conn.execute(sa.insert(t).values(
        code=new_code(), ruleset_id=first.ruleset_id, seats=2, private=False,
        status="playing", round=1, seed=new_seed(), date=date, started=moment,
        creator_id=first.account_id, created=moment, rated=True))
    key = result.inserted_primary_key
    assert key is not None
    table_id = int(key[0])
    conn.execute(sa.insert(db.table_seats), [
        {"table_id": table_id, "seat": 0, "account_id": first.account_id},
        {"table_id": table_id, "seat": 1, "account_id": second.account_id}])
    conn.execute(sa.update(p).where(p.c.account_id.in_([first.account_id,
                                                        second.account_id]))
                 .values(table_id=table_id, paired=moment))
    decide_rated(conn, table_id, moment)  # friendly once the pair's 3 rated rounds are played
    return Paired(table_id, first.ruleset_id, (first.account_id, second.account_id))


def paired_table(engine: Engine, account_id: int) -> tuple[int, str, int] | None:
    """The playing table Play now seated the player at, as ``(table, ruleset,
    seat)``, or ``None`` (not paired, or that table's round is over)."""
    p, t, seats = db.pairing, db.tables, db.table_seats
    with engine.connect() as conn:
        row = conn.execute(sa.select(p.c.table_id, t.c.ruleset_id, seats.c.seat)
                           .join(t, t.c.id == p.c.table_id)
                           .join(seats, sa.and_(seats.c.table_id == p.c.table_id,
                                                seats.c.account_id == account_id))
                           .where(p.c.account_id == account_id,
                                  t.c.status == "playing")).first()
    return None if row is None else (int(row.table_id), str(row.ruleset_id), int(row.seat))
