"""The live tables' routes: ``POST /api/tables``, ``GET /api/tables``, ``GET
/api/tables/{id}``, ``POST /api/tables/{id}/join``, ``GET
/api/accounts/{name}/tables`` and the WebSocket ``/api/tables/{id}/live``.

What a table does is the :class:`~blockyard.server.tables.Hub`'s and its
referees'; these routes read the request, ask the hub and answer.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request, WebSocket
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ... import accountrules, protocol
from ...discovery import load_ruleset
from ...errors import PluginError, RulesetError
from ...game import today_in
from ...ruleset import ID_PATTERN
from .. import accounts, announcements, presence, social, tablestore
from ..room import Watcher
from ..sockets import DATABASE_AWAY, GONE, receive_text, too_many_messages
from ..state import HubDep, ServerDep, SignedIn, SocialDep, hub_of, server_of
from ..tables import (
    CODE_GUESSES,
    account_tables,
    guess_allowed,
    log,
    refused,
    relies_on_code,
)
from ..tablestore import TableError
from ..web import (
    AccountName,
    ApiError,
    Limit,
    RowIdText,
    bearer,
    client_address,
    errors,
    json_body,
    path_id,
    path_id_problem,
    read_model,
)

router = APIRouter()

SESSION_CHECKED = ("leave", "rematch", "say")
"""The requests of a table's channel whose sender's session is read from the
database before they are taken (an ``act``'s is checked where it is stored): a
token signed out on another process, its announcement not yet here, changes
nothing. (``presence`` only says whether a window is in the background.)"""


def table_id_checked(table_id: RowIdText) -> int:
    """The path's ``table_id`` when it can be a stored table's (``422`` otherwise,
    before anything else is asked, the token included)."""
    return path_id(table_id, "table_id")


TableId = Annotated[int, Depends(table_id_checked)]


def _whole(value: Any) -> Any:
    """A JSON number with no fraction (``3.0``, an integer as JSON Schema counts
    them) as the integer it is; anything else as sent, for the strict check."""
    return int(value) if type(value) is float and value.is_integer() else value


class NewTable(BaseModel):
    """``POST /api/tables``: the ruleset, the seats, who may join."""

    model_config = ConfigDict(strict=True, extra="forbid")
    ruleset_id: Annotated[str, Field(max_length=64)]
    seats: Annotated[int, Field(ge=tablestore.MIN_SEATS, le=tablestore.MAX_SEATS),
                     BeforeValidator(_whole)] = 2
    private: bool = False
    invite: Annotated[list[Annotated[str, Field(max_length=24, json_schema_extra={
        "pattern": accountrules.NAME_PATTERN.pattern})]],
                      Field(max_length=tablestore.MAX_INVITES)] = []
    # friendly unless asked: a table whose players chose each other rates nobody
    # (Play now's tables, whose players the server paired, are rated)
    rated: bool = False


class JoinTable(BaseModel):
    """``POST /api/tables/{id}/join``: the table's code (for a private table
    without invitation)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    code: Annotated[str | None, Field(max_length=16)] = None


def describe_served(schema: dict[str, Any], ruleset_ids: list[str]) -> None:
    """Say in the OpenAPI description ``schema`` which rulesets a new table may
    be of (``ruleset_ids``, the ones this server serves): an ``enum`` of the
    ``ruleset_id`` of ``POST /api/tables``."""
    body = schema["paths"]["/api/tables"]["post"]["requestBody"]
    body["content"]["application/json"]["schema"]["properties"]["ruleset_id"]["enum"] = \
        list(ruleset_ids)


def served_ruleset(ruleset_id: str) -> str | None:
    """The date a new table of ``ruleset_id`` plays (``""`` for a ruleset that is
    not daily), or ``None`` when this server does not serve it."""
    if not ID_PATTERN.fullmatch(ruleset_id):
        return None
    try:
        ruleset = load_ruleset(ruleset_id)
    except (RulesetError, PluginError):
        return None
    return today_in(ruleset.timezone).isoformat() if ruleset.is_daily else ""


@router.post("/api/tables", status_code=201, openapi_extra=json_body(NewTable),
             responses=errors(401, 422, 429))
async def create_table(request: Request, account: SignedIn, server: ServerDep, hub: HubDep,
                       players: SocialDep) -> dict[str, Any]:
    """Open a table: the creator holds seat 0; ``private`` tables admit the
    invited names and whoever has the code. ``429`` when the creator holds the
    most seats one player may at tables that are waiting or playing (3), or
    sends more invitations than allowed."""
    body = await read_model(request, NewTable)
    for name in body.invite:
        try:
            accounts.check_name(name)
        except accounts.AccountError:
            raise ApiError(422, f"invite: {name!r} is not an account name") from None
    date = served_ruleset(body.ruleset_id)
    if date is None:
        raise ApiError(422, f"ruleset_id: this server does not serve "
                            f"{body.ruleset_id!r}")
    try:  # floods of invitations are refused (429) before the table opens
        invited = await run_in_threadpool(
            functools.partial(social.check_invites, server.engine, account, body.invite,
                              most_sent=server.settings.pending_invites))
    except social.InviteRefused as exc:
        raise ApiError(exc.status, str(exc)) from None
    # counted again where the table is stored, holding the accounts: two tables
    # opened at once count each other's invitations
    admit = functools.partial(social.invites_allowed, inviter=account, names=body.invite,
                              most_sent=server.settings.pending_invites)
    try:
        table = await run_in_threadpool(
            tablestore.create_table, server.engine, account, body.ruleset_id, body.seats,
            body.private, body.invite, date or None, body.rated, admit)
    except (TableError, social.InviteRefused) as exc:
        raise ApiError(exc.status, str(exc)) from None
    await hub.touch([(table.id, 0)])  # away from now on until connected
    await players.announce(invited)  # pushed to the invited players
    if not table.private:  # pushed to the creator's followers
        await players.announce_opened(table, account)
    return {"id": table.id, "code": table.code}


@router.get("/api/tables")
def list_tables(server: ServerDep) -> dict[str, Any]:
    """Public tables that are waiting or playing, newest first, with whether
    each is rated and its seats' ratings."""
    found = tablestore.list_tables(server.engine)
    return {"tables": [{"id": t.id, "ruleset_id": t.ruleset_id, "seats": list(t.players),
                        "status": t.status, "rated": t.rated,
                        "ratings": t.shown_ratings()} for t in found]}


@router.get("/api/tables/{table_id}", responses=errors(404, 422, 429))
def get_table(table_id: TableId, request: Request, server: ServerDep, hub: HubDep,
              code: str | None = None) -> dict[str, Any]:
    """A table with the results of its finished rounds and who is there
    (``presence``, ``waiting_for``, as the live channel's ``table`` message
    says them). A private table is shown only to whom may watch it (seated or
    invited, signed in with ``Authorization: Bearer TOKEN``, or with its
    ``code``); to anyone else it is ``404`` as a table that does not exist, so
    that its id (ids are sequential) says nothing of it."""
    try:
        table = tablestore.load_table(server.engine, table_id)
    except TableError as exc:
        raise ApiError(exc.status, str(exc)) from None
    if table.private:
        token = bearer(request)
        account = accounts.account_for(server.engine, token) if token else None
        code = code[:32] if code else None
        if relies_on_code(table, account, code) \
                and not guess_allowed(server, account, client_address(request)):
            raise ApiError(429, CODE_GUESSES)
        if not table.may_watch(account, code):
            raise ApiError(404, tablestore.no_table(table_id))
    view = presence.seat_view(server.engine, table, server.clock.now(), hub.seats.timing,
                              continuable=hub.sweep.continuable)
    shown = {key: value for key, value in table.message(view).items()
             if key not in ("type", "protocol")}  # the live message's own fields
    return {**shown, "results": tablestore.results(server.engine, table_id)}


@router.get("/api/accounts/{name}/tables", responses=errors(404, 422))
def get_player_tables(name: AccountName, server: ServerDep, limit: Limit = 100) -> dict[str, Any]:
    """A player's table results, newest first (``limit`` 1–1000): every
    finished round they held a seat in, with their seat."""
    return account_tables(server, name, limit)


@router.post("/api/tables/{table_id}/join", openapi_extra=json_body(JoinTable),
             responses=errors(401, 403, 404, 409, 422, 429))
async def join_table(table_id: TableId, request: Request, account: SignedIn,
                     server: ServerDep, hub: HubDep) -> dict[str, Any]:
    """Take a seat: ``403`` for a private table without invitation or code,
    ``409`` when full, ``429`` when the caller holds the most seats one player
    may at tables that are waiting or playing (3)."""
    raw = await request.body()
    body = JoinTable() if not raw.strip() else await read_model(request, JoinTable)
    if body.code is not None:  # a guess of a private table's code is counted
        try:
            found = await run_in_threadpool(tablestore.load_table, server.engine,
                                            table_id)
        except TableError as exc:
            raise ApiError(exc.status, str(exc)) from None
        if relies_on_code(found, account, body.code) and not await run_in_threadpool(
                guess_allowed, server, account, client_address(request)):
            raise ApiError(429, CODE_GUESSES)
    try:
        table = await run_in_threadpool(tablestore.join_table, server.engine, table_id,
                                        account, body.code, server.clock.now())
    except TableError as exc:
        raise ApiError(exc.status, str(exc)) from None
    seat = table.seat_of(account)
    if seat is not None:
        await hub.touch([(table_id, seat)])  # away from now on until connected
    await hub.events.publish(announcements.table_changed(table_id))
    return {"seat": seat}


async def live(socket: WebSocket) -> None:
    """A table's live channel: the client's ``hello`` first (its token, none for a
    spectator, and a private table's code), then the table and its moves as
    they are made, who is there and the quick phrases; a player's ``act``,
    ``leave``, ``rematch``, ``presence`` and ``say``. (A plain Starlette route: what
    it needs is the process's own state, and FastAPI's dependency machinery would
    cost every open connection about 7 kB for nothing.)"""
    table_text = str(socket.path_params["table_id"])
    server, hub = server_of(socket), hub_of(socket)
    # the credentials come in the first message, never in the address
    hello = await hub.hellos.greet(socket)
    if hello is None:  # closed: nothing in time, not a hello, or the peer gone
        return
    token, code = hello.token, hello.code
    del hello
    account = None
    try:
        if token:
            account = await run_in_threadpool(accounts.account_for, server.engine, token)
            if account is not None:  # a live connection: the player is online
                await run_in_threadpool(server.online.seen, account.id)
    except sa.exc.SQLAlchemyError as exc:  # the database away: no one's fault here
        hub.outages.failed(server.clock.now())  # and no one's away time counts
        log.warning("table %s: a live connection refused, the database is away (%s)",
                    table_text[:40], type(exc).__name__)
        await socket.close(1013, DATABASE_AWAY)
        return
    # any id no table can have, a number or not, is answered as one out of range
    problem = path_id_problem(table_text, "table_id")
    if problem is not None:
        await socket.send_json(refused(f"no such table ({problem})", "not-found"))
        await socket.close(4404)
        return
    table_id = int(table_text)
    if token and account is None:
        await socket.send_json(refused("sign in first: the token is not valid", "signed-out"))
        await socket.close(4401)
        return
    try:  # a public table watched here already is kept up to date by its
        # announcements: no read (a private one's invitations expire: read)
        kept = hub.tables.get(table_id) if hub.room.watching(table_id) else None
        table = kept if kept is not None and not kept.private else await hub.table(table_id)
        guessed = relies_on_code(table, account, code) and not await run_in_threadpool(
            guess_allowed, server, account, client_address(socket))
    except TableError as exc:
        await socket.send_json(refused(str(exc), "not-found"))
        await socket.close(4404)
        return
    except sa.exc.SQLAlchemyError:
        hub.outages.failed(server.clock.now())
        await socket.close(1013, DATABASE_AWAY)
        return
    if guessed:
        await socket.send_json(refused(CODE_GUESSES, "too-many"))
        await socket.close(4429)
        return
    if not table.may_watch(account, code):
        await socket.send_json(refused("this table is private: an invitation or its "
                                       "code is needed", "private"))
        await socket.close(4403)
        return
    watcher = Watcher(socket, account,
                      token=accounts.token_hash(token) if account and token else None)
    try:
        if not hub.room.enter(table_id, watcher):  # signed out while it opened
            return
        await hub.arrived(watcher, table)
        # read again only if it changed since (a table announcement drops it)
        table = await hub.cached_table(table_id)
        await hub.know_round(table)
        await hub.seats.greet(watcher, table)  # who is there from now on comes after it
        clock = hub.clock_message(table)
        if clock is not None:
            watcher.post(clock)
        await hub.send_known(table_id, only=watcher)
        if table.status == "finished":
            done = await run_in_threadpool(tablestore.results, server.engine, table_id)
            if done:
                last = done[-1]
                # stored with the result (a round stored before: as presence says)
                left = last["left"] if "left" in last else await hub.left_seats(table)
                watcher.post(protocol.result(last["scores"], last["winner"],
                                             last["ratings"], left, last["aborted"]))
        # counted per account (an address when not signed in), across reconnects
        budget = f"table:{account.id}" if account else \
            f"table-address:{client_address(socket)}"
        while True:
            text = await receive_text(socket)
            if watcher.signed_out:
                watcher.outbox.close_signed_out()
                break
            if not server.live_messages.hit(budget):
                watcher.post(too_many_messages(server.messages_per_minute))
                break
            request = protocol.read_request(text, protocol.TABLE_REQUESTS)
            if isinstance(request, protocol.Refusal):
                watcher.post(request.message())
            elif request["type"] == "act":
                await hub.act(watcher, table_id, request["action"])
            elif request["type"] in SESSION_CHECKED and not await hub.signed_in(watcher):
                break  # signed out (on any process): closed, 4401
            elif request["type"] == "leave":
                await hub.leave(watcher, table_id)
                break
            elif request["type"] == "presence":
                await hub.window(watcher, table_id, request["state"])
            elif request["type"] == "say":
                await hub.say(watcher, table_id, request["phrase"])
            else:  # rematch
                await hub.rematch(watcher, table_id)
    except GONE:
        pass
    finally:
        closed = hub.clock.now()
        hub.room.leave(table_id, watcher)
        with contextlib.suppress(Exception):
            await hub.departed(watcher, table_id, closed)
        hub.drop(table_id)  # what is kept of it, unless someone here still watches
        await watcher.outbox.flushed()  # what was sent to it before it ended, if it reads
        await watcher.outbox.stop()
        with contextlib.suppress(Exception):
            await socket.close()


router.add_websocket_route("/api/tables/{table_id}/live", live)
