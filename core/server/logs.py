"""What the server writes to its log, and how a failure reaches it once.

Every line has its time, level and logger, and the id of the request it was
written for (``-`` outside one): the same id is the ``X-Request-ID`` header of
every answer and the ``request_id`` of every error body, so a player's report of
an error finds its lines. Two formats (``blockyard serve --log-format``):
``text``, a line per record, and ``json``, a JSON object per line for log
collectors (python-json-logger's formatter). uvicorn's loggers, Blockyard's
(``blockyard…``) and Alembic's all write through the same handler.

:class:`Requests`, the application's outermost middleware of its own, gives each
request and live connection its id, counts the answers for ``/metrics`` and
turns an exception no route handled into one log record with its traceback and
a JSON ``500`` (a ``503`` without a traceback when the database could not be
reached): nothing is raised further, so uvicorn does not log it a second time.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import secrets
import time
import urllib.parse
from typing import Any

from starlette.responses import JSONResponse

from . import metrics
from .db import database_unavailable
from .web import REQUEST_ID, ASGIApp, Message, Receive, Scope, Send, error_body

__all__ = ["ANSWERED_AFTER", "FORMATS", "LEVELS", "REQUEST_ID", "AccessFields", "OneLine",
           "RedactTokens", "RequestIds",
           "Requests",
           "database_unavailable", "log_config", "request_id"]

LEVELS = ("debug", "info", "warning", "error")
"""The ``--log-level`` choices."""
FORMATS = ("text", "json")
"""The ``--log-format`` choices."""
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
JSON_FIELDS = "%(levelname)s %(name)s %(request_id)s %(message)s"
UNAVAILABLE = "the server's database is unavailable; try again shortly"
"""The ``error`` of a ``503``: the database could not be reached."""

_QUERY_PART = re.compile(r"([?&;])([^=&;#\s\"'?]*)=([^&;#\s\"']*)")
"""A query's ``key=value`` (``&`` or ``;`` between them, as servers split them)."""
_SECRET_KEYS = frozenset({"token", "code"})
_SECRET_FIELD = re.compile(r"""(["'](?:token|code)["']\s*:\s*["'])[^"']*""", re.IGNORECASE)
"""A ``"token": "…"`` or ``"code": "…"`` of a JSON text or a dict's repr (a live
channel's ``hello`` in uvicorn's debug lines of the frames it receives; the value
ends at its quote or, cut short, at the line's end)."""


def redact(text: str) -> str:
    """``text`` with every token and table code blanked (``…``): a query part whose
    key, decoded as a server decodes it (``c%6Fde``, ``TOKEN``), is ``token`` or
    ``code``, and a ``"token"`` or ``"code"`` field of a JSON text."""
    def part(match: re.Match[str]) -> str:
        key = urllib.parse.unquote_plus(match.group(2)).strip().lower()
        if key in _SECRET_KEYS:
            return f"{match.group(1)}{match.group(2)}=…"
        return match.group(0)

    return _SECRET_FIELD.sub(r"\1…", _QUERY_PART.sub(part, text))
_GIVEN_ID = re.compile(rb"[A-Za-z0-9._:-]{8,64}")
"""An ``X-Request-ID`` a proxy in front set, kept when it looks like one."""

log = logging.getLogger("blockyard.server")


def request_id() -> str:
    """The id of the request being served (``-`` outside one)."""
    return REQUEST_ID.get()


class RedactTokens(logging.Filter):
    """A ``token`` or ``code`` in a logged address's query (however its key is
    spelled: ``c%6Fde=``, ``;token=``) or in a logged JSON text is blanked out
    (:func:`redact`): no client of live protocol 4 puts a session token or a
    table's code in an address (the live channels take them in their ``hello``),
    but whatever a client sends in an address is written to the access lines,
    ``GET /api/tables/{id}`` still takes a private table's ``code`` in its query,
    and at ``--log-level debug`` uvicorn writes the frames a live channel
    receives, its ``hello`` among them."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and all(isinstance(a, str | bytes | int | float)
                                           or a is None for a in args):
            # kept as arguments (the access line's parts are read from them)
            record.args = tuple(redact(a) if isinstance(a, str) else
                                redact(a.decode("utf-8", "replace"))
                                if isinstance(a, bytes) else a for a in args)
            record.msg = redact(str(record.msg))
        elif args:  # an object (a frame, a dict) says what it holds only when formatted
            record.msg, record.args = redact(record.getMessage()), None
        else:
            record.msg = redact(str(record.msg))
        return True


ANSWERED_AFTER: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "answered_after", default=None)
"""Seconds from a request's arrival to its answer's start (set by :class:`Requests`
as the answer starts, where uvicorn writes its access line)."""


class AccessFields(logging.Filter):
    """uvicorn's access line (``client - "METHOD PATH HTTP/1.1" STATUS``) with the
    request's duration after it (``… 200 3.1 ms``: from its arrival to its
    answer's start) and the same parts as fields of their own (``client``,
    ``method``, ``path``, ``http_version``, ``status``, ``duration_ms``), which the
    JSON format writes as keys of the line's object."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name != "uvicorn.access" or not isinstance(record.args, tuple) \
                or len(record.args) != 5:
            return True
        client, method, path, version, status = record.args
        seconds = ANSWERED_AFTER.get()
        duration = None if seconds is None else round(seconds * 1000, 1)
        record.__dict__.update(client=client, method=method, path=path,
                               http_version=version, status=status, duration_ms=duration)
        if duration is not None and isinstance(record.msg, str):
            record.msg, record.args = f"{record.msg} %s ms", (*record.args, duration)
        return True


class RequestIds(logging.Filter):
    """Puts the id of the request being served on every record (``request_id``),
    and drops uvicorn's ``color_message`` (the same words with terminal colours)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        record.__dict__.pop("color_message", None)
        return True


class OneLine(logging.Filter):
    """A message of several lines (a migration's description) written on one
    line, so that every line of the text log starts with its time, level and
    logger (a traceback still follows its record's line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "\n" in message:
            record.msg, record.args = " ".join(message.split()), None
        return True


def log_config(level: str = "info", fmt: str = "text") -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of a server process (uvicorn applies
    it in each of its worker processes): one handler to standard error in
    ``fmt`` (one of :data:`FORMATS`), with ids and blanked tokens, for uvicorn's,
    Blockyard's and Alembic's loggers at ``level`` (one of :data:`LEVELS`), and
    everything else at ``warning``."""
    if level not in LEVELS:
        raise ValueError(f"log level: expected one of {', '.join(LEVELS)}, found {level!r}")
    if fmt not in FORMATS:
        raise ValueError(f"log format: expected one of {', '.join(FORMATS)}, found {fmt!r}")
    formatter: dict[str, Any]
    if fmt == "json":
        formatter = {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": JSON_FIELDS,
                     "timestamp": True,
                     "rename_fields": {"levelname": "level", "name": "logger"}}
    else:
        formatter = {"format": TEXT_FORMAT}
    name = level.upper()
    handler = ["server"]
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"ids": {"()": f"{__name__}.RequestIds"},
                    "redact": {"()": f"{__name__}.RedactTokens"},
                    "access": {"()": f"{__name__}.AccessFields"},
                    "one-line": {"()": f"{__name__}.OneLine"}},
        "formatters": {"server": formatter},
        "handlers": {"server": {"class": "logging.StreamHandler", "formatter": "server",
                                "filters": ["ids", "redact", "access",
                                            *(["one-line"] if fmt == "text" else [])],
                                "stream": "ext://sys.stderr"}},
        "loggers": {
            "uvicorn": {"handlers": handler, "level": name, "propagate": False},
            "uvicorn.error": {"level": name},
            "uvicorn.access": {"handlers": handler, "level": name, "propagate": False},
            "blockyard": {"handlers": handler, "level": name, "propagate": False},
            # Alembic's migrations say what they do (and 0007 names the games it
            # stops counting); its other loggers only how it set itself up
            "alembic": {"handlers": handler, "level": "WARNING", "propagate": False},
            "alembic.runtime.migration": {"level": name},
        },
        "root": {"handlers": handler, "level": "WARNING"},
    }


def _route(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


class Requests:
    """ASGI middleware: each request and live connection gets its id
    (:data:`REQUEST_ID`; a proxy's ``X-Request-ID`` of 8 to 64 letters, digits
    and ``._:-`` is kept), every answer carries it (``X-Request-ID``), every
    answer is counted for ``/metrics``, and an exception no route handled is
    logged once, with its traceback, and answered ``500`` (``503`` and one line
    without a traceback when the database could not be reached), each with the
    request id in its body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope.get("headers", ()) if k == b"x-request-id"), b"")
        rid = given.decode() if _GIVEN_ID.fullmatch(given) else secrets.token_hex(8)
        reset = REQUEST_ID.set(rid)
        try:
            if scope["type"] == "http":
                await self._http(scope, receive, send, rid)
            else:
                await self._websocket(scope, receive, send, rid)
        finally:
            REQUEST_ID.reset(reset)

    async def _http(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        status = 500
        started = False
        begun = time.perf_counter()

        async def answer(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = int(message["status"]), True
                # for the access line uvicorn writes as it sends this start
                ANSWERED_AFTER.set(time.perf_counter() - begun)
                message["headers"] = [*message.get("headers", ()),
                                      (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, answer)
        except Exception as exc:
            where = f"{scope.get('method', '?')} {scope.get('path', '?')}"
            if database_unavailable(exc):
                log.warning("database unavailable on %s: %s: %s", where,
                            type(exc).__name__, _first_line(exc))
                body, status = UNAVAILABLE, 503
            else:
                log.exception("internal error on %s", where)
                body, status = "internal server error", 500
            if not started:
                headers = {"Retry-After": "5"} if status == 503 else None
                await JSONResponse(error_body(body), status,
                                   headers=headers)(scope, receive, answer)
        finally:
            metrics.http_request(_route(scope), str(scope.get("method", "?")), status,
                                 time.perf_counter() - begun)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send, rid: str
                         ) -> None:
        closed = False

        async def sent(message: Message) -> None:
            nonlocal closed
            kind = message["type"]
            if kind == "websocket.close":
                closed = True
            elif kind == "websocket.accept":  # the handshake's answer carries the id too
                message["headers"] = [*message.get("headers", ()),
                                      (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, sent)
        except Exception as exc:
            path = scope.get("path", "?")
            if database_unavailable(exc):
                log.warning("database unavailable on the live connection %s: %s: %s",
                            path, type(exc).__name__, _first_line(exc))
                code = 1013  # "try again later": the client connects again
            else:
                log.exception("internal error on the live connection %s", path)
                code = 1011  # "internal error": never taken for a normal end
            if not closed:
                with contextlib.suppress(Exception):  # the connection already gone
                    await send({"type": "websocket.close", "code": code})


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else ""
