"""The server's configuration file: ``blockyard serve --config FILE``, or the file
the ``BLOCKYARD_SERVER_CONFIG`` variable names.

One TOML file with a key for every flag of ``blockyard serve`` and every
environment variable of :mod:`blockyard.server.settings` (:data:`KEYS`), so a
server's whole configuration is one file an operator can keep, review and hand
to systemd. What decides a value, strongest first: the command line's flag, the
environment variable, the file, the default. An unknown key or a value of the
wrong type is refused with the file and the key named, before anything starts;
the values themselves are checked where the flag or variable is (exit status 2,
naming the variable).
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from .referee import ABANDON_ENV, CLOCK_ENV, IDLE_ENV
from .settings import (
    AWAY_ENV,
    BODY_ENV,
    CONNECTIONS_ENV,
    FORWARDED_ENV,
    HEADER_ENV,
    HELLO_ENV,
    LEAN_ENV,
    LIMITS,
    LIMITS_ENV,
    PENDING_INVITES_ENV,
    PRESENCE_ENV,
    VERIFIERS_ENV,
)

__all__ = ["CONFIG_ENV", "KEYS", "ConfigError", "Key", "apply", "read"]

CONFIG_ENV = "BLOCKYARD_SERVER_CONFIG"
"""The configuration file read when ``--config`` is not given."""

MAX_CONFIG_BYTES = 64 << 10
"""The largest configuration file read (a full one is about 1 kB)."""


class ConfigError(ValueError):
    """The configuration file cannot be used: its sentence names the file and the key."""


@dataclass(frozen=True)
class Key:
    """One key of the file: the ``flag`` of ``blockyard serve`` it gives a value to
    (its argparse name), or the environment variable ``env``."""

    name: str
    kind: type
    flag: str | None = None
    env: str | None = None


KEYS: tuple[Key, ...] = (
    Key("host", str, flag="host"),
    Key("port", int, flag="port"),
    Key("database", str, flag="database"),
    Key("workers", int, flag="workers"),
    Key("worker_healthcheck_seconds", int, flag="worker_healthcheck_seconds"),
    Key("log_level", str, flag="log_level"),
    Key("log_format", str, flag="log_format"),
    Key("access_log", bool, flag="access_log"),
    Key("metrics", bool, flag="metrics"),
    Key("forwarded_allow_ips", str, env=FORWARDED_ENV),
    Key("verifiers", int, env=VERIFIERS_ENV),
    Key("db_connections", int, env=CONNECTIONS_ENV),
    Key("limits", dict, env=LIMITS_ENV),
    Key("presence_seconds", float, env=PRESENCE_ENV),
    Key("idle_seconds", float, env=IDLE_ENV),
    Key("abandon_seconds", float, env=ABANDON_ENV),
    Key("away_seconds", float, env=AWAY_ENV),
    Key("clock_tolerance", float, env=CLOCK_ENV),
    Key("header_seconds", float, env=HEADER_ENV),
    Key("body_seconds", float, env=BODY_ENV),
    Key("hello_seconds", float, env=HELLO_ENV),
    Key("pending_invites", int, env=PENDING_INVITES_ENV),
    Key("lean", bool, env=LEAN_ENV),
)
"""Every key, in the order ``docs/online.md`` lists them."""

_BY_NAME = {key.name: key for key in KEYS}
_TYPE_WORDS = {str: "a string", int: "a whole number", float: "a number",
               bool: "true or false", dict: "a table"}


def read(path: Path) -> dict[str, object]:
    """The keys and values of the configuration file ``path``, each checked for its
    type; :class:`ConfigError` naming the file and the key otherwise."""
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file: "
                          f"{exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes: not a "
                          "configuration file")
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not a TOML file: {exc}") from None
    for name, value in document.items():
        key = _BY_NAME.get(name)
        if key is None:
            raise ConfigError(f"{path}: unknown key {name[:40]!r}; the keys are "
                              f"{', '.join(_BY_NAME)}")
        if not _of_kind(value, key.kind):
            raise ConfigError(f"{path}: {name}: expected {_TYPE_WORDS[key.kind]}, found "
                              f"{str(value)[:40]!r}")
        if key.kind is dict:
            for limit, count in value.items():
                if limit not in LIMITS or not _of_kind(count, int):
                    raise ConfigError(f"{path}: limits.{limit[:40]}: expected a whole number "
                                      f"for one of {', '.join(LIMITS)}")
    return document


def _of_kind(value: object, kind: type) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _text(value: object) -> str:
    """A value of the file as its environment variable writes it."""
    if isinstance(value, Mapping):
        return ",".join(f"{name}={count}" for name, count in value.items())
    return str(value)


def apply(config: Mapping[str, object], args: argparse.Namespace,
          environ: MutableMapping[str, str] | None = None) -> None:
    """Give the values of ``config`` (:func:`read`'s) to the flags of ``args`` that
    the command line left unset (``None``), and to the environment variables of
    ``environ`` (this process's unless given) that are unset or empty: flags and
    variables win over the file."""
    env = os.environ if environ is None else environ
    for name, value in config.items():
        key = _BY_NAME[name]
        if key.flag is not None:
            if getattr(args, key.flag, None) is None:
                setattr(args, key.flag, value)
        elif key.env is not None and not env.get(key.env, "").strip():
            env[key.env] = _text(value)  # (a variable set empty counts as unset, as
            # the settings read it)
