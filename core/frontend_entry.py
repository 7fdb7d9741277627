"""Starts the Arcade frontend, imported only when a window is wanted, so that the
headless API and the other commands never load Arcade."""

from __future__ import annotations

import os
from collections.abc import Sequence


def run_frontend(ruleset: str | None = None, seed: int | None = None,
                 challenge: str | None = None, replay: str | None = None,
                 watch: bool = False, screenshot: str | os.PathLike[str] | None = None,
                 quit_after: float | None = None, tray: Sequence[str] | None = None) -> int:
    """Open the game window (launcher, a game, a challenge or a replay); with
    ``quit_after`` it closes itself after that many seconds, saving its last frame
    to ``screenshot`` if given. ``tray``: the pieces the game of ``ruleset``
    starts with (``"bomb:#"``, art alone; see ``blockyard play --tray``)."""
    try:
        from blockyard.frontend.app import run
    except ImportError as exc:
        print(f"blockyard: the game window needs Arcade, which failed to load ({exc}); "
              "reinstall with its dependencies: pip install -e . (or bash scripts/play.sh)")
        return 2
    status: int = run(ruleset=ruleset, seed=seed, challenge=challenge, replay=replay,
                      watch=watch, screenshot=screenshot, quit_after=quit_after,
                      tray=None if tray is None else list(tray))
    return status
