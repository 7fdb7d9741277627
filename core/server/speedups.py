"""The speed-ups of ``blockyard serve`` in one place, behind one setting
(:attr:`Settings.lean <blockyard.server.settings.Settings.lean>`: the variable
:data:`LEAN_ENV`, the configuration file's ``lean``; on by default).

What the live tables bought in memory and CPU per connection by working around
the stack (docs/online.md, "Capacity"), each a reach into uvicorn's or
Starlette's internals:

- :class:`App`: the live channels' WebSockets on a short way past FastAPI's
  middleware and router layers (about 8 kB an idle connection);
- :class:`LeanWebSocketProtocol`: uvicorn's ``websockets-sansio`` protocol
  letting go of the opening handshake once the connection is open (about
  4.5 kB);
- :func:`uvicorn_options`, the connection tuning: permessage-deflate declined
  (its zlib state costs about 41 kB a connection), the message limit, and the
  slow clients' deadlines (:class:`TimedH11Protocol`, a protection rather than a
  speed-up: kept whatever the setting).

With the setting off the server runs on the stack as it comes (uvicorn's own
``websockets-sansio`` protocol, FastAPI's whole way for every WebSocket,
permessage-deflate as uvicorn offers it): the same behaviour, to compare with or
to fall back on when a new uvicorn or Starlette changes what these rely on.
pyproject caps both to the versions these are tested on, and
tests/server/test_server_speedups.py checks that each internal overridden here
is still there with the signature used.

The slow clients' deadlines: uvicorn closes a keep-alive connection idle between
requests (``timeout_keep_alive``), but any byte received cancels that timer and
nothing bounds the time a request takes to arrive: a client that opens a
connection and sends nothing, or sends its headers one byte a second
(slowloris), holds its connection for ever. :class:`TimedH11Protocol` gives every
request :data:`HEADER_SECONDS` from the connection's start (or the end of the
previous answer) to send its headers whole, then :data:`BODY_SECONDS` to send its
body; past either the connection is closed. A WebSocket upgrade hands the
connection to the WebSocket protocol once its headers are in: the deadline stops
there for good. Both can be set for a deployment (``BLOCKYARD_SERVER_HEADER_SECONDS``,
``BLOCKYARD_SERVER_BODY_SECONDS``: :func:`deadlines`), read as each connection
opens. These deadlines are those of the network, not of a game: they run on the
event loop's own clock (``loop.call_later``), never the server's
:class:`~blockyard.server.clock.Clock`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from typing import Any

import h11
from fastapi import FastAPI
from starlette.routing import Match, WebSocketRoute
from starlette.websockets import WebSocket
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .logs import Requests
from .settings import (
    BODY_ENV,
    BODY_SECONDS,
    HEADER_ENV,
    HEADER_SECONDS,
    LEAN_ENV,
    request_deadlines,
)
from .web import Receive, Scope, Send

__all__ = ["BODY_ENV", "BODY_SECONDS", "HEADER_ENV", "HEADER_SECONDS", "KEEP_ALIVE_SECONDS",
           "LEAN_ENV", "MAX_MESSAGE", "App", "LeanWebSocketProtocol", "TimedH11Protocol",
           "deadlines", "uvicorn_options"]


MAX_MESSAGE = 16 << 10
"""The largest WebSocket message a client may send (bytes)."""


def uvicorn_options(lean: bool = True) -> dict[str, Any]:
    """The connection tuning, as keyword arguments of ``uvicorn.run`` (and
    ``uvicorn.Config``): with ``lean`` (the setting on) the lean WebSocket
    protocol and permessage-deflate declined; the message limit and the slow
    clients' deadlines either way."""
    options: dict[str, Any] = {
        "ws_max_size": MAX_MESSAGE,
        # slow clients timed out: idle between requests, and a request whose
        # headers or body trickle in (TimedH11Protocol)
        "http": TimedH11Protocol, "timeout_keep_alive": KEEP_ALIVE_SECONDS}
    if lean:
        # websockets-sansio, without each connection's handshake kept once it is
        # open; a live message is a few dozen bytes of JSON: compressing it saves
        # little on the wire, and permessage-deflate's zlib state costs about
        # 41 kB per connection (and CPU per message): declined
        options.update(ws=LeanWebSocketProtocol, ws_per_message_deflate=False)
    else:
        options.update(ws="websockets-sansio")
    return options


# -- the live channels' short way -----------------------------------------------------


class App(FastAPI):
    """FastAPI, with the live channels' WebSockets on a short way of their own.

    A live connection lasts for hours, and every layer it came through stays in
    memory as long as it does: each middleware's and router's coroutine, their
    closures, FastAPI's exit stack (about 7 kB a connection through FastAPI's
    whole stack, a fifth of what an idle one costs). What those layers do is for
    HTTP (error pages, body limits, the exception handlers' answers, dependencies
    with ``yield``): the live routes are plain Starlette routes of a WebSocket,
    with no dependency. So a WebSocket to one of :attr:`live_routes` goes from
    here through :class:`~blockyard.server.logs.Requests` alone (its request
    id, an exception logged once and answered by a close) to the route's
    function; every other request, and a WebSocket to any other path (closed as
    FastAPI closes it), takes FastAPI's way."""

    live_routes: tuple[WebSocketRoute, ...] = ()
    """The routes taken the short way (:meth:`serve_live`)."""
    _live: Requests

    def __init__(self, *args: Any, lean: bool = True, **kwargs: Any) -> None:
        """FastAPI's arguments, and whether the speed-ups are on (``lean``, the
        setting: :attr:`~blockyard.server.settings.Settings.lean`)."""
        super().__init__(*args, **kwargs)
        self.lean = lean

    def serve_live(self, routes: Iterable[WebSocketRoute]) -> None:
        """Take WebSockets to ``routes`` the short way (the speed-ups off:
        FastAPI's whole way, as any other route)."""
        if self.lean:
            self.live_routes = tuple(routes)
            self._live = Requests(_live_endpoint)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.live_routes:
            if self.root_path:  # as FastAPI does
                scope["root_path"] = self.root_path
            for route in self.live_routes:
                match, child = route.matches(scope)
                if match is Match.FULL:  # as Starlette's application and router do
                    scope["app"] = self
                    scope.setdefault("router", self.router)
                    scope.update(child)
                    await self._live(scope, receive, send)
                    return
        await super().__call__(scope, receive, send)


async def _live_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    """The matched live route's function (``scope["endpoint"]``, put there by its
    match) on the connection."""
    await scope["endpoint"](WebSocket(scope, receive, send))


# -- uvicorn's WebSocket protocol, lean -----------------------------------------------


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets-sansio`` protocol without its handshake kept once
    the connection is open. (A handshake refused is let go with its connection,
    which ends at once.)"""

    def start_keepalive(self) -> None:
        # uvicorn's one call of this is where it has written the handshake's answer
        # (an accept): from here nothing reads the handshake. (Hooked here rather
        # than in send, which every message of the connection passes through.)
        super().start_keepalive()
        self.forget_handshake()

    def forget_handshake(self) -> None:
        """Let go of the handshake's request and answer (its headers emptied:
        websockets' parser keeps the request object itself)."""
        self.request.headers.clear()
        del self.request, self.response


# -- uvicorn's h11 protocol, timed ----------------------------------------------------


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
