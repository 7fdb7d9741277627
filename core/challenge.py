"""Challenge codes: a ruleset, a seed and optionally a score to beat, as a short
code a player can read out or paste (docs/api.md §10).

A code is Crockford base32 (digits and letters without I, L, O, U; case does
not matter; O reads as 0 and I, L as 1), grouped by dashes for reading, e.g.
``8QF2-M1KZ-0C7T-RJ4``. It packs a format version, a 20-bit hash of the
ruleset id, the 32-bit seed, the score (when given) and a 15-bit checksum, so
a mistyped character is caught. Decoding finds the ruleset among those
installed here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
READ_AS = {"O": "0", "I": "1", "L": "1"}
VERSION = 1
SEED_BITS = 32
SCORE_BITS = 28
HASH_BITS = 20
CHECK_BITS = 15


@dataclass(frozen=True, slots=True)
class Challenge:
    """A decoded challenge: play ``ruleset_id`` with ``seed``; ``score`` to beat or ``None``."""

    ruleset_id: str
    seed: int
    score: int | None = None


def ruleset_hash(ruleset_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(ruleset_id.encode(), digest_size=4).digest(),
                          "big") >> (32 - HASH_BITS)


def _checksum(value: int, bits: int) -> int:
    data = value.to_bytes((bits + 7) // 8, "big")
    return int.from_bytes(hashlib.blake2b(data, digest_size=4,
                                          person=b"blockyard-chal").digest(),
                          "big") >> (32 - CHECK_BITS)


def encode(ruleset_id: str, seed: int, score: int | None = None) -> str:
    """The challenge code for ``ruleset_id``, ``seed`` and an optional score to beat."""
    if not isinstance(seed, int) or not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"seed: expected an integer from 0 to {(1 << SEED_BITS) - 1}, "
                         f"found {seed!r}")
    if score is not None and (not isinstance(score, int) or not 0 <= score < 1 << SCORE_BITS):
        raise ValueError(f"score: expected an integer from 0 to {(1 << SCORE_BITS) - 1}, "
                         f"found {score!r}")
    value = VERSION
    value = value << 1 | (score is not None)
    value = value << HASH_BITS | ruleset_hash(ruleset_id)
    value = value << SEED_BITS | seed
    bits = 3 + 1 + HASH_BITS + SEED_BITS
    if score is not None:
        value = value << SCORE_BITS | score
        bits += SCORE_BITS
    value = value << CHECK_BITS | _checksum(value, bits)
    bits += CHECK_BITS
    chars = []
    for _ in range((bits + 4) // 5):
        chars.append(ALPHABET[value & 31])
        value >>= 5
    text = "".join(reversed(chars))
    return "-".join(text[i:i + 4] for i in range(0, len(text), 4))


def decode(code: str, ruleset_ids: list[str] | None = None) -> Challenge:
    """Read a challenge code. ``ruleset_ids``: the rulesets to match (default:
    every ruleset installed). Raises ``ValueError`` with a readable message for a
    malformed or mistyped code."""
    if not isinstance(code, str):
        raise ValueError("a challenge code is text, like 8QF2-M1KZ-0C7T-RJ4")
    cleaned = "".join(ch for ch in code.upper() if ch not in " -_\t\n")
    if not cleaned:
        raise ValueError("the challenge code is empty")
    value = 0
    for position, ch in enumerate(cleaned, start=1):
        ch = READ_AS.get(ch, ch)
        if ch not in ALPHABET:
            raise ValueError(f"the challenge code has a character that cannot be in a code: "
                             f"{ch!r} (position {position})")
        value = value << 5 | ALPHABET.index(ch)
    lengths = {(3 + 1 + HASH_BITS + SEED_BITS + CHECK_BITS + 4) // 5: False,
               (3 + 1 + HASH_BITS + SEED_BITS + SCORE_BITS + CHECK_BITS + 4) // 5: True}
    if len(cleaned) not in lengths:
        expected = " or ".join(str(n) for n in sorted(lengths))
        raise ValueError(f"the challenge code has {len(cleaned)} characters; a code has "
                         f"{expected} (dashes do not count)")
    with_score = lengths[len(cleaned)]
    bits = 3 + 1 + HASH_BITS + SEED_BITS + (SCORE_BITS if with_score else 0)
    check = value & ((1 << CHECK_BITS) - 1)
    payload = value >> CHECK_BITS
    if payload >> bits or _checksum(payload, bits) != check:
        raise ValueError("the challenge code is mistyped (its check characters do not match)")
    score = None
    if with_score:
        score = payload & ((1 << SCORE_BITS) - 1)
        payload >>= SCORE_BITS
    seed = payload & ((1 << SEED_BITS) - 1)
    payload >>= SEED_BITS
    hashed = payload & ((1 << HASH_BITS) - 1)
    payload >>= HASH_BITS
    has_score = payload & 1
    version = payload >> 1
    if version != VERSION or bool(has_score) != with_score:
        raise ValueError(f"the challenge code is from another version of Blockyard ({version})")
    if ruleset_ids is None:
        from .discovery import list_rulesets

        ruleset_ids = [info.id for info in list_rulesets()]
    matches = [rid for rid in ruleset_ids if ruleset_hash(rid) == hashed]
    if not matches:
        raise ValueError("the challenge is for a ruleset that is not installed here "
                         "(a plugin's ruleset, perhaps)")
    return Challenge(matches[0], seed, score)
