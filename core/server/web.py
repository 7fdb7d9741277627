"""The HTTP vocabulary every router shares: the error answer, bodies read and
limited, ids, the session token and the client's address.

Every answer is JSON; an error is ``{"error": "readable text"}`` with the status
of the "Online play" contract. Bodies are size-limited before they are read
(:data:`MAX_BODY`, a replay :data:`~blockyard.replays.MAX_REPLAY_BYTES`) and
validated field by field: a bad one is ``422``, never a ``500``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from .. import accountrules
from ..replays import MAX_REPLAY_BYTES
from ..ruleset import ID_PATTERN
from . import accounts
from .verify import parse_body

MAX_BODY = 64 << 10
"""The largest body of any call but ``POST /api/games``."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
"""The id of the request (or live connection) being served, ``-`` outside one
(set by :class:`blockyard.server.logs.Requests`)."""


class ErrorAnswer(BaseModel):
    """Every error answer's body: one readable sentence, and the id of the request
    (its ``X-Request-ID``, in the server's log lines of it)."""

    error: str
    request_id: str


def error_body(message: str) -> dict[str, str]:
    """An error answer's body (:class:`ErrorAnswer`) for the request being served."""
    return {"error": message, "request_id": REQUEST_ID.get()}


ERROR_STATUSES = {
    401: "not signed in: no valid session token (Authorization: Bearer TOKEN)",
    403: "not allowed: a private table without an invitation or its code",
    404: "no such thing: an account, a game, a table, a ruleset this server serves",
    409: "a conflict: a name taken, a game submitted already, a table full",
    422: "the request is not valid: the sentence names the field and what was wrong",
    429: "too many attempts: try again in a minute",
}
"""What each error status of the API means (the OpenAPI description's words)."""


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route answering ``statuses`` besides its
    success, each with the :class:`ErrorAnswer` body (a route's ``422`` replaces
    FastAPI's own validation-error description: this server answers with a
    sentence)."""
    return {status: {"model": ErrorAnswer, "description": ERROR_STATUSES[status]}
            for status in sorted(statuses)}


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
        too_big = JSONResponse(error_body(f"the body is larger than {limit} bytes"), 422)
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


class HeadAsGet:
    """ASGI middleware: ``HEAD`` is answered wherever ``GET`` is (RFC 9110 9.3.2),
    with the ``GET`` answer's status and headers and no body, so monitors that
    probe with ``HEAD`` (``/api/health``, ``/api/ready``, ``/metrics``) get what a
    ``GET`` would. FastAPI's routes take only the methods they name; the route
    still counts and logs the request as the ``HEAD`` it was (the outer
    middleware sees the original scope)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest of the body follows: nothing to send yet
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        # a copy: the server's own scope stays ``HEAD`` (uvicorn sends no body for
        # it); the matched route goes back for the outer middleware's count
        as_get = dict(scope, method="GET")
        try:
            await self.app(as_get, receive, headers_only)
        finally:
            if "route" in as_get:
                scope["route"] = as_get["route"]


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


# What a path or query parameter may be, as the OpenAPI description says it. The
# routes check each themselves and answer 422 with their own sentence, so these
# describe (json_schema_extra) rather than validate.
RulesetId = Annotated[str, Path(json_schema_extra={"pattern": ID_PATTERN.pattern,
                                                   "maxLength": 64})]
"""A ruleset id in a path."""
AccountName = Annotated[str, Path(json_schema_extra={
    "pattern": accountrules.NAME_PATTERN.pattern, "minLength": accountrules.NAME_MIN,
    "maxLength": accountrules.NAME_MAX})]
"""An account's name in a path."""
RowId = Annotated[int, Path(json_schema_extra={"minimum": 1, "maximum": 2**31 - 1})]
"""A stored row's id (a game's, a table's) in a path."""
RowIdText = Annotated[str, Path(json_schema_extra={"type": "integer", "minimum": 1,
                                                   "maximum": 2**31 - 1})]
"""A stored row's id in a path, as sent (described as :data:`RowId`): for a route
that reads it in a dependency before the token (:func:`path_id`), since one FastAPI
refuses as not a number would not stop the dependencies after it."""


def path_id_problem(text: str, what: str) -> str | None:
    """Why the id ``text`` of a path cannot be a stored ``what``'s (the same
    sentence for a number out of range and for anything that is not a number),
    or ``None``."""
    if text.isascii() and text.isdigit() and len(text) <= 40:
        return id_problem(int(text), what)
    return f"{what}: expected an id from 1 to {MAX_ID}, found {text[:40]!r}"


def path_id(text: str, what: str) -> int:
    """The id ``text`` of a path when it can be a stored ``what``'s, else
    ``ApiError`` 422 (:func:`path_id_problem`)."""
    problem = path_id_problem(text, what)
    if problem is not None:
        raise ApiError(422, problem)
    return int(text)
Limit = Annotated[int, Query(json_schema_extra={"minimum": 1, "maximum": 1000})]
"""How many entries a listing answers."""
Day = Annotated[str | None, Query(json_schema_extra={"format": "date"})]
"""A date, ``YYYY-MM-DD``."""


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
    """The client's address of a request or live connection: the connection's
    peer, or the proxy's ``X-Forwarded-For`` when that peer is one of the proxies
    ``blockyard serve --forwarded-allow-ips`` lists (uvicorn's proxy headers
    middleware rewrites the peer before the application sees it)."""
    return request.client.host if request.client else "?"


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
