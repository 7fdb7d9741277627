"""uvicorn's WebSocket protocol (``websockets-sansio``), lighter for connections
that last: :class:`LeanWebSocketProtocol` (pass it as uvicorn's ``ws``).

uvicorn keeps each connection's opening handshake, the request and the answer
(their headers: about 4 kB), for the connection's whole life, though nothing
reads them once the answer is written. Here they are let go as the handshake
completes. websockets' parser holds the request too (in its suspended
generator, for the connection's life), so the request's headers are emptied
in place rather than only dropped. Everything the application sees stays as it
was: the ASGI scope keeps its own copy of the headers.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

__all__ = ["LeanWebSocketProtocol"]


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
