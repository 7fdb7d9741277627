"""The server's routes, a router per concern (:data:`ROUTERS`, in the order the
application includes them): :mod:`.service` (health, rulesets),
:mod:`.accounts` (accounts, sessions), :mod:`.games` (submitted games,
leaderboards), :mod:`.tables` (live tables), :mod:`.social` (players online,
invitations) and :mod:`.ratings` (rated leaderboards, players' ratings, Play now).
Each asks for what it needs through ``Depends`` (:mod:`blockyard.server.state`)."""

from __future__ import annotations

from fastapi import APIRouter

from . import accounts, games, ratings, service, social, tables

ROUTERS: tuple[APIRouter, ...] = (service.router, accounts.router, games.router,
                                  tables.router, social.router, ratings.router)
