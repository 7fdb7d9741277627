"""Records and statistics, shared by the frontend and the command line.

Per ruleset: games played, lines cleared, best combo. Best scores are kept per
*record group* (``[records] group``; eu-classic and eu-hardcore share ``eu``),
per date for ``kind = "per-date"`` rulesets (eu-daily), and not at all for
``kind = "none"`` (zen).

The store is one TOML file, ``records.toml``, in the data folder (or a folder
given explicitly — tests never touch the player's). It is written atomically:
a temporary file in the same folder, flushed and fsynced, then renamed over the
old one, so a crash leaves either the old or the new file. A file that cannot be
read is moved aside (``records.toml.corrupt-<time>``) with a warning, and play
goes on with empty records.
"""

from __future__ import annotations

import os
import tempfile
import time
import tomllib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from . import paths
from .results import Summary

FILE_NAME = "records.toml"


@dataclass(frozen=True, slots=True)
class Stats:
    """Statistics of one ruleset."""

    games: int = 0
    lines: int = 0
    best_combo: int = 0


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def set_aside(path: Path, what: str, reason: str) -> None:
    """Rename an unreadable data file out of the way (keeping it) and warn."""
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(path, aside)
    warnings.warn(f"{what} file {path} could not be used ({reason}); it was moved to {aside} "
                  "and a new one is started", stacklevel=3)


def read_toml_or_set_aside(path: Path, what: str) -> dict[str, Any]:
    """Read a TOML data file; a corrupt one is renamed aside with a warning."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        set_aside(path, what, str(exc))
        return {}


class RecordStore:
    """Best scores and statistics, saved in ``folder/records.toml``."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else paths.data_dir()
        self.path = self.folder / FILE_NAME
        self.data = self._load()

    def _load(self) -> dict[str, Any]:
        data = read_toml_or_set_aside(self.path, "records")
        if not self._valid(data):
            set_aside(self.path, "records", "unexpected layout")
            data = {}
        for table in ("best", "daily", "stats"):
            data.setdefault(table, {})
        return data

    @staticmethod
    def _valid(data: dict[str, Any]) -> bool:
        try:
            for value in data.get("best", {}).values():
                if not isinstance(value, int):
                    return False
            for per_date in data.get("daily", {}).values():
                if not all(isinstance(v, int) for v in per_date.values()):
                    return False
            for stats in data.get("stats", {}).values():
                if not all(isinstance(stats.get(k, 0), int) for k in ("games", "lines",
                                                                       "best_combo")):
                    return False
        except AttributeError:
            return False
        return True

    def best(self, ruleset: Any, date: str | None = None) -> int | None:
        """The best score that counts for ``ruleset`` (on ``date`` for per-date rulesets)."""
        kind = ruleset.record_kind
        if kind == "none":
            return None
        if kind == "per-date":
            if date is None:
                return None
            return self.data["daily"].get(ruleset.record_group, {}).get(date)
        return self.data["best"].get(ruleset.record_group)

    def stats(self, ruleset_id: str) -> Stats:
        """Games played, lines cleared and best combo of a ruleset."""
        raw = self.data["stats"].get(ruleset_id, {})
        return Stats(raw.get("games", 0), raw.get("lines", 0), raw.get("best_combo", 0))

    def record(self, game: Any) -> Summary:
        """Count a finished game, update the best score, save, and return its summary
        with the record before and after."""
        ruleset = game.ruleset
        before = self.best(ruleset, game.date)
        summary = game.summary(record_before=before)
        if summary.record_after is not None and summary.record_after != before:
            if ruleset.record_kind == "per-date" and game.date is not None:
                self.data["daily"].setdefault(ruleset.record_group, {})[game.date] = \
                    summary.record_after
            elif ruleset.record_kind == "best":
                self.data["best"][ruleset.record_group] = summary.record_after
        stats = self.stats(ruleset.id)
        self.data["stats"][ruleset.id] = {
            "games": stats.games + 1, "lines": stats.lines + summary.lines_cleared,
            "best_combo": max(stats.best_combo, summary.best_combo)}
        self.save()
        return summary

    def save(self) -> None:
        write_atomically(self.path, tomli_w.dumps(self.data))
