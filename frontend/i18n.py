"""The player's language: translated texts, numbers and dates.

Every text the window shows goes through :func:`_` (or :func:`ngettext` for
texts with a count), which looks it up in the gettext catalogue of the
current language (domain ``blockyard``, ``locale/<code>/LC_MESSAGES/`` next to
this module). Texts defined at import time are marked with :func:`N_` and
translated where they are shown.

The language starts as the system's (``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/
``LANG``, English when none is supported) or the saved setting, and
:func:`set_language` changes it at once: every function registered with
:func:`on_change` is called, and the window rebuilds the texts of the view on
screen.

Numbers and dates are formatted for the language with Babel
(:func:`format_number`, :func:`format_date`); in Nepali, numbers are written
with Devanagari digits (०–९) unless :func:`set_native_digits` turns that off.

The command line's messages stay English; this module is the window's.
"""

from __future__ import annotations

import datetime as _dt
import gettext
import os
from collections.abc import Callable, Mapping
from pathlib import Path

DOMAIN = "blockyard"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

#: The languages of the window: code -> the language's own name.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "ne": "नेपाली",
}
DEFAULT_LANGUAGE = "en"

_NEPALI_DIGITS = str.maketrans("0123456789", "०१२३४५६७८९")
_LATIN_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")

_language = DEFAULT_LANGUAGE
_native_digits = True
_translations: gettext.NullTranslations = gettext.NullTranslations()
_listeners: list[Callable[[str], None]] = []


def _(message: str) -> str:
    """``message`` in the current language (itself when it has no translation)."""
    return _translations.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a text with a count ``n`` for the current language's plural rules."""
    return _translations.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for translation without translating it (translate with :func:`_`
    where it is shown); for texts defined at import time."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a text with a count for translation without translating it (translate
    with :func:`ngettext` where it is shown); for texts defined at import time."""
    return singular, plural


def language() -> str:
    """The code of the current language (one of :data:`LANGUAGES`)."""
    return _language


def supported(code: str) -> str | None:
    """The language of :data:`LANGUAGES` that ``code`` names (``"de_AT.UTF-8"`` → ``"de"``),
    or None."""
    base = code.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return base if base in LANGUAGES else None


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the system asks for: the first supported one in ``LANGUAGE``
    (a colon-separated list), then ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; English
    when none is set or none is supported (``C``/``POSIX`` mean English)."""
    env = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "")
        if not value:
            continue
        for part in value.split(":"):
            code = supported(part)
            if code is not None:
                return code
        if variable != "LANGUAGE":
            # the first locale variable that is set decides, as for gettext
            return DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def set_language(code: str) -> None:
    """Switch the window's language to ``code`` (a key of :data:`LANGUAGES`, or a
    locale name such as ``de_DE.UTF-8``) at once: the catalogue is loaded and
    every :func:`on_change` listener is called. Raises ValueError for a language
    the game does not have."""
    global _language, _translations
    chosen = supported(code)
    if chosen is None:
        raise ValueError(f"no such language {code!r}; the languages are "
                         + ", ".join(sorted(LANGUAGES)))
    _translations = translations(chosen)
    _language = chosen
    for listener in list(_listeners):
        listener(chosen)


def translations(code: str) -> gettext.NullTranslations:
    """The compiled catalogue of language ``code`` (English needs none: its texts are
    the source texts). A missing catalogue of another language is an error, so a
    broken installation shows up instead of quietly falling back to English."""
    if code == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])


def on_change(listener: Callable[[str], None]) -> Callable[[], None]:
    """Call ``listener(code)`` after every change of language; returns a function that
    removes it again."""
    _listeners.append(listener)

    def remove() -> None:
        if listener in _listeners:
            _listeners.remove(listener)

    return remove


def native_digits() -> bool:
    """Whether numbers are written with the language's own digits (Nepali: ०–९)."""
    return _native_digits


def set_native_digits(on: bool) -> None:
    """Write numbers in Nepali with Devanagari digits (the default) or with 0–9."""
    global _native_digits
    _native_digits = bool(on)
    for listener in list(_listeners):
        listener(_language)


def localise_digits(text: str) -> str:
    """``text`` with its digits written in the current language's digits: 0–9 become
    ०–९ in Nepali, and ०–९ become 0–9 where Devanagari digits are not wanted."""
    if _language == "ne" and _native_digits:
        return text.translate(_NEPALI_DIGITS)
    return text.translate(_LATIN_DIGITS)


def format_number(number: int | float) -> str:
    """``number`` with the language's separators (``12,345`` / ``12.345`` / ``12 345`` /
    ``१२,३४५``), in the language's digits."""
    from babel.numbers import format_decimal

    return localise_digits(format_decimal(number, locale=_babel_locale()))


def format_tenths(number: float, sign: bool = False) -> str:
    """``number`` to one decimal place with the language's separators and digits
    (``12.3`` / ``12,3``); ``sign``: with ``+`` or ``−`` before it (``+0.0`` for none)."""
    from babel.numbers import format_decimal

    text = format_decimal(abs(number), format="#,##0.0", locale=_babel_locale())
    if sign:
        text = ("−" if round(number, 1) < 0 else "+") + text
    elif round(number, 1) < 0:
        text = "−" + text
    return localise_digits(text)


def format_date(day: _dt.date, width: str = "medium") -> str:
    """The date ``day`` written in the language (Babel's ``short``/``medium``/``long``/
    ``full`` formats), in the language's digits."""
    from babel.dates import format_date as babel_format_date

    return localise_digits(babel_format_date(day, format=width, locale=_babel_locale()))


#: The Babel locale whose numbers and dates each language of the window uses (the
#: standalone program bundles Babel's data of these alone: packaging/blockyard.spec).
BABEL_LOCALES: dict[str, str] = {"en": "en_GB", "de": "de_DE", "es": "es_ES", "ne": "ne_NP"}


def _babel_locale() -> str:
    return BABEL_LOCALES[_language]
