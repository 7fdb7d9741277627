"""The ruleset model: a validated rule file and the plugin manager that answers
its rule questions.

:class:`Ruleset` is built from the resolved rule-file table (see
:mod:`blockyard.rulefiles` for reading and ``extends``, and
:mod:`blockyard.discovery` for finding rule files). It starts the plugins the
file names, registers them with one ``pluggy.PluginManager`` (shared by the
games of the ruleset: plugins hold configuration only, every game keeps its own
state), asks the load-time hooks (board size, piece families, regions, actions,
clock) and checks every answer.

Games ask their hooks through :meth:`Ruleset.call`, which calls pluggy's own hook
caller and turns whatever a plugin raises, or an answer of the wrong type, into
a :class:`~blockyard.PluginError` naming the plugin, the hook, the ruleset, the
seed and the action.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import string
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from types import CodeType, TracebackType
from typing import Any

import pluggy
import tomli_w
from pluggy._callers import _multicall

from .actions import RESERVED_NAMES, ActionSpec
from .errors import IllegalMove, PluginError, RulesetError
from .geometry import Geometry, Region, geometry, parse_board_text
from .hookspecs import PROJECT, SPEC_CLASSES, hookimpl
from .params import Params, describe
from .pieces import Piece, PieceFamily, parse_art, piece_json
from .registry import registry
from .results import Clearing, FallingRules, Scoring

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
ACTION_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
MAX_BOARD = 32
MAX_TIME_LIMIT = 24 * 3600.0


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a close match among ``options``, else ``""``."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


I18N_CODE = re.compile(r"^[a-z]{2,3}(_[a-z]{2})?$")
#: The keys a ``[display.i18n.<language>]`` table may give.
I18N_KEYS = ("name", "description", "entry", "option", "note", "combo_label", "texts")


@dataclass(frozen=True, slots=True)
class Display:
    """Presentation hints of a rule file's ``[display]`` table (frontend only).

    ``score = false``: the game keeps no score, so none is shown; ``note``: a line
    shown in the game's header; ``[display.texts]``: player texts by name that
    replace the frontend's own words (``stuck``, ``time``, ``ended``, ``errors``,
    ``complete`` for why a game ended; ``continue`` for the title of the prompt
    offered after the end); ``hints``: when the player may ask for a hint —
    ``"always"``, ``"never"`` (daily games) or ``"not-in-duels"`` (the default).

    ``[display.i18n.<language>]`` (a language code such as ``de`` or ``pt_br``)
    gives the player texts in that language: ``name`` and ``description`` of the
    ruleset, ``entry``, ``option``, ``note``, ``combo_label`` and a ``texts`` table;
    :meth:`in_language` applies them, :attr:`translations` keeps them."""

    combo_label: str = ""
    combo_from: int = 2
    combo_cap: int = 0
    entry: str = ""
    option: str = ""
    default: bool = False
    score: bool = True
    note: str = ""
    texts: tuple[tuple[str, str], ...] = ()
    hints: str = "not-in-duels"
    name: str = ""
    description: str = ""
    translations: tuple[tuple[str, Display], ...] = ()

    def text(self, name: str, default: str = "") -> str:
        """The rule file's player text ``name`` from ``[display.texts]``, or ``default``."""
        return dict(self.texts).get(name, default)

    def languages(self) -> tuple[str, ...]:
        """The language codes the rule file gives player texts in (``[display.i18n]``)."""
        return tuple(code for code, _ in self.translations)

    def in_language(self, code: str) -> Display:
        """These hints with the player texts of language ``code`` where the rule file
        gives them (the others stay as written); ``name`` and ``description`` are ""
        where not translated. A language ``de_at`` falls back to ``de``."""
        given = dict(self.translations)
        own = given.get(code) or given.get(code.split("_")[0])
        if own is None:
            return self
        return replace(
            self, entry=own.entry or self.entry, option=own.option or self.option,
            note=own.note or self.note, combo_label=own.combo_label or self.combo_label,
            texts=tuple({**dict(self.texts), **dict(own.texts)}.items()),
            name=own.name, description=own.description)

    def factor(self, combo: int) -> int:
        """The combo factor shown for a combo counter: the counter capped at
        ``combo_cap`` (0: no cap). Summaries and records keep this number."""
        return min(combo, self.combo_cap) if self.combo_cap else combo

    def combo_text(self, combo: int) -> str:
        """The combo display for a combo counter, or "" when none is shown."""
        if not self.combo_label or combo < self.combo_from:
            return ""
        return self.combo_label.format(n=self.factor(combo))


HELP_MAX_CHARS = 4000
"""The longest text a ``[help]`` table may hold (one page)."""
HELP_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


@dataclass(frozen=True, slots=True)
class Help:
    """The rule file's ``[help]`` table: plain player texts by name (frontend only).

    ``text`` is the how-to-play page of the ruleset (paragraphs separated by a
    blank line); any other name is a note a screen shows where it applies, for
    example ``duel`` on the duel screen. Each text is at most
    :data:`HELP_MAX_CHARS` characters; names are lower-case words.

    ``[help.i18n.<language>]`` gives the same texts (by the same names) in another
    language; :meth:`text_in` picks them, :attr:`translations` keeps them."""

    texts: tuple[tuple[str, str], ...] = ()
    translations: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    @property
    def page(self) -> str:
        """The how-to-play page, or ``""`` when the rule file has none."""
        return self.get("text")

    def get(self, name: str, default: str = "") -> str:
        """The help text ``name`` (in English), or ``default``."""
        return dict(self.texts).get(name, default)

    def languages(self) -> tuple[str, ...]:
        """The language codes the rule file gives help texts in (``[help.i18n]``)."""
        return tuple(code for code, _ in self.translations)

    def text_in(self, name: str, language: str, default: str = "") -> str:
        """The help text ``name`` in ``language`` (``[help.i18n.<language>] name``);
        a language ``de_at`` falls back to ``de``, and a text not translated into
        either to the English one; ``default`` when the rule file has no ``name``."""
        english = self.get(name, default)
        given = dict(self.translations)
        for code in (language, language.split("_")[0]):
            text = dict(given.get(code, ())).get(name)
            if text:
                return text
        return english

    def page_in(self, language: str) -> str:
        """The how-to-play page in ``language`` (English where not translated)."""
        return self.text_in("text", language)

    def __bool__(self) -> bool:
        return bool(self.page)


def _help_text(table: Params, name: str) -> str:
    text = table.string(name)
    if len(text) > HELP_MAX_CHARS:
        raise table.error(name, f"expected at most {HELP_MAX_CHARS} characters, "
                          f"found {len(text)}")
    return text.strip()


def _help_texts(table: Params) -> Help:
    """``[help]``: plain texts by name, and ``[help.i18n.<language>]`` their
    translations (see :class:`Help`)."""
    out = []
    for name in table.names():
        if name == "i18n":
            continue
        if not HELP_NAME.match(name):
            raise table.error(name, "expected a lower-case name (letters, digits, '-', '_')")
        out.append((name, _help_text(table, name)))
    english = dict(out)
    languages = table.table_of("i18n", {})
    translations = []
    for code in languages.names():
        if not I18N_CODE.match(code):
            raise languages.error(code, "expected a language code such as 'de', 'ne' or "
                                  "'pt_br' (lower-case letters, '_' before a region)")
        lang = languages.table_of(code)
        texts = []
        for name in lang.names():
            if name not in english:
                hint = did_you_mean(name, english)
                raise lang.error(name, f"no [help] {name} to translate{hint}; "
                                 f"the [help] table gives: {', '.join(english) or 'nothing'}")
            texts.append((name, _help_text(lang, name)))
        lang.finish()
        translations.append((code, tuple(texts)))
    languages.finish()
    table.finish()
    return Help(tuple(out), tuple(translations))


def drop_stale_translations(resolved: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``resolved`` (a rule file merged over what it ``extends``) without the
    translations it inherited for an English text the file replaced: a translation
    goes with the text it was written for, so a variant that gives its own ``name``
    but no ``[display.i18n.<language>] name`` shows its own name (in English) rather
    than its base's translated name. The same holds for ``description`` and for the
    texts of ``[help]`` (``[help.i18n.<language>]``). ``own`` is the file's own table."""
    out = dict(resolved)
    own_meta = _table(own, "ruleset")
    own_display = _table(own, "display")
    if isinstance(resolved.get("display"), dict) \
            and isinstance(resolved["display"].get("i18n"), dict):
        out["display"] = dict(resolved["display"])
        out["display"]["i18n"] = _drop_stale(
            resolved["display"]["i18n"], _table(own_display, "i18n"),
            {key for key in ("name", "description") if key in own_meta})
    own_help = _table(own, "help")
    if isinstance(resolved.get("help"), dict) and isinstance(resolved["help"].get("i18n"), dict):
        out["help"] = dict(resolved["help"])
        out["help"]["i18n"] = _drop_stale(
            resolved["help"]["i18n"], _table(own_help, "i18n"),
            {key for key in own_help if key != "i18n"})
    return out


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    return value if isinstance(value, dict) else {}


def _drop_stale(languages: dict[str, Any], own_i18n: dict[str, Any],
                replaced: set[str]) -> dict[str, Any]:
    """The language tables of ``languages`` without the keys in ``replaced`` that the
    file's own language table (in ``own_i18n``) does not give again."""
    kept: dict[str, Any] = {}
    for code, table in languages.items():
        if not isinstance(table, dict):
            kept[code] = table
            continue
        own_table = _table(own_i18n, code)
        kept[code] = {key: value for key, value in table.items()
                      if key not in replaced or key in own_table}
    return kept


def _translations(table: Params, where: str) -> tuple[tuple[str, Display], ...]:
    """``[display.i18n]``: a table of player texts per language code."""
    out = []
    for code in table.names():
        if not I18N_CODE.match(code):
            raise table.error(code, "expected a language code such as 'de', 'ne' or "
                              "'pt_br' (lower-case letters, '_' before a region)")
        lang = table.table_of(code)
        texts = {name: lang.string(name, "") for name in I18N_KEYS if name != "texts"}
        for name, text in texts.items():
            if len(text) > 300:
                raise lang.error(name, f"expected at most 300 characters, found {len(text)}")
        out.append((code, Display(
            entry=texts["entry"], option=texts["option"], note=texts["note"],
            combo_label=check_format(texts["combo_label"], ("n",), path=where,
                                     key=f"display.i18n.{code}.combo_label"),
            texts=_display_texts(lang.table_of("texts", {})),
            name=texts["name"], description=texts["description"])))
        lang.finish()
    table.finish()
    return tuple(out)


def _display_texts(table: Params) -> tuple[tuple[str, str], ...]:
    """``[display.texts]``: player texts by name (strings of at most 200 characters)."""
    out = []
    for name in table.names():
        text = table.string(name)
        if len(text) > 200:
            raise table.error(name, f"expected at most 200 characters, found {len(text)}")
        out.append((name, text))
    table.finish()
    return tuple(out)


def check_format(template: str, fields: tuple[str, ...], *, path: str | None,
                 key: str) -> str:
    """Refuse a format string that names other fields than ``fields`` or asks for
    a width or precision above 3 digits (a huge string every frame)."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise RulesetError(f"not a valid format string: {exc}", path=path, key=key) from None
    for _text, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in fields:
            allowed = ", ".join("{" + f + "}" for f in fields)
            raise RulesetError(f"unknown field {{{name}}} (allowed: {allowed})", path=path,
                               key=key)
        if conversion not in (None, "", "s", "r"):
            raise RulesetError(f"unknown conversion !{conversion}", path=path, key=key)
        if spec and (re.search(r"\d{4,}", spec) or "{" in spec):
            raise RulesetError(f"format spec {spec!r} is too large or nested", path=path,
                               key=key)
        try:
            template.format(**dict.fromkeys(fields, 0))
        except (ValueError, IndexError, KeyError) as exc:
            raise RulesetError(f"not a valid format string: {exc}", path=path,
                               key=key) from None
    return template


# ---------------------------------------------------------------------------
# the core's own answers and actions
# ---------------------------------------------------------------------------

def _end_round(game: Any) -> None:
    game.end_game("ended")


class CoreDefaults:
    """The engine's own answers, asked last: board size from ``[board]``, pieces
    from ``[pieces]``, nothing clears, nothing scores; and the one action every
    game has, "end round"."""

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
    def blockyard_clear(self, game: Any, board: Any, placed: int) -> Clearing:
        return Clearing((), board)

    @hookimpl(trylast=True)
    def blockyard_score(self, game: Any, move: Any) -> Scoring:
        return Scoring(0, 0)

    @hookimpl
    def blockyard_fast_path(self, ruleset: Ruleset, hook: str) -> Callable[..., Any] | None:
        if hook == "clear":
            return lambda game, board, placed, piece, row, col: Clearing((), board)
        if hook == "score":
            return lambda game, move: Scoring(0, 0)
        return None

    @hookimpl(tryfirst=True)
    def blockyard_actions(self, ruleset: Ruleset) -> list[ActionSpec]:
        return [ActionSpec("end", "End round", _end_round, key="e", confirm=True,
                           ends_game=True, help="End the game now and count the score.")]


# ---------------------------------------------------------------------------
# checking answers
# ---------------------------------------------------------------------------

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _list_of(kind: type | tuple[type, ...]) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        return isinstance(value, list | tuple) and all(isinstance(v, kind) for v in value)
    return check


def _scoring_ok(value: Any) -> bool:
    if type(value) is Scoring and type(value.points) is int and type(value.combo) is int \
            and type(value.state) is dict:  # the common answer, asked on every move
        return value.combo >= 0
    return (isinstance(value, Scoring) and _is_int(value.points) and _is_int(value.combo)
            and value.combo >= 0 and isinstance(value.state, dict))


ANSWER_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "board_size": ("a (rows, cols) pair of integers",
                   lambda v: isinstance(v, tuple | list) and len(v) == 2
                   and all(_is_int(x) for x in v)),
    "regions": ("a list of Region", _list_of(Region)),
    "piece_families": ("a list of PieceFamily", _list_of(PieceFamily)),
    "falling_rules": ("FallingRules", lambda v: isinstance(v, FallingRules)),
    "time_limit": ("a number of seconds", lambda v: isinstance(v, int | float)
                   and not isinstance(v, bool)),
    "max_errors": ("a positive integer", lambda v: _is_int(v) and v > 0),
    "actions": ("a list of ActionSpec", _list_of(ActionSpec)),
    "allowed_anchors": ("an integer mask", _is_int),
    "clear": ("Clearing", lambda v: isinstance(v, Clearing)),
    "accept_stone": ("a bool", lambda v: isinstance(v, bool)),
    "score": ("Scoring with integer points and combo", _scoring_ok),
    "move_state": ("a dict of state updates", lambda v: isinstance(v, dict)),
    "end_reason": ("a string", lambda v: isinstance(v, str)),
    "invariants": ("a list of strings", _list_of(str)),
    "summary_tips": ("a list of strings", _list_of(str)),
    "deal": ("a list", lambda v: isinstance(v, list | tuple)),
    "fast_path": ("a function", callable),
}
"""For each hook (without the ``blockyard_`` prefix): the type every non-``None``
answer must have, in words and as a check."""


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
    help: Help

    def __init__(self, data: dict[str, Any], path: str | None) -> None:
        self.data = data
        self.path = path
        where = path or "<rule file>"
        self.where = where
        meta = Params(data["ruleset"], path=where, prefix="ruleset")
        self.id = meta.string("id")
        if not ID_PATTERN.match(self.id):
            raise meta.error("id", "expected 1 to 64 lower-case letters, digits, '-' or '_', "
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
        given = board.string("given", "")
        board.finish()

        records = Params(data.get("records", {}), path=where, prefix="records")
        self.record_group = records.string("group", self.id)
        self.record_kind = records.string("kind", "best", choices=("best", "per-date", "none"))
        records.finish()

        display = Params(data.get("display", {}), path=where, prefix="display")
        self.display = Display(
            combo_label=check_format(display.string("combo_label", ""), ("n",), path=where,
                                     key="display.combo_label"),
            combo_from=display.integer("combo_from", 2, minimum=0, maximum=1000),
            combo_cap=display.integer("combo_cap", 0, minimum=0, maximum=1000),
            entry=display.string("entry", ""), option=display.string("option", ""),
            default=display.boolean("default", False),
            score=display.boolean("score", True), note=display.string("note", ""),
            texts=_display_texts(display.table_of("texts", {})),
            hints=display.string("hints", "not-in-duels",
                                 choices=("always", "never", "not-in-duels")),
            translations=_translations(display.table_of("i18n", {}), where))
        display.finish()
        self.help = _help_texts(Params(data.get("help", {}), path=where, prefix="help"))

        self.file_families = tuple(_parse_pieces(data.get("pieces", {}), where))
        self.plugin_objects = tuple(_build_plugins(data.get("plugins", {}), where))

        pm = self.plugin_manager()
        self.pm = pm
        self._direct_calls: dict[str, tuple[bool, tuple[tuple[Any, tuple[str, ...]], ...]]
                                 | None] = {}
        self._code_owner: dict[CodeType, str] = {}
        for name in dir(pm.hook):
            if name.startswith("blockyard_"):
                for impl in getattr(pm.hook, name).get_hookimpls():
                    code = getattr(impl.function, "__code__", None)
                    if code is not None:
                        self._code_owner[code] = impl.plugin_name
        self.implemented = frozenset(
            name.removeprefix("blockyard_") for name in dir(pm.hook)
            if name.startswith("blockyard_") and any(
                impl.plugin_name != "core" for impl in getattr(pm.hook, name).get_hookimpls()))

        size = self._load_call("board_size", ruleset=self)
        self.rows, self.cols = size if size else (rows, cols)
        if not (1 <= self.rows <= MAX_BOARD and 1 <= self.cols <= MAX_BOARD):
            raise self._load_error("board_size", f"a board of 1 to {MAX_BOARD} rows and "
                                   f"columns, found {self.rows}×{self.cols}")
        families = [f for answer in self._load_call("piece_families", ruleset=self)
                    for f in answer]
        self.families = tuple(_colour_families(families))
        self.pieces = tuple(p for f in self.families for p in f.pieces)
        for piece in self.pieces:
            if piece.height > self.rows or piece.width > self.cols:
                raise RulesetError(
                    f"piece {piece.id!r} ({piece.height}×{piece.width}) does not fit on a "
                    f"{self.rows}×{self.cols} board", path=where, key=f"pieces.{piece.family}")
        self.geometry: Geometry = geometry(self.rows, self.cols)
        geo = self.geometry
        self.regions: tuple[Region, ...] = tuple(
            geo.bind(r) for answer in self._load_call("regions", ruleset=self, geometry=geo)
            for r in answer)
        for region in self.regions:
            if region.mask & ~geo.full or not region.mask:
                raise self._load_error("regions", f"regions inside the {self.rows}×{self.cols} "
                                       f"board, found {region!r} with cells outside it or none")
        self.given: str | None = self._parse_given(given) if given else None
        limit = self._load_call("time_limit", ruleset=self)
        if limit is not None and not (math.isfinite(limit) and 0 < limit <= MAX_TIME_LIMIT):
            raise self._load_error("time_limit", f"a clock of more than 0 and at most "
                                   f"{MAX_TIME_LIMIT:g} seconds, found {limit!r}")
        self.time_limit: float | None = None if limit is None else float(limit)
        self.errors_allowed: int | None = self._load_call("max_errors", ruleset=self)
        self.action_specs, self.action_owner = self._collect_actions()
        self.fast_paths = {hook: self._fast_path(hook) for hook in HOT_HOOKS}
        self.hot_callers = {hook: self.hot_caller(hook) for hook in HOT_HOOKS}
        self._load_call("check_ruleset", ruleset=self)
        if not pm.hook.blockyard_deal.get_hookimpls():
            raise RulesetError("no plugin deals pieces; add a dealing plugin such as "
                               "[plugins.weighted-dealing]", path=where, key="plugins")
        if self.mode == "tray" and not self.pieces:
            raise RulesetError("the ruleset has no pieces", path=where, key="pieces")
        if self.mode == "falling" and not pm.hook.blockyard_falling_rules.get_hookimpls():
            raise RulesetError("a falling game needs a plugin that sets how stones fall, "
                               "such as [plugins.falling-stones]", path=where, key="plugins")

    def _parse_given(self, text: str) -> str:
        """``[board] given``: the stones a falling game starts with, as board text
        (``.`` empty, ``1``–``9`` a digit), one line per row; returned as the
        canonical board text. Whether the digits keep the game's own rule (the
        sudoku rule) is checked by its plugins."""
        if self.mode != "falling":
            raise RulesetError("given stones are for falling games (mode = \"falling\"); "
                               "a tray game's starting board is given to new_game(board=...)",
                               path=self.where, key="board.given")
        try:
            lines = parse_board_text(text, self.rows, self.cols, ".123456789")
        except ValueError as exc:
            raise RulesetError(str(exc), path=self.where, key="board.given") from None
        return "\n".join(lines)

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
            _check_hook_arguments(name, obj, where)
            try:
                pm.register(obj, name=name)
            except Exception as exc:
                raise RulesetError(f"plugin {name!r} is broken: {exc}", path=where,
                                   key=f"plugins.{name}") from exc
        known = [n for n in dir(pm.hook) if n.startswith("blockyard_")
                 and getattr(getattr(pm.hook, n), "spec", None) is not None]
        for hook_name, caller in vars(pm.hook).items():
            if hook_name.startswith("blockyard_") and getattr(caller, "spec", None) is None:
                impl = caller.get_hookimpls()[0]
                raise RulesetError(f"plugin {impl.plugin_name!r} implements {hook_name}, which "
                                   f"is not a Blockyard hook{did_you_mean(hook_name, known)} "
                                   "(see MODDING.md)",
                                   path=where, key=f"plugins.{impl.plugin_name}")
        try:
            pm.check_pending()
        except Exception as exc:
            raise RulesetError(f"a plugin implements an unknown hook: {exc}", path=where,
                               key="plugins") from exc
        _check_single_answers(pm, where)
        return pm

    # -- asking plugins ----------------------------------------------------------

    def owner_of(self, exc: BaseException, default: str = "?") -> str:
        """The plugin whose code raised ``exc`` (the outermost plugin frame)."""
        tb: TracebackType | None = exc.__traceback__
        while tb is not None:
            owner = self._code_owner.get(tb.tb_frame.f_code)
            if owner is not None:
                return owner
            tb = tb.tb_next
        return default

    def _answering(self, hook: str) -> str:
        impls = getattr(self.pm.hook, "blockyard_" + hook).get_hookimpls()
        names = [i.plugin_name for i in impls if i.plugin_name != "core"]
        return names[-1] if names else "core"

    def plugin_error(self, hook: str, problem: str, *, plugin: str | None = None,
                     seed: int | None = None, action: str | None = None,
                     cause: BaseException | None = None) -> PluginError:
        """A :class:`PluginError` naming the plugin, hook, ruleset, seed and action."""
        if plugin is None:
            plugin = self.owner_of(cause, self._answering(hook)) if cause else \
                self._answering(hook)
        return PluginError(problem, plugin=plugin, hook="blockyard_" + hook, ruleset=self.id,
                           seed=seed, action=action)

    def _culprit(self, hook: str, kwargs: dict[str, Any], expected: Callable[[Any], bool]
                 ) -> str | None:
        """Which plugin gave a wrong answer to a collecting hook (asked one by one;
        only on the error path)."""
        pm = self.pm
        for impl in getattr(pm.hook, "blockyard_" + hook).get_hookimpls():
            others = [p for p in pm.get_plugins() if pm.get_name(p) != impl.plugin_name]
            try:
                answers = pm.subset_hook_caller("blockyard_" + hook, others)(**kwargs)
            except Exception:
                return str(impl.plugin_name)
            if any(a is not None and not expected(a) for a in answers):
                return str(impl.plugin_name)
        return None

    def check_answer(self, hook: str, value: Any, *, seed: int | None = None,
                     action: str | None = None, plugin: str | None = None,
                     kwargs: dict[str, Any] | None = None) -> Any:
        """``value`` if it is of the type ``hook`` must answer, else a PluginError."""
        if value is None:
            return value
        expected = ANSWER_TYPES.get(hook)
        if expected is None:
            return value
        if hook in COLLECTING and isinstance(value, list):
            bad = next((v for v in value if v is not None and not expected[1](v)), _OK)
            if bad is _OK:
                return value
            if plugin is None and kwargs is not None:
                plugin = self._culprit(hook, kwargs, expected[1])
            value = bad
        elif expected[1](value):
            return value
        raise self.plugin_error(hook, f"returned {describe(value)}; expected {expected[0]}",
                                seed=seed, action=action, plugin=plugin)

    def call(self, hook: str, *, seed: int | None = None, action: str | None = None,
             **kwargs: Any) -> Any:
        """Ask ``blockyard_<hook>`` through pluggy and check the answer.

        A plugin's exception (other than :class:`IllegalMove`) or an answer of
        the wrong type becomes a :class:`PluginError`."""
        direct = self._direct_calls.get(hook, _UNSET)
        if direct is _UNSET:
            direct = self._direct_calls[hook] = self._direct_call(hook)
        try:
            if direct is not None and self.pm._inner_hookexec is _multicall:
                # pluggy's plain call (no wrappers, no monitoring) without its
                # per-call set-up: each implementation, last registered first
                first, impls = direct
                results = []
                for func, names in impls:
                    answer = func(*[kwargs[name] for name in names])
                    if answer is not None:
                        results.append(answer)
                        if first:
                            break
                value = (results[0] if results else None) if first else results
            else:
                value = getattr(self.pm.hook, "blockyard_" + hook)(**kwargs)
        except (IllegalMove, PluginError, RulesetError):
            raise
        except Exception as exc:
            raise self.plugin_error(hook, f"raised {type(exc).__name__}: {exc}", seed=seed,
                                    action=action, cause=exc) from exc
        return self.check_answer(hook, value, seed=seed, action=action, kwargs=kwargs)

    def _direct_call(self, hook: str
                     ) -> tuple[bool, tuple[tuple[Any, tuple[str, ...]], ...]] | None:
        """``(firstresult, ((function, argument names), ...))`` of ``hook`` in the
        order pluggy calls them, when a plain call of each is all pluggy would do
        (no wrappers, no historic hook, no keyword arguments); else ``None``."""
        caller = getattr(self.pm.hook, "blockyard_" + hook)
        spec = caller.spec
        impls = caller.get_hookimpls()
        if spec is None or spec.opts.get("historic") or any(
                i.hookwrapper or i.wrapper or getattr(i, "kwargnames", ()) for i in impls):
            return None
        return (bool(spec.opts.get("firstresult")),
                tuple((i.function, tuple(i.argnames)) for i in reversed(impls)))

    def _load_call(self, hook: str, **kwargs: Any) -> Any:
        return self.call(hook, action="loading the ruleset", **kwargs)

    def _load_error(self, hook: str, expected: str) -> PluginError:
        return self.plugin_error(hook, f"expected {expected}", action="loading the ruleset")

    def _fast_path(self, hook: str) -> Callable[..., Any] | None:
        """The plain function the single answering plugin offers for ``hook``."""
        pm = self.pm
        impls = getattr(pm.hook, "blockyard_" + hook).get_hookimpls()
        if any(i.hookwrapper or i.wrapper for i in impls):
            return None
        answering = [i.plugin_name for i in impls if i.plugin_name != "core"] or ["core"]
        if len(answering) != 1:
            return None
        plugin = answering[0]
        others = [p for p in pm.get_plugins() if pm.get_name(p) != plugin]
        try:
            answers = pm.subset_hook_caller("blockyard_fast_path", others)(ruleset=self,
                                                                           hook=hook)
        except Exception as exc:
            raise self.plugin_error("fast_path", f"raised {type(exc).__name__}: {exc}",
                                    plugin=plugin, action="loading the ruleset",
                                    cause=exc) from exc
        funcs = [a for a in answers if a is not None]
        if not funcs:
            return None
        if len(funcs) > 1 or not callable(funcs[0]):
            raise self.plugin_error("fast_path", f"expected one function, found {funcs!r:.80}",
                                    plugin=plugin, action="loading the ruleset")
        code = getattr(getattr(funcs[0], "__func__", funcs[0]), "__code__", None)
        if code is not None:
            self._code_owner.setdefault(code, plugin)
        return typing.cast(Callable[..., Any], funcs[0])

    def hot_caller(self, hook: str) -> Callable[..., Any]:
        """A caller for a hot hook taking ``(seed, action, *args)`` with the hook's
        arguments in specification order: the plugin's fast path while no hook
        monitoring is on, pluggy's caller otherwise; checked like :meth:`call`."""
        pm = self.pm
        fast = self.fast_paths.get(hook)
        caller = getattr(pm.hook, "blockyard_" + hook)
        argnames = tuple(caller.spec.argnames)
        wanted, check = ANSWER_TYPES[hook]
        error = self.plugin_error
        plain = _multicall
        exact = {"clear": Clearing, "deal": list}.get(hook, type(None))

        def call(seed: int, action: str, *args: Any) -> Any:
            try:
                if fast is not None and pm._inner_hookexec is plain:
                    value = fast(*args)
                else:
                    value = caller(**dict(zip(argnames, args, strict=True)))
            except (IllegalMove, PluginError, RulesetError):
                raise
            except Exception as exc:
                raise error(hook, f"raised {type(exc).__name__}: {exc}", seed=seed,
                            action=action, cause=exc) from exc
            if type(value) is not exact and value is not None and not check(value):
                raise error(hook, f"returned {describe(value)}; expected {wanted}", seed=seed,
                            action=action)
            return value
        return call

    def _collect_actions(self) -> tuple[dict[str, ActionSpec], dict[str, str]]:
        specs: dict[str, ActionSpec] = {}
        owner: dict[str, str] = {}
        pm = self.pm
        for impl in reversed(pm.hook.blockyard_actions.get_hookimpls()):
            plugin = impl.plugin_name
            others = [p for p in pm.get_plugins() if pm.get_name(p) != plugin]
            caller = pm.subset_hook_caller("blockyard_actions", remove_plugins=others)
            try:
                answers = caller(ruleset=self)
            except (PluginError, RulesetError):
                raise
            except Exception as exc:
                raise self.plugin_error("actions", f"raised {type(exc).__name__}: {exc}",
                                        plugin=plugin, action="loading the ruleset",
                                        cause=exc) from exc
            self.check_answer("actions", answers, plugin=plugin, action="loading the ruleset")
            for answer in answers:
                for spec in answer:
                    if not ACTION_NAME.match(spec.name) or spec.name in RESERVED_NAMES:
                        raise self.plugin_error(
                            "actions", f"action name {spec.name!r} is not allowed (lower-case "
                            "letters, digits, '-', '_'; not one of "
                            f"{', '.join(sorted(RESERVED_NAMES))})", plugin=plugin,
                            action="loading the ruleset")
                    if spec.name in specs:
                        raise RulesetError(
                            f"plugins {owner[spec.name]!r} and {plugin!r} both contribute the "
                            f"action {spec.name!r}; a ruleset may use only one of them",
                            path=self.where, key="plugins")
                    if not isinstance(spec.label, str) or not spec.label:
                        raise self.plugin_error("actions", f"action {spec.name!r} has no label",
                                                plugin=plugin, action="loading the ruleset")
                    specs[spec.name] = spec
                    owner[spec.name] = plugin
                    for func in (spec.perform, spec.available, spec.rescue, spec.uses_left):
                        code = getattr(getattr(func, "__func__", func), "__code__", None)
                        if code is not None and plugin != "core":
                            self._code_owner.setdefault(code, plugin)
        return specs, owner

    # -- identity and output -----------------------------------------------------

    def name_in(self, language: str) -> str:
        """The ruleset's name in ``language`` (``[display.i18n.<language>] name``), or
        its ``name`` when the rule file gives none in that language."""
        return self.display.in_language(language).name or self.name

    def description_in(self, language: str) -> str:
        """The ruleset's description in ``language``, or its ``description``."""
        return self.display.in_language(language).description or self.description

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
    def automatic_actions(self) -> tuple[ActionSpec, ...]:
        """The actions the engine takes by itself when the game is stuck (zen refill)."""
        return tuple(s for s in self.action_specs.values() if s.automatic)

    @cached_property
    def player_actions(self) -> tuple[ActionSpec, ...]:
        """The actions a player may take while the game runs (rescue candidates)."""
        return tuple(s for s in self.action_specs.values()
                     if not s.automatic and not s.after_end)

    @cached_property
    def saved_pieces(self) -> dict[str, tuple[dict[str, Any], Piece]]:
        """For each piece id of the ruleset, its saved form (:func:`piece_json`)
        and the piece: a snapshot's tray piece equal to its saved form is that
        piece, checked and rebuilt without parsing."""
        return {p.id: (piece_json(p), p) for p in self.pieces}

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


_OK = object()
_UNSET: Any = object()
HOT_HOOKS = ("clear", "score", "deal")
"""Hooks asked on every move, which plugins may answer through a fast path."""
COLLECTING = frozenset({"regions", "piece_families", "actions", "allowed_anchors",
                        "move_state", "end_reason", "invariants", "summary_tips",
                        "check_ruleset", "game_start"})
"""Hooks whose answers pluggy collects into a list (not single-answer)."""


# ---------------------------------------------------------------------------
# parsing helpers
# ---------------------------------------------------------------------------

MAX_SHAPES = 64
MAX_FAMILIES = 128


def _parse_pieces(table: Any, where: str) -> list[PieceFamily]:
    if not isinstance(table, dict):
        raise RulesetError(f"expected a table of piece families, found {describe(table)}",
                           path=where, key="pieces")
    if len(table) > MAX_FAMILIES:
        raise RulesetError(f"at most {MAX_FAMILIES} piece families, found {len(table)}",
                           path=where, key="pieces")
    families = []
    for name, spec in table.items():
        if not isinstance(spec, dict):
            raise RulesetError(f"expected a table with weight and shapes, found {describe(spec)}",
                               path=where, key=f"pieces.{name}")
        params = Params(spec, path=where, prefix=f"pieces.{name}")
        weight = params.number("weight", 1.0, minimum=0, maximum=1e6)
        shapes = params.raw("shapes")
        if not isinstance(shapes, list) or not shapes:
            raise params.error("shapes", f"expected a non-empty array of ASCII-art strings, "
                               f"found {describe(shapes)}")
        if len(shapes) > MAX_SHAPES:
            raise params.error("shapes", f"at most {MAX_SHAPES} shapes, found {len(shapes)}")
        params.finish()
        pieces = []
        for i, art in enumerate(shapes):
            key = f"pieces.{name}.shapes[{i}]"
            if not isinstance(art, str):
                raise RulesetError(f"expected an ASCII-art string, found {describe(art)}",
                                   path=where, key=key)
            if len(art) > 2 * (MAX_BOARD + 1) * MAX_BOARD:
                raise RulesetError("the piece is larger than any board", path=where, key=key)
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
            from .registry import DISABLE_ENV, plugins_disabled

            known = ", ".join(reg.names())
            off = (f"; third-party plugins are switched off by {DISABLE_ENV}"
                   if plugins_disabled() else "")
            raise RulesetError(f"unknown plugin {name!r}{did_you_mean(name, reg.names())} "
                               f"(installed plugins: {known}{off})", path=where, key=key)
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


def _check_hook_arguments(name: str, plugin: Any, where: str) -> None:
    """Refuse a hook implementation taking an argument its hook does not pass,
    naming the arguments it may take."""
    import inspect

    for attr in dir(type(plugin)):
        if not attr.startswith("blockyard_"):
            continue
        method = getattr(plugin, attr, None)
        if method is None or not hasattr(method, "blockyard_impl"):
            continue
        spec = next((getattr(cls, attr) for cls in SPEC_CLASSES if hasattr(cls, attr)), None)
        if spec is None:
            continue
        allowed = [p for p in inspect.signature(spec).parameters if p != "self"]
        try:
            taken = [p for p, v in inspect.signature(method).parameters.items()
                     if v.default is inspect.Parameter.empty
                     and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]
        except (TypeError, ValueError):
            continue
        unknown = [p for p in taken if p not in allowed]
        if unknown:
            raise RulesetError(
                f"plugin {name!r}: {attr} takes {', '.join(map(repr, unknown))}, which the hook "
                f"does not pass; it may take any of: {', '.join(allowed)}", path=where,
                key=f"plugins.{name}")
