"""Finding rule files, and loading rulesets through bounded, reload-safe caches.

Rule files come from three places: Blockyard's own, those installed plugins
contribute through the ``blockyard`` entry points, and the player's own
(config folder ``rulesets/``). :func:`list_rulesets` scans them all and never
fails: a file that cannot be loaded, for whatever reason, is listed with a
one-line ``error``.

Loaded rulesets are cached: by file, checked against the size and modification
time of the file and of every file it extends (a few ``stat`` calls, no folder
scan), and by rule text for snapshots and logs. Both caches are bounded.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import paths
from .display import drop_stale_translations
from .errors import PluginError, RulesetError, did_you_mean
from .registry import as_path, disabled_may_provide, on_change, registry, report
from .rulefiles import Resolver, canonical, parse_toml, read_toml, resolve
from .ruleset import Ruleset
from .watchdog import check_seconds

CACHE_SIZE = 64


@dataclass(frozen=True, slots=True)
class RulesetInfo:
    """A ruleset found by :func:`list_rulesets`.

    ``error`` is ``None``, or a one-line reason when the file cannot be loaded
    (its ``id`` is then the file's stem when the file names none)."""

    id: str
    name: str
    family: str
    description: str
    path: str
    source: str
    error: str | None = None


# ---------------------------------------------------------------------------
# scanning folders
# ---------------------------------------------------------------------------

def _folders() -> list[tuple[Path, str]]:
    folders = [(as_path(loc), "bundled" if src == "blockyard" else f"plugin {src}")
               for loc, src in registry().ruleset_paths]
    folders.append((paths.user_rulesets_dir(), "user"))
    return folders


def _files(folder: Path) -> list[Path]:
    try:
        if folder.is_file():
            return [folder]
        if folder.is_dir():
            return sorted(folder.glob("*.toml"))
    except OSError:
        pass
    return []


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."


def _read_meta(file: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        meta = read_toml(file).get("ruleset", {})
    except RulesetError as exc:
        return None, _one_line(exc)
    except Exception as exc:  # never let one file stop the scan
        return None, f"{file}: {type(exc).__name__}: {_one_line(exc)}"
    if not isinstance(meta, dict):
        return None, f"{file}: ruleset: expected a table"
    return meta, None


def _text(meta: dict[str, Any], key: str) -> str:
    value = meta.get(key)
    return value[:200] if isinstance(value, str) else ""


def _scan_all() -> dict[str, RulesetInfo]:
    found: dict[str, RulesetInfo] = {}
    metas: dict[str, dict[str, Any]] = {}
    for folder, source in _folders():
        for file in _files(folder):
            meta, error = _read_meta(file)
            rid = meta.get("id") if meta is not None else None
            if not isinstance(rid, str) or not rid:
                rid = file.stem
                if error is None:
                    error = f"{file}: ruleset.id: missing or not a string"
            if rid in found:  # said once per run (not a warning on every scan)
                report(f"rule file {file} ({source}) uses id {rid!r}, already taken by "
                       f"{found[rid].path} ({found[rid].source}); it is ignored: give it "
                       "another [ruleset] id")
                continue
            meta = meta or {}
            metas[rid] = meta
            found[rid] = RulesetInfo(rid, _text(meta, "name"), _text(meta, "family"),
                                     _text(meta, "description"), str(file), source, error)
    # inherit name, family and description through extends-by-id
    for rid, info in list(found.items()):
        fields = {}
        for key in ("name", "family", "description"):
            if getattr(info, key):
                continue
            seen = {rid}
            parent = metas[rid].get("extends")
            while isinstance(parent, str) and parent in metas and parent not in seen:
                seen.add(parent)
                value = _text(metas[parent], key)
                if value:
                    fields[key] = value
                    break
                parent = metas[parent].get("extends")
        if "name" not in fields and not info.name:
            fields["name"] = rid
        if fields:
            found[rid] = replace(info, **fields)
    return found


_infos: dict[str, RulesetInfo] | None = None


def _all_infos(refresh: bool = False) -> dict[str, RulesetInfo]:
    global _infos
    if _infos is None or refresh:
        _infos = _scan_all()
    return _infos


def known_ids() -> list[str]:
    """The ids of every ruleset found (loadable or not)."""
    return sorted(_all_infos())


def list_rulesets() -> list[RulesetInfo]:
    """Every ruleset found: bundled, provided by installed plugins, and the
    player's own rule files (config folder ``rulesets/``), sorted by family and
    id. Each is loaded (through the cache) so that a broken file or plugin is
    listed with its reason in ``error``; this function itself never fails."""
    infos = []
    for info in _all_infos(refresh=True).values():
        if info.error is None:
            try:
                load_ruleset_file(Path(info.path))
            except (RulesetError, PluginError) as exc:
                info = replace(info, error=_one_line(exc))
            except Exception as exc:
                info = replace(info, error=f"{type(exc).__name__}: {_one_line(exc)}")
        infos.append(info)
    return sorted(infos, key=lambda i: (i.family, i.id))


def find_ruleset(ruleset_id: str) -> RulesetInfo | None:
    """The :class:`RulesetInfo` of an id, or ``None`` (folders are scanned again
    once when the id is not known yet)."""
    infos = _all_infos()
    if ruleset_id not in infos:
        infos = _all_infos(refresh=True)
    return infos.get(ruleset_id)


# ---------------------------------------------------------------------------
# loading with caches
# ---------------------------------------------------------------------------

_resolved: dict[str, str] = {}
"""Paths as given → resolved paths of rule files found in the cache (cleared
with the caches; a resolved path is checked again by its stamp on every use)."""


def _stamp(path: Path | str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


_file_cache: OrderedDict[str, tuple[tuple[tuple[str, tuple[int, int] | None], ...], Ruleset]]
_file_cache = OrderedDict()
_text_cache: OrderedDict[str, Ruleset] = OrderedDict()


def _remember(cache: OrderedDict[str, Any], key: str, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)


def _path_of(ruleset_id: str) -> Path | None:
    """The rule file of a ruleset id (for ``extends``), or ``None``."""
    found = find_ruleset(ruleset_id)
    return None if found is None else Path(found.path)


RESOLVER = Resolver(find=_path_of, known_ids=known_ids)
"""How rule files read through this module resolve ``extends`` by id."""


def clear_caches() -> None:
    """Forget every loaded ruleset and the folder scan (after installing plugins)."""
    global _infos
    _infos = None
    _file_cache.clear()
    _text_cache.clear()
    _resolved.clear()


on_change(clear_caches)  # a plugin registered at run time: load rulesets again


def load_ruleset(id_or_path: str | Path | Ruleset, *,
                 hook_timeout: float | None = None) -> Ruleset:
    """Load a ruleset by id, or from a path to a ``.toml`` file. ``hook_timeout``:
    seconds any of its hooks may run before it is stopped as a
    :class:`~blockyard.PluginError`, the game unchanged (default: the
    process-wide limit of :mod:`blockyard.watchdog`: ``BLOCKYARD_HOOK_TIMEOUT``
    in the environment, else 2 s; Blockyard's own plugins are not timed)."""
    timeout = check_seconds(hook_timeout)
    if isinstance(id_or_path, Ruleset):
        if timeout is None or id_or_path.hooks.timeout == timeout:
            return id_or_path
        return Ruleset(id_or_path.data, id_or_path.path, hook_timeout=timeout)
    if not isinstance(id_or_path, str | Path):
        raise RulesetError(f"expected a ruleset id, a path or a Ruleset, found "
                           f"{type(id_or_path).__name__}")
    text = str(id_or_path)
    if isinstance(id_or_path, Path) or text.endswith(".toml") or "/" in text or "\\" in text:
        return load_ruleset_file(Path(text), hook_timeout=timeout)
    info = find_ruleset(text)
    if info is None:
        ids = known_ids()
        raise RulesetError(f"unknown ruleset {text[:64]!r}{did_you_mean(text, ids)} "
                           f"(known: {', '.join(ids)}){disabled_may_provide(registry())}")
    return load_ruleset_file(info.path, hook_timeout=timeout)


def load_ruleset_file(path: Path | str, *, hook_timeout: float | None = None) -> Ruleset:
    """Load and validate the rule file at ``path`` (cached while neither it nor
    a file it extends changes); ``hook_timeout`` as for :func:`load_ruleset`."""
    given = str(path)
    key = _resolved.get(given)
    if key is None:
        try:
            key = str(Path(path).resolve())
        except (OSError, RuntimeError, ValueError) as exc:
            raise RulesetError(f"cannot resolve the path: {exc}", path=given) from None
    timeout = check_seconds(hook_timeout)
    cache_key = key if timeout is None else f"{key}\0timeout={timeout!r}"
    cached = _file_cache.get(cache_key)
    if cached is not None:
        known, ruleset = cached
        if all(_stamp(p) == stamp for p, stamp in known):
            _file_cache.move_to_end(cache_key)
            if len(_resolved) < 4 * CACHE_SIZE:
                _resolved[given] = key
            return ruleset
    path = Path(key)
    stamp = _stamp(path)
    if stamp is None:
        raise RulesetError("no such rule file", path=key)
    data = read_toml(path)
    chain: list[Path] = []  # the files it extends, each confined before it is opened
    resolved = drop_stale_translations(resolve(data, path, (), RESOLVER, chain), data)
    deps: list[tuple[str, tuple[int, int] | None]] = [(key, stamp)]
    deps += [(str(p), _stamp(p)) for p in chain]
    ruleset = Ruleset(canonical(resolved, key), key, hook_timeout=timeout)
    _remember(_file_cache, cache_key, (tuple(deps), ruleset))
    return ruleset


def load_ruleset_text(text: str, where: str = "<rule file>") -> Ruleset:
    """Load a ruleset from resolved TOML text (as snapshots and logs carry it);
    such text may not ``extends`` anything."""
    if not isinstance(text, str):
        raise RulesetError(f"expected rule-file text, found {type(text).__name__}", path=where)
    cached = _text_cache.get(text)
    if cached is not None:
        _text_cache.move_to_end(text)
        return cached
    data = parse_toml(text, where)
    meta = data.get("ruleset")
    if isinstance(meta, dict) and "extends" in meta:
        raise RulesetError("embedded rule text must be resolved; it may not extend anything",
                           path=where, key="ruleset.extends")
    ruleset = Ruleset(canonical(data, where), None)
    _remember(_text_cache, text, ruleset)
    return ruleset
