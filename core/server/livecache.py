"""What a server process keeps of its live tables between two actions, so that an
action costs its share of one database transaction
(:class:`~blockyard.server.actionstore.ActionStore`) and an announcement one
query in each other process (:func:`moves_after`).

The database stays the truth: a :class:`RoundMoves` holds the moves of one
round already read or stored here and is brought up to date by reading only the
moves it lacks. Each seat's moves are stored in the order of their place in that
seat's log (``n`` 1, 2, …: the ``n``-th can only be stored once the one before
it is), so "every move of seat *s* after its *k*-th" misses nothing, whatever
order the transactions of several processes commit in — unlike "every row after
the last id read"."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from . import db
from .tablestore import Move, _utc


@dataclass
class RoundMoves:
    """The moves of one round of a table known to this process, in the order they
    became known."""

    round: int
    moves: list[Move] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)
    """Per seat: how many of its moves are known (its moves 1 … count)."""

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
        return True


def moves_after(engine: Engine, table_id: int, known: RoundMoves, seats: int
                ) -> list[Move]:
    """The moves of the round that ``known`` lacks (one query), in the order they
    were stored."""
    actions = db.table_actions
    later = [sa.and_(actions.c.seat == seat, actions.c.n > known.counts.get(seat, 0))
             for seat in range(seats)]
    with engine.connect() as conn:
        rows = conn.execute(sa.select(actions)
                            .where(actions.c.table_id == table_id,
                                   actions.c.round == known.round, sa.or_(*later))
                            .order_by(actions.c.id)).all()
    return [Move(int(r.seat), int(r.n), json.loads(r.action), int(r.score), bool(r.over),
                 _utc(r.created)) for r in rows]
