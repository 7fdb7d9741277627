"""Typed, validated access to a table of a rule file.

Plugins read their parameters through :class:`Params`; every mistake raises a
:class:`~blockyard.RulesetError` naming the file, the dotted key, what was
expected and what was found. :meth:`Params.finish` rejects keys nobody read,
so a misspelled parameter is an error rather than a silent default.
"""

from __future__ import annotations

import math
import reprlib
import typing
from typing import Any

from .errors import RulesetError

_MISSING: Any = object()
LIMIT = 10**9
"""Integers of rule files lie within ±LIMIT unless a parameter says otherwise."""


_SHORT = reprlib.Repr()  # (keyword arguments only from Python 3.12)
_SHORT.maxlevel = 2
_SHORT.maxtuple = _SHORT.maxlist = _SHORT.maxarray = _SHORT.maxdict = 4
_SHORT.maxset = _SHORT.maxfrozenset = _SHORT.maxdeque = 4
_SHORT.maxstring = _SHORT.maxlong = _SHORT.maxother = 40


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, built from a few items of a
    container only (:mod:`reprlib`): as cheap for a list of a million pieces or
    a string of a million characters as for one; a ``__repr__`` that raises
    gives the type's name."""
    if type(value) is int and value.bit_length() > 128:  # (str() of a huge int raises)
        return f"<an int of {value.bit_length()} bits>"
    try:
        text = _SHORT.repr(value)
    except Exception:  # a hostile object's __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(value: object) -> str:
    """A short description of a TOML value (or a plugin's answer) for error
    messages, cheap whatever its size (:func:`short_repr`)."""
    kind = {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "array", dict: "table"}.get(type(value), type(value).__name__)
    return f"{kind} {short_repr(value)}"


class Params:
    """A table of a rule file with a dotted name (``plugins.line-scoring``)."""

    def __init__(self, table: dict[str, Any], *, path: str | None, prefix: str) -> None:
        self.table = dict(table)
        self.path = path
        self.prefix = prefix
        self._used: set[str] = set()
        self._asked: dict[str, None] = {}

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def error(self, name: str, message: str) -> RulesetError:
        return RulesetError(message, path=self.path, key=self.key(name))

    def has(self, name: str) -> bool:
        self._asked[name] = None
        return name in self.table

    def raw(self, name: str, default: Any = _MISSING) -> Any:
        self._asked[name] = None
        if name not in self.table:
            if default is _MISSING:
                raise self.error(name, "missing; this key is required")
            return default
        self._used.add(name)
        return self.table[name]

    def integer(self, name: str, default: Any = _MISSING, *, minimum: int | None = None,
                maximum: int | None = None) -> int:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return typing.cast(int, value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"expected an integer, found {describe(value)}")
        self._check_range(name, value, -LIMIT if minimum is None else minimum,
                          LIMIT if maximum is None else maximum)
        return value

    def number(self, name: str, default: Any = _MISSING, *, minimum: float | None = None,
               maximum: float | None = None) -> float:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return typing.cast(float, value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(name, f"expected a number, found {describe(value)}")
        if not math.isfinite(value) or abs(value) > 1e15:
            raise self.error(name, f"expected a finite number, found {value!r}")
        self._check_range(name, value, minimum, maximum)
        return value

    def boolean(self, name: str, default: Any = _MISSING) -> bool:
        value = self.raw(name, default)
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, found {describe(value)}")
        return value

    def string(self, name: str, default: Any = _MISSING, *,
               choices: tuple[str, ...] | None = None) -> str:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return typing.cast(str, value)
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, found {describe(value)}")
        if choices is not None and value not in choices:
            options = ", ".join(repr(c) for c in choices)
            raise self.error(name, f"expected one of {options}, found {value!r}")
        return value

    def numbers(self, name: str, default: Any = _MISSING, *, minimum: float | None = None,
                integers: bool = False, nonempty: bool = True) -> list[float]:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return typing.cast(list[float], value)
        what = "integers" if integers else "numbers"
        if not isinstance(value, list):
            raise self.error(name, f"expected an array of {what}, found {describe(value)}")
        if nonempty and not value:
            raise self.error(name, f"expected a non-empty array of {what}, found []")
        for i, item in enumerate(value):
            ok = (isinstance(item, int) if integers else isinstance(item, int | float))
            if isinstance(item, bool) or not ok:
                raise RulesetError(f"expected {what[:-1]}, found {describe(item)}",
                                   path=self.path, key=f"{self.key(name)}[{i}]")
            if not math.isfinite(item) or abs(item) > 1e15:
                raise RulesetError(f"expected a finite number, found {item!r}",
                                   path=self.path, key=f"{self.key(name)}[{i}]")
            if minimum is not None and item < minimum:
                raise RulesetError(f"expected at least {minimum}, found {item}",
                                   path=self.path, key=f"{self.key(name)}[{i}]")
        if len(value) > 1000:
            raise self.error(name, f"expected at most 1000 items, found {len(value)}")
        return list(value)

    def table_of(self, name: str, default: Any = _MISSING) -> Params:
        value = self.raw(name, default)
        if value is default and default is not _MISSING:
            return Params(value, path=self.path, prefix=self.key(name))
        if not isinstance(value, dict):
            raise self.error(name, f"expected a table, found {describe(value)}")
        return Params(value, path=self.path, prefix=self.key(name))

    def tables(self, name: str) -> list[Params]:
        value = self.raw(name)
        if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
            raise self.error(name, f"expected a non-empty array of tables, found {describe(value)}")
        return [Params(v, path=self.path, prefix=f"{self.key(name)}[{i}]")
                for i, v in enumerate(value)]

    def names(self) -> list[str]:
        """The keys of the table."""
        return list(self.table)

    def finish(self) -> None:
        """Raise for any key that was never read (a typo or an unsupported option)."""
        for name in self.table:
            if name not in self._used:
                import difflib

                valid = list(self._asked)
                close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                listing = f"; valid keys: {', '.join(valid)}" if valid else \
                    "; this table takes no keys"
                raise self.error(name, f"unknown key{hint}{listing}")

    def _check_range(self, name: str, value: float, minimum: float | None,
                     maximum: float | None) -> None:
        if minimum is not None and value < minimum:
            raise self.error(name, f"expected at least {minimum}, found {value}")
        if maximum is not None and value > maximum:
            raise self.error(name, f"expected at most {maximum}, found {value}")
