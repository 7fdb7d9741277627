"""Seeded random streams (docs/rules.md T7).

Every random choice is drawn from a generator derived from a key such as
``(seed, "deal", i)``. A key maps to a 64-bit seed through BLAKE2b over its JSON
form, so streams are identical on every platform and every Python version, and
no generator state needs to be saved: counters in the game state are enough.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import secrets

SEED_BITS = 32


_JSON_STRINGS: dict[str, str] = {}


def _json_of(part: int | str) -> str:
    if type(part) is int:
        return str(part)  # what json.dumps writes for an int
    text = _JSON_STRINGS.get(part)  # type: ignore[arg-type]
    if text is None:
        text = json.dumps(part)
        if len(_JSON_STRINGS) < 1024:
            _JSON_STRINGS[part] = text  # type: ignore[index]
    return text


def derive_seed(*key: int | str) -> int:
    """Return a 64-bit integer derived from ``key`` (ints and strings only): the
    BLAKE2b hash of its compact JSON form (written here part by part, the same
    bytes as ``json.dumps(key, separators=(",", ":"))``)."""
    if all(type(part) is int or type(part) is str for part in key):
        data = ("[" + ",".join(map(_json_of, key)) + "]").encode()
    else:
        data = json.dumps(key, separators=(",", ":")).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def stream(*key: int | str) -> random.Random:
    """A fresh ``random.Random`` for ``key``; the same key always gives the same draws."""
    return random.Random(derive_seed(*key))


def random_seed() -> int:
    """A new game seed (32 bits, short enough to read out in a challenge code)."""
    return secrets.randbits(SEED_BITS)


def daily_seed(ruleset_id: str, date: _dt.date) -> int:
    """The seed a daily ruleset uses on ``date``: everyone on that date shares it."""
    return derive_seed("daily", ruleset_id, date.isoformat()) >> (64 - SEED_BITS)
