"""What every live channel (``/api/tables/{id}/live``, ``/api/me/live``) shares:
reading a text frame, the peer gone, the client's first message (its
``hello``, with its credentials, waited for at most a deadline on the server's
clock: :class:`Hellos`), a connection's :class:`Outbox` (a signed-out
connection closed through it), and the reasons sent before a close.

A connection's messages go out through its :class:`Outbox`: whoever sends one
(the hub fanning a move out to a table's connections, the players' pushes)
only puts it in the connection's queue, and a task of the connection's own
writes them to the socket in order. So a slow reader never delays the others
(nor the referee): it falls behind alone, and one :data:`MAX_BEHIND` messages
behind is closed (code 1008) rather than held in memory without end."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Coroutine, Mapping
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from starlette import websockets as _starlette_websockets

from ..protocol import (
    BINARY_FRAME,
    NO_HELLO,
    NOT_HELLO,
    Hello,
    Refusal,
    RefusedMessage,
    read_hello,
    refused,
)
from .clock import Clock

__all__ = ["BINARY_FRAME", "DATABASE_AWAY", "GONE", "MAX_BEHIND", "NO_HELLO", "SIGNED_OUT",
           "TOO_SLOW", "Encoded", "Hellos", "Outbox", "encode", "receive_text",
           "too_many_messages"]

GONE: tuple[type[Exception], ...] = tuple(
    kind for kind in (WebSocketDisconnect,
                      getattr(_starlette_websockets, "WebSocketDisconnected", None))
    if kind is not None)
"""A live connection that is gone (newer Starlette raises ``WebSocketDisconnected``
on reading after a send to a closed peer)."""
DATABASE_AWAY = "the server's database is away: try again shortly"
"""The reason of a live connection closed (code 1013) because the database is away."""
SIGNED_OUT = "signed out: the session token of this connection was revoked"
"""The ``refused`` reason (kind ``signed-out``) sent before a connection is closed
(code 4401) because its token was signed out."""
MAX_BEHIND = 2_000
"""The most messages a connection may have waiting to be written (a reader
this far behind is closed, code 1008)."""
TOO_SLOW = "this connection read too slowly: open it again"
"""The close reason (code 1008) of a connection :data:`MAX_BEHIND` messages behind."""
FLUSH_SECONDS = 5.0
"""How long a connection that ends (a player leaving, the server closing it) has
to take the messages still waiting for it (the network's time, not a game's)."""


def started_eagerly(coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run ``coroutine`` here and now until it first waits: ``None`` when it ran to
    its end without waiting, else a task that carries it on from there. A send to
    a connection whose transport takes it (nearly always) finishes at once, and a
    task made for it, scheduled and run later costs more than the send itself
    (Python 3.12's ``eager_start`` tasks do the same; this runs on 3.11 too)."""
    try:
        waited = coroutine.send(None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_carried_on(coroutine, waited))


async def _carried_on(coroutine: Coroutine[Any, Any, None], waited: Any) -> None:
    """Carry ``coroutine`` on from where it waited for ``waited`` (a future, or
    ``None`` for a bare yield), as a task does: resumed once ``waited`` is done,
    the task's cancellation passed on to it."""
    while True:
        try:
            if waited is None:
                await asyncio.sleep(0)
            else:
                waited._asyncio_future_blocking = False  # taken, as a task takes it
                await waited
        except BaseException as exc:  # this task cancelled, or what it waited for failed
            try:
                waited = coroutine.throw(exc)
            except StopIteration:
                return
            continue
        try:
            waited = coroutine.send(None)
        except StopIteration:
            return


async def receive_text(socket: WebSocket) -> str | None:
    """The next text frame of ``socket``, or ``None`` for a binary frame (which a
    live connection answers as malformed and carries on); one of :data:`GONE`
    raised when the peer is gone."""
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(int(message.get("code") or 1000), message.get("reason"))
    text = message.get("text")
    return text if isinstance(text, str) else None


class Encoded(str):
    """A message already written as its JSON text (:func:`encode`): one fanned out
    to many connections is encoded once, not once per connection."""

    __slots__ = ()


def encode(message: Mapping[str, Any]) -> Encoded:
    """``message`` as the text frame a connection sends (the JSON that Starlette's
    ``send_json`` writes: no spaces, UTF-8 as it is)."""
    return Encoded(_FRAME.encode(message))


_FRAME = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""The frames' JSON (made once: ``json.dumps`` with arguments makes an encoder at
every call)."""




class Hellos:
    """The live connections of one process waiting for their first message, the
    client's ``hello`` (:meth:`read`): each has ``seconds`` on ``clock`` from
    when it began waiting, and :meth:`close_overdue` (the sweep's, every beat)
    ends the wait of those past it. Only a connection still waiting is held here
    (one entry each, gone once its hello is in)."""

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds
        self.waiting: dict[asyncio.Future[None], float] = {}
        """Per connection waiting, what ends its wait early (set when overdue), and
        the moment (:meth:`Clock.seconds`) it is due."""

    async def greet(self, socket: WebSocket) -> Hello | None:
        """Accept ``socket`` and read its hello: ``None`` when the connection was
        closed instead (code 4408 when nothing came in time, 4400 with a
        ``refused`` kind ``malformed`` when the first message is not a hello) or
        the peer is gone."""
        await socket.accept()
        try:
            return await self.read(socket)
        except GONE:
            return None

    async def read(self, socket: WebSocket) -> Hello | None:
        """The hello of ``socket`` (accepted): ``None`` when the connection was
        closed instead (as :meth:`greet` says); one of :data:`GONE` raised when
        the peer is gone."""
        loop = asyncio.get_running_loop()
        overdue: asyncio.Future[None] = loop.create_future()
        self.waiting[overdue] = self.clock.seconds() + self.seconds
        receiving = loop.create_task(receive_text(socket))
        try:
            await asyncio.wait((receiving, overdue), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.waiting.pop(overdue, None)
            if not receiving.done():
                receiving.cancel()
                with contextlib.suppress(asyncio.CancelledError, *GONE):
                    await receiving
        if receiving.cancelled():
            await socket.send_json(refused(
                f"no hello within {self.seconds:g} seconds: a live connection's first "
                "message is {\"type\": \"hello\", \"token\": TOKEN, \"code\": CODE}",
                "malformed"))
            await socket.close(NO_HELLO)
            return None
        found = read_hello(receiving.result())
        if isinstance(found, Refusal):
            await socket.send_json(found.message())
            await socket.close(NOT_HELLO)
            return None
        return found

    def close_overdue(self) -> int:
        """End the wait of every connection past its time (each is then closed,
        4408); how many."""
        now = self.clock.seconds()
        due = [overdue for overdue, at in self.waiting.items() if at <= now]
        for overdue in due:
            del self.waiting[overdue]
            if not overdue.done():
                overdue.set_result(None)
        return len(due)


def too_many_messages(per_minute: int) -> RefusedMessage:
    """The refusal (kind ``too-many``) sent before a connection over its message
    limit is closed."""
    return refused(f"too many messages: at most {per_minute} a minute", "too-many")


class Outbox:
    """The messages waiting to be written to one connection's ``socket``, and the
    task writing them in order, which runs while there is something to write (an
    idle connection holds no task and no queue). Writing begins at :meth:`start`;
    :meth:`stop` when the connection ends. :meth:`post` never waits. A close asked
    for (:meth:`close`) comes after every message posted before it, and nothing
    posted after it is sent."""

    __slots__ = ("_close", "_started", "_waiting", "_writer", "socket")

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket
        self._waiting: deque[Mapping[str, Any] | Encoded] | None = None
        self._close: tuple[int, str] | None = None
        self._started = False
        self._writer: asyncio.Task[None] | None = None

    @property
    def closing(self) -> bool:
        """Whether a close was asked for (nothing posted now is sent)."""
        return self._close is not None

    def start(self) -> None:
        """Start writing (in the running event loop)."""
        self._started = True
        self._write_soon()

    def post(self, message: Mapping[str, Any] | Encoded) -> None:
        """Queue ``message`` (or its text, :func:`encode`); a reader
        :data:`MAX_BEHIND` behind is closed instead."""
        if self._close is not None:
            return
        waiting = self._waiting
        if waiting is None:
            waiting = self._waiting = deque()
        if len(waiting) >= MAX_BEHIND:
            waiting.clear()
            self.close(1008, TOO_SLOW)
            return
        waiting.append(message)
        self._write_soon()

    def close(self, code: int, reason: str = "", *, last: Mapping[str, Any] | None = None
              ) -> None:
        """Close the connection with ``code`` once what is posted is written
        (``last``: one message more before it); a second close does nothing."""
        if self._close is not None:
            return
        if last is not None:
            if self._waiting is None:
                self._waiting = deque()
            self._waiting.append(last)
        self._close = (code, reason)
        self._write_soon()

    def close_signed_out(self) -> None:
        """Tell the connection its token was signed out, then close it (4401)."""
        self.close(4401, last=refused(SIGNED_OUT, "signed-out"))

    async def flushed(self, seconds: float = FLUSH_SECONDS) -> None:
        """Wait until every message posted is written (at most ``seconds``, the
        network's time: a reader that takes no more is left behind)."""
        writer = self._writer
        if writer is None or writer.done():
            return
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(writer), seconds)

    async def stop(self) -> None:
        """Stop writing (what is still waiting is dropped)."""
        self._started = False
        writer, self._writer = self._writer, None
        if writer is not None and not writer.done():
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    def _write_soon(self) -> None:
        if self._started and (self._writer is None or self._writer.done()):
            self._writer = started_eagerly(self._write())

    async def _write(self) -> None:
        """Write what is waiting, in order, then the close if one was asked for;
        the task ends when nothing is left (the next post starts another)."""
        while self._waiting:
            message = self._waiting.popleft()
            try:
                if isinstance(message, Encoded):
                    await self.socket.send_text(message)
                else:
                    await self.socket.send_json(message)
            except Exception:  # the connection is gone: its reader ends it
                self._waiting.clear()
                break
        self._waiting = None  # an idle connection holds no queue (a deque is 0.6 kB)
        if self._close is not None:
            code, reason = self._close
            self._started = False  # nothing more is written
            with contextlib.suppress(Exception):
                await self.socket.close(code, reason)
        if self._writer is asyncio.current_task():
            self._writer = None  # nor a finished task and its coroutine (0.6 kB)
