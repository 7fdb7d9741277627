"""The HTTP application: FastAPI routes under ``/api`` (OpenAPI at
``/api/openapi.json``, browsable at ``/api/docs``).

Every answer is JSON; an error is ``{"error": "readable text"}`` with the status
of the "Online play" contract. Bodies are size-limited before they are read
(:data:`MAX_BODY`, a replay :data:`~blockyard.replays.MAX_REPLAY_BYTES`) and
validated field by field: a bad one is ``422``, never a ``500``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping, Sequence
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, HTTPConnection

from .. import provenance, watchdog
from ..replays import MAX_REPLAY_BYTES
from ..ruleset import ID_PATTERN
from ..version import __version__
from . import accounts, db, games, limits, social
from .accounts import Account
from .clock import Clock, SystemClock
from .verify import HOOK_SECONDS, Refused, Verifier, parse_body

DATABASE_ENV = "BLOCKYARD_SERVER_DATABASE"
"""The database URL handed to each server process (``blockyard serve`` sets it)."""
VERIFIERS_ENV = "BLOCKYARD_SERVER_VERIFIERS"
"""How many verifying processes each server process runs (default: its share of
the cores)."""
MAX_BODY = 64 << 10
"""The largest body of any call but ``POST /api/games``."""
MAX_LEADERBOARD = 100

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("blockyard.server")


class ApiError(HTTPException):
    """An error answer: ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, message)


def account_listing(name: str, limit: int, key: str,
                    find: Callable[[str, int], list[Any] | None]) -> dict[str, Any]:
    """The answer of ``GET /api/accounts/{name}/{key}``: ``{"name", key: find(name,
    limit)}``; ``ApiError`` 422 for a bad name or a ``limit`` outside 1–1000, 404
    when ``find`` knows no such account (answers ``None``)."""
    try:
        accounts.check_name(name)
    except accounts.AccountError as exc:
        raise ApiError(422, str(exc)) from None
    if not 1 <= limit <= 1000:
        raise ApiError(422, "limit: expected 1 to 1000")
    found = find(name, limit)
    if found is None:
        raise ApiError(404, f"no account named {name!r}")
    return {"name": name, key: found}


class Credentials(BaseModel):
    """An account's name and password."""

    model_config = ConfigDict(strict=True, extra="forbid")
    name: Annotated[str, Field(max_length=64)]
    password: Annotated[str, Field(max_length=accounts.MAX_PASSWORD)]


class BodyLimit:
    """ASGI middleware: a request body over its limit is refused (``422``)
    before it is read whole."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = MAX_REPLAY_BYTES if scope.get("path") == "/api/games" else MAX_BODY
        too_big = JSONResponse({"error": f"the body is larger than {limit} bytes"}, 422)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = limit + 1
                if size > limit:
                    await too_big(scope, receive, send)
                    return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooBig
            return message

        try:
            await self.app(scope, limited, send)
        except _TooBig:
            await too_big(scope, receive, send)


class _TooBig(Exception):
    pass


def parse_json(raw: bytes) -> Any:
    """A body's JSON (``422`` for anything else)."""
    try:
        return parse_body(raw)
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None


M = TypeVar("M", bound=BaseModel)


async def read_model(request: Request, model: type[M]) -> M:
    """The request's JSON body as ``model`` (``422`` naming the first problem)."""
    data = parse_json(await request.body())
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(422, errors_message(exc.errors())) from None


MAX_ID = 2**31 - 1
"""The largest id a stored row can have (PostgreSQL's ``INTEGER``)."""


def id_problem(value: int, what: str) -> str | None:
    """Why ``value`` cannot be the id of a stored ``what`` (1 to :data:`MAX_ID`),
    or ``None``."""
    if not 1 <= value <= MAX_ID:
        return f"{what}: expected an id from 1 to {MAX_ID}, found {str(value)[:40]}"
    return None


def check_id(value: int, what: str) -> int:
    """``value`` when it can be the id of a stored ``what``, else ``ApiError``
    422 naming it (an id out of the database's range is never looked up)."""
    problem = id_problem(value, what)
    if problem is not None:
        raise ApiError(422, problem)
    return value


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI description of a JSON body of ``model``."""
    return {"requestBody": {"required": True, "content": {
        "application/json": {"schema": model.model_json_schema()}}}}


def bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def client_address(request: HTTPConnection) -> str:
    """The client's address of a request or live connection (the proxy's
    ``X-Forwarded-For`` when uvicorn trusts it)."""
    return request.client.host if request.client else "?"


class Server:
    """What one server process holds: the database pool, the verifying pool, the
    rate limits and the clock it decides by (:class:`~blockyard.server.clock.SystemClock`
    unless given one: tests give a :class:`~blockyard.server.clock.FakeClock`)."""

    def __init__(self, database: str, verifiers: int | None = None,
                 clock: Clock | None = None) -> None:
        self.database = database
        self.clock: Clock = clock or SystemClock()
        self.engine: Engine = db.make_engine(database)
        self.verifier = Verifier(verifiers)
        counts = limits.configured()
        # counted in the database: the same for every server process
        def wall() -> float:
            return self.clock.now().timestamp()

        self.sign_in_address = limits.SharedRateLimit(self.engine, "sign_in_address",
                                                      counts["sign_in_address"], clock=wall)
        self.sign_in_name = limits.SharedRateLimit(self.engine, "sign_in_name",
                                                   counts["sign_in_name"], clock=wall)
        self.create_limit = limits.SharedRateLimit(self.engine, "create", counts["create"],
                                                   clock=wall)
        self.submit_limit = limits.SharedRateLimit(self.engine, "submit", counts["submit"],
                                                   clock=wall)
        self.code_account = limits.SharedRateLimit(self.engine, "code_account",
                                                   counts["code_account"], clock=wall)
        self.code_address = limits.SharedRateLimit(self.engine, "code_address",
                                                   counts["code_address"], clock=wall)
        self.messages_per_minute = counts["messages"]
        # per account (or address) of each live channel, across its reconnects
        self.live_messages = limits.RateLimit(counts["messages"], 60.0, self.clock)
        self.online = social.Presence(self.engine, social.presence_seconds(), self.clock)

    def account(self, request: Request) -> Account:
        """The signed-in account of the request (``401`` otherwise)."""
        found = accounts.account_for(self.engine, bearer(request))
        if found is None:
            raise ApiError(401, "sign in first: a valid session token is needed "
                                "(Authorization: Bearer TOKEN)")
        self.online.seen(found.id)  # an authenticated call: the player is online
        return found

    def close(self) -> None:
        self.verifier.close()
        self.engine.dispose()


def create_app(database: str, *, verifiers: int | None = None,
               clock: Clock | None = None) -> FastAPI:
    """The ASGI application on the (migrated) database at ``database``, deciding
    by ``clock`` (the system's unless given)."""
    server = Server(database, verifiers, clock)
    # the live tables' games run plugin hooks in this process: under the watchdog
    watchdog.set_default(HOOK_SECONDS)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = app.state.hub
        await hub.start()
        await app.state.social.start()
        try:
            yield
        finally:
            await app.state.social.stop()
            await hub.stop()
            server.close()

    app = FastAPI(title="Blockyard server", version=__version__, lifespan=lifespan,
                  openapi_url="/api/openapi.json", docs_url="/api/docs", redoc_url=None)
    app.state.server = server

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        return JSONResponse({"error": str(exc.detail)}, exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        return JSONResponse({"error": validation_message(exc)}, 422)

    @app.exception_handler(ClientDisconnect)
    async def client_gone(request: Request, exc: ClientDisconnect) -> Response:
        # the client closed the connection before its body was read: nobody reads
        # an answer, and nothing went wrong here
        log.info("client disconnected before its body was read: %s %s", request.method,
                 request.url.path)
        return Response(status_code=400)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> Response:  # pragma: no cover
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": "internal server error"}, 500)

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        """Whether the server is up, and its Blockyard version."""
        return {"ok": True, "version": __version__}

    @app.get("/api/rulesets")
    async def get_rulesets() -> dict[str, Any]:
        """The rulesets this server serves, each with its ``digest`` (the SHA-256
        of its resolved rule file) and the plugin distributions (``name``,
        ``version``) whose code answers its hooks, Blockyard's own included: a
        game played with anything else is refused, naming the difference."""
        return {"rulesets": await run_in_threadpool(served_rulesets)}

    @app.get("/api/rulesets/{ruleset_id}")
    async def get_ruleset(ruleset_id: str) -> dict[str, Any]:
        """One served ruleset as ``GET /api/rulesets`` lists it, with its resolved
        rule file (``rules``, TOML): a client names the rule key that differs from
        its own."""
        if len(ruleset_id) > 64 or not ID_PATTERN.match(ruleset_id):
            raise ApiError(422, "ruleset_id: expected a ruleset id")
        found = await run_in_threadpool(served_ruleset, ruleset_id)
        if found is None:
            raise ApiError(404, f"this server does not serve the ruleset {ruleset_id!r}")
        return found

    @app.post("/api/accounts", status_code=201, openapi_extra=json_body(Credentials))
    async def create_account(request: Request) -> dict[str, Any]:
        """Open an account: 3–24 letters, digits, ``_``, ``-``; a password of 8+
        characters. ``409`` when the name (in any case) is taken."""
        if not await server.create_limit.allow(client_address(request)):
            raise ApiError(429, "too many new accounts from this address; try again in "
                                "a minute")
        body = await read_model(request, Credentials)
        try:
            account = await run_in_threadpool(accounts.create_account, server.engine,
                                              body.name, body.password)
        except accounts.AccountError as exc:
            raise ApiError(422, str(exc)) from None
        except accounts.NameTaken:
            raise ApiError(409, f"the name {body.name!r} is taken") from None
        return {"name": account.name}

    @app.post("/api/sessions", openapi_extra=json_body(Credentials))
    async def sign_in(request: Request) -> dict[str, Any]:
        """Sign in: a session token (valid for 30 days, until signed out)."""
        body = await read_model(request, Credentials)
        if not await server.sign_in_address.allow(client_address(request)) \
                or not await server.sign_in_name.allow(body.name.lower()):
            raise ApiError(429, "too many sign-in attempts; try again in a minute")
        token = await run_in_threadpool(accounts.sign_in, server.engine, body.name,
                                        body.password)
        if token is None:
            raise ApiError(401, "wrong name or password")
        return {"token": token}

    @app.delete("/api/sessions", status_code=204)
    async def sign_out(request: Request) -> Response:
        """Sign out: the session token of the call is revoked, and every live
        connection opened with it is closed (code 4401): nothing sent on one
        afterwards is accepted."""
        token = bearer(request)
        if token is None or not await run_in_threadpool(accounts.revoke, server.engine,
                                                        token):
            raise ApiError(401, "no live session token was sent")
        await app.state.hub.sign_out(accounts.token_hash(token))
        return Response(status_code=204)

    @app.post("/api/games", status_code=201)
    async def submit_game(request: Request) -> dict[str, Any]:
        """Submit a finished game's replay file (JSON as ``blockyard.replays``
        writes it). The server replays the log with its own rules and stores
        the score it computed; ``counted`` is false for practice (a daily game
        after the player's first finished game of that date)."""
        account = await run_in_threadpool(server.account, request)
        if not await server.submit_limit.allow(f"account:{account.id}"):
            raise ApiError(429, "too many games submitted; try again in a minute")
        try:  # the body is parsed in a verifying process, never in this event loop
            verified = await server.verifier.verify(await request.body(), account.name)
        except Refused as exc:
            raise ApiError(422, str(exc)) from None
        try:
            game_id, counted = await run_in_threadpool(games.store_game, server.engine,
                                                       account, verified)
        except games.Duplicate:
            raise ApiError(409, "this game was submitted already") from None
        return {"id": game_id, "ruleset_id": verified.ruleset_id, "score": verified.score,
                "counted": counted}

    @app.get("/api/games/{game_id}")
    def get_game(game_id: int) -> dict[str, Any]:
        """A stored game's replay JSON: anyone may watch and verify it."""
        check_id(game_id, "game_id")
        found = games.game_replay(server.engine, game_id)
        if found is None:
            raise ApiError(404, f"no game {game_id}")
        return found

    @app.get("/api/accounts/{name}/games")
    def get_player_games(name: str, limit: int = 100) -> dict[str, Any]:
        """A player's verified games, newest first (``limit`` 1–1000): the records
        that follow an account from machine to machine."""
        return account_listing(name, limit, "games",
                               lambda who, n: games.player_games(server.engine, who, n))

    @app.get("/api/leaderboards/{ruleset_id}")
    def get_leaderboard(ruleset_id: str, date: str | None = None,
                        limit: int = 20) -> dict[str, Any]:
        """The best counted games, best first. Daily rulesets: of ``date``
        (default today, UTC), each player's first finished game of that date.
        Other rulesets: each player's best (of ``date`` when given)."""
        if len(ruleset_id) > 64 or not ID_PATTERN.match(ruleset_id):
            raise ApiError(422, "ruleset_id: expected a ruleset id")
        if date is not None:
            try:
                if len(date) != 10:
                    raise ValueError
                _dt.date.fromisoformat(date)
            except ValueError:
                raise ApiError(422, "date: expected YYYY-MM-DD") from None
        if not 1 <= limit <= MAX_LEADERBOARD:
            raise ApiError(422, f"limit: expected 1 to {MAX_LEADERBOARD}")
        try:
            daily = games.is_daily(ruleset_id)
        except KeyError:
            raise ApiError(404, f"this server does not serve the ruleset {ruleset_id!r}"
                           ) from None
        if daily and date is None:
            date = accounts.now().date().isoformat()
        entries = games.leaderboard(server.engine, ruleset_id, daily, date, limit)
        return {"ruleset_id": ruleset_id, "date": date, "entries": entries}

    from . import tables

    social.install(app, server, tables.install(app, server))
    app.add_middleware(BodyLimit)
    return app


def served_rulesets() -> list[dict[str, Any]]:
    """Every ruleset this server serves (those that load here), as ``GET
    /api/rulesets`` lists them, by id."""
    from ..discovery import list_rulesets, load_ruleset
    from ..errors import PluginError, RulesetError

    out = []
    for info in sorted(list_rulesets(), key=lambda i: i.id):
        if info.error is not None:
            continue
        try:
            out.append(provenance.served_json(load_ruleset(info.id)))
        except (RulesetError, PluginError):  # broken since it was listed: not served
            continue
    return out


def served_ruleset(ruleset_id: str) -> dict[str, Any] | None:
    """A served ruleset with its resolved rule text (``rules``), or ``None`` when
    this server does not serve ``ruleset_id``."""
    from ..discovery import load_ruleset
    from ..errors import PluginError, RulesetError

    if len(ruleset_id) > 64 or not ID_PATTERN.match(ruleset_id):  # an id, never a path
        return None
    try:
        ruleset = load_ruleset(ruleset_id)
    except (RulesetError, PluginError):
        return None
    return {**provenance.served_json(ruleset), "rules": ruleset.to_toml()}


def validation_message(exc: RequestValidationError) -> str:
    """A readable line for the first problem of a request."""
    return errors_message(exc.errors())


def errors_message(errors: Sequence[Any]) -> str:
    """A readable line for the first of pydantic's ``errors`` (never the value
    sent: it may be a password)."""
    if not errors:
        return "the request is not valid"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = str(first.get("msg", "not valid"))
    return f"{where}: {message}" if where else message


def create_app_from_env() -> FastAPI:
    """The application for a uvicorn worker: the database of
    :data:`DATABASE_ENV` (``blockyard serve`` migrates it first)."""
    database = os.environ.get(DATABASE_ENV) or db.default_url()
    text = os.environ.get(VERIFIERS_ENV, "").strip()
    return create_app(database, verifiers=int(text) if text.isdigit() else None)
