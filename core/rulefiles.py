"""Rule files: reading TOML safely, ``extends``, and the canonical form.

A rule file is TOML. Its tables:

``[ruleset]``  ``id``, ``name``, ``family``, ``description``; optional
``extends`` (a ruleset id, or a path relative to this file's folder that stays
inside it), ``mode`` (a registered game mode: ``"tray"``, the default,
``"falling"``, or a package's own, see :mod:`blockyard.modes`), ``seed``
(``"random"`` or ``"daily"``) and ``timezone`` (``"local"`` or an IANA name,
for daily seeds).

``[board]``  ``rows`` and ``cols`` (1 to 32); falling games may list ``given``
stones as board text (``.`` empty, ``1``–``9`` a digit).

``[pieces.<family>]``  ``weight``, ``shapes`` (ASCII art strings) and an
optional ``look = { mark = "burst", outline = true }`` (how the window draws
the family's cells: :class:`~blockyard.pieces.PieceLook`).

``[plugins.<name>]``  the rule plugins this ruleset uses, with their parameters
(``<name> = true`` for none, ``<name> = false`` to drop one inherited through
``extends``).

``[records]``  ``group`` (rulesets sharing a best score) and ``kind``
(``"best"``, ``"per-date"`` or ``"none"``).

``[display]``  how the frontend presents it: ``combo_label`` (a format string
with ``{n}``), ``combo_from`` and ``combo_cap`` (show the combo from ``n =
combo_from``, never above ``combo_cap``); ``entry`` and ``option`` (rulesets
with the same ``entry`` are one launcher row whose setting is ``option``; the
one with ``default = true`` is chosen first); ``score = false`` (no score is
shown), ``note`` (a line in the game's header), ``hints`` (``"always"``,
``"never"`` or ``"not-in-duels"``) and ``[display.texts]`` (player texts that
replace the window's own words, see :class:`blockyard.ruleset.Display`).

``[help]``  plain player texts: ``text`` (the how-to-play page) and notes by
name (``duel``: shown on the duel screen).

``extends`` merges this file over its base table by table: a mode states only
what differs. Two things are not inherited: the ``id`` (a file that extends
another must give its own) and ``[records] group`` (a variant keeps its own best
score unless it names a group, as eu-hardcore shares "eu"). Loading never
imports code: plugins are named, never located.

Rule files may come from strangers, so reading is bounded: a file over 1 MiB,
a special file (device, pipe) or a link leading out of the folder is refused
unread, and every failure is a :class:`~blockyard.RulesetError` naming the file.

The model built from the resolved table lives in :mod:`blockyard.ruleset`;
finding rule files and caching loaded rulesets in :mod:`blockyard.discovery`,
which hands :func:`resolve` a :class:`Resolver` for ``extends`` by id (this
module imports neither).
"""

from __future__ import annotations

import copy
import os
import stat
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import RulesetError, did_you_mean
from .params import describe
from .pieces import art_of, parse_art

TOP_LEVEL = ("ruleset", "board", "tray", "pieces", "plugins", "records", "display", "help")
RULESET_KEYS = ("id", "name", "family", "description", "extends", "mode", "seed", "timezone")
MAX_FILE_BYTES = 1 << 20
MAX_EXTENDS_DEPTH = 8
MAX_NESTING = 16


def canonical(data: dict[str, Any], where: str) -> dict[str, Any]:
    """Check the table layout and normalise it: drop disabled entries, write
    piece art in multi-line form, turn ``plugin = true`` into an empty table."""
    for key, value in data.items():
        if key not in TOP_LEVEL:
            raise RulesetError(f"unknown table{did_you_mean(key, TOP_LEVEL)} (expected one of "
                               f"{', '.join(TOP_LEVEL)})", path=where, key=key)
        if not isinstance(value, dict):
            raise RulesetError(f"expected a table, found {describe(value)}", path=where, key=key)
    for required in ("ruleset", "board"):
        if required not in data:
            raise RulesetError("missing table", path=where, key=required)
    out = copy.deepcopy(data)
    out["ruleset"].pop("extends", None)
    plugins = {}
    for name, spec in out.get("plugins", {}).items():
        if spec is False:
            continue
        plugins[name] = {} if spec is True else spec
    if "plugins" in out:
        out["plugins"] = plugins
    pieces = {}
    for name, spec in out.get("pieces", {}).items():
        if spec is False:
            continue
        if isinstance(spec, dict) and isinstance(spec.get("shapes"), list):
            shapes = []
            for i, art in enumerate(spec["shapes"]):
                try:
                    shapes.append(art_of(parse_art(art)) if isinstance(art, str) else art)
                except ValueError as exc:
                    raise RulesetError(str(exc), path=where,
                                       key=f"pieces.{name}.shapes[{i}]") from None
            spec = {**spec, "shapes": shapes}
        pieces[name] = spec
    if "pieces" in out:
        out["pieces"] = pieces
    return out


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge ``over`` onto ``base``: tables merge, everything else replaces."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_bytes_safely(path: Path, what: str = "file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``OSError`` or
    ``ValueError`` otherwise (devices, pipes, folders and large files are
    refused without reading them)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"not a regular {what} (a folder, device or pipe)")
        if info.st_size > limit:
            raise ValueError(f"the {what} is larger than {limit // 1024} KiB "
                             f"({info.st_size} bytes)")
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise ValueError(f"the {what} is larger than {limit // 1024} KiB")
        return data
    finally:
        os.close(fd)


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a rule file; any problem becomes a ``RulesetError`` naming the file
    (and the line, for a syntax error)."""
    try:
        raw = read_bytes_safely(path, "rule file")
    except OSError as exc:
        raise RulesetError(f"cannot read the file: {exc.strerror or exc}",
                           path=str(path)) from None
    except ValueError as exc:
        raise RulesetError(f"refused: {exc}", path=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesetError(f"not UTF-8 text (byte {exc.start})", path=str(path)) from None
    return parse_toml(text, str(path))


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """Parse rule-file text; any problem becomes a ``RulesetError``."""
    if not isinstance(text, str):
        raise RulesetError(f"expected rule-file text, found {describe(text)}", path=where)
    if len(text) > MAX_FILE_BYTES:
        raise RulesetError(f"refused: the rule text is larger than {MAX_FILE_BYTES // 1024} KiB",
                           path=where)
    if _nesting(text) > MAX_NESTING:
        raise RulesetError(f"refused: arrays or tables nested deeper than {MAX_NESTING}",
                           path=where)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"TOML syntax error: {exc}", path=where) from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise RulesetError(f"refused: {type(exc).__name__}", path=where) from None
    return data


def _nesting(text: str) -> int:
    """An upper bound of the bracket nesting of TOML text (strings included)."""
    depth = best = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > best:
                best = depth
        elif ch in "]}" and depth:
            depth -= 1
        elif ch == "\n" and depth and best <= MAX_NESTING:
            continue
    return best


def extends_path(parent: str, path: Path | None, where: str) -> Path:
    """The file an ``extends = "x.toml"`` names, confined to the rule file's folder."""
    if path is None:
        raise RulesetError("a rule text without a file (snapshot, replay) may extend only a "
                           "ruleset id, not a path", path=where, key="ruleset.extends")
    if len(parent) > 255 or "\x00" in parent:
        raise RulesetError("expected a file name in this rule file's folder",
                           path=where, key="ruleset.extends")
    relative = Path(parent)
    folder = path.parent.resolve()
    if relative.is_absolute():
        raise RulesetError("an absolute path is not allowed; name a file in this rule file's "
                           "folder or a ruleset id", path=where, key="ruleset.extends")
    target = (folder / relative).resolve()
    if not target.is_relative_to(folder):
        raise RulesetError("the path leaves this rule file's folder; name a file in it or a "
                           "ruleset id", path=where, key="ruleset.extends")
    return target


@dataclass(frozen=True, slots=True)
class Resolver:
    """How ``extends = "<ruleset id>"`` finds the file of an id: ``find(id)`` gives
    its path (or ``None`` when no ruleset has that id) and ``known_ids()`` the ids
    there are, for the "did you mean" of an unknown one. :mod:`blockyard.discovery`
    hands its own to :func:`resolve`, so reading rule files needs no discovery."""

    find: Callable[[str], Path | None]
    known_ids: Callable[[], list[str]]


def resolve(data: dict[str, Any], path: Path | None, chain: tuple[str, ...] = (),
            resolver: Resolver | None = None,
            read: list[Path] | None = None) -> dict[str, Any]:
    """``data`` merged over everything it ``extends`` (recursively).

    A path in ``extends`` is confined (:func:`extends_path`) before anything is
    opened: no file outside the rule file's folder is ever read, not even to
    refuse it. Each file read on the way is appended to ``read`` when given (the
    files the result depends on, in ``extends`` order)."""
    where = str(path) if path else "<rule file>"
    meta = data.get("ruleset")
    if not isinstance(meta, dict):
        raise RulesetError("missing table", path=where, key="ruleset")
    for key in meta:
        if key not in RULESET_KEYS:
            raise RulesetError(f"unknown key{did_you_mean(str(key), RULESET_KEYS)}; valid keys: "
                               f"{', '.join(RULESET_KEYS)}", path=where, key=f"ruleset.{key}")
    parent = meta.get("extends")
    if parent is None:
        return data
    if not isinstance(parent, str):
        raise RulesetError(f"expected a ruleset id or a path, found {describe(parent)}",
                           path=where, key="ruleset.extends")
    if len(chain) >= MAX_EXTENDS_DEPTH:
        raise RulesetError(f"'extends' goes deeper than {MAX_EXTENDS_DEPTH} files",
                           path=where, key="ruleset.extends")
    if parent.endswith(".toml") or "/" in parent or "\\" in parent:
        base_path = extends_path(parent, path, where)
    else:
        found = resolver.find(parent) if resolver is not None else None
        if found is None:
            ids = resolver.known_ids() if resolver is not None else []
            raise RulesetError(f"unknown ruleset {parent[:64]!r} to extend"
                               f"{did_you_mean(parent, ids)}", path=where,
                               key="ruleset.extends")
        base_path = found
    marker = str(base_path)
    if marker in chain or (path is not None and str(path) == marker):
        raise RulesetError(f"'extends' loops back to {base_path.name}", path=where,
                           key="ruleset.extends")
    if not base_path.exists():
        raise RulesetError(f"the file {parent[:64]!r} it extends does not exist "
                           f"(looked for {base_path})", path=where, key="ruleset.extends")
    base_data = read_toml(base_path)
    if read is not None:
        read.append(base_path)
    base = resolve(base_data, base_path, (*chain, marker), resolver, read)
    if "id" not in meta:
        raise RulesetError("missing; a rule file that extends another needs an id of its own",
                           path=where, key="ruleset.id")
    merged = merge(base, data)
    merged["ruleset"].pop("extends", None)
    own_records = data.get("records")
    if isinstance(merged.get("records"), dict) and not (
            isinstance(own_records, dict) and "group" in own_records):
        merged["records"].pop("group", None)  # a variant keeps its own best unless it says so
    return merged
