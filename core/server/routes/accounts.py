"""Accounts and sessions: ``POST /api/accounts``, ``POST /api/sessions`` (sign in)
and ``DELETE /api/sessions`` (sign out)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ... import accountrules
from .. import accounts
from ..state import HubDep, ServerDep
from ..web import ApiError, bearer, client_address, errors, json_body, read_model

router = APIRouter()


class Credentials(BaseModel):
    """An account's name and password."""

    model_config = ConfigDict(strict=True, extra="forbid")
    name: Annotated[str, Field(max_length=64)]
    password: Annotated[str, Field(max_length=accounts.MAX_PASSWORD)]


class NewAccount(Credentials):
    """A new account's name and password, as the rules of accounts have them (the
    route judges them itself, with its own sentence)."""

    name: Annotated[str, Field(max_length=64, json_schema_extra={
        "pattern": accountrules.NAME_PATTERN.pattern, "minLength": accountrules.NAME_MIN,
        "maxLength": accountrules.NAME_MAX})]
    password: Annotated[str, Field(max_length=accounts.MAX_PASSWORD, json_schema_extra={
        "minLength": accountrules.PASSWORD_MIN})]


@router.post("/api/accounts", status_code=201, openapi_extra=json_body(NewAccount),
             responses=errors(409, 422, 429))
async def create_account(request: Request, server: ServerDep) -> dict[str, Any]:
    """Open an account: 3–24 letters, digits, ``_``, ``-``; a password of 8+
    characters. ``409`` when the name (in any case) is taken."""
    if not await server.create_limit.allow(client_address(request)):
        raise ApiError(429, "too many new accounts from this address; try again in "
                            "a minute")
    body = await read_model(request, NewAccount)
    try:
        account = await run_in_threadpool(accounts.create_account, server.engine,
                                          body.name, body.password)
    except accounts.AccountError as exc:
        raise ApiError(422, str(exc)) from None
    except accounts.NameTaken:
        raise ApiError(409, f"the name {body.name!r} is taken") from None
    return {"name": account.name}


@router.post("/api/sessions", openapi_extra=json_body(Credentials),
             responses=errors(401, 422, 429))
async def sign_in(request: Request, server: ServerDep) -> dict[str, Any]:
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


@router.delete("/api/sessions", status_code=204, responses=errors(401))
async def sign_out(request: Request, server: ServerDep, hub: HubDep) -> Response:
    """Sign out: the session token of the call is revoked, and every live
    connection opened with it is closed (code 4401): nothing sent on one
    afterwards is accepted."""
    token = bearer(request)
    if token is None or not await run_in_threadpool(accounts.revoke, server.engine, token):
        raise ApiError(401, "no live session token was sent")
    await hub.sign_out(accounts.token_hash(token))
    return Response(status_code=204)
