"""The rules for account names and passwords, shared by the server (which judges
them when an account is created) and the client side (the window says them
before the player types and checks them before sending).

A name is 3 to 24 letters (A–Z, a–z), digits, ``_`` or ``-``; a password is 8
characters or more (at most 1024: hashing a longer one costs the server too much).
"""

from __future__ import annotations

import re

NAME_MIN = 3
"""The fewest characters of an account name."""
NAME_MAX = 24
"""The most characters of an account name."""
NAME_PATTERN = re.compile(rf"^[A-Za-z0-9_-]{{{NAME_MIN},{NAME_MAX}}}$")
"""A whole account name: letters, digits, ``_`` and ``-``."""
PASSWORD_MIN = 8
"""The fewest characters of a password."""
PASSWORD_MAX = 1024
"""The most characters of a password."""


def name_problem(name: object) -> str | None:
    """Why ``name`` is not an account name (in English, for logs and the server's
    answer), or ``None`` when it is one."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        return f"name: expected {NAME_MIN} to {NAME_MAX} letters, digits, '_' or '-'"
    return None


def password_problem(password: object) -> str | None:
    """Why ``password`` cannot be an account's password, or ``None`` when it can
    (the password itself is never part of the answer)."""
    if not isinstance(password, str):
        return "password: expected text"
    if len(password) < PASSWORD_MIN:
        return f"password: expected at least {PASSWORD_MIN} characters"
    if len(password) > PASSWORD_MAX:
        return f"password: expected at most {PASSWORD_MAX} characters"
    return None


__all__ = ["NAME_MAX", "NAME_MIN", "NAME_PATTERN", "PASSWORD_MAX", "PASSWORD_MIN",
           "name_problem", "password_problem"]
