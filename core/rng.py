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


_blake2b = hashlib.blake2b
_from_bytes = int.from_bytes


def derive_seed(*key: int | str) -> int:
    """Return a 64-bit integer derived from ``key`` (ints and strings only): the
    BLAKE2b hash of its compact JSON form (written here part by part, the same
    bytes as ``json.dumps(key, separators=(",", ":"))``)."""
    parts = []
    for part in key:
        if type(part) is int:
            parts.append(str(part))  # what json.dumps writes for an int
        elif type(part) is str:
            parts.append(_json_of(part))
        else:
            data = json.dumps(key, separators=(",", ":")).encode()
            break
    else:
        data = ("[" + ",".join(parts) + "]").encode()
    return _from_bytes(_blake2b(data, digest_size=8).digest(), "big")


_new_random = random.Random.__new__
_seed_random = random.Random.__mro__[1].seed  # type: ignore[attr-defined]  # the C seeding


def stream(*key: int | str) -> random.Random:
    """A fresh ``random.Random`` for ``key``; the same key always gives the same draws
    (exactly ``random.Random(derive_seed(*key))``, built without the Python-level
    ``__init__``/``seed`` wrappers)."""
    generator = _new_random(random.Random)
    _seed_random(generator, derive_seed(*key))
    generator.gauss_next = None  # type: ignore[attr-defined]
    return generator


def below(generator: random.Random, n: int) -> int:
    """A uniform integer in ``[0, n)``: the same draw as ``generator.randrange(n)``
    for ``n > 0`` (CPython's ``_randbelow_with_getrandbits``), written out so that
    the draws do not depend on the Python version's ``randrange``."""
    getrandbits = generator.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def random_seed() -> int:
    """A new game seed (32 bits, short enough to read out in a challenge code)."""
    return secrets.randbits(SEED_BITS)


def daily_seed(ruleset_id: str, date: _dt.date) -> int:
    """The seed a daily ruleset uses on ``date``: everyone on that date shares it."""
    return derive_seed("daily", ruleset_id, date.isoformat()) >> (64 - SEED_BITS)
