"""The players' routes: ``GET /api/players/online``, ``GET /api/me/invitations``,
``POST /api/me/invitations/{id}/accept`` and ``…/decline``, ``GET
/api/me/follows``, ``PUT`` and ``DELETE /api/me/follows/{name}``, ``GET
/api/me/mutes``, ``PUT`` and ``DELETE /api/me/mutes/{name}``, and the
WebSocket ``/api/me/live`` (the invitations, the players online, the followed
players online and the tables they open, pushed).

What they do is :class:`~blockyard.server.social.Social`'s; these routes read the
request, ask it and answer.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Query, WebSocket
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ... import protocol
from .. import accounts, announcements, friends
from ..accounts import Account
from ..room import MAX_FEEDS, Feed
from ..social import MAX_ONLINE, accept, decline, log, pending_invitations
from ..sockets import DATABASE_AWAY, GONE, receive_text, too_many_messages
from ..state import HubDep, Server, ServerDep, SignedIn, SocialDep, hub_of, server_of, social_of
from ..tablestore import TableError
from ..web import AccountName, ApiError, errors
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

@router.post("/api/me/invitations/{table_id}/accept",
             responses=errors(401, 404, 409, 422, 429))
async def accept_invitation(table_id: TableId, account: SignedIn, server: ServerDep,
                            hub: HubDep, players: SocialDep) -> dict[str, Any]:
    """Accept an invitation: a seat at its table. ``404`` no pending
    invitation to it, ``409`` the table is full, ``429`` the caller holds the
    most seats one player may at tables that are waiting or playing."""
    try:
        table = await run_in_threadpool(accept, server.engine, account, table_id,
                                        server.clock.now())
    except TableError as exc:
        raise ApiError(exc.status, str(exc)) from None
    await hub.events.publish(announcements.table_changed(table_id))
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
    await hub.events.publish(announcements.table_changed(table_id))
    return Response(status_code=204)

def _checked_name(name: str) -> str:
    try:
        accounts.check_name(name)
    except accounts.AccountError:
        raise ApiError(422, f"name: {name[:40]!r} is not an account name") from None
    return name


async def _add(which: str, name: str, account: Account, server: Server) -> None:
    try:
        await run_in_threadpool(friends.add, server.engine, which, account,
                                _checked_name(name), server.clock.now())
    except friends.FriendError as exc:
        raise ApiError(exc.status, str(exc)) from None


async def _remove(which: str, name: str, account: Account, server: Server) -> None:
    try:
        await run_in_threadpool(friends.remove, server.engine, which, account,
                                _checked_name(name))
    except friends.FriendError as exc:
        raise ApiError(exc.status, str(exc)) from None


@router.get("/api/me/follows", responses=errors(401))
async def my_follows(account: SignedIn, server: ServerDep) -> dict[str, Any]:
    """The players the caller follows, alphabetically, each with whether they
    are online now (an authenticated call or a live connection within the last
    ``seconds``)."""
    since = server.clock.now() - _dt.timedelta(seconds=server.online.seconds)
    found = await run_in_threadpool(friends.listed, server.engine, "follows", account.id,
                                    since)
    return {"follows": [{"name": name, "online": online} for name, online in found],
            "seconds": server.online.seconds}

@router.put("/api/me/follows/{name}", status_code=204, responses=errors(401, 404, 409, 422))
async def follow(name: AccountName, account: SignedIn, server: ServerDep,
                 players: SocialDep) -> Response:
    """Follow a player: told on ``/api/me/live`` when they are online
    (``friends``) and when they open a public table (``opened``). ``404`` no
    such account, ``422`` oneself, ``409`` following too many already; following
    someone followed already changes nothing."""
    await _add("follows", name, account, server)
    await players.announce_follows(account.id)
    return Response(status_code=204)

@router.delete("/api/me/follows/{name}", status_code=204, responses=errors(401, 404, 422))
async def unfollow(name: AccountName, account: SignedIn, server: ServerDep,
                   players: SocialDep) -> Response:
    """Stop following a player (``404`` no such account; someone not followed:
    nothing changes)."""
    await _remove("follows", name, account, server)
    await players.announce_follows(account.id)
    return Response(status_code=204)

@router.get("/api/me/mutes", responses=errors(401))
async def my_mutes(account: SignedIn, server: ServerDep) -> dict[str, Any]:
    """The players the caller muted, alphabetically: their quick phrases are not
    delivered to the caller."""
    found = await run_in_threadpool(friends.listed, server.engine, "mutes", account.id)
    return {"mutes": [name for name, _ in found]}

@router.put("/api/me/mutes/{name}", status_code=204, responses=errors(401, 404, 409, 422))
async def mute(name: AccountName, account: SignedIn, server: ServerDep) -> Response:
    """Mute a player: their quick phrases are no longer delivered to the caller,
    at any table. ``404`` no such account, ``422`` oneself, ``409`` too many
    muted already; muting someone muted already changes nothing."""
    await _add("mutes", name, account, server)
    return Response(status_code=204)

@router.delete("/api/me/mutes/{name}", status_code=204, responses=errors(401, 404, 422))
async def unmute(name: AccountName, account: SignedIn, server: ServerDep) -> Response:
    """Hear a muted player's quick phrases again (``404`` no such account)."""
    await _remove("mutes", name, account, server)
    return Response(status_code=204)

async def me_live(socket: WebSocket) -> None:
    """A player's own live channel: the client's ``hello`` first (its token), then
    their invitations and the players online,
    pushed as they change; ``refresh`` asks for both again. (A plain Starlette
    route, as a table's live channel: :func:`.tables.live`.)"""
    server, hub, players = server_of(socket), hub_of(socket), social_of(socket)
    # the token comes in the first message, never in the address
    hello = await hub.hellos.greet(socket)
    if hello is None:  # closed: nothing in time, not a hello, or the peer gone
        return
    token = hello.token
    del hello
    try:
        account = await run_in_threadpool(accounts.account_for, server.engine, token)
    except sa.exc.SQLAlchemyError as exc:  # the database away: no one's fault here
        hub.outages.failed(server.clock.now())
        log.warning("a player's live connection refused, the database is away (%s)",
                    type(exc).__name__)
        await socket.close(1013, DATABASE_AWAY)
        return
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
        await players.push_friends([account.id], only=feed)
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
                await players.push_friends([account.id], only=feed)
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
