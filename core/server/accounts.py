"""Accounts and sessions: argon2 password hashes, random session tokens.

A session token is 32 random bytes (URL-safe text) handed to the player once;
the database keeps only its SHA-256, with an expiry date and a revoked flag. A
password is never stored, logged or echoed: only its argon2 hash is kept.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import secrets
from dataclasses import dataclass

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy.engine import Engine

from .. import accountrules
from . import db

NAME = accountrules.NAME_PATTERN
"""Account names: 3–24 letters, digits, ``_`` and ``-`` (:mod:`blockyard.accountrules`)."""
MIN_PASSWORD = accountrules.PASSWORD_MIN
MAX_PASSWORD = accountrules.PASSWORD_MAX
"""Passwords: 8 characters or more (at most 1024, hashing is costly)."""
SESSION_DAYS = 30
"""A session token expires this many days after sign-in."""

_HASHER = PasswordHasher()
_dummy: tuple[PasswordHasher, str] | None = None


def _dummy_hash() -> str:
    """A hash of no account's password, made once per process (and hasher) at the
    first sign-in (not at import: a server process or a command that never signs
    anyone in does not pay for it), so that a sign-in with an unknown name costs
    what a wrong password costs; the first sign-in pays for it whatever its name."""
    global _dummy
    if _dummy is None or _dummy[0] is not _HASHER:
        _dummy = (_HASHER, _HASHER.hash("blockyard-no-such-account"))
    return _dummy[1]


class AccountError(ValueError):
    """A bad name or password (the message says which, never the password)."""


class NameTaken(Exception):
    """The account name is taken."""


@dataclass(frozen=True)
class Account:
    """A signed-in player."""

    id: int
    name: str


def now() -> _dt.datetime:
    """The current time in UTC."""
    return _dt.datetime.now(_dt.UTC)


def check_name(name: object) -> str:
    """``name`` if it is a valid account name, else :class:`AccountError`."""
    problem = accountrules.name_problem(name)
    if problem is not None or not isinstance(name, str):
        raise AccountError(problem or "name: expected text")
    return name


def check_password(password: object) -> str:
    """``password`` if it is acceptable, else :class:`AccountError` (which never
    repeats it)."""
    problem = accountrules.password_problem(password)
    if problem is not None or not isinstance(password, str):
        raise AccountError(problem or "password: expected text")
    return password


def create_account(engine: Engine, name: object, password: object) -> Account:
    """A new account; :class:`AccountError` for a bad name or password,
    :class:`NameTaken` when the name (in any case) is taken."""
    name = check_name(name)
    password = check_password(password)
    hashed = _HASHER.hash(password)
    try:
        with engine.begin() as conn:
            result = conn.execute(sa.insert(db.accounts).values(
                name=name, name_key=name.lower(), password_hash=hashed, created=now()))
            key = result.inserted_primary_key
            assert key is not None
            return Account(int(key[0]), name)
    except sa.exc.IntegrityError:
        raise NameTaken(name) from None


def sign_in(engine: Engine, name: object, password: object) -> str | None:
    """A new session token for the account, or ``None`` for a wrong name or
    password (which are not told apart)."""
    if not isinstance(name, str) or not isinstance(password, str) \
            or len(name) > 64 or len(password) > MAX_PASSWORD:
        return None
    dummy = _dummy_hash()
    row = None
    if accountrules.name_problem(name) is None:  # no account has another name (nor a
        # NUL, which PostgreSQL cannot even compare): not looked up, the hash still paid
        with engine.connect() as conn:
            row = conn.execute(sa.select(db.accounts.c.id, db.accounts.c.password_hash)
                               .where(db.accounts.c.name_key == name.lower())).first()
    stored = row.password_hash if row is not None else dummy
    try:
        _HASHER.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return None
    if row is None:
        return None
    token = secrets.token_urlsafe(32)
    moment = now()
    with engine.begin() as conn:
        conn.execute(sa.insert(db.sessions).values(
            account_id=row.id, token_hash=token_hash(token), created=moment,
            expires=moment + _dt.timedelta(days=SESSION_DAYS), revoked=False))
        if _HASHER.check_needs_rehash(stored):
            conn.execute(sa.update(db.accounts).where(db.accounts.c.id == row.id)
                         .values(password_hash=_HASHER.hash(password)))
    return token


def token_hash(token: str) -> str:
    """What the database keeps of a session token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def account_for(engine: Engine, token: str | None) -> Account | None:
    """The account a live (not expired, not revoked) session token belongs to."""
    if not token or len(token) > 200:
        return None
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(db.accounts.c.id, db.accounts.c.name, db.sessions.c.expires)
            .join(db.sessions, db.sessions.c.account_id == db.accounts.c.id)
            .where(db.sessions.c.token_hash == token_hash(token),
                   db.sessions.c.revoked.is_(False))).first()
    if row is None:
        return None
    expires = row.expires
    if expires.tzinfo is None:  # SQLite keeps no time zone: the value was UTC
        expires = expires.replace(tzinfo=_dt.UTC)
    if expires <= now():
        return None
    return Account(int(row.id), str(row.name))


def revoke(engine: Engine, token: str) -> bool:
    """Revoke a session token; whether it was a live one."""
    with engine.begin() as conn:
        result = conn.execute(sa.update(db.sessions)
                              .where(db.sessions.c.token_hash == token_hash(token),
                                     db.sessions.c.revoked.is_(False))
                              .values(revoked=True))
        return bool(result.rowcount)


def session_live(engine: Engine, hashed: str) -> bool:
    """Whether the session whose token's hash is ``hashed`` is live (stored and
    not revoked): one query."""
    with engine.connect() as conn:
        return conn.execute(sa.select(db.sessions.c.id).where(
            db.sessions.c.token_hash == hashed,
            db.sessions.c.revoked.is_(False))).first() is not None
