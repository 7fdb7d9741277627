"""Replay files: finished games kept for watching again.

A replay is JSON: the game's log (whose first entry carries the resolved rule
file, seed and starting position), the engine version, the SHA-256 of the
resolved rule file and a digest of the final game state. Opening one checks
that the ruleset's current rule file is the one the game was played with and
that running the log again gives the same final state, and says so instead of
silently showing a different game. The last ``KEEP`` replays per ruleset are
kept in the data folder's ``replays/``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__, paths
from .discovery import load_ruleset, load_ruleset_text
from .files import write_atomically
from .game import Game, replay

FORMAT = "blockyard-replay/1"
KEEP = 20


class ReplayError(ValueError):
    """A replay cannot be shown faithfully (changed rules, another engine, bad file)."""


def state_digest(game: Game) -> str:
    """A digest of the game's full state (what a faithful replay must reach)."""
    snap = game.snapshot()
    snap.pop("log", None)
    return hashlib.sha256(json.dumps(snap, sort_keys=True).encode()).hexdigest()


@dataclass
class Replay:
    """A loaded replay file."""

    path: Path | None
    data: dict[str, Any]

    @property
    def ruleset_id(self) -> str:
        return self.data["ruleset_id"]

    @property
    def log(self) -> list[list[Any]]:
        return self.data["log"]

    @property
    def player(self) -> str:
        return self.data.get("player", "")

    @property
    def score(self) -> int:
        return self.data["score"]

    def check(self) -> None:
        """Raise :class:`ReplayError` unless the game can be shown exactly as played."""
        try:
            current = load_ruleset(self.ruleset_id)
        except ValueError as exc:
            raise ReplayError(f"the ruleset {self.ruleset_id!r} of this replay is not "
                              f"installed here: {exc}") from None
        if current.digest != self.data["ruleset_digest"]:
            raise ReplayError(f"the rule file of {self.ruleset_id!r} has changed since this "
                              "game was played; the replay would show a different game")
        rebuilt = self.rebuild()
        if state_digest(rebuilt) != self.data["final_digest"]:
            raise ReplayError(f"this replay was recorded by Blockyard "
                              f"{self.data.get('engine')}; this engine ({__version__}) plays "
                              "it differently")

    def rebuild(self) -> Game:
        """The finished game, rebuilt by running the log again."""
        return replay(self.log)

    def start(self) -> Game:
        """The game as it started (for the viewer to step through)."""
        start = self.log[0]
        return replay([start])


def replay_data(game: Game, player: str = "") -> dict[str, Any]:
    """The JSON content of a replay of ``game``."""
    rules = load_ruleset_text(game.log[0][1]["ruleset"])
    return {"format": FORMAT, "engine": __version__, "ruleset_id": game.ruleset.id,
            "ruleset_digest": rules.digest, "seed": game.seed, "date": game.date,
            "player": player, "score": game.score, "over_reason": game.over_reason,
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "final_digest": state_digest(game), "log": game.log}


def replays_dir(ruleset_id: str | None = None) -> Path:
    base = paths.data_dir() / "replays"
    return base / ruleset_id if ruleset_id else base


def save_replay(game: Game, player: str = "", folder: Path | None = None) -> Path:
    """Keep a finished game as a replay file; only the last ``KEEP`` per ruleset stay."""
    folder = folder or replays_dir(game.ruleset.id)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    path = folder / f"{stamp}-{game.seed}.json"
    write_atomically(path, json.dumps(replay_data(game, player)))
    for old in sorted(folder.glob("*.json"))[:-KEEP]:
        old.unlink(missing_ok=True)
    return path


def load_replay(path: Path | str) -> Replay:
    """Read a replay file (``ReplayError`` for anything that is not one)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayError(f"{path}: not a readable replay file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{path}: not a Blockyard replay file")
    return Replay(path, data)


def list_replays(ruleset_id: str | None = None) -> list[Path]:
    """Replay files, newest first."""
    base = replays_dir(ruleset_id)
    return sorted(base.rglob("*.json"), key=lambda p: p.name, reverse=True)
