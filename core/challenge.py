"""Challenge codes: a ruleset, a seed and optionally a score to beat, as a short
code a player can read out or paste (docs/api.md §10).

A code is Crockford base32 (digits and letters without I, L, O, U; case does
not matter; O reads as 0 and I, L as 1), grouped by dashes for reading, e.g.
``0KQ8-WM00-0007-YX93``. It packs a format version, a 20-bit hash of the
ruleset id, the 32-bit seed and the score (when given), followed by four check
characters: a Reed–Solomon code over the 32 characters, so that any code with
one to four characters changed is refused, never read as another code (the
minimum distance of the code is 5). Decoding finds the ruleset among those
installed here, and takes time linear in the length of what it is given.

Codes of the first format (version 1: 15 or 20 characters, a 15-bit hash as
check) are still read; a typo in one of those is caught with probability
1 − 2⁻¹⁵ only, which is why new codes have the longer check.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .errors import DataError

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
READ_AS = {"O": "0", "I": "1", "L": "1"}
VALUES = {ch: i for i, ch in enumerate(ALPHABET)}
VERSION = 2
OLD_VERSION = 1
SEED_BITS = 32
SCORE_BITS = 28
HASH_BITS = 20
OLD_CHECK_BITS = 15
CHECK_SYMBOLS = 4
MAX_INPUT = 200
"""Longer text is refused before it is looked at character by character."""

_HEAD_BITS = 3 + 1 + HASH_BITS + SEED_BITS


def _symbols_for(bits: int) -> int:
    return (bits + 4) // 5


LENGTHS = {_symbols_for(_HEAD_BITS) + CHECK_SYMBOLS: False,
           _symbols_for(_HEAD_BITS + SCORE_BITS) + CHECK_SYMBOLS: True}
"""Characters of a code (dashes not counted) → whether it carries a score."""
OLD_LENGTHS = {_symbols_for(_HEAD_BITS + OLD_CHECK_BITS): False,
               _symbols_for(_HEAD_BITS + SCORE_BITS + OLD_CHECK_BITS): True}


class CodeError(DataError):
    """A challenge code that cannot be read, said as a player would say it.

    ``reason`` says what is wrong: ``"not-text"``, ``"too-long"``, ``"empty"``,
    ``"character"`` (a character that is never in a code), ``"length"``,
    ``"mistyped"`` (the check characters do not match), ``"version"`` or
    ``"not-installed"``. ``position`` is the character at fault (1-based, dashes
    and spaces not counted) or ``None``; for a mistyped code it is the character
    that is most likely wrong, when the check characters allow pointing at one
    (exactly one changed character makes the code valid), and ``suggestion`` is
    what that character probably should be. ``length`` is the number of characters
    given (dashes not counted). Windows and translations build their own sentence
    from these; the message is the English one."""

    def __init__(self, message: str, reason: str, *, position: int | None = None,
                 character: str = "", suggestion: str = "", length: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.position = position
        self.character = character
        self.suggestion = suggestion
        self.length = length


def likely_typo(symbols: list[int]) -> tuple[int, int] | None:
    """``(index, value)`` of the one character whose change makes ``symbols`` (a code
    of the current format, check characters last) valid, or ``None`` when no single
    change does. The code's minimum distance is 5, so at most one change can.

    The check symbols are linear over GF(32): changing data symbol ``i`` by ``e``
    (added, i.e. XORed) changes them by ``e`` times the check symbols of a lone 1 at
    ``i``. So the one change, if any, is read from the difference between the check
    symbols given and those of the data (no trial of every character)."""
    data, given = symbols[:-CHECK_SYMBOLS], symbols[-CHECK_SYMBOLS:]
    residual = [a ^ b for a, b in zip(check_symbols(data), given, strict=True)]
    wrong = [k for k, r in enumerate(residual) if r]
    if not wrong:
        return None  # valid: any one change makes it invalid
    for index in range(len(data)):
        unit = check_symbols([1] + [0] * (len(data) - 1 - index))
        first = wrong[0]
        if not unit[first]:
            continue
        factor = _EXP[(_LOG[residual[first]] - _LOG[unit[first]]) % 31]
        if all(_mul(factor, u) == r for u, r in zip(unit, residual, strict=True)):
            return index, data[index] ^ factor
    if len(wrong) == 1:  # only one check symbol differs: that one is mistyped
        return len(data) + wrong[0], given[wrong[0]] ^ residual[wrong[0]]
    return None


def _mistyped(symbols: list[int], typed: list[str]) -> CodeError:
    found = likely_typo(symbols)
    if found is None:
        return CodeError("The code is mistyped: a character or more is wrong. Check it "
                         "character by character.", "mistyped", length=len(symbols))
    index, value = found
    return CodeError(f"The code is mistyped: character {index + 1} ({typed[index]}) is "
                     f"probably {ALPHABET[value]}.", "mistyped", position=index + 1,
                     character=typed[index], suggestion=ALPHABET[value],
                     length=len(symbols))


@dataclass(frozen=True, slots=True)
class Challenge:
    """A decoded challenge: play ``ruleset_id`` with ``seed``; ``score`` to beat or ``None``."""

    ruleset_id: str
    seed: int
    score: int | None = None


def ruleset_hash(ruleset_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(ruleset_id.encode(), digest_size=4).digest(),
                          "big") >> (32 - HASH_BITS)


# ---------------------------------------------------------------------------
# Reed–Solomon check characters over GF(32)
# ---------------------------------------------------------------------------

def _gf_tables() -> tuple[list[int], list[int]]:
    exp = [0] * 62
    log = [0] * 32
    x = 1
    for i in range(31):
        exp[i] = exp[i + 31] = x
        log[x] = i
        x <<= 1
        if x & 32:
            x ^= 0b100101  # x^5 + x^2 + 1, primitive
    return exp, log


_EXP, _LOG = _gf_tables()


def _mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


def _generator() -> list[int]:
    """Coefficients (highest first) of (x − α)(x − α²)(x − α³)(x − α⁴)."""
    poly = [1]
    for i in range(1, CHECK_SYMBOLS + 1):
        root = _EXP[i]
        out = [*poly, 0]
        for j, c in enumerate(poly):
            out[j + 1] ^= _mul(c, root)
        poly = out
    return poly


_GEN = _generator()


def check_symbols(data: list[int]) -> list[int]:
    """The Reed–Solomon check symbols of ``data`` (symbols 0–31, highest first):
    the remainder of data(x)·x⁴ divided by the generator."""
    rem = [0] * CHECK_SYMBOLS
    for symbol in data:
        factor = symbol ^ rem[0]
        rem = [*rem[1:], 0]
        if factor:
            for j in range(CHECK_SYMBOLS):
                rem[j] ^= _mul(_GEN[j + 1], factor)
    return rem


def _old_checksum(value: int, bits: int) -> int:
    data = value.to_bytes((bits + 7) // 8, "big")
    return int.from_bytes(hashlib.blake2b(data, digest_size=4,
                                          person=b"blockyard-chal").digest(),
                          "big") >> (32 - OLD_CHECK_BITS)


# ---------------------------------------------------------------------------
# encoding and decoding
# ---------------------------------------------------------------------------

def _to_symbols(value: int, count: int) -> list[int]:
    return [(value >> (5 * (count - 1 - i))) & 31 for i in range(count)]


def _from_symbols(symbols: list[int]) -> int:
    value = 0
    for symbol in symbols:
        value = value << 5 | symbol
    return value


def _group(symbols: list[int]) -> str:
    """Groups of four for reading out; a single last character joins the group
    before it (``…-2KRXB``), so no group is a lone letter."""
    text = "".join(ALPHABET[s] for s in symbols)
    groups = [text[i:i + 4] for i in range(0, len(text), 4)]
    if len(groups) > 1 and len(groups[-1]) == 1:
        last = groups.pop()
        groups[-1] += last
    return "-".join(groups)


def _payload(version: int, ruleset_id: str, seed: int, score: int | None) -> tuple[int, int]:
    value = version << 1 | (score is not None)
    value = value << HASH_BITS | ruleset_hash(ruleset_id)
    value = value << SEED_BITS | seed
    bits = _HEAD_BITS
    if score is not None:
        value = value << SCORE_BITS | score
        bits += SCORE_BITS
    return value, bits


def _check_arguments(seed: int, score: int | None) -> None:
    if type(seed) is not int or not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"seed: expected an integer from 0 to {(1 << SEED_BITS) - 1}, "
                         f"found {seed!r:.40}")
    if score is not None and (type(score) is not int or not 0 <= score < 1 << SCORE_BITS):
        raise ValueError(f"score: expected an integer from 0 to {(1 << SCORE_BITS) - 1}, "
                         f"found {score!r:.40}")


def encode(ruleset_id: str, seed: int, score: int | None = None) -> str:
    """The challenge code for ``ruleset_id``, ``seed`` and an optional score to beat."""
    _check_arguments(seed, score)
    value, bits = _payload(VERSION, ruleset_id, seed, score)
    data = _to_symbols(value, _symbols_for(bits))
    return _group(data + check_symbols(data))


def encode_old(ruleset_id: str, seed: int, score: int | None = None) -> str:
    """A code of the first format (version 1), as earlier Blockyards wrote them;
    for tests of reading old codes."""
    _check_arguments(seed, score)
    value, bits = _payload(OLD_VERSION, ruleset_id, seed, score)
    value = value << OLD_CHECK_BITS | _old_checksum(value, bits)
    return _group(_to_symbols(value, _symbols_for(bits + OLD_CHECK_BITS)))


def decode(code: str, ruleset_ids: list[str] | None = None) -> Challenge:
    """Read a challenge code. ``ruleset_ids``: the rulesets to match (default:
    every ruleset installed). Raises :class:`~blockyard.DataError` (a
    ``ValueError``) with a readable message for a malformed or mistyped code."""
    if not isinstance(code, str):
        raise CodeError("A challenge code is text, like 0KQ8-WM00-0007-YX93.", "not-text")
    expected = " or ".join(str(n) for n in sorted(LENGTHS))
    if len(code) > MAX_INPUT:
        raise CodeError(f"The challenge code is {len(code)} characters long; a code has "
                        f"{expected} (dashes do not count).", "too-long", length=len(code))
    cleaned = [ch for ch in code.upper() if ch not in " -_\t\n"]
    if not cleaned:
        raise CodeError("The challenge code is empty.", "empty")
    symbols = []
    for position, ch in enumerate(cleaned, start=1):
        value = VALUES.get(READ_AS.get(ch, ch))
        if value is None:
            raise CodeError(f"{ch!r} cannot be in a code: character {position} is "
                            "mistyped.", "character", position=position, character=ch,
                            length=len(cleaned))
        symbols.append(value)
    if len(symbols) in LENGTHS:
        with_score = LENGTHS[len(symbols)]
        data, check = symbols[:-CHECK_SYMBOLS], symbols[-CHECK_SYMBOLS:]
        if check_symbols(data) != check:
            raise _mistyped(symbols, cleaned)
        bits = _HEAD_BITS + (SCORE_BITS if with_score else 0)
        payload = _from_symbols(data)
        version = VERSION
    elif len(symbols) in OLD_LENGTHS:
        with_score = OLD_LENGTHS[len(symbols)]
        bits = _HEAD_BITS + (SCORE_BITS if with_score else 0)
        value = _from_symbols(symbols)
        old_check = value & ((1 << OLD_CHECK_BITS) - 1)
        payload = value >> OLD_CHECK_BITS
        if payload >> bits or _old_checksum(payload, bits) != old_check:
            raise CodeError("The code is mistyped: a character or more is wrong. Check "
                            "it character by character.", "mistyped", length=len(symbols))
        version = OLD_VERSION
    else:
        raise CodeError(f"The challenge code has {len(symbols)} characters; a code has "
                        f"{expected} (dashes do not count).", "length", length=len(symbols))
    if payload >> bits:
        raise CodeError("The code is mistyped: a character or more is wrong. Check it "
                        "character by character.", "mistyped", length=len(symbols))
    score = None
    if with_score:
        score = payload & ((1 << SCORE_BITS) - 1)
        payload >>= SCORE_BITS
    seed = payload & ((1 << SEED_BITS) - 1)
    payload >>= SEED_BITS
    hashed = payload & ((1 << HASH_BITS) - 1)
    payload >>= HASH_BITS
    has_score = payload & 1
    found = payload >> 1
    if found != version or bool(has_score) != with_score:
        raise CodeError(f"The code is from another version of Blockyard ({found}).",
                        "version", length=len(symbols))
    if ruleset_ids is None:
        from .discovery import list_rulesets

        ruleset_ids = [info.id for info in list_rulesets()]
    matches = [rid for rid in ruleset_ids if ruleset_hash(rid) == hashed]
    if not matches:
        raise CodeError("The challenge is for a ruleset that is not installed here "
                        "(a plugin's ruleset, perhaps).", "not-installed",
                        length=len(symbols))
    return Challenge(matches[0], seed, score)
