"""Safe handling of the player's files: atomic writes, corrupt files set aside,
stray temporary files removed.

Every player file (settings, the saved game, replays) is written by
:func:`write_atomically`: the text goes to a temporary file in the same folder,
``<name>.by-<pid>-<8 hex digits>.tmp``, which is flushed, fsynced and renamed
over the old file, so a crash leaves either the old or the new file. A process
killed in the middle (``kill -9``, a power cut) can leave its temporary file
behind; :func:`remove_stray_temporaries` deletes those of processes that are no
longer running (called when the records are opened and when the game starts).

A file that cannot be read is kept, renamed by :func:`set_aside` to
``<name>.corrupt-<YYYYmmdd-HHMMSS>`` (``-2``, ``-3``, … when that name is
taken, so two set-asides in the same second both survive), with a warning.
"""

from __future__ import annotations

import os
import re
import secrets
import time
import tomllib
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TEMP_SUFFIX = ".tmp"
_TEMP_NAME = re.compile(r"^(?P<target>.+)\.by-(?P<pid>\d+)-[0-9a-f]{8}\.tmp$")
# the names tempfile.mkstemp gave our temporary files before (no process id)
_LEGACY_TEMP_NAME = re.compile(r"^.+\.(toml|json)\.[a-z0-9_]{8}\.tmp$")


def temporary_name(path: Path) -> Path:
    """A fresh temporary file name next to ``path`` in our own pattern."""
    return path.with_name(f"{path.name}.by-{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}")


def _create_temporary(path: Path, mode: int = 0o644) -> tuple[int, Path]:
    while True:
        tmp = temporary_name(path)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                           mode), tmp
        except FileExistsError:  # pragma: no cover - 32 random bits collided
            continue


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows it)."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def write_atomically(path: Path, text: str, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so that a crash leaves the old or the new file.
    ``mode``: the new file's permissions (``0o600``: readable only by its owner, from
    the moment it exists; the umask may only take more away)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temporary(path, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_folder(path.parent)


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # possibly a write in flight in another thread of this process
    if os.name == "nt":  # os.kill(pid, 0) would end the process on Windows
        return False  # an open file cannot be deleted there, which protects writes in flight
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except OSError:
        return False
    return True


def stray_temporaries(folder: Path) -> list[Path]:
    """Our temporary files under ``folder`` whose writing process is gone."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    for candidate in folder.rglob(f"*{TEMP_SUFFIX}"):
        match = _TEMP_NAME.match(candidate.name)
        if match is not None:
            if not _process_alive(int(match["pid"])):
                found.append(candidate)
        elif _LEGACY_TEMP_NAME.match(candidate.name):
            found.append(candidate)
    return sorted(found)


def remove_stray_temporaries(*folders: Path) -> list[Path]:
    """Delete the temporary files left under ``folders`` by writers that were killed
    mid-write (files of a process still running are left alone); returns those removed."""
    removed = []
    for folder in folders:
        for path in stray_temporaries(folder):
            try:
                path.unlink()
            except FileNotFoundError:
                continue  # another process cleaned it up first
            except OSError:
                continue  # still open (Windows) or not ours to delete
            removed.append(path)
    return removed


def _reserve_aside_name(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = f"{path.name}.corrupt-{stamp}"
    n = 1
    while True:
        candidate = path.with_name(base if n == 1 else f"{base}-{n}")
        try:  # reserve the name atomically, so two processes never pick the same one
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            n += 1
            continue
        os.close(fd)
        return candidate


def set_aside(path: Path, what: str, reason: str,
              companions: Iterable[str] = ()) -> Path:
    """Rename an unusable data file out of the way (keeping it), warn, and return the
    new name: ``<name>.corrupt-<time>``, never replacing an earlier set-aside copy.

    ``companions`` are suffixes of files that belong with it (``"-wal"`` of a
    database); they are moved along as ``<new name><suffix>``."""
    path = Path(path)
    aside = _reserve_aside_name(path)
    try:
        os.replace(path, aside)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
    for suffix in companions:
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    fsync_folder(path.parent)
    warnings.warn(f"{what} file {path} could not be used ({reason}); it was moved to {aside} "
                  "and a new one is started", stacklevel=3)
    return aside


def read_toml_or_set_aside(path: Path, what: str) -> dict[str, Any]:
    """Read a TOML data file (``{}`` when missing); a corrupt one is set aside with a
    warning and ``{}`` returned."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        set_aside(path, what, str(exc))
        return {}


__all__ = ["read_toml_or_set_aside", "remove_stray_temporaries", "set_aside",
           "stray_temporaries", "temporary_name", "write_atomically"]
