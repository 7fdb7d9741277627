"""The live channels' messages, typed and versioned: one module for the server
(``blockyard serve``), the client (:mod:`blockyard.online`) and the window.

Every message is one JSON object with a ``"type"``. Two channels:

- **a table's** (``/api/tables/{id}/live``). Server → client: :class:`TableMessage`
  on connect and on every change, :class:`ClockMessage` after it at a playing
  table of a falling game, :class:`MoveMessage` for every accepted action of
  any seat in order, :class:`RefusedMessage` to a client whose message is
  refused, :class:`ResultMessage` once every seat is finished,
  :class:`SeatsMessage` whenever who is there changes (each seat present, away,
  reconnecting or left, and whom the table waits for), :class:`SaidMessage` for
  a quick phrase of another seat. Client → server: :class:`ActMessage`,
  :class:`LeaveMessage`, :class:`RematchMessage`, :class:`PresenceMessage`
  (the window is in the background, or active again), :class:`SayMessage` (a
  quick phrase, one of :data:`PHRASES`).
- **a player's own** (``/api/me/live``). Server → client:
  :class:`InvitationsMessage`, :class:`OnlineMessage`, :class:`PairedMessage`
  (Play now found an opponent), :class:`FriendsMessage` (the followed players
  online), :class:`OpenedMessage` (a followed player opened a public table),
  :class:`RefusedMessage`.
  Client → server: :class:`RefreshMessage`.

On both channels the client's first message is its :class:`HelloMessage`
(:func:`hello`, read by :func:`read_hello`): the credentials, never in the
channel's address (live protocol 4 on).

:data:`VERSION` is the protocol's version: the server says it in every ``table``
message (``"protocol"``) and in ``GET /api/health``; a message of a later
version may carry fields this one does not know (they are left alone), never
other meanings for the fields it does. The constructors below write each
message; :func:`read_request` reads what a client sends a server, naming what
is wrong (a :class:`Refusal`), and :func:`read_message` what a server sends a
client (``None`` for anything that is not a message of this protocol).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

VERSION = 4
"""The live protocol's version (``"protocol"`` of the ``table`` message). 2 added
the seats' ratings (``table``: ``rated``, ``ratings``; ``result``: ``ratings``)
and the ``paired`` message of Play now; 3 who is there (``table``: ``presence``,
``waiting_for``; ``result``: ``left``; the ``seats`` message and the client's
``presence``), quick phrases (``say``, ``said``) and friends (``friends``,
``opened``). Later additions (still 3): ``table``'s ``pair_limit`` and
``result``'s ``aborted`` (rated rounds a stranger cannot farm)."""

PRESENCE_STATES = ("present", "away", "reconnecting", "left")
"""What a held seat's ``presence`` may be: ``present`` (connected and active
lately), ``away`` (connected, its window in the background or no input for a
while), ``reconnecting`` (its connections all closed, the abandon time not yet
past, its game not over), ``left`` (its player left, or was abandoned, or
closed every connection once their game was over)."""
SeatPresence = Literal["present", "away", "reconnecting", "left"]
PHRASES = ("good-luck", "well-played", "rematch", "thanks")
"""The quick phrases a seated player may say at a table (ids: each window says
them in its player's language; no free text)."""
Phrase = Literal["good-luck", "well-played", "rematch", "thanks"]
WINDOW_STATES = ("away", "active")
"""What a client's ``presence`` message may say of its window."""

REFUSAL_KINDS = ("spectator", "not-now", "game-over", "illegal", "clock", "conflict",
                 "signed-out", "not-found", "private", "too-many", "seats-held",
                 "malformed")
"""What a ``refused`` message's ``kind`` may be (its ``reason`` says it in English)."""
RefusalKind = Literal["spectator", "not-now", "game-over", "illegal", "clock", "conflict",
                      "signed-out", "not-found", "private", "too-many", "seats-held",
                      "malformed"]

TABLE_REQUESTS = ("act", "leave", "rematch", "presence", "say")
"""The types a client sends on a table's channel."""
PLAYER_REQUESTS = ("refresh",)
"""The types a client sends on its player's own channel."""
SERVER_MESSAGES = ("table", "clock", "move", "result", "refused", "invitations", "online",
                   "paired", "seats", "said", "friends", "opened")
"""The types a server sends."""


class SeatRating(TypedDict):
    """A seat's rating in the table's ruleset: ``rating`` (``mu - 3 sigma``, what
    players are shown), ``mu``, ``sigma``, the rated rounds behind it
    (``games``) and whether it is still ``provisional``."""

    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool


class PairLimit(TypedDict):
    """Why a round of a rated table is friendly: the pairs of seats (``pairs``,
    each ``[a, b]``, ``a < b``) whose players had played ``rounds`` rated rounds
    together in the ``hours`` before it was dealt (the most that change ratings)."""

    rounds: int
    hours: int
    pairs: list[list[int]]


class RatingChange(TypedDict):
    """A seat's rating change in a rated round: the shown rating ``before`` and
    ``after`` it, the ``change``, and whether it is still ``provisional``."""

    before: float
    after: float
    change: float
    provisional: bool


class TableMessage(TypedDict):
    """A table as it stands: its seats (names, ``None`` for a free one), status
    (``waiting``, ``playing``, ``finished``), round and the round's deal; whether
    it is ``rated`` and each seat's rating (``None`` for a free seat); who is
    there (``presence``: one of :data:`PRESENCE_STATES` per held seat, ``None``
    for a free one) and, at a playing table, the seats whose game is not
    finished (``waiting_for``: whom a seat that finished waits for)."""

    type: Literal["table"]
    protocol: int
    id: int
    ruleset_id: str
    seed: int
    seats: list[str | None]
    status: str
    round: int
    rematch_by: int | None
    invited: list[str]
    rated: bool
    ratings: list[SeatRating | None]
    pair_limit: PairLimit | None
    presence: list[SeatPresence | None]
    waiting_for: list[int]


class SeatsMessage(TypedDict):
    """Who is there changed: the table message's ``presence`` and
    ``waiting_for`` as they are now."""

    type: Literal["seats"]
    presence: list[SeatPresence | None]
    waiting_for: list[int]


class SaidMessage(TypedDict):
    """A quick phrase (one of :data:`PHRASES`) of the player ``name`` at ``seat``."""

    type: Literal["said"]
    seat: int
    name: str
    phrase: Phrase


class FriendsMessage(TypedDict):
    """The players the player follows who are online now, alphabetically."""

    type: Literal["friends"]
    online: list[str]


class OpenedMessage(TypedDict):
    """A followed player (``name``) opened a public ``table`` of ``ruleset_id``."""

    type: Literal["opened"]
    table: int
    ruleset_id: str
    name: str


class ClockMessage(TypedDict):
    """Seconds since the round of a falling game started, on the server's clock."""

    type: Literal["clock"]
    elapsed: float


class MoveMessage(TypedDict):
    """An accepted action of a seat, with that seat's score and whether its game
    is over after it."""

    type: Literal["move"]
    seat: int
    action: list[Any]
    score: int
    over: bool


class ResultMessage(TypedDict):
    """A finished round: every seat's score, the winner (``None`` on a tie), at a
    rated table every seat's rating change (``None`` at an unrated one), and the
    seats whose player left the round (the ``leave`` message, abandoned, idle, or
    ended before their game was over) instead of finishing it (``left``: ranked
    below every seat that finished), and whether a rated round was ``aborted``
    (a seat made fewer than 2 actions of its own: nobody is rated)."""

    type: Literal["result"]
    scores: list[int]
    winner: int | None
    ratings: list[RatingChange] | None
    left: list[int]
    aborted: bool


class RefusedMessage(TypedDict):
    """A refusal: ``reason`` for people, ``kind`` for a client to say it in its
    player's language."""

    type: Literal["refused"]
    reason: str
    kind: RefusalKind


class InvitationsMessage(TypedDict):
    """The player's pending invitations, newest first."""

    type: Literal["invitations"]
    invitations: list[dict[str, Any]]


class OnlineMessage(TypedDict):
    """The players online, alphabetically."""

    type: Literal["online"]
    players: list[str]


class PairedMessage(TypedDict):
    """Play now paired the player: the rated ``table`` they hold ``seat`` at
    (it plays ``ruleset_id``), to go straight to."""

    type: Literal["paired"]
    table: int
    ruleset_id: str
    seat: int


class ActMessage(TypedDict):
    """An action of the player's seat, as written in ``game.log``."""

    type: Literal["act"]
    action: list[Any]


class LeaveMessage(TypedDict):
    """The player leaves the table (a playing seat's game ends)."""

    type: Literal["leave"]


class RematchMessage(TypedDict):
    """The player asks for a new round at the same table."""

    type: Literal["rematch"]


class PresenceMessage(TypedDict):
    """The player's window is in the background (``away``) or active again
    (``active``)."""

    type: Literal["presence"]
    state: Literal["away", "active"]


class SayMessage(TypedDict):
    """A quick phrase of the player's seat (one of :data:`PHRASES`)."""

    type: Literal["say"]
    phrase: Phrase


class RefreshMessage(TypedDict):
    """The player asks for its invitations and the players online again."""

    type: Literal["refresh"]


class HelloMessage(TypedDict, total=False):
    """A live channel's first message from the client: its session ``token``
    (none: a spectator) and a private table's ``code`` (a table's channel only),
    each ``None`` or left out when there is none."""

    type: Literal["hello"]
    token: str | None
    code: str | None


@dataclass(frozen=True)
class Hello:
    """A client's ``hello`` as read (:func:`read_hello`): its ``token`` and
    ``code``, ``None`` for none (an empty text is none)."""

    token: str | None
    code: str | None

    def __repr__(self) -> str:  # never the credentials themselves (a log, a traceback)
        return (f"Hello(token={'…' if self.token else None}, "
                f"code={'…' if self.code else None})")


ServerMessage = (TableMessage | ClockMessage | MoveMessage | ResultMessage | RefusedMessage
                 | InvitationsMessage | OnlineMessage | PairedMessage | SeatsMessage
                 | SaidMessage | FriendsMessage | OpenedMessage)
TableRequest = ActMessage | LeaveMessage | RematchMessage | PresenceMessage | SayMessage
PlayerRequest = RefreshMessage


@dataclass(frozen=True)
class Refusal:
    """A refusal of a message or an action: ``reason`` for people, ``kind`` (one
    of :data:`REFUSAL_KINDS`) for a client."""

    reason: str
    kind: str

    def __post_init__(self) -> None:
        if self.kind not in REFUSAL_KINDS:
            raise ValueError(f"Refusal: unknown kind {self.kind!r}")

    def message(self) -> RefusedMessage:
        """The ``refused`` message."""
        return refused(self.reason, self.kind)


# -- the server's messages ----------------------------------------------------------------


def seat_rating(*, rating: float, mu: float, sigma: float, games: int,
                provisional: bool) -> SeatRating:
    """A seat's rating as the ``table`` message carries it."""
    return {"rating": rating, "mu": mu, "sigma": sigma, "games": games,
            "provisional": provisional}


def table(*, id: int, ruleset_id: str, seed: int, seats: Sequence[str | None], status: str,
          round: int, rematch_by: int | None, invited: Sequence[str], rated: bool = False,
          ratings: Sequence[SeatRating | None] = (),
          pair_limit: PairLimit | None = None,
          presence: Sequence[str | None] | None = None,
          waiting_for: Sequence[int] = ()) -> TableMessage:
    """The ``table`` message (``ratings``, ``presence``: one per seat, ``None``
    for a free one; ``presence`` not given: ``None`` for every seat;
    ``pair_limit``: why a round of a rated table is friendly, :func:`pair_limit`)."""
    shown: list[SeatPresence | None] = [None] * len(seats) if presence is None \
        else _states(presence)
    return {"type": "table", "protocol": VERSION, "id": id, "ruleset_id": ruleset_id,
            "seed": seed, "seats": list(seats), "status": status, "round": round,
            "rematch_by": rematch_by, "invited": list(invited), "rated": rated,
            "ratings": list(ratings), "pair_limit": pair_limit, "presence": shown,
            "waiting_for": list(waiting_for)}


def pair_limit(rounds: int, hours: int, pairs: Sequence[Sequence[int]]) -> PairLimit:
    """The ``table`` message's ``pair_limit``."""
    return {"rounds": rounds, "hours": hours, "pairs": [list(pair) for pair in pairs]}


def seats(presence: Sequence[str | None], waiting_for: Sequence[int]) -> SeatsMessage:
    """The ``seats`` message."""
    return {"type": "seats", "presence": _states(presence),
            "waiting_for": list(waiting_for)}


def _states(presence: Sequence[str | None]) -> list[SeatPresence | None]:
    for state in presence:
        if state is not None and state not in PRESENCE_STATES:
            raise ValueError(f"presence: unknown state {state!r}")
    return list(presence)  # type: ignore[arg-type]


def said(seat: int, name: str, phrase: str) -> SaidMessage:
    """The ``said`` message (``phrase`` one of :data:`PHRASES`)."""
    if phrase not in PHRASES:
        raise ValueError(f"said: unknown phrase {phrase!r}")
    return {"type": "said", "seat": seat, "name": name,
            "phrase": phrase}  # type: ignore[typeddict-item]


def friends(online: Sequence[str]) -> FriendsMessage:
    """The ``friends`` message."""
    return {"type": "friends", "online": list(online)}


def opened(table: int, ruleset_id: str, name: str) -> OpenedMessage:
    """The ``opened`` message."""
    return {"type": "opened", "table": table, "ruleset_id": ruleset_id, "name": name}


def clock(elapsed: float) -> ClockMessage:
    """The ``clock`` message (``elapsed`` seconds, to the millisecond)."""
    return {"type": "clock", "elapsed": round(elapsed, 3)}


def move(seat: int, action: Sequence[Any], score: int, over: bool) -> MoveMessage:
    """The ``move`` message."""
    return {"type": "move", "seat": seat, "action": list(action), "score": score,
            "over": over}


def result(scores: Sequence[int], winner: int | None,
           ratings: Sequence[RatingChange] | None = None,
           left: Sequence[int] = (), aborted: bool = False) -> ResultMessage:
    """The ``result`` message (``ratings``: each seat's change at a rated table;
    ``left``: the seats whose player left the round; ``aborted``: a rated round
    that rated nobody, a seat having made fewer than 2 actions of its own)."""
    return {"type": "result", "scores": list(scores), "winner": winner,
            "ratings": None if ratings is None else list(ratings),
            "left": sorted(left), "aborted": aborted}


def refused(reason: str, kind: str) -> RefusedMessage:
    """The ``refused`` message (``kind`` one of :data:`REFUSAL_KINDS`)."""
    if kind not in REFUSAL_KINDS:
        raise ValueError(f"refused: unknown kind {kind!r}")
    return {"type": "refused", "reason": reason, "kind": kind}  # type: ignore[typeddict-item]


def invitations(found: Sequence[dict[str, Any]]) -> InvitationsMessage:
    """The ``invitations`` message."""
    return {"type": "invitations", "invitations": list(found)}


def online(players: Sequence[str]) -> OnlineMessage:
    """The ``online`` message."""
    return {"type": "online", "players": list(players)}


def paired(table: int, ruleset_id: str, seat: int) -> PairedMessage:
    """The ``paired`` message."""
    return {"type": "paired", "table": table, "ruleset_id": ruleset_id, "seat": seat}


# -- the client's messages ----------------------------------------------------------------


def act(action: Sequence[Any]) -> ActMessage:
    """The ``act`` message."""
    return {"type": "act", "action": list(action)}


def leave() -> LeaveMessage:
    """The ``leave`` message."""
    return {"type": "leave"}


def rematch() -> RematchMessage:
    """The ``rematch`` message."""
    return {"type": "rematch"}


def presence(state: str) -> PresenceMessage:
    """The client's ``presence`` message (``state``: ``away`` or ``active``)."""
    if state not in WINDOW_STATES:
        raise ValueError(f"presence: expected away or active, found {state!r}")
    return {"type": "presence", "state": state}  # type: ignore[typeddict-item]


def say(phrase: str) -> SayMessage:
    """The ``say`` message (``phrase`` one of :data:`PHRASES`)."""
    if phrase not in PHRASES:
        raise ValueError(f"say: unknown phrase {phrase!r}")
    return {"type": "say", "phrase": phrase}  # type: ignore[typeddict-item]


def refresh() -> RefreshMessage:
    """The ``refresh`` message."""
    return {"type": "refresh"}


def hello(token: str | None = None, code: str | None = None) -> HelloMessage:
    """The ``hello`` message that opens a live channel: ``token`` a session token
    (``None``: not signed in), ``code`` a private table's code (``None``: none)."""
    message: HelloMessage = {"type": "hello"}
    if token:
        message["token"] = token
    if code:
        message["code"] = code
    return message


# -- reading ------------------------------------------------------------------------------

BINARY_FRAME = "expected text frames, each one JSON object (a binary frame is not read)"
"""The reason (kind ``malformed``) a binary frame is refused with."""


def read_request(text: str | None, types: Sequence[str]) -> dict[str, Any] | Refusal:
    """A client's message (one frame's ``text``; ``None`` for a binary frame) of
    one of ``types`` (:data:`TABLE_REQUESTS`, :data:`PLAYER_REQUESTS`), or the
    :class:`Refusal` (kind ``malformed``) saying what is wrong with it. Only its
    shape: what an ``act``'s action may be is the referee's to judge."""
    if text is None:
        return Refusal(BINARY_FRAME, "malformed")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return Refusal("expected one JSON object per message", "malformed")
    kind = message.get("type") if isinstance(message, dict) else None
    if kind not in types:
        return Refusal(f"type: expected {_either(types)}", "malformed")
    if kind == "act" and "action" not in message:
        return Refusal("action: missing (expected [name, *arguments] as written in game.log)",
                       "malformed")
    if kind == "presence" and message.get("state") not in WINDOW_STATES:
        return Refusal(f"state: expected {_either(WINDOW_STATES)}", "malformed")
    if kind == "say" and message.get("phrase") not in PHRASES:
        return Refusal(f"phrase: expected {_either(PHRASES)}", "malformed")
    return message  # type: ignore[no-any-return]


HELLO_VERSION = 4
"""The version that added the client's ``hello`` (:func:`hello`), its first
message on either channel, with its session token and a private table's code:
neither is taken from the channel's address any more."""
NO_HELLO = 4408
"""The close code of a live connection that sent no ``hello`` in time (the server's
``BLOCKYARD_SERVER_HELLO_SECONDS``): a client connects again, as after a drop."""
NOT_HELLO = 4400
"""The close code of a live connection whose first message is not a ``hello``."""
MAX_TOKEN = 200
"""The longest ``token`` a ``hello`` may carry (a session token is 43 characters)."""
MAX_CODE = 32
"""The longest ``code`` a ``hello`` may carry (a table's code is 8)."""
NOT_A_HELLO = ("the first message must be {\"type\": \"hello\", \"token\": TOKEN, "
             "\"code\": CODE} (live protocol 4: a token or code in the address is not "
             "taken)")
"""The reason (kind ``malformed``) a first message that is not a hello is refused with."""


def read_hello(text: str | None) -> Hello | Refusal:
    """A live channel's first message (one frame's ``text``; ``None`` for a binary
    frame) read as the client's :class:`Hello`, or the :class:`Refusal` (kind
    ``malformed``) naming what is wrong with it. Whose token it is, and whether
    the code is the table's, are the server's to judge."""
    if text is None:
        return Refusal(BINARY_FRAME, "malformed")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return Refusal(NOT_A_HELLO, "malformed")
    if not isinstance(message, dict) or message.get("type") != "hello":
        return Refusal(NOT_A_HELLO, "malformed")
    found: dict[str, str | None] = {}
    for key, longest in (("token", MAX_TOKEN), ("code", MAX_CODE)):
        value = message.get(key)
        if value is not None and not isinstance(value, str):
            return Refusal(f"{key}: expected text or null", "malformed")
        if value is not None and len(value) > longest:
            return Refusal(f"{key}: expected at most {longest} characters, found "
                           f"{len(value)}", "malformed")
        found[key] = value or None
    return Hello(found["token"], found["code"])


def read_message(data: Any) -> ServerMessage | None:
    """A server's message (its parsed JSON) when it is one of this protocol's
    (a ``type`` of :data:`SERVER_MESSAGES`), else ``None``. Its fields are read
    by whoever takes it, each checked there."""
    if isinstance(data, dict) and data.get("type") in SERVER_MESSAGES:
        return data  # type: ignore[return-value]
    return None


def _either(types: Sequence[str]) -> str:
    return types[0] if len(types) == 1 else f"{', '.join(types[:-1])} or {types[-1]}"
