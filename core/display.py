"""Player texts of a rule file: its ``[display]`` and ``[help]`` tables and their
translations (frontend only; the engine never reads them).

:func:`read_display` and :func:`read_help` build the :class:`Display` and
:class:`Help` records of a ruleset from its resolved rule-file table;
:func:`drop_stale_translations` keeps a variant's translations with the texts
they were written for; :func:`check_format` refuses unsafe format strings.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, replace
from typing import Any

from .errors import RulesetError, did_you_mean
from .params import Params

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
        if not HELP_NAME.fullmatch(name):
            raise table.error(name, "expected a lower-case name (letters, digits, '-', '_')")
        out.append((name, _help_text(table, name)))
    english = dict(out)
    languages = table.table_of("i18n", {})
    translations = []
    for code in languages.names():
        if not I18N_CODE.fullmatch(code):
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
        if not I18N_CODE.fullmatch(code):
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



def read_display(table: dict[str, Any], where: str) -> Display:
    """The :class:`Display` of a rule file's ``[display]`` table."""
    display = Params(table, path=where, prefix="display")
    out = Display(
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
    return out


def read_help(table: dict[str, Any], where: str) -> Help:
    """The :class:`Help` of a rule file's ``[help]`` table."""
    return _help_texts(Params(table, path=where, prefix="help"))
