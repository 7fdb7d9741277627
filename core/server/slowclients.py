"""Slow HTTP clients timed out: uvicorn's h11 protocol with a deadline for each
request.

uvicorn closes a keep-alive connection idle between requests
(``timeout_keep_alive``), but any byte received cancels that timer and nothing
bounds the time a request takes to arrive: a client that opens a connection and
sends nothing, or sends its headers one byte a second (slowloris), holds its
connection for ever. :class:`TimedH11Protocol` gives every request
:data:`HEADER_SECONDS` from the connection's start (or the end of the previous
answer) to send its headers whole, then :data:`BODY_SECONDS` to send its body;
past either the connection is closed. A WebSocket upgrade hands the connection
to the WebSocket protocol once its headers are in: the deadline stops there for
good (the socket is the WebSocket's from then on, and lives as long as it does).

Both can be set for a deployment (``BLOCKYARD_SERVER_HEADER_SECONDS``,
``BLOCKYARD_SERVER_BODY_SECONDS``: :func:`deadlines`), read as each connection
opens.

These deadlines are those of the network, not of a game: they run on the event
loop's own clock (``loop.call_later``), never the server's :class:`~blockyard.server.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import os

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .settings import BODY_ENV, BODY_SECONDS, HEADER_ENV, HEADER_SECONDS, request_deadlines

__all__ = ["BODY_ENV", "BODY_SECONDS", "HEADER_ENV", "HEADER_SECONDS", "KEEP_ALIVE_SECONDS",
           "TimedH11Protocol", "deadlines"]

KEEP_ALIVE_SECONDS = 5
"""How long a connection may stay idle between requests (uvicorn's
``timeout_keep_alive``)."""


def deadlines() -> tuple[float, float]:
    """The seconds a request has for its headers and then its body, from this
    process's environment (:func:`~blockyard.server.settings.request_deadlines`:
    :data:`HEADER_ENV`, :data:`BODY_ENV`; ``ValueError`` naming a bad one)."""
    return request_deadlines(os.environ)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the :func:`deadlines` (pass it as uvicorn's
    ``http``)."""

    deadline: asyncio.TimerHandle | None = None
    waiting_for = "headers"
    upgraded = False
    """Whether the connection went on as a WebSocket (no deadline any more)."""
    seconds = (HEADER_SECONDS, BODY_SECONDS)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.seconds = deadlines()
        super().connection_made(transport)
        self._expect("headers")

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # the transport is the WebSocket's from now on: a deadline left armed here
        # would close a live connection (h11 still says the upgrade request's body
        # is to come) and keep this protocol, its request and scope, in memory
        self.upgraded = True
        self._expect(None)
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._expect(None)
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Move the deadline on with what the client has sent whole so far."""
        state = self.conn.their_state
        if self.upgraded or self.transport.is_closing() \
                or state not in (h11.IDLE, h11.SEND_BODY):
            self._expect(None)  # the request is in (or switched protocol): no deadline
        elif state is h11.IDLE and self.waiting_for != "headers":
            self._expect("headers")
        elif state is h11.SEND_BODY and self.waiting_for != "body":
            self._expect("body")

    def _expect(self, what: str | None) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.waiting_for = what or ""
        if what is not None:
            seconds = self.seconds[0] if what == "headers" else self.seconds[1]
            self.deadline = self.loop.call_later(seconds, self._too_slow)

    def _too_slow(self) -> None:
        self.deadline = None
        if not self.transport.is_closing():
            self.logger.info("%s: closed, the request was too slow to arrive (%s)",
                             self.client, self.waiting_for)
            self.transport.close()
