"""The player's settings and the game in progress, saved atomically.

Settings (last ruleset, window size, launcher options) live in
``settings.toml`` in the config folder, written with tomli-w. The game in
progress is a snapshot in ``saves/current.json`` in the data folder, written
after every move, so that killing the process loses nothing. Both are written
with :func:`blockyard.files.write_atomically`; an unreadable file is moved
aside with a warning and play goes on. Temporary files left by a writer that
was killed are removed at the next start (:func:`remove_stray_files`).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

import blockyard
from blockyard import paths
from blockyard.files import (
    read_toml_or_set_aside,
    remove_stray_temporaries,
    set_aside,
    write_atomically,
)

DEFAULT_SIZE = (720, 960)


@dataclass
class Settings:
    """What the frontend remembers between runs."""

    last_ruleset: str = ""
    width: int = DEFAULT_SIZE[0]
    height: int = DEFAULT_SIZE[1]
    options: dict[str, str] = field(default_factory=dict)  # launcher entry -> ruleset id

    @classmethod
    def path(cls) -> Path:
        return paths.config_dir() / "settings.toml"

    @classmethod
    def load(cls) -> Settings:
        data = read_toml_or_set_aside(cls.path(), "settings")
        settings = cls()
        try:
            settings.last_ruleset = str(data.get("last_ruleset", ""))
            settings.width = max(320, int(data.get("width", settings.width)))
            settings.height = max(320, int(data.get("height", settings.height)))
            options = data.get("options", {})
            settings.options = {str(k): str(v) for k, v in options.items()}
        except (TypeError, ValueError, AttributeError):
            warnings.warn(f"settings file {cls.path()} has unexpected values; using defaults",
                          stacklevel=2)
            settings = cls()
        return settings

    def save(self) -> None:
        write_atomically(self.path(), tomli_w.dumps(asdict(self)))


def remove_stray_files() -> list[Path]:
    """At start: delete the temporary files that writers killed mid-write left in the
    config and data folders (see :func:`blockyard.files.remove_stray_temporaries`)."""
    return remove_stray_temporaries(paths.config_dir(), paths.data_dir())


def save_path() -> Path:
    return paths.data_dir() / "saves" / "current.json"


def save_game(game: blockyard.Game) -> None:
    """Save the game in progress (or forget it once it is over)."""
    if game.over:
        clear_saved_game()
        return
    write_atomically(save_path(), json.dumps(game.snapshot()))


def clear_saved_game() -> None:
    save_path().unlink(missing_ok=True)


def load_saved_game() -> blockyard.Game | None:
    """The saved game in progress, or ``None``. A broken save is moved aside."""
    path = save_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data: Any = json.loads(raw)
        game = blockyard.restore(data)
    except Exception as exc:  # any unreadable save: keep it aside, start fresh
        set_aside(path, "saved game", f"{type(exc).__name__}: {exc}")
        return None
    return None if game.over else game
