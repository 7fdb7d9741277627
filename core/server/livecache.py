"""What a server process keeps of its live tables between two actions, so that an
action costs its share of one database transaction
(:class:`~blockyard.server.actionstore.ActionStore`) and its announcement no
query in the other processes: the announcement carries the move
(:func:`announcement`, within ``NOTIFY``'s payload limit), and a process reads
the moves it lacks (:func:`moves_after`, one query) only when an announcement
does not carry its move or does not follow the moves it knows.

The database stays the truth: a :class:`RoundMoves` holds the moves of one
round already read or stored here and is brought up to date by reading only the
moves it lacks. Each seat's moves are stored in the order of their place in that
seat's log (``n`` 1, 2, …: the ``n``-th can only be stored once the one before
it is), so "every move of seat *s* after its *k*-th" misses nothing, whatever
order the transactions of several processes commit in — unlike "every row after
the last id read"."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from . import announcements, db
from .announcements import MAX_PAYLOAD, payload
from .presence import Done, note_done
from .tablestore import Move, Table, _utc


@dataclass
class RoundMoves:
    """The moves of one round of a table known to this process, in the order they
    became known."""

    round: int
    moves: list[Move] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)
    """Per seat: how many of its moves are known (its moves 1 … count)."""
    done: Done = field(default_factory=dict)
    """What :data:`~blockyard.server.presence.Done` says of :attr:`moves` (kept as
    they are added: who is there is looked at after many moves)."""

    def has(self, seat: int, n: int) -> bool:
        """Whether the ``n``-th move of ``seat`` is known."""
        return n <= self.counts.get(seat, 0)

    def add(self, move: Move) -> bool:
        """Add the next move of its seat; ``False`` (nothing added) when it is not
        the next one (one before it is not known yet: read them instead)."""
        if move.n != self.counts.get(move.seat, 0) + 1:
            return False
        self.moves.append(move)
        self.counts[move.seat] = move.n
        note_done(self.done, move)
        return True


def moves_after(engine: Engine, table_id: int, known: RoundMoves, seats: int
                ) -> list[Move]:
    """The moves of the round that ``known`` lacks (one query), in the order they
    were stored."""
    actions = db.table_actions
    later = [sa.and_(actions.c.seat == seat, actions.c.n > known.counts.get(seat, 0))
             for seat in range(seats)]
    with db.reading(engine) as conn:
        rows = conn.execute(sa.select(actions)
                            .where(actions.c.table_id == table_id,
                                   actions.c.round == known.round, sa.or_(*later))
                            .order_by(actions.c.id)).all()
    return [Move(int(r.seat), int(r.n), json.loads(r.action), int(r.score), bool(r.over),
                 _utc(r.created)) for r in rows]


def announcement(table: Table, move: Move) -> announcements.Moves:
    """The ``moves`` announcement of ``move`` stored at ``table``'s current round,
    carrying the move itself when it fits in a ``NOTIFY`` payload (a process that
    knows the seat's moves before it then needs no query: :func:`announced_move`)."""
    return encoded_announcement(table, move)[0]


def encoded_announcement(table: Table, move: Move) -> tuple[announcements.Moves, str]:
    """:func:`announcement` and its payload (the JSON sent with ``NOTIFY``): written
    once, to tell whether the move fits in it and to send it."""
    carried = announcements.moves(table.id, round=table.round, seat=move.seat, n=move.n)
    carried["action"], carried["score"] = move.action, move.score
    carried["over"], carried["at"] = move.over, None if move.at is None else move.at.isoformat()
    text = payload(carried)
    if len(text) <= MAX_PAYLOAD:
        return carried, text
    event = announcements.moves(table.id, round=table.round, seat=move.seat, n=move.n)
    return event, payload(event)


def announced_move(event: Mapping[str, Any]) -> Move | None:
    """The move a ``moves`` announcement carries (:func:`announcement`), or ``None``
    when it carries none or anything in it is not what a move is."""
    seat, n, action = event.get("seat"), event.get("n"), event.get("action")
    score, over, at = event.get("score"), event.get("over"), event.get("at")
    if type(seat) is not int or type(n) is not int or type(action) is not list \
            or not action or type(score) is not int or type(over) is not bool:
        return None
    try:
        moment = None if at is None else _utc(_dt.datetime.fromisoformat(at))
    except (TypeError, ValueError):
        return None
    return Move(seat, n, action, score, over, moment)
