"""The players' routes: ``GET /api/players/online``, ``GET /api/me/invitations``,
``POST /api/me/invitations/{id}/accept`` and ``…/decline``, and the WebSocket
``/api/me/live`` (the invitations and the players online, pushed).

What they do is :class:`~blockyard.server.social.Social`'s; these routes read the
request, ask it and answer.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Query, WebSocket
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ... import protocol
from .. import accounts
from ..room import MAX_FEEDS, Feed
from ..social import MAX_ONLINE, accept, decline, log, pending_invitations
from ..sockets import DATABASE_AWAY, GONE, receive_text, too_many_messages
from ..state import HubDep, ServerDep, SignedIn, SocialDep, hub_of, server_of, social_of
from ..tablestore import TableError
from ..web import ApiError, errors
from .tables import TableId

router = APIRouter()
OnlineLimit = Annotated[int, Query(json_schema_extra={"minimum": 1, "maximum": MAX_ONLINE})]


@router.get("/api/players/online", responses=errors(401, 422))
async def players_online(account: SignedIn, server: ServerDep,
                         limit: OnlineLimit = MAX_ONLINE) -> dict[str, Any]:
    """The players online (an authenticated call or a live connection within
    the last ``seconds``), alphabetically; the caller is one of them."""
    if not 1 <= limit <= MAX_ONLINE:
        raise ApiError(422, f"limit: expected 1 to {MAX_ONLINE}")
    players = await run_in_threadpool(server.online.online, limit)
    return {"players": players, "seconds": server.online.seconds}

@router.get("/api/me/invitations", responses=errors(401))
async def my_invitations(account: SignedIn, server: ServerDep) -> dict[str, Any]:
    """The caller's pending invitations, newest first."""
    found = await run_in_threadpool(pending_invitations, server.engine, account.id)
    return {"invitations": found}

@router.post("/api/me/invitations/{table_id}/accept", responses=errors(401, 404, 409, 422))
async def accept_invitation(table_id: TableId, account: SignedIn, server: ServerDep,
                            hub: HubDep, players: SocialDep) -> dict[str, Any]:
    """Accept an invitation: a seat at its table. ``404`` no pending
    invitation to it, ``409`` the table is full."""
    try:
        table = await run_in_threadpool(accept, server.engine, account, table_id,
                                        server.clock.now())
    except TableError as exc:
        raise ApiError(exc.status, str(exc)) from None
    await hub.events.publish({"kind": "table", "table": table_id})
    await players.announce([account.id])
    return {"table": table_id, "seat": table.seat_of(account)}

@router.post("/api/me/invitations/{table_id}/decline", status_code=204,
             responses=errors(401, 404, 422))
async def decline_invitation(table_id: TableId, account: SignedIn, server: ServerDep,
                             hub: HubDep) -> Response:
    """Decline an invitation (``404`` no pending invitation to that table)."""
    try:
        await run_in_threadpool(decline, server.engine, account, table_id)
    except TableError as exc:
        raise ApiError(exc.status, str(exc)) from None
    # the table's "invited" changed: its players are told, and every player
    # invited to it (the one who declined among them) gets their list again
    await hub.events.publish({"kind": "table", "table": table_id})
    return Response(status_code=204)

async def me_live(socket: WebSocket) -> None:
    """A player's own live channel: their invitations and the players online,
    pushed as they change; ``refresh`` asks for both again. (A plain Starlette
    route, as a table's live channel: :func:`.tables.live`.)"""
    server, hub, players = server_of(socket), hub_of(socket), social_of(socket)
    token = socket.query_params.get("token")
    try:
        account = await run_in_threadpool(accounts.account_for, server.engine, token)
    except sa.exc.SQLAlchemyError as exc:  # the database away: no one's fault here
        hub.outages.failed(server.clock.now())
        log.warning("a player's live connection refused, the database is away (%s)",
                    type(exc).__name__)
        await socket.accept()
        await socket.close(1013, DATABASE_AWAY)
        return
    await socket.accept()
    if account is None:
        await socket.send_json(protocol.refused("sign in first: the token is not valid",
                                                "signed-out"))
        await socket.close(4401)
        return
    feed = Feed(socket, account, token=accounts.token_hash(token or ""))
    entered = hub.room.enter_feed(feed)
    if entered is None:
        await socket.send_json(protocol.refused(f"at most {MAX_FEEDS} of these connections "
                                                "per player", "too-many"))
        await socket.close(4429)
        return
    try:
        if not entered:  # signed out while this connection opened
            return
        await run_in_threadpool(server.online.seen_now, [account.id])
        await players.push_invitations(account.id)
        await players.push_online(only=feed)
        await players.push_paired(account.id, only=feed)
        while True:
            text = await receive_text(socket)
            # counted per account across its reconnects
            if not server.live_messages.hit(f"me:{account.id}"):
                feed.post(too_many_messages(server.messages_per_minute))
                break
            request = protocol.read_request(text, protocol.PLAYER_REQUESTS)
            if isinstance(request, protocol.Refusal):
                feed.post(request.message())
            else:  # refresh
                await players.push_invitations(account.id)
                await players.push_online(only=feed)
    except GONE:
        pass
    except sa.exc.SQLAlchemyError as exc:  # the database went away: no one's fault
        hub.outages.failed(server.clock.now())
        log.warning("a player's live connection closed, the database is away (%s)",
                    type(exc).__name__)
        feed.outbox.close(1013, DATABASE_AWAY)
    finally:
        hub.room.leave_feed(feed)
        await feed.outbox.flushed()  # what was sent to it before it ended, if it reads
        await feed.outbox.stop()
        with contextlib.suppress(Exception):
            await socket.close()


router.add_websocket_route("/api/me/live", me_live)
