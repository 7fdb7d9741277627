"""Starts the Arcade frontend, imported only when a window is wanted, so that the
headless API and the other commands never load Arcade."""

from __future__ import annotations


def run_frontend(ruleset: str | None = None, seed: int | None = None,
                 challenge: str | None = None, replay: str | None = None,
                 watch: bool = False) -> int:
    """Open the game window (launcher, a game, a challenge or a replay)."""
    try:
        from blockyard.frontend.app import run
    except ImportError as exc:
        print(f"blockyard: the game window needs Arcade, which failed to load ({exc}); "
              "reinstall with its dependencies: pip install -e . (or bash scripts/play.sh)")
        return 2
    status: int = run(ruleset=ruleset, seed=seed, challenge=challenge, replay=replay,
                      watch=watch)
    return status
