"""Rule files: finding, loading, validating and writing them.

A rule file is TOML. Its tables:

``[ruleset]``  ``id``, ``name``, ``family``, ``description``; optional
``extends`` (an id, or a path relative to this file), ``mode`` (``"tray"``, the
default, or ``"falling"``), ``seed`` (``"random"`` or ``"daily"``) and
``timezone`` (``"local"`` or an IANA name, for daily seeds).

``[board]``  ``rows`` and ``cols``.

``[pieces.<family>]``  ``weight`` and ``shapes`` (ASCII art strings).

``[plugins.<name>]``  the rule plugins this ruleset uses, with their parameters
(``<name> = true`` for none, ``<name> = false`` to drop one inherited through
``extends``).

``[records]``  ``group`` (rulesets sharing a best score) and ``kind``
(``"best"``, ``"per-date"`` or ``"none"``).

``[display]``  how the frontend presents it: ``combo_label`` (a format string
with ``{n}``), ``combo_from`` and ``combo_cap`` (show the combo from ``n =
combo_from``, never above ``combo_cap``); ``entry`` and ``option`` (rulesets
with the same ``entry`` are one launcher row whose setting is ``option``; the
one with ``default = true`` is chosen first).

``extends`` merges this file over its base table by table: a mode states only
what differs. Loading never imports code: plugins are named, never located.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import re
import tomllib
import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pluggy
import tomli_w

from . import paths
from .dispatch import Hooks
from .errors import RulesetError
from .geometry import Geometry, Region, geometry
from .hookspecs import PROJECT, SPEC_CLASSES, hookimpl
from .params import Params, describe
from .pieces import Piece, PieceFamily, art_of, parse_art
from .registry import as_path, registry

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
TOP_LEVEL = ("ruleset", "board", "pieces", "plugins", "records", "display")
MAX_BOARD = 32


@dataclass(frozen=True, slots=True)
class RulesetInfo:
    """A ruleset found by :func:`list_rulesets` (read without loading its plugins)."""

    id: str
    name: str
    family: str
    description: str
    path: str
    source: str


@dataclass(frozen=True, slots=True)
class Display:
    """Presentation hints of a rule file's ``[display]`` table (frontend only)."""

    combo_label: str = ""
    combo_from: int = 2
    combo_cap: int = 0
    entry: str = ""
    option: str = ""
    default: bool = False

    def combo_text(self, combo: int) -> str:
        """The combo display for a combo counter, or "" when none is shown."""
        if not self.combo_label or combo < self.combo_from:
            return ""
        n = min(combo, self.combo_cap) if self.combo_cap else combo
        return self.combo_label.format(n=n)


class CoreDefaults:
    """The engine's own answers, asked last: board size from ``[board]``, pieces
    from ``[pieces]``, nothing clears, nothing scores."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    @hookimpl(trylast=True)
    def blockyard_board_size(self, ruleset: Ruleset) -> tuple[int, int]:
        board = ruleset.data["board"]
        return (board["rows"], board["cols"])

    @hookimpl(tryfirst=True)
    def blockyard_piece_families(self, ruleset: Ruleset) -> list[PieceFamily]:
        return list(ruleset.file_families)

    @hookimpl(trylast=True)
    def blockyard_clear(self, game: Any, board: Any, placed: int) -> Any:
        from .results import Clearing

        return Clearing((), board)

    @hookimpl(trylast=True)
    def blockyard_score(self, game: Any, move: Any) -> Any:
        from .results import Scoring

        return Scoring(0, 0)


class Ruleset:
    """A loaded, validated ruleset. Compare with ``==`` (resolved contents)."""

    id: str
    name: str
    family: str
    description: str
    rows: int
    cols: int
    pieces: tuple[Piece, ...]
    families: tuple[PieceFamily, ...]
    path: str | None

    def __init__(self, data: dict[str, Any], path: str | None) -> None:
        self.data = data
        self.path = path
        where = path or "<rule file>"
        meta = Params(data["ruleset"], path=where, prefix="ruleset")
        self.id = meta.string("id")
        if not ID_PATTERN.match(self.id):
            raise meta.error("id", "expected lower-case letters, digits, '-' or '_', "
                             f"found {self.id!r}")
        self.name = meta.string("name")
        self.family = meta.string("family")
        self.description = meta.string("description")
        self.mode = meta.string("mode", "tray", choices=("tray", "falling"))
        self.seed_mode = meta.string("seed", "random", choices=("random", "daily"))
        self.timezone = meta.string("timezone", "local")
        meta.finish()
        if self.seed_mode == "daily" and self.timezone != "local":
            try:
                from zoneinfo import ZoneInfo

                ZoneInfo(self.timezone)
            except Exception:
                raise meta.error("timezone", f"unknown time zone {self.timezone!r}") from None

        board = Params(data["board"], path=where, prefix="board")
        rows = board.integer("rows", minimum=1, maximum=MAX_BOARD)
        cols = board.integer("cols", minimum=1, maximum=MAX_BOARD)
        board.finish()

        records = Params(data.get("records", {}), path=where, prefix="records")
        self.record_group = records.string("group", self.id)
        self.record_kind = records.string("kind", "best", choices=("best", "per-date", "none"))
        records.finish()

        display = Params(data.get("display", {}), path=where, prefix="display")
        self.display = Display(
            combo_label=display.string("combo_label", ""),
            combo_from=display.integer("combo_from", 2, minimum=0),
            combo_cap=display.integer("combo_cap", 0, minimum=0),
            entry=display.string("entry", ""), option=display.string("option", ""),
            default=display.boolean("default", False))
        display.finish()

        self.file_families = tuple(_parse_pieces(data.get("pieces", {}), where))
        self.plugin_objects = tuple(_build_plugins(data.get("plugins", {}), where))

        pm = self.plugin_manager()
        self.pm = pm
        self.hooks = Hooks(pm)
        size = pm.hook.blockyard_board_size(ruleset=self)
        self.rows, self.cols = size if size else (rows, cols)
        families = [f for answer in pm.hook.blockyard_piece_families(ruleset=self)
                    for f in answer]
        self.families = tuple(_colour_families(families))
        self.pieces = tuple(p for f in self.families for p in f.pieces)
        for piece in self.pieces:
            if piece.height > self.rows or piece.width > self.cols:
                raise RulesetError(
                    f"piece {piece.id!r} ({piece.height}×{piece.width}) does not fit on a "
                    f"{self.rows}×{self.cols} board", path=where, key=f"pieces.{piece.family}")
        self.geometry: Geometry = geometry(self.rows, self.cols)
        self.regions: tuple[Region, ...] = tuple(
            r for answer in pm.hook.blockyard_regions(ruleset=self, geometry=self.geometry)
            for r in answer)
        self.time_limit: float | None = pm.hook.blockyard_time_limit(ruleset=self)
        pm.hook.blockyard_check_ruleset(ruleset=self)
        if not pm.hook.blockyard_deal.get_hookimpls():
            raise RulesetError("no plugin deals pieces; add a dealing plugin such as "
                               "[plugins.weighted-dealing]", path=where, key="plugins")
        if self.mode == "tray" and not self.pieces:
            raise RulesetError("the ruleset has no pieces", path=where, key="pieces")
        if self.mode == "falling" and not pm.hook.blockyard_falling_rules.get_hookimpls():
            raise RulesetError("a falling game needs a plugin that sets how stones fall, "
                               "such as [plugins.falling-stones]", path=where, key="plugins")

    # -- plugin managers -------------------------------------------------------

    def plugin_manager(self) -> pluggy.PluginManager:
        """A new plugin manager holding the core defaults and this ruleset's plugins.

        Loading builds one (``ruleset.pm``), which the games of this ruleset
        share: plugins hold only configuration, every game keeps its own state
        in the game, so sharing it is the same as building one per game and
        saves the registration cost on every new game."""
        pm = pluggy.PluginManager(PROJECT)
        for specs in SPEC_CLASSES:
            pm.add_hookspecs(specs)
        pm.register(CoreDefaults(self), name="core")
        where = self.path or "<rule file>"
        # pluggy calls the last registered first: register in reverse file order
        for name, obj in reversed(self.plugin_objects):
            try:
                pm.register(obj, name=name)
            except Exception as exc:
                raise RulesetError(f"plugin {name!r} is broken: {exc}", path=where,
                                   key=f"plugins.{name}") from exc
        for hook_name, caller in vars(pm.hook).items():
            if hook_name.startswith("blockyard_") and getattr(caller, "spec", None) is None:
                impl = caller.get_hookimpls()[0]
                raise RulesetError(f"plugin {impl.plugin_name!r} implements {hook_name}, which "
                                   "is not a Blockyard hook (misspelled? see MODDING.md)",
                                   path=where, key=f"plugins.{impl.plugin_name}")
        try:
            pm.check_pending()
        except Exception as exc:
            raise RulesetError(f"a plugin implements an unknown hook: {exc}", path=where,
                               key="plugins") from exc
        _check_single_answers(pm, where)
        return pm

    # -- identity and output -----------------------------------------------------

    @property
    def is_daily(self) -> bool:
        return self.seed_mode == "daily"

    def to_toml(self) -> str:
        """The fully resolved rule file, written with tomli-w."""
        return self._toml

    @cached_property
    def _toml(self) -> str:
        return tomli_w.dumps(self.data, multiline_strings=True)

    @cached_property
    def digest(self) -> str:
        """SHA-256 of :meth:`to_toml`: identifies the exact rules a game used."""
        return hashlib.sha256(self.to_toml().encode()).hexdigest()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Ruleset):
            return NotImplemented
        return self.data == other.data

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return f"Ruleset({self.id!r})"


# ---------------------------------------------------------------------------
# parsing helpers
# ---------------------------------------------------------------------------

def _parse_pieces(table: Any, where: str) -> list[PieceFamily]:
    if not isinstance(table, dict):
        raise RulesetError(f"expected a table of piece families, found {describe(table)}",
                           path=where, key="pieces")
    families = []
    for name, spec in table.items():
        if not isinstance(spec, dict):
            raise RulesetError(f"expected a table with weight and shapes, found {describe(spec)}",
                               path=where, key=f"pieces.{name}")
        params = Params(spec, path=where, prefix=f"pieces.{name}")
        weight = params.number("weight", 1.0, minimum=0)
        shapes = params.raw("shapes")
        if not isinstance(shapes, list) or not shapes:
            raise params.error("shapes", f"expected a non-empty array of ASCII-art strings, "
                               f"found {describe(shapes)}")
        params.finish()
        pieces = []
        for i, art in enumerate(shapes):
            key = f"pieces.{name}.shapes[{i}]"
            if not isinstance(art, str):
                raise RulesetError(f"expected an ASCII-art string, found {describe(art)}",
                                   path=where, key=key)
            try:
                cells = parse_art(art)
            except ValueError as exc:
                raise RulesetError(str(exc), path=where, key=key) from None
            pid = name if len(shapes) == 1 else f"{name}-{i + 1}"
            pieces.append(Piece(cells, id=pid, family=name))
        families.append(PieceFamily(name, float(weight), tuple(pieces)))
    return families


def _colour_families(families: list[PieceFamily]) -> list[PieceFamily]:
    out = []
    for index, fam in enumerate(families, start=1):
        out.append(PieceFamily(fam.name, fam.weight, tuple(
            Piece(p.cells, id=p.id, family=fam.name, colour=index) for p in fam.pieces)))
    return out


def _build_plugins(table: Any, where: str) -> list[tuple[str, Any]]:
    if not isinstance(table, dict):
        raise RulesetError(f"expected a table of plugins, found {describe(table)}",
                           path=where, key="plugins")
    reg = registry()
    out = []
    for name, spec in table.items():
        key = f"plugins.{name}"
        if spec is False:
            continue
        if spec is True:
            spec = {}
        if not isinstance(spec, dict):
            raise RulesetError(f"expected a table of parameters, true or false, found "
                               f"{describe(spec)}", path=where, key=key)
        entry = reg.get(name)
        if entry is None:
            known = ", ".join(reg.names())
            raise RulesetError(f"unknown plugin {name!r} (installed plugins: {known})",
                               path=where, key=key)
        params = Params(spec, path=where, prefix=key)
        try:
            obj = entry.factory(params)
        except RulesetError:
            raise
        except Exception as exc:
            raise RulesetError(f"plugin {name!r} from {entry.source!r} failed to start: "
                               f"{type(exc).__name__}: {exc}", path=where, key=key) from exc
        params.finish()
        out.append((name, obj))
    return out


def _check_single_answers(pm: pluggy.PluginManager, where: str) -> None:
    for hook_name in dir(pm.hook):
        if not hook_name.startswith("blockyard_"):
            continue
        caller = getattr(pm.hook, hook_name)
        if not caller.spec or not caller.spec.opts.get("firstresult"):
            continue
        answering = [impl.plugin_name for impl in caller.get_hookimpls()
                     if impl.plugin_name != "core" and not (impl.hookwrapper or impl.wrapper)]
        if len(answering) > 1:
            names = " and ".join(f"plugins.{n}" for n in sorted(answering))
            raise RulesetError(f"{names} both answer the single-answer hook {hook_name}; "
                               "a ruleset may use only one of them", path=where, key="plugins")


def canonical(data: dict[str, Any], where: str) -> dict[str, Any]:
    """Check the table layout and normalise it: drop disabled entries, write
    piece art in multi-line form, turn ``plugin = true`` into an empty table."""
    for key, value in data.items():
        if key not in TOP_LEVEL:
            raise RulesetError(f"unknown table (expected one of {', '.join(TOP_LEVEL)})",
                               path=where, key=key)
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


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a syntax error becomes a ``RulesetError`` naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesetError(f"cannot read the file: {exc.strerror or exc}", path=str(path)) from None
    return parse_toml(text, str(path))


def parse_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"TOML syntax error: {exc}", path=where) from None


def _resolve(data: dict[str, Any], path: Path | None, chain: tuple[str, ...]) -> dict[str, Any]:
    where = str(path) if path else "<rule file>"
    meta = data.get("ruleset")
    if not isinstance(meta, dict):
        raise RulesetError("missing table", path=where, key="ruleset")
    parent = meta.get("extends")
    if parent is None:
        return data
    if not isinstance(parent, str):
        raise RulesetError(f"expected a ruleset id or a path, found {describe(parent)}",
                           path=where, key="ruleset.extends")
    if parent.endswith(".toml"):
        base_path = ((path.parent if path else Path.cwd()) / parent).resolve()
        if not base_path.exists():
            raise RulesetError(f"the file to extend does not exist: {base_path}",
                               path=where, key="ruleset.extends")
    else:
        found = find_ruleset(parent)
        if found is None:
            raise RulesetError(f"unknown ruleset {parent!r} to extend", path=where,
                               key="ruleset.extends")
        base_path = Path(found.path)
    marker = str(base_path.resolve())
    if marker in chain:
        raise RulesetError(f"'extends' loops back to {base_path}", path=where,
                           key="ruleset.extends")
    base = _resolve(read_toml(base_path), base_path, (*chain, marker))
    merged = merge(base, data)
    merged["ruleset"].pop("extends", None)
    return merged


# ---------------------------------------------------------------------------
# finding rule files
# ---------------------------------------------------------------------------

def _scan(folder: Path, source: str, out: dict[str, tuple[dict[str, Any], Path, str]]) -> None:
    if folder.is_file():
        files = [folder]
    elif folder.is_dir():
        files = sorted(folder.glob("*.toml"))
    else:
        return
    for file in files:
        try:
            meta = read_toml(file).get("ruleset", {})
            rid = meta["id"]
            if not isinstance(rid, str):
                raise TypeError("ruleset.id is not a string")
        except (RulesetError, KeyError, TypeError, AttributeError) as exc:
            warnings.warn(f"skipping rule file {file}: {exc}", stacklevel=3)
            continue
        if rid in out:
            warnings.warn(f"rule file {file} ({source}) uses id {rid!r}, already taken by "
                          f"{out[rid][1]} ({out[rid][2]}); it is ignored", stacklevel=3)
            continue
        out[rid] = (meta, file, source)


def _inherited(rid: str, key: str, found: dict[str, tuple[dict[str, Any], Path, str]]) -> str:
    """A ``[ruleset]`` field, following ``extends`` without loading plugins."""
    seen = set()
    while rid in found and rid not in seen:
        seen.add(rid)
        meta, file, _ = found[rid]
        if isinstance(meta.get(key), str):
            return meta[key]
        parent = meta.get("extends")
        if isinstance(parent, str) and parent.endswith(".toml"):
            try:
                parent_meta = read_toml((file.parent / parent).resolve()).get("ruleset", {})
            except RulesetError:
                return ""
            value = parent_meta.get(key)
            return value if isinstance(value, str) else ""
        if not isinstance(parent, str):
            return ""
        rid = parent
    return ""


_infos_cache: tuple[tuple[Any, ...], dict[str, RulesetInfo]] | None = None


def _signature(folders: list[tuple[Path, str]]) -> tuple[Any, ...]:
    sig: list[Any] = []
    for folder, _ in folders:
        files = [folder] if folder.is_file() else sorted(folder.glob("*.toml"))
        for file in files:
            with contextlib.suppress(OSError):
                sig.append((str(file), file.stat().st_mtime_ns))
    return tuple(sig)


def _all_infos() -> dict[str, RulesetInfo]:
    """Every rule file's ``[ruleset]`` facts, re-read only when a file changed."""
    global _infos_cache
    folders = [(as_path(loc), "bundled" if src == "blockyard" else f"plugin {src}")
               for loc, src in registry().ruleset_paths]
    folders.append((paths.user_rulesets_dir(), "user"))
    sig = _signature(folders)
    if _infos_cache is not None and _infos_cache[0] == sig:
        return _infos_cache[1]
    infos = _scan_all(folders)
    _infos_cache = (sig, infos)
    return infos


def _scan_all(folders: list[tuple[Path, str]]) -> dict[str, RulesetInfo]:
    found: dict[str, tuple[dict[str, Any], Path, str]] = {}
    for folder, source in folders:
        _scan(folder, source, found)
    return {
        rid: RulesetInfo(rid, _inherited(rid, "name", found) or rid,
                         _inherited(rid, "family", found), _inherited(rid, "description", found),
                         str(file), source)
        for rid, (_meta, file, source) in found.items()
    }


def list_rulesets() -> list[RulesetInfo]:
    """Every ruleset found: bundled, provided by installed plugins, and the user's
    own rule files (config folder ``rulesets/``), grouped by family."""
    infos = list(_all_infos().values())
    return sorted(infos, key=lambda i: (i.family, i.id))


def find_ruleset(ruleset_id: str) -> RulesetInfo | None:
    """The :class:`RulesetInfo` of an id, or ``None``."""
    return _all_infos().get(ruleset_id)


_cache: dict[tuple[str, float], Ruleset] = {}
_text_cache: dict[str, Ruleset] = {}


def load_ruleset(id_or_path: str | Path | Ruleset) -> Ruleset:
    """Load a ruleset by id, or from a path to a ``.toml`` file."""
    if isinstance(id_or_path, Ruleset):
        return id_or_path
    text = str(id_or_path)
    if isinstance(id_or_path, Path) or text.endswith(".toml") or "/" in text or "\\" in text:
        path = Path(text)
        if not path.exists():
            raise RulesetError("no such rule file", path=text)
    else:
        info = find_ruleset(text)
        if info is None:
            known = ", ".join(sorted(_all_infos()))
            raise RulesetError(f"unknown ruleset {text!r} (known: {known})")
        path = Path(info.path)
    return load_ruleset_file(path)


def load_ruleset_file(path: Path) -> Ruleset:
    """Load and validate the rule file at ``path`` (results are cached by mtime)."""
    path = path.resolve()
    key = (str(path), path.stat().st_mtime)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    data = _resolve(read_toml(path), path, (str(path),))
    ruleset = Ruleset(canonical(data, str(path)), str(path))
    _cache[key] = ruleset
    return ruleset


def load_ruleset_text(text: str, where: str = "<rule file>") -> Ruleset:
    """Load a ruleset from TOML text (a resolved file, as in snapshots and logs)."""
    cached = _text_cache.get(text)
    if cached is not None:
        return cached
    data = _resolve(parse_toml(text, where), None, ())
    ruleset = Ruleset(canonical(data, where), None)
    _text_cache[text] = ruleset
    return ruleset
