"""What one server process holds, and how a route asks for it.

:class:`Server` is the process's state: its settings, the database pool, the
verifying pool, the rate limits and the clock it decides by. The routers ask for
it, for the live tables' :class:`~blockyard.server.tables.Hub`, for the
players' :class:`~blockyard.server.social.Social` and for the signed-in account
through FastAPI's ``Depends`` (:data:`ServerDep`, :data:`HubDep`,
:data:`SocialDep`, :data:`SignedIn`); the application
(:func:`blockyard.server.app.create_app`) puts them in ``app.state``.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Request
from sqlalchemy.engine import Engine
from starlette.requests import HTTPConnection

from . import accounts, db, limits, social
from .accounts import Account
from .clock import Clock, SystemClock
from .settings import Settings
from .social import Social
from .tables import Hub
from .verify import Verifier
from .web import ApiError, bearer


class Server:
    """What one server process holds: its :class:`~blockyard.server.settings.Settings`,
    the database pool, the verifying pool, the rate limits and the clock it
    decides by (:class:`~blockyard.server.clock.SystemClock` unless given one:
    tests give a :class:`~blockyard.server.clock.FakeClock`)."""

    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.database = settings.database
        self.clock: Clock = clock or SystemClock()
        self.engine: Engine = db.make_engine(settings.database, settings.connections)
        self.verifier = Verifier(settings.verifiers)
        counts = settings.limits

        # counted in the database: the same for every server process
        def wall() -> float:
            return self.clock.now().timestamp()

        def shared(name: str) -> limits.SharedRateLimit:
            return limits.SharedRateLimit(self.engine, name, counts[name], clock=wall)

        self.sign_in_address = shared("sign_in_address")
        self.sign_in_name = shared("sign_in_name")
        self.create_limit = shared("create")
        self.submit_limit = shared("submit")
        self.code_account = shared("code_account")
        self.code_address = shared("code_address")
        self.phrase_limit = shared("phrases")
        """Quick phrases per account (every process's count)."""
        self.pairing_limit = shared("pairing")
        """Entries into Play now's pool per account (every process's count)."""
        self.messages_per_minute = counts["messages"]
        # per account (or address) of each live channel, across its reconnects
        self.live_messages = limits.RateLimit(counts["messages"], 60.0, self.clock)
        self.online = social.Presence(self.engine, settings.presence_seconds, self.clock)

    def account(self, request: Request) -> Account:
        """The signed-in account of the request (``401`` otherwise). Blocking:
        one query."""
        found = accounts.account_for(self.engine, bearer(request))
        if found is None:
            raise ApiError(401, "sign in first: a valid session token is needed "
                                "(Authorization: Bearer TOKEN)")
        self.online.seen(found.id)  # an authenticated call: the player is online
        return found

    def close(self) -> None:
        self.verifier.close()
        self.engine.dispose()


def server_of(connection: HTTPConnection) -> Server:
    """The :class:`Server` of the application a request or live connection came to."""
    return cast(Server, connection.app.state.server)


def hub_of(connection: HTTPConnection) -> Hub:
    """The live tables' hub of this process."""
    return cast(Hub, connection.app.state.hub)


def social_of(connection: HTTPConnection) -> Social:
    """The players' presence and invitations of this process."""
    return cast(Social, connection.app.state.social)


ServerDep = Annotated[Server, Depends(server_of)]
"""A route's parameter: this process's :class:`Server`."""
HubDep = Annotated[Hub, Depends(hub_of)]
"""A route's parameter: this process's live tables."""
SocialDep = Annotated[Social, Depends(social_of)]
"""A route's parameter: this process's players online and invitations."""


def signed_in(request: Request, server: ServerDep) -> Account:
    """The account of the call's ``Authorization: Bearer TOKEN`` (``401``
    otherwise); FastAPI runs it in a worker thread (one query)."""
    return server.account(request)


SignedIn = Annotated[Account, Depends(signed_in)]
"""A route's parameter: the signed-in account of the call (``401`` otherwise)."""
