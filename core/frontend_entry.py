"""Starts the Arcade frontend, imported only when a window is wanted."""

from __future__ import annotations


def run_frontend(ruleset: str | None = None, seed: int | None = None,
                 challenge: str | None = None, replay: str | None = None) -> int:
    """Open the game window (launcher, a game, a challenge or a replay)."""
    try:
        from blockyard.frontend.app import run
    except ImportError as exc:  # the frontend is not built yet
        print(f"The game window is coming soon ({exc}). Meanwhile: 'blockyard list'.")
        return 1
    return run(ruleset=ruleset, seed=seed, challenge=challenge, replay=replay)
