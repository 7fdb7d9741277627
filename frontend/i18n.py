"""Player-facing words of the frontend pass through :func:`_` (translations hook)."""

from __future__ import annotations


def _(text: str) -> str:
    """The player's-language form of ``text`` (for now: ``text`` itself)."""
    return text
