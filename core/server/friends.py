"""Whom a player follows and whom they muted, in the database (tables
``follows`` and ``mutes``; their routes: :mod:`.routes.social`).

A player follows another by name (``PUT /api/me/follows/{name}``): they are
told on their own live channel (``/api/me/live``) which of the players they
follow are online (``friends``) and when one opens a public table (``opened``).
A player mutes another (``PUT /api/me/mutes/{name}``): the muted player's quick
phrases are no longer delivered to them, at any table. Each list holds at most
:data:`MAX_LISTED` players; following or muting oneself is refused (422), a
name with no account is 404.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Collection

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from . import db
from .accounts import Account

MAX_LISTED = 500
"""The most players one player may follow, and the most they may mute."""
LISTS = {"follows": (db.follows, "followed_id"), "mutes": (db.mutes, "muted_id")}


class FriendError(Exception):
    """A follow or mute that cannot be done: ``status`` (404, 409, 422) and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _target(conn: sa.Connection, account: Account, name: str, what: str) -> int:
    found = conn.execute(sa.select(db.accounts.c.id)
                         .where(db.accounts.c.name_key == name.lower())).scalar()
    if found is None:
        raise FriendError(404, f"no account named {name!r}")
    if int(found) == account.id:
        raise FriendError(422, f"you cannot {what} yourself")
    return int(found)


def add(engine: Engine, which: str, account: Account, name: str,
        moment: _dt.datetime) -> bool:
    """Put ``name`` on ``account``'s list ``which`` (``follows`` or ``mutes``):
    whether it was not on it already. :class:`FriendError`: 404 no such account,
    422 oneself, 409 the list is full."""
    table, column = LISTS[which]
    verb = "follow" if which == "follows" else "mute"
    with engine.begin() as conn:
        target = _target(conn, account, name, verb)
        there = conn.execute(sa.select(table.c[column]).where(
            table.c.account_id == account.id, table.c[column] == target)).first()
        if there is not None:
            return False
        count = conn.execute(sa.select(sa.func.count()).select_from(table)
                             .where(table.c.account_id == account.id)).scalar_one()
        if int(count) >= MAX_LISTED:
            raise FriendError(409, f"you {verb} {MAX_LISTED} players already")
        try:
            with conn.begin_nested():
                conn.execute(sa.insert(table).values(account_id=account.id,
                                                     created=moment, **{column: target}))
        except sa.exc.IntegrityError:  # the same call at the same moment, elsewhere
            return False
    return True


def remove(engine: Engine, which: str, account: Account, name: str) -> bool:
    """Take ``name`` off ``account``'s list ``which``: whether it was on it
    (:class:`FriendError` 404 for a name with no account)."""
    table, column = LISTS[which]
    with engine.begin() as conn:
        found = conn.execute(sa.select(db.accounts.c.id)
                             .where(db.accounts.c.name_key == name.lower())).scalar()
        if found is None:
            raise FriendError(404, f"no account named {name!r}")
        gone = conn.execute(sa.delete(table).where(table.c.account_id == account.id,
                                                   table.c[column] == int(found)))
    return bool(gone.rowcount)


def listed(engine: Engine, which: str, account_id: int,
           online_since: _dt.datetime | None = None) -> list[tuple[str, bool]]:
    """The names on ``account_id``'s list ``which``, alphabetically, each with
    whether that player is online (seen at ``online_since`` or later; ``False``
    for all when not given)."""
    table, column = LISTS[which]
    accounts = db.accounts
    with db.reading(engine) as conn:
        rows = conn.execute(sa.select(accounts.c.name, accounts.c.last_seen)
                            .join(table, table.c[column] == accounts.c.id)
                            .where(table.c.account_id == account_id)
                            .order_by(accounts.c.name_key)).all()
    return [(str(r.name), online_since is not None and r.last_seen is not None
             and _utc(r.last_seen) >= online_since) for r in rows]


def friends_online(engine: Engine, account_ids: Collection[int],
                   online_since: _dt.datetime) -> dict[int, list[str]]:
    """For each of ``account_ids``, the players they follow who are online (seen
    at ``online_since`` or later), alphabetically (one query)."""
    wanted = sorted(set(account_ids))
    found: dict[int, list[str]] = {account_id: [] for account_id in wanted}
    if not wanted:
        return found
    follows, accounts = db.follows, db.accounts
    with db.reading(engine) as conn:
        for row in conn.execute(sa.select(follows.c.account_id, accounts.c.name)
                                .join(accounts, accounts.c.id == follows.c.followed_id)
                                .where(follows.c.account_id.in_(wanted),
                                       accounts.c.last_seen >= online_since)
                                .order_by(accounts.c.name_key)):
            found[int(row.account_id)].append(str(row.name))
    return found


def followers_of(engine: Engine, account_id: int, among: Collection[int]) -> set[int]:
    """Which of ``among`` follow ``account_id``."""
    wanted = sorted(set(among))
    if not wanted:
        return set()
    follows = db.follows
    with db.reading(engine) as conn:
        return {int(i) for i in conn.execute(
            sa.select(follows.c.account_id).where(follows.c.followed_id == account_id,
                                                  follows.c.account_id.in_(wanted))
        ).scalars()}


def muters_of(engine: Engine, account_id: int, among: Collection[int]) -> set[int]:
    """Which of ``among`` muted ``account_id``."""
    wanted = sorted(set(among))
    if not wanted:
        return set()
    mutes = db.mutes
    with db.reading(engine) as conn:
        return {int(i) for i in conn.execute(
            sa.select(mutes.c.account_id).where(mutes.c.muted_id == account_id,
                                                mutes.c.account_id.in_(wanted))
        ).scalars()}


def _utc(moment: _dt.datetime) -> _dt.datetime:
    return moment.replace(tzinfo=_dt.UTC) if moment.tzinfo is None else moment
