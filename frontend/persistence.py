"""The player's settings and the games in progress, saved atomically.

Settings (last ruleset, window size, launcher options) live in
``settings.toml`` in the config folder, written with tomli-w. Games in
progress are kept one per *save key* in ``saves/<key>.json`` in the data
folder: one per ruleset, and one of their own for a challenge's game and for
each duel turn (:func:`save_key`). A game is written after every action and
stays saved until it is recorded, so closing the window at any moment (at the
"continue?" prompt too) and starting again resumes exactly there.

Every file is written with :func:`blockyard.files.write_atomically`. A file
that cannot be read (random bytes, a folder in its place, values out of range
such as ``width = inf``) is moved aside under a unique name and a message for
the player is returned; nothing is overwritten silently and nothing crashes.
Temporary files left by a writer that was killed are removed at the next start
(:func:`remove_stray_files`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

import blockyard
from blockyard import paths
from blockyard.files import remove_stray_temporaries, set_aside, write_atomically

DEFAULT_SIZE = (720, 960)
THEMES = ("dark", "light", "high-contrast")
PALETTES = ("standard", "colour-blind")
WINDOW_MODES = ("windowed", "fullscreen")
MIN_SIZE = 360
MAX_SIZE = 8192
SAVE_FORMAT = 1


@contextlib.contextmanager
def notices_from_warnings(notices: list[str]) -> Iterator[None]:
    """Collect the warnings raised inside (files set aside by the core) as messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for warning in caught:
        notices.append(player_notice(str(warning.message)))


def player_notice(message: str) -> str:
    """A core warning about a file, shortened for the window (the path's last part)."""
    return re.sub(r"(/[^\s/]+)+/([^\s/]+)", r"\2", message)


def move_aside(path: Path, what: str, reason: str) -> str:
    """Move an unusable file or folder at ``path`` out of the way under a unique
    ``<name>.corrupt-<time>`` name; returns the message for the player."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        stamp = time.strftime("%Y%m%d-%H%M%S")
        n = 1
        while True:
            aside = path.with_name(f"{path.name}.corrupt-{stamp}" + ("" if n == 1 else f"-{n}"))
            if not aside.exists():
                break
            n += 1
        os.replace(path, aside)
        warnings.warn(f"{what} file {path} could not be used ({reason}); it was moved to "
                      f"{aside} and a new one is started", stacklevel=2)
    else:
        aside = set_aside(path, what, reason)
    return (f"The {what} file could not be used ({reason}). It was kept as {aside.name} "
            "and a new one is started.")


# -- settings ------------------------------------------------------------------------------

@dataclass
class Settings:
    """What the frontend remembers between runs: the player's settings (sound,
    volume 0–1, reduced motion, theme, piece palette and patterns, window mode),
    the rulesets whose how-to-play page was shown, the launcher's state, and the
    rules last chosen for Play now (not the launcher's row: a duel is chosen
    on its own)."""

    last_ruleset: str = ""
    width: int = DEFAULT_SIZE[0]
    height: int = DEFAULT_SIZE[1]
    options: dict[str, str] = field(default_factory=dict)  # launcher entry -> ruleset id
    sound: bool = True
    volume: float = 0.7
    reduced_motion: bool = False
    theme: str = "dark"
    palette: str = "standard"
    patterns: bool = False
    window_mode: str = "windowed"
    help_seen: list[str] = field(default_factory=list)
    language: str = ""          # a code of i18n.LANGUAGES; "" follows the system's language
    native_digits: bool = True  # numbers in the language's own digits (Nepali: ०–९)
    play_ruleset: str = ""      # Play now's rules as last chosen in the lobby (←/→)

    @classmethod
    def path(cls) -> Path:
        return paths.config_dir() / "settings.toml"

    @classmethod
    def load(cls, notices: list[str] | None = None) -> Settings:
        """The saved settings. An unreadable file, or one with values out of range,
        is moved aside (a message is added to ``notices``); the good values are kept."""
        notices = notices if notices is not None else []
        path = cls.path()
        settings = cls()
        try:
            import tomllib

            data: Any = tomllib.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return settings
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            reason = "it is a folder" if path.is_dir() else f"{type(exc).__name__}: {exc}"
            notices.append(move_aside(path, "settings", reason))
            return settings
        problems: list[str] = []
        settings.last_ruleset = _read(data, "last_ruleset", str, "", problems)
        settings.width = _read(data, "width", _size, settings.width, problems)
        settings.height = _read(data, "height", _size, settings.height, problems)
        settings.options = _read(data, "options", _options, {}, problems)
        settings.sound = _read(data, "sound", _flag, settings.sound, problems)
        settings.volume = _read(data, "volume", _volume, settings.volume, problems)
        settings.reduced_motion = _read(data, "reduced_motion", _flag, False, problems)
        settings.theme = _read(data, "theme", _choice(THEMES), settings.theme, problems)
        settings.palette = _read(data, "palette", _choice(PALETTES), settings.palette, problems)
        settings.patterns = _read(data, "patterns", _flag, False, problems)
        settings.window_mode = _read(data, "window_mode", _choice(WINDOW_MODES),
                                     settings.window_mode, problems)
        settings.help_seen = _read(data, "help_seen", _names, [], problems)
        settings.language = _read(data, "language", _language, "", problems)
        settings.native_digits = _read(data, "native_digits", _boolean, True, problems)
        settings.play_ruleset = _read(data, "play_ruleset", str, "", problems)
        if problems:
            notices.append(move_aside(path, "settings", "; ".join(problems)))
            with contextlib.suppress(OSError):
                settings.save()
        return settings

    def save(self) -> None:
        write_atomically(self.path(), tomli_w.dumps({
            "last_ruleset": self.last_ruleset, "width": self.width, "height": self.height,
            "options": dict(self.options), "language": self.language,
            "native_digits": self.native_digits, "sound": self.sound, "volume": self.volume,
            "reduced_motion": self.reduced_motion, "theme": self.theme,
            "palette": self.palette, "patterns": self.patterns,
            "window_mode": self.window_mode, "help_seen": list(self.help_seen),
            "play_ruleset": self.play_ruleset}))


def _read(data: dict[str, Any], key: str, convert: Callable[[Any], Any], default: Any,
          problems: list[str]) -> Any:
    if key not in data:
        return default
    try:
        return convert(data[key])
    except (TypeError, ValueError, AttributeError) as exc:
        problems.append(f"{key}: {exc}")
        return default


def _size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{value!r} is not a window size")
    if not MIN_SIZE <= value <= MAX_SIZE:
        raise ValueError(f"{value!r} is outside {MIN_SIZE}–{MAX_SIZE} pixels")
    return int(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, found {value!r}")
    return value


def _volume(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 0 <= value <= 1:  # also refuses nan
        raise ValueError(f"expected a volume from 0 to 1, found {value!r}")
    return float(value)


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def read(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, found {value!r}")
        return str(value)
    return read


def _names(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("expected a list of ruleset ids")
    return list(dict.fromkeys(value))[:1000]


def _options(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValueError("not a table")
    return {str(k): str(v) for k, v in value.items()}


def _language(value: Any) -> str:
    from .i18n import LANGUAGES

    if value != "" and value not in LANGUAGES:
        raise ValueError(f"{value!r} is not one of the languages {', '.join(LANGUAGES)}")
    return str(value)


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{value!r} is not true or false")
    return value


def remove_stray_files() -> list[Path]:
    """At start: delete the temporary files that writers killed mid-write left in the
    config and data folders (see :func:`blockyard.files.remove_stray_temporaries`)."""
    return remove_stray_temporaries(paths.config_dir(), paths.data_dir())


# -- games in progress ---------------------------------------------------------------------

def saves_dir() -> Path:
    return paths.data_dir() / "saves"


def save_key(ruleset_id: str, *, challenge: bool = False, duel_turn: int | None = None,
             seed: int | None = None) -> str:
    """The name a game in progress is saved under: the ruleset id for an ordinary
    game; a challenge's game and each duel turn have their own (with the seed)."""
    key = ruleset_id
    if challenge:
        key += f".challenge-{seed}"
    if duel_turn is not None:
        key += f".duel-{seed}-{duel_turn + 1}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)


MAX_PLAYED = 10 * 365 * 24 * 3600  # seconds: a save claiming more is damaged


@dataclass
class SavedGame:
    """A game in progress with what the session needs to go on with it."""

    key: str
    game: blockyard.Game
    challenge: int | None = None       # the score to beat of a challenge's game
    duel: dict[str, Any] | None = None  # the duel it belongs to (see duel.Duel.data)
    saved_at: float = 0.0
    hints: int = 0                     # hints asked for so far
    played: float = 0.0                # seconds on screen and running (games without a clock)

    @property
    def path(self) -> Path:
        return saves_dir() / f"{self.key}.json"


class SaveError(OSError):
    """A game in progress could not be saved; ``errno``, ``strerror`` and
    ``filename`` are the cause's. The earlier save, if any, is left as it was."""


class DiskFullError(SaveError):
    """The disk (or the player's quota) is full: ``ENOSPC``, ``EDQUOT``, ``EFBIG``."""


class ReadOnlyError(SaveError):
    """The data folder cannot be written: ``EROFS``, ``EACCES``, ``EPERM``."""


_DISK_FULL = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}


def save_error(exc: OSError) -> SaveError:
    """The :class:`SaveError` subclass for an ``OSError`` met while saving."""
    kind = (DiskFullError if exc.errno in _DISK_FULL
            else ReadOnlyError if exc.errno in _READ_ONLY else SaveError)
    return kind(exc.errno, exc.strerror or str(exc), exc.filename)


def save_game(saved: SavedGame | blockyard.Game) -> None:
    """Write the game in progress (kept until :func:`forget_game` after recording);
    a bare game is saved as its ruleset's ordinary game.

    Any failure to write is one of three ``OSError`` subclasses, and nothing else:
    :class:`DiskFullError`, :class:`ReadOnlyError` or (any other cause)
    :class:`SaveError`. The game itself is unchanged: saving it again later (after
    the next move) retries."""
    if not isinstance(saved, SavedGame):
        saved = SavedGame(save_key(saved.ruleset.id), saved)
    text = json.dumps({
        "format": SAVE_FORMAT, "snapshot": saved.game.snapshot(),
        "challenge": saved.challenge, "duel": saved.duel, "hints": saved.hints,
        "played": saved.played})
    try:
        write_atomically(saved.path, text)
    except OSError as exc:
        raise save_error(exc) from exc


def forget_game(key: str) -> None:
    (saves_dir() / f"{key}.json").unlink(missing_ok=True)


def legacy_save_path() -> Path:
    return saves_dir() / "current.json"


@dataclass
class SaveFault:
    """A saved game that a rule plugin keeps from being restored: its log no longer
    gives the game saved (a plugin keeping state across games, or answering from
    something besides the game). The file is left as it is, never moved aside."""

    path: Path
    error: blockyard.PluginError
    resumable: bool = False
    """Whether its game as its log gives it (on the rules loaded anew) is offered
    instead; ``False`` when that log does not play through either."""


def _by_its_log(snapshot: Any) -> blockyard.Game | None:
    """The game a snapshot's log gives on its rules loaded anew (the log is the
    truth: the player's moves are kept), or ``None`` when it does not play through."""
    from blockyard.discovery import load_ruleset_text
    from blockyard.game import replay_afresh

    try:
        return replay_afresh(snapshot["log"], load_ruleset_text(snapshot["ruleset"]))
    except Exception:  # any failure: the fault is said, the file left as it is
        return None


def _read_save(path: Path, faults: list[SaveFault]) -> SavedGame | None:
    """The game in progress saved at ``path``; ``None`` when a rule plugin keeps
    it from being restored and its log does not play through (in ``faults``)."""
    data: Any = json.loads(path.read_text(encoding="utf-8"))
    legacy = path == legacy_save_path()  # the single save of earlier versions: a snapshot
    if not legacy and (not isinstance(data, dict) or data.get("format") != SAVE_FORMAT):
        raise ValueError("not a Blockyard save")
    fields: dict[str, Any] = {} if legacy else data
    challenge = fields.get("challenge")
    if challenge is not None and (isinstance(challenge, bool) or not isinstance(challenge, int)):
        raise ValueError(f"challenge: expected a score, found {challenge!r}")
    duel = fields.get("duel")
    if duel is not None and not isinstance(duel, dict):
        raise ValueError("duel: expected a table")
    hints = fields.get("hints", 0)
    if isinstance(hints, bool) or not isinstance(hints, int) or not 0 <= hints < 1_000_000:
        raise ValueError(f"hints: expected a count, found {hints!r}")
    played = fields.get("played", 0.0)
    if isinstance(played, bool) or not isinstance(played, int | float) \
            or not 0 <= played <= MAX_PLAYED:
        raise ValueError(f"played: expected seconds (0 to {MAX_PLAYED}), found {played!r}")
    snapshot = data if legacy else data["snapshot"]
    try:
        game = blockyard.restore(snapshot)
    except blockyard.PluginError as exc:  # the plugin's fault, not the file's
        found = None if legacy else _by_its_log(snapshot)
        faults.append(SaveFault(path, exc, found is not None))
        if found is None:
            return None
        game = found
    if legacy:
        return SavedGame(save_key(game.ruleset.id), game)
    return SavedGame(path.stem, game, challenge, duel, path.stat().st_mtime, hints,
                     float(played))


def load_saved_games(notices: list[str] | None = None,
                     faults: list[SaveFault] | None = None) -> list[SavedGame]:
    """Every game in progress, most recently saved first. A save that cannot be
    read is moved aside with a message in ``notices``; one that a rule plugin keeps
    from being restored (:class:`SaveFault`, in ``faults``) is left where it is,
    and its game as its log gives it is among those returned when it plays through."""
    notices = notices if notices is not None else []
    faults = faults if faults is not None else []
    folder = saves_dir()
    if folder.exists() and not folder.is_dir():
        notices.append(move_aside(folder, "saves folder", "it is not a folder"))
        return []
    try:
        candidates = sorted(folder.glob("*.json"))
    except OSError:
        return []
    found: dict[str, SavedGame] = {}
    for path in candidates:
        try:
            saved = _read_save(path, faults)
        except Exception as exc:  # any unreadable save: keep it aside, go on
            reason = "it is a folder" if path.is_dir() else _reason(exc)
            notices.append(move_aside(path, "saved game", reason))
            continue
        if saved is None:  # a plugin's fault: the file is left as it is
            continue
        if path == legacy_save_path():
            if saved.key in found or (folder / f"{saved.key}.json").exists():
                continue
            save_game(saved)
            path.unlink(missing_ok=True)
        found[saved.key] = saved
    return sorted(found.values(), key=lambda s: -s.saved_at)


def load_saved_game() -> blockyard.Game | None:
    """The most recently saved game in progress, or ``None``."""
    saved = load_saved_games()
    return saved[0].game if saved else None


def save_path() -> Path:
    """Where earlier versions kept their single saved game (read once, then moved)."""
    return legacy_save_path()


def _reason(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > 120:
        text = text[:117] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
