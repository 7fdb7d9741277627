"""What every live channel (``/api/tables/{id}/live``, ``/api/me/live``) shares:
reading a text frame, the peer gone, a signed-out connection closed, and the
reasons sent before a close."""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import WebSocket, WebSocketDisconnect
from starlette import websockets as _starlette_websockets

from ..protocol import BINARY_FRAME, refused

__all__ = ["BINARY_FRAME", "DATABASE_AWAY", "GONE", "SIGNED_OUT", "close_signed_out",
           "receive_text"]

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


async def receive_text(socket: WebSocket) -> str | None:
    """The next text frame of ``socket``, or ``None`` for a binary frame (which a
    live connection answers as malformed and carries on); one of :data:`GONE`
    raised when the peer is gone."""
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(int(message.get("code") or 1000), message.get("reason"))
    text = message.get("text")
    return text if isinstance(text, str) else None


async def close_signed_out(socket: WebSocket, lock: asyncio.Lock) -> None:
    """Tell a connection its token was signed out and close it (code 4401); once
    closed, nothing more is sent (a second call does nothing)."""
    async with lock:
        with contextlib.suppress(Exception):  # closed already: nothing to do
            await socket.send_json(refused(SIGNED_OUT, "signed-out"))
            await socket.close(4401)
