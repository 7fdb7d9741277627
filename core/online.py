"""The client side of online play: ``blockyard serve``'s calls over HTTP and its
live tables over a WebSocket, for the window and for scripts (no window code).

:class:`Client` makes the HTTP calls (accounts, sessions, verified games,
leaderboards, tables). Every failure is an :class:`OnlineError` with a text a
player can read: the server's own ``{"error": ...}`` message with its status,
or "cannot reach the server at …" when the connection is refused, times out or
the address is not a server.

:class:`LiveTable` is one seat's (or a spectator's) connection to a live table.
It runs in a background thread with two queues, so the window never waits on
the network: the window sends with :meth:`LiveTable.act` (which only queues the
message) and takes what arrived with :meth:`LiveTable.poll` once a frame. A
thread rather than asyncio inside pyglet's loop: pyglet's event loop stays as
it is, the thread sleeps in a blocking ``recv`` (no polling, so an idle window
costs no CPU) and the same class serves scripts and tests without an event loop.
A dropped connection is reported (``{"type": "connection", "state": "lost"}``),
connected again automatically to the same table, and the moves the server sends
again on reconnecting are passed on only once (``"state": "back"`` follows).

:class:`PlayerFeed` is the signed-in player's own connection
(``/api/me/live``), in a background thread the same way: it keeps the player
online and holds the latest pending invitations and players online the server
pushed, and the table Play now paired the player at (:attr:`PlayerFeed.paired`);
the window compares :attr:`PlayerFeed.version` once a frame.

Ratings (rated tables, :mod:`blockyard.ratings`): :meth:`Client.ratings` reads a
ruleset's rated leaderboard, :meth:`Client.account` a player's ratings,
:meth:`Client.play_now` puts the player in the pool of Play now
(:meth:`Client.pairing`, :meth:`Client.leave_pairing`); :func:`seat_ratings` and
:func:`rating_changes` read a live table's ``table`` and ``result`` messages.

:func:`run_in_background` runs one HTTP call off the window's thread; the
window polls the returned :class:`Pending` each frame.

Before a table is opened or joined and before a game is submitted, the client
compares what the game is played with (the plugin distributions and their
versions, the rule file) with what the server serves (``GET /api/rulesets/{id}``,
:meth:`Client.compare`, one comparison: :func:`blockyard.provenance.mismatch`):
a difference is an :class:`OnlineError` of kind :data:`PLUGIN_DIFFERS` or
:data:`RULES_DIFFER` whose ``mismatch`` names the plugin and both versions, or
the rule key and both values, and nothing is sent. :func:`mirror_move` applies
a table's accepted move to the seat's game mirrored here, and
:func:`mirror_divergence` tells one that went another way than the server's.

The module is longer than most because it is the whole client of one protocol:
the HTTP calls with their answers checked (a server is untrusted input), the
failure kinds the window words, and the two live connections, which share one
reconnecting thread (``_Reconnecting``).
"""

from __future__ import annotations

import contextlib
import json
import queue
import random
import ssl
import threading
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import httpx

from . import protocol, provenance
from .errors import DataError, PluginError, RulesetError
from .provenance import Mismatch, PluginVersion, Provenance
from .replays import Replay, ReplayError, check_replay_data, load_replay, replay_data

DEFAULT_TIMEOUT = 10.0
RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0)
"""The steps between attempts to connect again, the last repeated: each wait is
drawn between half the step and the whole (:func:`reconnect_delay`), so that the
players a restart dropped together do not all come back at once."""
SERVICE_RESTART = 1012
"""The close code of a server that is stopping or restarting (WebSocket's
"service restart")."""
MAX_MESSAGE = 16 * 1024  # what the server accepts from a client
SEND_ON_CLOSE = 2.0  # seconds closing a live table waits for what was queued to go out
MAX_INCOMING = 4 * 1024 * 1024  # what we accept from a server

T = TypeVar("T")


UNREACHABLE = "unreachable"
"""No answer: the connection was refused or the address does not resolve."""
TIMEOUT = "timeout"
"""The server did not answer in time."""
NOT_BLOCKYARD = "not-blockyard"
"""Something answered, but not as a Blockyard server does."""
TOO_OLD = "too-old"
"""A Blockyard server without this call: older than this client."""
WRONG_LOGIN = "wrong-login"
"""Signing in: the name or the password is wrong (they are not told apart)."""
SIGNED_OUT = "signed-out"
"""A call that needs an account, made without a valid session (never signed in,
signed out, or the session expired)."""
NAME_TAKEN = "name-taken"
"""Creating an account: the name (in any letter case) is taken."""
BAD_NAME = "bad-name"
"""Creating an account: the name breaks :mod:`blockyard.accountrules`."""
BAD_PASSWORD = "bad-password"
"""Creating an account: the password breaks :mod:`blockyard.accountrules`."""
RATE_LIMITED = "rate-limited"
"""Too many such calls in a short time (HTTP 429): try again in a minute."""
SEATS_HELD = "seats-held"
"""Opening or joining a table (HTTP 429) while this player sits at as many
tables that are waiting or playing as one player may: finish or leave one."""
TABLE_FULL = "table-full"
"""Joining a table whose seats are all taken (HTTP 409)."""
PRIVATE_TABLE = "private-table"
"""A private table, without an invitation or its code (HTTP 403)."""
WRONG_CODE = "wrong-code"
"""Joining by a table's code: no table has this code (the table does not exist,
or the code is not its own: HTTP 404 or 403 to a join that gave a code)."""
NOT_FOUND = "not-found"
"""The table, game, invitation or player is not (or no longer) on the server."""
NOT_SERVED = "not-served"
"""The server does not serve these rules (a leaderboard, a new table)."""
GAME_REFUSED = "game-refused"
"""Submitting a game the server does not accept (not its rules, does not
replay, not over)."""
SUBMITTED_ALREADY = "submitted-already"
"""Submitting a game the server has already (HTTP 409): its rank is on the
leaderboard."""
SERVER_ERROR = "server-error"
"""The server failed (HTTP 5xx)."""
REFUSED = "refused"
"""Any other refusal (HTTP 4xx); the message says what."""
BAD_ADDRESS = "bad-address"
"""The server's address is not one (see :func:`server_url`)."""
PLUGIN_DIFFERS = "plugin-differs"
"""The server plays these rules with another version of a plugin (or without
one, or with one more) than the game or this installation: the error's
:attr:`OnlineError.mismatch` names the plugin and both versions."""
RULES_DIFFER = "rules-differ"
"""The server's rule file of these rules differs from the game's or this
installation's: :attr:`OnlineError.mismatch` names the first differing rule key
and both values."""
RESTARTING = "restarting"
"""The server closed the live connection as it stopped or restarted (close code
:data:`SERVICE_RESTART`): connecting again."""
ERROR_KINDS = (RESTARTING, UNREACHABLE, TIMEOUT, NOT_BLOCKYARD, TOO_OLD, WRONG_LOGIN, SIGNED_OUT,
               NAME_TAKEN, BAD_NAME, BAD_PASSWORD, RATE_LIMITED, SEATS_HELD, TABLE_FULL,
               PRIVATE_TABLE,
               WRONG_CODE, NOT_FOUND, NOT_SERVED, GAME_REFUSED, SUBMITTED_ALREADY,
               SERVER_ERROR, REFUSED, BAD_ADDRESS, PLUGIN_DIFFERS, RULES_DIFFER)
"""Every :attr:`OnlineError.kind`: what went wrong, for a window to say in the
player's language (the message is the technical detail, in English)."""


class OnlineError(Exception):
    """An online call failed. ``message`` is the technical detail (English, for
    logs and scripts: the server's own ``{"error": ...}`` text with its status);
    ``status`` is the HTTP status of the server's answer (``None`` when no
    answer came); ``kind`` is what happened, one of :data:`ERROR_KINDS`, which
    is what a window tells the player (in one place: the kind, not the text).
    ``mismatch`` is set for :data:`PLUGIN_DIFFERS` and :data:`RULES_DIFFER`:
    the difference found, and ``game`` says whether it is a game's (submitting)
    rather than this installation's (opening or joining a table)."""

    def __init__(self, message: str, status: int | None = None,
                 kind: str | None = None, *, mismatch: Mismatch | None = None,
                 game: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind if kind in ERROR_KINDS else error_kind(status)
        self.mismatch = mismatch
        self.game = game


def error_kind(status: int | None, message: str = "",
               special: Mapping[int, str] | None = None) -> str:
    """The :data:`ERROR_KINDS` entry of an answer with HTTP ``status`` (``None``:
    no answer) and the server's ``message``; ``special``: the kinds one call
    gives some statuses (joining: 409 is a full table; joining by a code: 403
    and 404 are a wrong code; submitting: 409 is a game submitted already)."""
    if special and status is not None and status in special:
        return special[status]
    if status is None:
        return UNREACHABLE
    if status == 401:
        return SIGNED_OUT
    if status == 403:
        return PRIVATE_TABLE
    if status in (404, 405) and message.strip().lower() in ("not found", "method not allowed"):
        return TOO_OLD  # the framework's answer to a call the server does not have
    if status == 404:
        return NOT_FOUND
    if status == 429:  # the seats' limit says so in its sentence (docs/online.md)
        return SEATS_HELD if message.strip().lower().startswith("you hold a seat") \
            else RATE_LIMITED
    if status >= 500:
        return SERVER_ERROR
    return REFUSED


def _account_kind(message: str) -> str:
    """Creating an account refused (422): the name's fault or the password's."""
    head = message.strip().lower()
    if head.startswith("name"):
        return BAD_NAME
    if head.startswith("password"):
        return BAD_PASSWORD
    return REFUSED


def server_url(address: str) -> str:
    """The base URL of a server typed as ``host``, ``host:port`` or a full
    ``http(s)://`` address (no path). ``ValueError`` naming what is wrong."""
    text = address.strip()
    if not text:
        raise ValueError("no server address given")
    if "://" not in text:
        text = "http://" + text
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"server address {address!r}: only http:// and https:// are served")
    if not parts.hostname:
        raise ValueError(f"server address {address!r} names no host")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise ValueError(f"server address {address!r} has a bad port") from None
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise ValueError(f"server address {address!r}: give only the host and port")
    return f"{parts.scheme}://{parts.netloc}"


def mismatch_error(what: str, differs: Mismatch, *, game: bool) -> OnlineError:
    """The :class:`OnlineError` of a difference found before ``what`` (a call):
    of kind :data:`PLUGIN_DIFFERS` or :data:`RULES_DIFFER`, its message the
    difference in words ("played with quad-mono 0.1.0; the server has 0.2.0";
    ``game``: a game's, else this installation's)."""
    said = differs.sentence("played with" if game else "this installation has",
                            "the server has")
    kind = PLUGIN_DIFFERS if differs.kind == "plugin" else RULES_DIFFER
    return OnlineError(f"{what}: {said}", kind=kind, mismatch=differs, game=game)


def mirror_move(game: Any, action: Any) -> None:
    """Apply a move the server accepted at a table to the seat's game as mirrored
    here (``IllegalMove`` and the like when the mirror refuses it: it went another
    way). An ``["end"]`` of a game already over (a player who declines the action
    offered after the end, eu's continue) finishes the seat on the server and
    changes nothing in the game: nothing is applied."""
    if list(action) == ["end"] and game.over:
        return
    game.apply(action)


def mirror_divergence(game: Any, score: Any, over: Any) -> str | None:
    """How a table's game as mirrored here (``game``, after the seat's move was
    applied to it) differs from what the server said of that seat's game with
    the move (``score``, ``over``), or ``None`` when it agrees: a mirror that
    plays other code or other rules than the server's goes its own way."""
    if isinstance(score, int) and not isinstance(score, bool) and score != game.score:
        return f"the score here is {game.score}; the server's is {score}"
    if isinstance(over, bool) and over != bool(game.over):
        here = "over" if game.over else "not over"
        there = "over" if over else "not over"
        return f"the game is {here} here; on the server it is {there}"
    return None


@dataclass(frozen=True)
class ServedRuleset:
    """A ruleset as a server serves it (``GET /api/rulesets``): its ``digest``
    and the plugin distributions whose code answers its hooks."""

    id: str
    name: str
    family: str
    digest: str
    plugins: tuple[PluginVersion, ...]


@dataclass(frozen=True)
class Submission:
    """A game stored by the server: its ``id``, the score the server computed and
    whether it counts on the leaderboard (``False``: practice)."""

    id: int
    ruleset_id: str
    score: int
    counted: bool


@dataclass(frozen=True)
class Entry:
    """One leaderboard line."""

    rank: int
    name: str
    score: int
    game_id: int


@dataclass(frozen=True)
class Leaderboard:
    """A ruleset's leaderboard (of one ``date`` for a daily ruleset), best first.
    ``total``: how many players the whole leaderboard has, beyond the entries
    fetched too (``None`` from a server that does not say)."""

    ruleset_id: str
    date: str | None
    entries: tuple[Entry, ...]
    total: int | None = None


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in one ruleset: ``rating`` (what is shown: ``mu - 3
    sigma``), ``mu``, ``sigma``, the rated rounds behind it and whether it is
    still provisional."""

    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool


@dataclass(frozen=True)
class RatingChange:
    """A seat's rating change in a rated round: the shown rating before and
    after, the change, and whether it is still provisional."""

    before: float
    after: float
    change: float
    provisional: bool


@dataclass(frozen=True)
class RatedEntry:
    """One line of a rated leaderboard."""

    rank: int
    name: str
    rating: PlayerRating


@dataclass(frozen=True)
class RatingBoard:
    """A page of a ruleset's rated leaderboard, best first: ``total`` rated
    players, this page from ``offset``; a rating is provisional below
    ``provisional_games`` rated rounds."""

    ruleset_id: str
    total: int
    offset: int
    entries: tuple[RatedEntry, ...]
    provisional_games: int


@dataclass(frozen=True)
class AccountPage:
    """A player's page (``GET /api/accounts/{name}``): their ratings by ruleset."""

    name: str
    ratings: dict[str, PlayerRating]


@dataclass(frozen=True)
class PairingState:
    """The player's place in the pool of Play now: waiting (``waited`` seconds
    since ``since``, the rating ``gap`` allowed now) or paired (``table`` and
    ``seat``)."""

    ruleset_id: str
    since: str
    waited: float | None
    gap: float | None
    table: int | None
    seat: int | None


@dataclass(frozen=True)
class Paired:
    """Play now found an opponent: the rated table the player holds ``seat`` at."""

    table: int
    ruleset_id: str
    seat: int


@dataclass(frozen=True)
class Friend:
    """A player this player follows, and whether they are online now."""

    name: str
    online: bool


@dataclass(frozen=True)
class Opened:
    """A followed player (``name``) opened a public ``table`` of ``ruleset_id``."""

    table: int
    ruleset_id: str
    name: str


@dataclass(frozen=True)
class TableInfo:
    """A table as listed: its seats hold the players' names (``None``: free),
    whether it is rated and each seat's rating (``None``: a free seat)."""

    id: int
    ruleset_id: str
    seats: tuple[str | None, ...]
    status: str
    rated: bool = False
    ratings: tuple[PlayerRating | None, ...] = ()

    @property
    def free_seats(self) -> int:
        """How many seats are still free."""
        return sum(1 for seat in self.seats if seat is None)


@dataclass(frozen=True)
class NewTable:
    """A table just created: its ``id`` and the ``code`` that lets others join."""

    id: int
    code: str


@dataclass(frozen=True)
class Invitation:
    """A pending invitation to a table: who sent it (``sender``), the table's
    ruleset and seats (names, ``None``: free)."""

    table: int
    ruleset_id: str
    sender: str
    seats: tuple[str | None, ...]
    private: bool
    created: str | None


def _invitations(data: Any, what: str) -> list[Invitation]:
    """The invitations of an answer or a pushed message (``OnlineError`` when
    malformed)."""
    out = []
    for row in _field(data, "invitations", list, what)[:200]:
        seats = _field(row, "seats", list, what)
        created = row.get("created")
        out.append(Invitation(_field(row, "table", int, what), _field(row, "ruleset_id", str, what),
                              _field(row, "from", str, what),
                              tuple(s if isinstance(s, str) else None for s in seats[:64]),
                              bool(row.get("private")),
                              created if isinstance(created, str) else None))
    return out


def _number(data: Any, key: str, what: str) -> float:
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OnlineError(f"the server's answer to {what}: {key!r} is not a number",
                          kind=NOT_BLOCKYARD)
    return float(value)


def _rating(data: Any, what: str) -> PlayerRating:
    """A rating as the server writes it (``OnlineError`` when malformed)."""
    return PlayerRating(_number(data, "rating", what), _number(data, "mu", what),
                        _number(data, "sigma", what), _field(data, "games", int, what),
                        _field(data, "provisional", bool, what))


def _ratings(data: Any, what: str) -> tuple[PlayerRating | None, ...]:
    rows = data.get("ratings") if isinstance(data, dict) else None
    if not isinstance(rows, list):  # a server before ratings
        return ()
    return tuple(None if row is None else _rating(row, what) for row in rows[:64])


def seat_ratings(message: Mapping[str, Any]) -> list[PlayerRating | None]:
    """Each seat's rating of a live table's ``table`` message (``None``: a free
    seat; an empty list from a server before ratings). ``OnlineError`` when
    malformed."""
    return list(_ratings(dict(message), "the table"))


def rating_changes(message: Mapping[str, Any]) -> list[RatingChange] | None:
    """Each seat's rating change of a live table's ``result`` message, or
    ``None`` for a friendly (unrated) table. ``OnlineError`` when malformed."""
    rows = message.get("ratings")
    if rows is None:
        return None
    if not isinstance(rows, list):
        raise OnlineError("the result: 'ratings' is not a list", kind=NOT_BLOCKYARD)
    what = "the result"
    return [RatingChange(_number(row, "before", what), _number(row, "after", what),
                         _number(row, "change", what),
                         _field(row, "provisional", bool, what)) for row in rows[:64]]


def _paired(data: Any, what: str) -> Paired:
    return Paired(_field(data, "table", int, what), _field(data, "ruleset_id", str, what),
                  _field(data, "seat", int, what))


def _optional(data: Any, key: str, kind: type[T], what: str) -> T | None:
    return None if isinstance(data, dict) and data.get(key) is None \
        else _field(data, key, kind, what)


def _names(data: Any, what: str) -> list[str]:
    return [name for name in _field(data, "players", list, what)[:1000]
            if isinstance(name, str)]


def _field(data: Any, key: str, kind: type[T], what: str) -> T:
    if not isinstance(data, dict) or key not in data:
        raise OnlineError(f"the server's answer to {what} lacks {key!r}", kind=NOT_BLOCKYARD)
    value = data[key]
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise OnlineError(f"the server's answer to {what}: {key!r} is not a "
                          f"{kind.__name__}", kind=NOT_BLOCKYARD)
    return value


_TLS: list[ssl.SSLContext] = []
_TLS_LOCK = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """The verifying TLS context every :class:`Client` of this process shares
    (httpx's default: the ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` of the environment,
    else certifi's authorities), made on first use. Reading the authorities costs
    tens of milliseconds of CPU, which a client of its own per call (the window
    makes one for each background call) would pay every time, plain ``http://``
    included."""
    with _TLS_LOCK:
        if not _TLS:
            _TLS.append(httpx.create_ssl_context())
        return _TLS[0]


class Client:
    """HTTP calls of one server. ``address``: as :func:`server_url` reads it;
    ``token``: a session token (signed in) or ``None``. ``transport`` is for
    tests (an ``httpx`` transport)."""

    def __init__(self, address: str, token: str | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.url = server_url(address)
        self.token = token
        self.timeout = timeout
        self._http = httpx.Client(base_url=self.url, timeout=timeout, transport=transport,
                                  follow_redirects=False, verify=tls_context())
        self._served: dict[str, Provenance | None] = {}

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------

    def _call(self, method: str, path: str, what: str, *, json_body: Any = None,
              params: dict[str, Any] | None = None, auth: bool = False,
              expect: Sequence[int] = (200,), kinds: Mapping[int, str] | None = None) -> Any:
        """One call; its JSON answer. ``kinds``: the :data:`ERROR_KINDS` this call
        gives some refusals (see :func:`error_kind`)."""
        headers: dict[str, str] = {}
        if auth:
            if not self.token:
                raise OnlineError(f"{what}: sign in first", kind=SIGNED_OUT)
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            answer = self._http.request(method, path, json=json_body, params=params,
                                        headers=headers)
        except httpx.TimeoutException:
            raise OnlineError(f"cannot reach the server at {self.url}: no answer within "
                              f"{self.timeout:g} seconds", kind=TIMEOUT) from None
        except httpx.HTTPError as exc:
            raise OnlineError(f"cannot reach the server at {self.url} "
                              f"({type(exc).__name__}: {exc})", kind=UNREACHABLE) from None
        if answer.status_code not in expect:
            error = self._server_error(answer)
            kind = error_kind(answer.status_code, error, kinds) if error is not None \
                else NOT_BLOCKYARD
            text = f"{error} (HTTP {answer.status_code})" if error is not None else (
                f"the server at {self.url} answered HTTP {answer.status_code} "
                "without a Blockyard error: is it a Blockyard server?")
            if kind == BAD_NAME and error is not None:  # the server's word for which one
                kind = _account_kind(error)
            raise OnlineError(f"{what}: {text}", answer.status_code, kind)
        if answer.status_code == 204:
            return None
        try:
            return answer.json()
        except ValueError:
            raise OnlineError(f"{what}: the answer from {self.url} is not a Blockyard "
                              "server's", answer.status_code, NOT_BLOCKYARD) from None

    @staticmethod
    def _server_error(answer: httpx.Response) -> str | None:
        """The server's ``{"error": ...}`` text, or ``None`` when the answer has none
        (then it did not come from a Blockyard server)."""
        try:
            data = answer.json()
        except ValueError:
            return None
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            return str(data["error"])
        return None

    # -- the calls ----------------------------------------------------------------------

    def health(self) -> str:
        """The server's version (``GET /api/health``)."""
        data = self._call("GET", "/api/health", "checking the server")
        if not isinstance(data, dict) or data.get("ok") is not True:
            raise OnlineError(f"{self.url} is not a Blockyard server", kind=NOT_BLOCKYARD)
        return str(data.get("version", ""))

    def create_account(self, name: str, password: str) -> str:
        """Create an account; its name as stored. The server judges the name and
        the password (:mod:`blockyard.accountrules`); a refusal is an
        :class:`OnlineError` of kind :data:`BAD_NAME` or :data:`BAD_PASSWORD`."""
        data = self._call("POST", "/api/accounts", "creating the account",
                          json_body={"name": name, "password": password}, expect=(201,),
                          kinds={409: NAME_TAKEN, 422: BAD_NAME})
        return _field(data, "name", str, "creating the account")

    def sign_in(self, name: str, password: str) -> str:
        """Sign in: the session token (also kept on this client)."""
        data = self._call("POST", "/api/sessions", "signing in",
                          json_body={"name": name, "password": password},
                          kinds={401: WRONG_LOGIN, 422: WRONG_LOGIN})
        self.token = _field(data, "token", str, "signing in")
        return self.token

    def sign_out(self) -> None:
        """Revoke this client's token on the server and forget it."""
        if self.token:
            try:
                self._call("DELETE", "/api/sessions", "signing out", auth=True,
                           expect=(204, 200))
            except OnlineError as exc:
                if exc.status != 401:  # an expired token is signed out already
                    raise
        self.token = None

    def submit_game(self, game: Replay | dict[str, Any] | Path | str | Any) -> Submission:
        """Send a finished game (a :class:`~blockyard.replays.Replay`, a replay
        file's path or JSON, or a :class:`~blockyard.game.Game`); the server
        replays it and answers with the score it computed. First the game's
        plugins and rules are compared with what the server serves
        (:meth:`compare`): a difference is an :class:`OnlineError` of kind
        :data:`PLUGIN_DIFFERS` or :data:`RULES_DIFFER` naming it, and nothing is
        sent."""
        if isinstance(game, Replay):
            body: Any = game.data
        elif isinstance(game, (Path, str)):
            body = load_replay(game).data
        elif isinstance(game, dict):
            body = game
        else:
            body = replay_data(game)
        self._check_game(body)
        data = self._call("POST", "/api/games", "submitting the game", json_body=body,
                          auth=True, expect=(201,),
                          kinds={422: GAME_REFUSED, 409: SUBMITTED_ALREADY})
        what = "submitting the game"
        return Submission(_field(data, "id", int, what), _field(data, "ruleset_id", str, what),
                          _field(data, "score", int, what), _field(data, "counted", bool, what))

    def game(self, game_id: int) -> Replay:
        """A stored game's replay (checked as a replay file is when loaded)."""
        from .replays import check_replay_data

        data = self._call("GET", f"/api/games/{int(game_id)}", "fetching the game")
        try:
            return Replay(None, check_replay_data(data, f"game {game_id} from {self.url}"))
        except ValueError as exc:
            raise OnlineError(f"the game {game_id} from {self.url} is not a replay: {exc}",
                              kind=NOT_BLOCKYARD) from None

    def leaderboard(self, ruleset_id: str, date: str | None = None,
                    limit: int = 20) -> Leaderboard:
        """A ruleset's leaderboard (``date``: ``YYYY-MM-DD`` of a daily ruleset)."""
        params: dict[str, Any] = {"limit": limit}
        if date:
            params["date"] = date
        what = "fetching the leaderboard"
        data = self._call("GET", f"/api/leaderboards/{urllib.parse.quote(ruleset_id, safe='')}",
                          what, params=params, kinds={404: NOT_SERVED})
        rows = _field(data, "entries", list, what)
        entries = tuple(Entry(_field(r, "rank", int, what), _field(r, "name", str, what),
                              _field(r, "score", int, what), _field(r, "game_id", int, what))
                        for r in rows)
        day, total = data.get("date"), data.get("total")
        return Leaderboard(_field(data, "ruleset_id", str, what),
                           day if isinstance(day, str) else None, entries,
                           total if isinstance(total, int) and total >= len(entries) else None)

    def tables(self) -> list[TableInfo]:
        """The public tables that are waiting or playing, newest first."""
        what = "listing the tables"
        data = self._call("GET", "/api/tables", what)
        out = []
        for row in _field(data, "tables", list, what):
            seats = _field(row, "seats", list, what)
            out.append(TableInfo(_field(row, "id", int, what), _field(row, "ruleset_id", str, what),
                                 tuple(s if isinstance(s, str) else None for s in seats),
                                 _field(row, "status", str, what), row.get("rated") is True,
                                 _ratings(row, what)))
        return out

    def table(self, table_id: int) -> dict[str, Any]:
        """One table with its finished rounds' results (``GET /api/tables/{id}``;
        signed in, with this player's token: a private table is shown only to its
        seats and invited players, to others it is no table)."""
        data = self._call("GET", f"/api/tables/{int(table_id)}", "fetching the table",
                          auth=bool(self.token))
        if not isinstance(data, dict):
            raise OnlineError("fetching the table: the answer is not a table",
                              kind=NOT_BLOCKYARD)
        return data

    def create_table(self, ruleset_id: str, seats: int = 2, private: bool = False,
                     invite: Sequence[str] = (), rated: bool = False) -> NewTable:
        """Open a table; the creator holds seat 0 (``rated``: its results change
        the seats' ratings; a friendly table's do not). First this installation's
        plugins and rules of ``ruleset_id`` are compared with the server's
        (:meth:`check_rules`). Refused with an :class:`OnlineError` of kind
        :data:`SEATS_HELD` when this player sits at as many tables that are
        waiting or playing as one player may."""
        what = "opening the table"
        self.check_rules(ruleset_id, what)
        body: dict[str, Any] = {"ruleset_id": ruleset_id, "seats": seats,
                                "private": private, "invite": list(invite)}
        if rated:  # a server before ratings refuses the field
            body["rated"] = True
        try:
            data = self._call("POST", "/api/tables", what, auth=True, expect=(201,),
                              json_body=body)
        except OnlineError as exc:
            if exc.status == 422 and "ruleset_id" in exc.message:
                exc.kind = NOT_SERVED
            raise
        return NewTable(_field(data, "id", int, what), str(_field(data, "code", str, what)))

    def join(self, table_id: int, code: str | None = None,
             ruleset_id: str | None = None) -> int:
        """Take a seat at a table (``code``: a private table's); the seat's number.
        Refused with an :class:`OnlineError` of kind :data:`TABLE_FULL` when no
        seat is free, :data:`SEATS_HELD` when this player sits at as many tables
        that are waiting or playing as one player may, and, when a ``code`` is
        given, :data:`WRONG_CODE` when no table has it (the table is not there,
        or the code is not its own). First
        this installation's plugins and rules of the table's ruleset
        (``ruleset_id``, else asked of the server) are compared with the
        server's (:meth:`check_rules`)."""
        body = {"code": code} if code else {}
        kinds = {409: TABLE_FULL, 403: WRONG_CODE, 404: WRONG_CODE} if code \
            else {409: TABLE_FULL}
        self._check_table(table_id, code, ruleset_id, "joining the table")
        data = self._call("POST", f"/api/tables/{int(table_id)}/join", "joining the table",
                          json_body=body, auth=True, kinds=kinds)
        return _field(data, "seat", int, "joining the table")

    def live(self, table_id: int, code: str | None = None) -> LiveTable:
        """Connect to a table's live WebSocket (see :class:`LiveTable`)."""
        return LiveTable(self.url, int(table_id), self.token, code=code)

    def rulesets(self) -> list[ServedRuleset]:
        """The rulesets the server serves, with their digests and plugin
        distributions (``GET /api/rulesets``)."""
        what = "listing the server's rulesets"
        data = self._call("GET", "/api/rulesets", what)
        out = []
        for row in _field(data, "rulesets", list, what):
            rid = _field(row, "id", str, what)
            found = self._provenance(row, None, what)
            out.append(ServedRuleset(rid, _field(row, "name", str, what),
                                     _field(row, "family", str, what), found.digest,
                                     found.plugins or ()))
        return out

    def served(self, ruleset_id: str) -> Provenance | None:
        """What the server plays ``ruleset_id`` with: its plugin distributions,
        digest and rule text (``GET /api/rulesets/{id}``, asked once per
        client); ``None`` when the server is older than that call (it cannot
        say). An :class:`OnlineError` of kind :data:`NOT_SERVED` when the server
        does not serve these rules."""
        if ruleset_id in self._served:
            return self._served[ruleset_id]
        what = "asking the server for its rules"
        try:
            data = self._call("GET", f"/api/rulesets/{urllib.parse.quote(ruleset_id, safe='')}",
                              what)
        except OnlineError as exc:
            if exc.kind == TOO_OLD:
                return None
            if exc.status in (404, 422):
                exc.kind = NOT_SERVED
            raise
        rules = data.get("rules") if isinstance(data, dict) else None
        found = self._provenance(data, rules if isinstance(rules, str) else None, what)
        self._served[ruleset_id] = found
        return found

    @staticmethod
    def _provenance(row: Any, rules: str | None, what: str) -> Provenance:
        if not isinstance(row, dict):
            raise OnlineError(f"the server's answer to {what} is not a ruleset",
                              kind=NOT_BLOCKYARD)
        try:
            return provenance.served_provenance(row, rules)
        except DataError as exc:
            raise OnlineError(f"the server's answer to {what}: {exc}",
                              kind=NOT_BLOCKYARD) from None

    def compare(self, played: Provenance, ruleset_id: str) -> Mismatch | None:
        """The first difference between what a game is (or was) ``played`` with
        and what the server plays ``ruleset_id`` with
        (:func:`blockyard.provenance.mismatch`: a plugin with both versions, or a
        rule key with both values); ``None`` when they agree or the server is
        too old to say."""
        served = self.served(ruleset_id)
        return None if served is None else provenance.mismatch(played, served)

    def check_rules(self, ruleset_id: str, what: str = "playing these rules") -> None:
        """Compare this installation's ``ruleset_id`` (its plugin versions and rule
        file) with the server's, before a table is opened or joined: an
        :class:`OnlineError` of kind :data:`PLUGIN_DIFFERS` or
        :data:`RULES_DIFFER` naming the difference ("this installation has
        quad-mono 0.1.0; the server has 0.2.0"), :data:`NOT_SERVED` when the
        server does not serve them. Rules not installed here are not compared
        (the table says it cannot show them)."""
        from .discovery import load_ruleset

        try:
            here = provenance.of_ruleset(load_ruleset(ruleset_id))
        except (RulesetError, PluginError):
            return
        differs = self.compare(here, ruleset_id)
        if differs is not None:
            raise mismatch_error(what, differs, game=False)

    def _check_game(self, body: Any) -> None:
        """Before a game is submitted: its plugins and rules against the server's
        (a file that is no replay is left to the server to refuse)."""
        try:
            replay = Replay(None, check_replay_data(body))
        except ReplayError:
            return
        differs = self.compare(replay.played_with(), replay.ruleset_id)
        if differs is not None:
            raise mismatch_error("submitting the game", differs, game=True)

    def _check_table(self, table_id: int, code: str | None, ruleset_id: str | None,
                     what: str) -> None:
        """Before a seat is taken at a table: its rules here against the server's
        (the table's ruleset asked of the server when not given; a table that
        cannot be asked about is left to the call itself to refuse)."""
        if ruleset_id is None:
            params = {"code": code} if code else None
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            try:
                answer = self._http.get(f"/api/tables/{int(table_id)}", params=params,
                                        headers=headers)
                found = answer.json() if answer.status_code == 200 else None
            except (httpx.HTTPError, ValueError):
                found = None
            rid = found.get("ruleset_id") if isinstance(found, dict) else None
            if not isinstance(rid, str):
                return
            ruleset_id = rid
        self.check_rules(ruleset_id, what)

    def players_online(self) -> list[str]:
        """The names of the players online, alphabetically (this player too)."""
        data = self._call("GET", "/api/players/online", "listing the players online",
                          auth=True)
        return _names(data, "listing the players online")

    def invitations(self) -> list[Invitation]:
        """This player's pending invitations, newest first."""
        data = self._call("GET", "/api/me/invitations", "fetching the invitations",
                          auth=True)
        return _invitations(data, "fetching the invitations")

    def accept_invitation(self, table_id: int, ruleset_id: str | None = None) -> int:
        """Accept an invitation: the seat taken at its table. First this
        installation's plugins and rules of the table's ruleset (``ruleset_id``,
        else asked of the server) are compared with the server's
        (:meth:`check_rules`)."""
        what = "accepting the invitation"
        self._check_table(table_id, None, ruleset_id, what)
        data = self._call("POST", f"/api/me/invitations/{int(table_id)}/accept", what,
                          auth=True, kinds={409: TABLE_FULL})
        return _field(data, "seat", int, what)

    def decline_invitation(self, table_id: int) -> None:
        """Decline an invitation."""
        self._call("POST", f"/api/me/invitations/{int(table_id)}/decline",
                   "declining the invitation", auth=True, expect=(204,))

    # -- ratings and Play now -------------------------------------------------------------

    def ratings(self, ruleset_id: str, limit: int = 20, offset: int = 0) -> RatingBoard:
        """A page of a ruleset's rated leaderboard, best first (``limit`` 1–100
        entries from ``offset``; provisional ratings are marked)."""
        what = "fetching the ratings"
        data = self._call("GET", f"/api/ratings/{urllib.parse.quote(ruleset_id, safe='')}",
                          what, params={"limit": limit, "offset": offset},
                          kinds={404: NOT_SERVED})
        entries = tuple(RatedEntry(_field(row, "rank", int, what),
                                   _field(row, "name", str, what), _rating(row, what))
                        for row in _field(data, "entries", list, what)[:1000])
        return RatingBoard(_field(data, "ruleset_id", str, what),
                           _field(data, "total", int, what), _field(data, "offset", int, what),
                           entries, _field(data, "provisional_games", int, what))

    def account(self, name: str) -> AccountPage:
        """A player's page: their ratings by ruleset (``NOT_FOUND``: no such
        account)."""
        what = "fetching the player"
        data = self._call("GET", f"/api/accounts/{urllib.parse.quote(name, safe='')}", what)
        return AccountPage(_field(data, "name", str, what),
                           {_field(row, "ruleset_id", str, what): _rating(row, what)
                            for row in _field(data, "ratings", list, what)[:1000]})

    def play_now(self, ruleset_id: str) -> PairingState:
        """Put this player in the pool of Play now for ``ruleset_id``: the server
        pairs them with a player of a close rating and seats both at a rated
        table, told on the player's own live connection (:attr:`PlayerFeed.paired`).
        First this installation's plugins and rules are compared with the server's
        (:meth:`check_rules`). Refused (:data:`REFUSED`) when already waiting or
        seated at a table that is waiting or playing ("you are seated at table
        N"); :data:`RATE_LIMITED` over the server's limit of entries a minute;
        :data:`NOT_SERVED` for a ruleset the server does not serve."""
        what = "playing now"
        self.check_rules(ruleset_id, what)
        try:
            data = self._call("POST", "/api/pairing", what, auth=True, expect=(201,),
                              json_body={"ruleset_id": ruleset_id})
        except OnlineError as exc:
            if exc.status == 422 and "ruleset_id" in exc.message:
                exc.kind = NOT_SERVED
            raise
        return self._pairing_state(data, what)

    def pairing(self) -> PairingState | None:
        """This player's place in the pool of Play now (``None``: not in it)."""
        what = "asking for the pairing"
        try:
            data = self._call("GET", "/api/pairing", what, auth=True)
        except OnlineError as exc:
            if exc.status == 404 and exc.kind == NOT_FOUND:
                return None
            raise
        return self._pairing_state(data, what)

    def leave_pairing(self) -> bool:
        """Leave the pool of Play now; whether the player was waiting."""
        try:
            self._call("DELETE", "/api/pairing", "leaving the pool", auth=True,
                       expect=(204,))
        except OnlineError as exc:
            if exc.status == 404 and exc.kind == NOT_FOUND:
                return False
            raise
        return True

    @staticmethod
    def _pairing_state(data: Any, what: str) -> PairingState:
        waited = data.get("waited") if isinstance(data, dict) else None
        gap = data.get("gap") if isinstance(data, dict) else None
        return PairingState(_field(data, "ruleset_id", str, what),
                            _field(data, "since", str, what),
                            None if waited is None else _number(data, "waited", what),
                            None if gap is None else _number(data, "gap", what),
                            _optional(data, "table", int, what),
                            _optional(data, "seat", int, what))

    # -- friends and mutes ----------------------------------------------------------------

    def follows(self) -> list[Friend]:
        """The players this player follows, alphabetically, each with whether they
        are online now."""
        what = "listing the players followed"
        data = self._call("GET", "/api/me/follows", what, auth=True)
        return [Friend(_field(row, "name", str, what), _field(row, "online", bool, what))
                for row in _field(data, "follows", list, what)[:1000]]

    def follow(self, name: str) -> None:
        """Follow a player (:data:`NOT_FOUND`: no such account; following them
        already changes nothing): told on :attr:`PlayerFeed.friends` when they are
        online and :attr:`PlayerFeed.opened` when they open a public table."""
        self._call("PUT", f"/api/me/follows/{urllib.parse.quote(name, safe='')}",
                   "following the player", auth=True, expect=(204,))

    def unfollow(self, name: str) -> None:
        """Stop following a player."""
        self._call("DELETE", f"/api/me/follows/{urllib.parse.quote(name, safe='')}",
                   "no longer following the player", auth=True, expect=(204,))

    def mutes(self) -> list[str]:
        """The players this player muted, alphabetically."""
        what = "listing the players muted"
        data = self._call("GET", "/api/me/mutes", what, auth=True)
        return [str(name) for name in _field(data, "mutes", list, what)[:1000]
                if isinstance(name, str)]

    def mute(self, name: str) -> None:
        """Mute a player: their quick phrases are no longer delivered to this
        player (:data:`NOT_FOUND`: no such account)."""
        self._call("PUT", f"/api/me/mutes/{urllib.parse.quote(name, safe='')}",
                   "muting the player", auth=True, expect=(204,))

    def unmute(self, name: str) -> None:
        """Hear a muted player's quick phrases again."""
        self._call("DELETE", f"/api/me/mutes/{urllib.parse.quote(name, safe='')}",
                   "unmuting the player", auth=True, expect=(204,))

    def feed(self) -> PlayerFeed:
        """Connect to this player's own live connection (see :class:`PlayerFeed`)."""
        if not self.token:
            raise OnlineError("the invitations: sign in first", kind=SIGNED_OUT)
        return PlayerFeed(self.url, self.token)


def parse_table_code(text: str) -> tuple[int, str | None]:
    """A table as players share it: ``ID`` or ``ID-CODE`` (see :func:`table_code`).
    ``ValueError`` naming what is wrong."""
    cleaned = text.strip()
    number, _sep, code = cleaned.partition("-")
    if not number.isdigit() or not number.isascii():
        raise ValueError(f"{text!r} is not a table code (a number, then '-' and the code)")
    return int(number), (code or None)


def table_code(table: NewTable) -> str:
    """What a player shares so others can join a table: ``ID-CODE``."""
    return f"{table.id}-{table.code}"


def _ws_url(base_url: str, path: str) -> str:
    """The WebSocket URL of ``path`` on the server at ``base_url`` (http → ws,
    https → wss). Never with a credential in it: those go in the ``hello``."""
    ws = "wss://" + base_url[len("https://"):] if base_url.startswith("https://") \
        else "ws://" + base_url[len("http://"):]
    return f"{ws}{path}"


def reconnect_delay(attempt: int, delays: Sequence[float] = RECONNECT_DELAYS,
                    draw: Callable[[], float] = random.random) -> float:
    """The seconds to wait before attempt ``attempt`` (0 the first after a drop)
    to connect again: the step of ``delays`` (the last for every attempt after)
    times a number between 0.5 and 1 (``draw`` gives one between 0 and 1)."""
    step = delays[min(attempt, len(delays) - 1)]
    return step * (0.5 + 0.5 * draw())


class _Reconnecting:
    """A WebSocket connection kept open in a background thread (the shape of
    :class:`LiveTable` and :class:`PlayerFeed`): connected again after a drop,
    waiting :attr:`delays` between attempts; closed for good when the server
    refuses it (an HTTP 4xx at the handshake, a close code 4xxx) or when we
    close it. Subclasses say what each message and each change of the
    connection means (the ``_on_…`` methods, called in the thread)."""

    def _start_thread(self, url: str, name: str, open_timeout: float,
                      delays: Sequence[float], hello: Mapping[str, Any]) -> None:
        self.url = url
        self._hello = json.dumps(hello)  # each connection's first message
        self.open_timeout = open_timeout
        self.delays = tuple(delays) or RECONNECT_DELAYS
        self._closing = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()
        self._socket: Any = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    # -- what a subclass says ------------------------------------------------------------

    def _on_open(self, again: bool) -> None:
        """A connection is open (``again``: after a drop that was reported)."""

    def _on_lost(self, reason: str, kind: str) -> None:
        """The connection dropped (or could not be made); trying again. ``kind``:
        :data:`RESTARTING` when the server closed it as it stopped, else
        :data:`UNREACHABLE`."""

    def _on_ended(self, reason: str, kind: str) -> None:
        """Closed for good: refused (``kind`` an :data:`ERROR_KINDS` entry), or by
        us (``reason`` and ``kind`` empty, or the subclass's own ending)."""

    def _on_connection(self) -> None:
        """A connection begins delivering messages."""

    def _on_message(self, message: dict[str, Any]) -> None:
        """One message of the server (a dict with a string ``type``)."""

    def _ends_for_good(self) -> bool:
        """Whether a connection the server closed ordinarily ends it for good."""
        return False

    # -- the thread ----------------------------------------------------------------------

    def _close_socket(self) -> None:
        with self._lock:
            sock = self._socket
        if sock is not None:
            with contextlib.suppress(Exception):  # closing a broken socket
                sock.close()

    def _run(self) -> None:
        from websockets.exceptions import InvalidStatus, WebSocketException
        from websockets.sync.client import connect

        attempt = 0
        lost_reported = False
        lost_kind = UNREACHABLE
        while not self._closing.is_set():
            try:
                sock = connect(self.url, open_timeout=self.open_timeout,
                               max_size=MAX_INCOMING)
                try:  # the credentials: first, before anything else is sent
                    sock.__enter__()  # used as its context manager (closed by _receive)
                    sock.send(self._hello)
                except BaseException:
                    sock.close()
                    raise
            except InvalidStatus as exc:
                status = exc.response.status_code
                if 400 <= status < 500:  # refused: trying again changes nothing
                    self._on_ended(*_refusal(exc.response.body, status))
                    return
                reason = f"the server answered HTTP {status}"
            except (OSError, TimeoutError, WebSocketException) as exc:
                reason = f"cannot reach the server ({type(exc).__name__}: {exc})"
            else:
                with self._lock:
                    self._socket = sock
                self._connected.set()
                self._on_open(lost_reported)
                lost_reported = False
                attempt = 0
                reason, final = self._receive(sock)
                lost_kind = RESTARTING if getattr(sock, "close_code", None) \
                    == SERVICE_RESTART else UNREACHABLE
                self._connected.clear()
                with self._lock:
                    self._socket = None
                if final:
                    self._on_ended(reason, _close_kind(sock, reason))
                    return
                if self._closing.is_set():
                    break
            if not lost_reported:
                self._on_lost(reason, lost_kind)
                lost_reported = True
            delay = reconnect_delay(attempt, self.delays)
            attempt += 1
            if self._closing.wait(delay):
                break
        self._on_ended("", "")

    def _receive(self, sock: Any) -> tuple[str, bool]:
        """Pass the messages of one connection on until it ends: the reason, and
        whether it ended for good."""
        refusal = ""
        self._on_connection()
        try:
            sock.__enter__()  # used as its context manager: closed in ``finally``
            for raw in sock:
                try:
                    message = protocol.read_message(json.loads(raw))
                except (ValueError, RecursionError):
                    continue
                if message is None:  # not a message of this protocol's kinds: left alone
                    continue
                if message["type"] == "refused" and isinstance(message.get("reason"), str):
                    refusal = message["reason"]
                self._on_message(dict(message))
            reason = "the server closed the connection"
        except Exception as exc:  # any drop is reported, never raised
            reason = f"the connection dropped ({type(exc).__name__})"
        finally:
            with contextlib.suppress(Exception):
                sock.close()
        code = getattr(sock, "close_code", None)
        if code == SERVICE_RESTART:
            reason = f"the server is restarting (close code {code})"
        if isinstance(code, int) and 4400 <= code < 4500 and code != protocol.NO_HELLO:
            # refused: for good (but a hello that came too late: connected again)
            return refusal or f"the server refused the connection (code {code})", True
        return reason, self._ends_for_good()


class LiveTable(_Reconnecting):
    """A live connection to a table, run in a background thread.

    Messages from the server (dicts, as docs/online.md lists them) are taken with
    :meth:`poll`; on top of them this connection adds ``{"type": "connection",
    "state": "lost" | "back" | "closed", "reason", "kind"}``. After a reconnection
    the server sends the table and every move of the round again; the moves
    already passed on are dropped, so each move reaches :meth:`poll` once.

    :attr:`presence` and :attr:`waiting_for` are who is there as the server last
    said it (``table`` and ``seats`` messages; ``None`` before the first);
    :meth:`say` sends a quick phrase, :meth:`window` tells the server the
    window went to the background or came back (said again after a
    reconnection, which the server counts as active)."""

    def __init__(self, base_url: str, table_id: int, token: str | None, *,
                 code: str | None = None, open_timeout: float = DEFAULT_TIMEOUT,
                 delays: Sequence[float] = RECONNECT_DELAYS) -> None:
        self.table_id = table_id
        self.incoming: queue.Queue[dict[str, Any]] = queue.Queue()
        self._outgoing: queue.Queue[str | None] = queue.Queue()
        self._leaving = threading.Event()
        self._round: Any = None
        self._moves_seen = 0
        self._skip: int | None = None  # moves to drop: those passed on before reconnecting
        self.presence: list[str | None] | None = None
        """Each seat's presence (one of :data:`blockyard.protocol.PRESENCE_STATES`,
        ``None``: a free seat), as last said."""
        self.waiting_for: list[int] | None = None
        """The seats whose game is not finished at a playing table, as last said."""
        self._window = "active"
        self._start_thread(_ws_url(base_url, f"/api/tables/{table_id}/live"),
                           f"live-table-{table_id}", open_timeout, delays,
                           protocol.hello(token, code))
        self._sender = threading.Thread(target=self._send_loop,
                                        name=f"live-table-{table_id}-send", daemon=True)
        self._sender.start()

    @property
    def connected(self) -> bool:
        """Whether the connection is open now."""
        return self._connected.is_set()

    def poll(self) -> list[dict[str, Any]]:
        """Every message that arrived since the last call (never waits)."""
        out = []
        while True:
            try:
                out.append(self.incoming.get_nowait())
            except queue.Empty:
                return out

    def wait(self, timeout: float) -> dict[str, Any] | None:
        """The next message, waiting up to ``timeout`` seconds (for scripts and
        tests; the window uses :meth:`poll`)."""
        try:
            return self.incoming.get(timeout=timeout)
        except queue.Empty:
            return None

    def act(self, action: Sequence[Any]) -> bool:
        """Send an action (as in ``game.log``). False when not connected now (nothing
        is sent: the player acts again once the connection is back)."""
        return self._send(protocol.act(action))

    def leave(self) -> bool:
        """Leave the table (a playing seat's game ends); the connection then ends
        for good."""
        sent = self._send(protocol.leave())
        if sent:
            self._leaving.set()
        return sent

    def rematch(self) -> bool:
        """Ask for a new round at the same table (once the round is finished)."""
        return self._send(protocol.rematch())

    def say(self, phrase: str) -> bool:
        """Say a quick phrase (one of :data:`blockyard.protocol.PHRASES`;
        ``ValueError`` for anything else) to the table's other players and
        spectators. False when not connected now."""
        return self._send(protocol.say(phrase))

    def window(self, state: str) -> bool:
        """Tell the table this player's window is in the background (``"away"``)
        or active again (``"active"``; ``ValueError`` for anything else). Kept,
        and said again after a reconnection; False when not connected now."""
        message = protocol.presence(state)
        self._window = state
        return self._send(message)

    def _send(self, message: Mapping[str, Any]) -> bool:
        text = json.dumps(message)
        if len(text.encode("utf-8")) > MAX_MESSAGE:
            raise ValueError(f"a message of {len(text)} characters is larger than the "
                             f"server takes ({MAX_MESSAGE} bytes)")
        if not self.connected:
            return False
        self._outgoing.put(text)
        return True

    def close(self) -> None:
        """Close the connection (the seat stays the player's until the server's
        timeout) and stop the threads."""
        self._closing.set()
        self._outgoing.put(None)
        # what was queued before (a leave: the seat is freed or the game ended) goes
        # out first; a connection that is gone does not hold this up for long
        self._sender.join(timeout=SEND_ON_CLOSE)
        self._close_socket()
        self._thread.join(timeout=5)
        self._sender.join(timeout=5)

    def __enter__(self) -> LiveTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the threads --------------------------------------------------------------------

    def _send_loop(self) -> None:
        while True:
            text = self._outgoing.get()
            if text is None:
                return
            with self._lock:
                sock = self._socket
            if sock is None:
                continue
            try:
                sock.send(text)
            except Exception:  # the receiving thread reports the drop
                continue

    def _on_open(self, again: bool) -> None:
        if again:
            self.incoming.put({"type": "connection", "state": "back", "reason": ""})
        if self._window == "away":  # a new connection counts as active: say it again
            self._send(protocol.presence("away"))

    def _on_lost(self, reason: str, kind: str) -> None:
        self.incoming.put({"type": "connection", "state": "lost", "reason": reason,
                           "kind": kind})

    def _on_ended(self, reason: str, kind: str) -> None:
        self.incoming.put({"type": "connection", "state": "closed", "reason": reason,
                           "kind": kind})

    def _on_connection(self) -> None:
        self._skip = None

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "table":
            if message.get("round") != self._round:
                self._round, self._moves_seen = message.get("round"), 0
            if self._skip is None:
                self._skip = self._moves_seen
            self._seats(message)
        elif kind == "seats":
            self._seats(message)
        elif kind == "move":
            if self._skip:
                self._skip -= 1
                return
            self._moves_seen += 1
        self.incoming.put(message)

    def _ends_for_good(self) -> bool:
        return self._leaving.is_set()

    def _seats(self, message: Mapping[str, Any]) -> None:
        states, waiting = message.get("presence"), message.get("waiting_for")
        if isinstance(states, list) and all(s is None or isinstance(s, str) for s in states):
            self.presence = list(states)
        if isinstance(waiting, list) and all(type(s) is int for s in waiting):
            self.waiting_for = list(waiting)


MAX_OPENED = 50
"""The most tables opened by followed players a :class:`PlayerFeed` keeps."""


class PlayerFeed(_Reconnecting):
    """The signed-in player's own live connection (``/api/me/live``), run in a
    background thread: while it is open the player counts as online, and the
    server pushes the pending invitations and the players online as they change.

    :attr:`invitations` and :attr:`players` are the latest lists (``None``: none
    arrived yet); :attr:`paired` the latest table Play now seated the player at
    (``None``: none); :attr:`version` grows with every change of these or of
    :attr:`state` (``"connecting"``, ``"connected"``, ``"lost"``, ``"closed"``)
    or of :attr:`friends` (the followed players online, ``None`` before the
    first list) and :attr:`opened` (the public tables followed players opened
    since connecting, oldest first, the last :data:`MAX_OPENED`),
    so a window compares one number a frame. A dropped connection is connected
    again (the same delays as :class:`LiveTable`); a refused one (a token no
    longer valid) is closed for good with :attr:`reason`."""

    def __init__(self, base_url: str, token: str, *, open_timeout: float = DEFAULT_TIMEOUT,
                 delays: Sequence[float] = RECONNECT_DELAYS) -> None:
        self.invitations: list[Invitation] | None = None
        self.players: list[str] | None = None
        self.paired: Paired | None = None
        self.friends: list[str] | None = None
        self.opened: list[Opened] = []
        self.state = "connecting"
        self.reason = ""
        self.lost_kind = ""
        """While :attr:`state` is ``"lost"``: :data:`RESTARTING` or :data:`UNREACHABLE`."""
        self.version = 0
        self._changed = threading.Condition()
        self._start_thread(_ws_url(base_url, "/api/me/live"), "player-feed",
                           open_timeout, delays, protocol.hello(token))

    def wait_for(self, done: Callable[[PlayerFeed], bool], timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until ``done(self)`` (scripts and tests)."""
        with self._changed:
            return self._changed.wait_for(lambda: done(self), timeout)

    def refresh(self) -> bool:
        """Ask the server to send both lists again; False when not connected."""
        with self._lock:
            sock = self._socket
        if sock is None:
            return False
        try:
            sock.send(json.dumps(protocol.refresh()))
        except Exception:  # the receiving thread reports the drop
            return False
        return True

    def close(self, wait: bool = True) -> None:
        """Close the connection and stop the thread (``wait``: until it stopped,
        at most 5 seconds; a window does not wait)."""
        self._closing.set()
        self._close_socket()
        if wait:
            self._thread.join(timeout=5)

    def __enter__(self) -> PlayerFeed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _update(self, **values: Any) -> None:
        with self._changed:
            for name, value in values.items():
                setattr(self, name, value)
            self.version += 1
            self._changed.notify_all()

    def _on_open(self, again: bool) -> None:
        self._update(state="connected", reason="")

    def _on_lost(self, reason: str, kind: str) -> None:
        self._update(state="lost", reason=reason, lost_kind=kind)

    def _on_ended(self, reason: str, kind: str) -> None:
        self._update(state="closed", reason=reason)

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        try:
            if kind == "invitations":
                self._update(invitations=_invitations(message, "the invitations"))
            elif kind == "online":
                self._update(players=_names(message, "the players online"))
            elif kind == "paired":
                self._update(paired=_paired(message, "the pairing"))
            elif kind == "friends":
                what = "the players followed"
                self._update(friends=[str(n) for n in _field(message, "online", list, what)
                                      if isinstance(n, str)])
            elif kind == "opened":
                what = "a followed player's table"
                found = Opened(_field(message, "table", int, what),
                               _field(message, "ruleset_id", str, what),
                               _field(message, "name", str, what))
                self._update(opened=[*self.opened, found][-MAX_OPENED:])
        except OnlineError:  # a malformed message is left out
            pass


def _refusal(body: bytes | bytearray | None, status: int) -> tuple[str, str]:
    """The reason (technical, English) and the :data:`ERROR_KINDS` entry of a
    refused WebSocket handshake."""
    try:
        data = json.loads(body or b"")
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            return f"{data['error']} (HTTP {status})", error_kind(status, data["error"])
    except ValueError:
        pass
    return f"the server refused the connection (HTTP {status})", NOT_BLOCKYARD


def _close_kind(sock: Any, reason: str) -> str:
    """The :data:`ERROR_KINDS` entry of a connection that ended for good: the
    server's close code 4xxx is an HTTP status plus 4000; ``""`` when we left."""
    code = getattr(sock, "close_code", None)
    if isinstance(code, int) and 4400 <= code < 4500:
        return error_kind(code - 4000, reason)
    return ""


class Pending(Generic[T]):
    """An online call running in the background: poll :attr:`done`, then read
    :attr:`result`, or :attr:`failure` (the :class:`OnlineError`; a
    ``ValueError`` of the call becomes one of kind :data:`REFUSED`) and
    :attr:`error` (its technical text)."""

    def __init__(self, call: Callable[[], T]) -> None:
        self.result: T | None = None
        self.error: str | None = None
        self.failure: OnlineError | None = None
        self._done = threading.Event()

        def run() -> None:
            try:
                self.result = call()
            except OnlineError as exc:
                self.failure, self.error = exc, exc.message
            except ValueError as exc:
                self.failure = OnlineError(str(exc), kind=REFUSED)
                self.error = str(exc)
            finally:
                self._done.set()

        threading.Thread(target=run, name="online-call", daemon=True).start()

    @property
    def done(self) -> bool:
        """Whether the call has finished (with a result or an error)."""
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the call (scripts and tests)."""
        return self._done.wait(timeout)


def run_in_background(call: Callable[[], T]) -> Pending[T]:
    """Run ``call`` (an online call) in a background thread."""
    return Pending(call)


__all__ = ["BAD_ADDRESS", "BAD_NAME", "BAD_PASSWORD", "ERROR_KINDS", "GAME_REFUSED", "NAME_TAKEN",
           "NOT_BLOCKYARD", "NOT_FOUND", "NOT_SERVED", "PLUGIN_DIFFERS", "PRIVATE_TABLE",
           "RATE_LIMITED", "REFUSED", "RULES_DIFFER", "SERVER_ERROR", "SIGNED_OUT",
           "SUBMITTED_ALREADY", "TABLE_FULL", "TIMEOUT", "TOO_OLD", "UNREACHABLE", "WRONG_CODE",
           "WRONG_LOGIN", "Client", "Entry", "Friend", "Invitation", "Leaderboard", "LiveTable",
           "NewTable", "OnlineError", "Opened", "Pending", "PlayerFeed", "ServedRuleset",
           "Submission", "TableInfo",
           "error_kind", "mirror_divergence", "mirror_move", "mismatch_error", "parse_table_code",
           "run_in_background", "server_url", "table_code"]
