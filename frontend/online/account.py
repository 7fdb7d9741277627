"""The player's online account: the server's address, the account name and the
session token, kept in ``online.toml`` in the config folder.

The file holds a password-equivalent (the token), so it is written atomically
with permissions ``0600`` (readable and writable only by the player) from the
moment it exists, and a file found with wider permissions is narrowed when read.
No password is ever kept. An empty address means offline: the window then
offers nothing online and never contacts a server.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from blockyard import accountrules, paths
from blockyard.files import write_atomically
from blockyard.online import Client, OnlineError, PlayerFeed, server_url

from ..persistence import move_aside

FILE_MODE = 0o600
MAX_TOKEN = 200
MAX_NAME = accountrules.NAME_MAX


@dataclass
class OnlineAccount:
    """The server to play on (``server``, as the player typed it; ``""``: offline)
    and, when signed in, the account's ``name`` and session ``token``."""

    server: str = ""
    name: str = ""
    token: str = ""

    @property
    def online(self) -> bool:
        """Whether a server is set."""
        return bool(self.server)

    @property
    def signed_in(self) -> bool:
        """Whether a server is set and an account is signed in on it."""
        return bool(self.server and self.name and self.token)

    @classmethod
    def path(cls) -> Path:
        return paths.config_dir() / "online.toml"

    @classmethod
    def load(cls, notices: list[str] | None = None) -> OnlineAccount:
        """The saved account (offline when there is none). A file that cannot be
        used is moved aside (a message is added to ``notices``)."""
        notices = notices if notices is not None else []
        path = cls.path()
        try:
            import tomllib

            data: Any = tomllib.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            reason = "it is a folder" if path.is_dir() else f"{type(exc).__name__}: {exc}"
            notices.append(move_aside(path, "online account", reason))
            return cls()
        _narrow(path)
        try:
            account = cls(_text(data, "server", 300), _text(data, "name", MAX_NAME),
                          _text(data, "token", MAX_TOKEN))
            if account.server:
                server_url(account.server)
        except ValueError as exc:
            notices.append(move_aside(path, "online account", str(exc)))
            return cls()
        return account

    def save(self) -> None:
        """Write the file atomically, readable only by the player."""
        path = self.path()
        write_atomically(path, tomli_w.dumps({"server": self.server, "name": self.name,
                                              "token": self.token}), mode=FILE_MODE)
        _narrow(path)  # a file replaced on a system whose rename kept the old mode

    def set_server(self, address: str) -> None:
        """Set the server (``ValueError`` for an address that is not one; nothing
        changes then). Another server signs the account out here."""
        cleaned = address.strip()
        if cleaned:
            server_url(cleaned)
        if cleaned != self.server:
            self.server, self.name, self.token = cleaned, "", ""

    def sign_out(self) -> None:
        """Forget the account and its token (the server stays set)."""
        self.name, self.token = "", ""


class FeedKeeper:
    """The signed-in player's own live connection (pending invitations, players
    online): :meth:`feed` starts it when a player is signed in, starts it again
    for another account or server and closes it when signed out. The notices the
    player dismissed in the launcher (:attr:`dismissed`, each a notice's
    ``(kind, table)``) are kept with the connection they came on."""

    def __init__(self) -> None:
        self.current: PlayerFeed | None = None
        self.key: tuple[str, str] | None = None  # the server and token it is for
        self.dismissed: set[tuple[str, int]] = set()

    def feed(self, account: OnlineAccount) -> PlayerFeed | None:
        """The connection of ``account`` as it is now; ``None`` when not signed in
        (or the address is not one)."""
        key = (account.server, account.token) if account.signed_in else None
        if key != self.key:
            self.close()
            self.dismissed = set()
            if key is not None:
                try:
                    self.current = Client(account.server, account.token).feed()
                except (OnlineError, ValueError):  # an address that is not one
                    self.current = None
            self.key = key
        return self.current

    def close(self) -> None:
        """Close the connection (without waiting for its thread)."""
        if self.current is not None:
            self.current.close(wait=False)
        self.current, self.key = None, None


def _text(data: Any, key: str, longest: int) -> str:
    if not isinstance(data, dict):
        raise ValueError("not a table of values")
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"{key}: expected text, found {type(value).__name__}")
    if len(value) > longest or not value.isprintable():
        raise ValueError(f"{key}: not a valid value")
    return value


def _narrow(path: Path) -> None:
    with contextlib.suppress(OSError):
        if stat.S_IMODE(os.stat(path).st_mode) & 0o077:
            os.chmod(path, FILE_MODE)


__all__ = ["FILE_MODE", "FeedKeeper", "OnlineAccount"]
