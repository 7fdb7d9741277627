"""Where Blockyard keeps the player's files.

By default the platform's folders (``platformdirs``): rule files under the
config folder's ``rulesets/``, records and saved games under the data folder.
``BLOCKYARD_HOME=/some/dir`` puts everything under one folder instead (tests,
portable installs).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_ENV = "BLOCKYARD_HOME"


def config_dir() -> Path:
    """The folder for settings and the user's own rule files."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home) / "config"
    return Path(platformdirs.user_config_dir("blockyard", appauthor=False))


def data_dir() -> Path:
    """The folder for records, saved games and replays."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home) / "data"
    return Path(platformdirs.user_data_dir("blockyard", appauthor=False))


def user_rulesets_dir() -> Path:
    """The folder scanned for the user's rule files."""
    return config_dir() / "rulesets"
