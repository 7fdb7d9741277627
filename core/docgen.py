"""Modder documentation generated from the code itself.

- :func:`hook_reference`: every hook specification with its arguments, return
  type and docstring (the hook reference of MODDING.md);
- :func:`plugin_catalogue`: every installed rule plugin with its parameters —
  name, type, default and meaning — and the hooks it answers (``blockyard
  plugins`` and the plugin reference of MODDING.md).

Parameters are found by running each plugin's factory on a recording
parameter table: whatever the factory reads, with the type and default it
asks for, is a parameter. Meanings come from the plugin class's ``PARAMETERS``
mapping (name → one line).

``python -m blockyard.docgen MODDING.md`` rewrites the generated sections of
MODDING.md (between ``<!-- generated: NAME -->`` and ``<!-- end: NAME -->``);
the test suite checks they are in step.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import hookspecs
from .params import _MISSING, Params
from .registry import package_version, registry

SECTION_TITLES = {
    "RegistrySpecs": "Registration (entry-point modules)",
    "RulesetSpecs": "Asked while a ruleset loads",
    "GameSpecs": "Asked while a game runs",
}


def rst_to_markdown(text: str) -> str:
    """Docstring markup to Markdown: ``x`` → `x`, :class:`~a.B` → `B`."""
    text = re.sub(r":\w+:`~?([\w.]+)`", lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", text)
    return text.replace("``", "`")


def hook_signature(func: Any) -> str:
    params = [p for p in inspect.signature(func).parameters if p != "self"]
    return f"{func.__name__}({', '.join(params)})"


def hook_reference() -> str:
    """The hook reference as Markdown."""
    out: list[str] = []
    for cls in (hookspecs.RegistrySpecs, *hookspecs.SPEC_CLASSES):
        out.append(f"**{SECTION_TITLES[cls.__name__]}**\n")
        for name, func in vars(cls).items():
            if not name.startswith("blockyard_"):
                continue
            returns = inspect.signature(func).return_annotation
            doc = rst_to_markdown(inspect.getdoc(func) or "")
            out.append(f"### `{hook_signature(func)}`\n\n*Returns* `{returns}`. {doc}\n")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# plugin parameters
# ---------------------------------------------------------------------------

@dataclass
class ParameterInfo:
    """One parameter of a plugin: what the factory asked for."""

    name: str
    type: str
    default: Any = _MISSING
    minimum: Any = None
    maximum: Any = None
    choices: tuple[str, ...] | None = None
    meaning: str = ""
    optional: bool = False

    @property
    def required(self) -> bool:
        return self.default is _MISSING and not self.optional

    def default_text(self) -> str:
        if self.default is _MISSING:
            return "optional" if self.optional else "required"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, str):
            return f'"{self.default}"'
        return repr(self.default)

    def type_text(self) -> str:
        text = self.type
        if self.choices:
            text += " (" + " / ".join(f'"{c}"' for c in self.choices) + ")"
        if self.minimum is not None and self.maximum is not None:
            text += f", {self.minimum} to {self.maximum}"
        elif self.minimum is not None:
            text += f", at least {self.minimum}"
        elif self.maximum is not None:
            text += f", at most {self.maximum}"
        return text


class RecordingParams(Params):
    """A parameter table that records what a factory asks for and answers with
    defaults or sample values; ``present`` decides what ``has()`` answers."""

    def __init__(self, found: dict[str, ParameterInfo], present: set[str] | None,
                 prefix: str = "plugins.x") -> None:
        super().__init__({}, path="<docs>", prefix=prefix)
        self.found = found
        self.present = present
        self.asked_has: list[str] = []
        self.name_prefix = ""

    def has(self, name: str) -> bool:
        self.asked_has.append(name)
        return True if self.present is None else name in self.present

    def _record(self, name: str, kind: str, default: Any, **extra: Any) -> None:
        name = self.name_prefix + name
        info = self.found.get(name)
        if info is None:
            self.found[name] = ParameterInfo(name, kind, default, **extra)

    def integer(self, name: str, default: Any = _MISSING, *, minimum: int | None = None,
                maximum: int | None = None) -> int:
        self._record(name, "integer", default, minimum=minimum, maximum=maximum)
        return default if default is not _MISSING else (minimum if minimum is not None else 1)

    def number(self, name: str, default: Any = _MISSING, *, minimum: float | None = None,
               maximum: float | None = None) -> float:
        self._record(name, "number", default, minimum=minimum, maximum=maximum)
        if default is not _MISSING:
            return typing.cast(float, default)
        return max(1.0, minimum or 0)

    def boolean(self, name: str, default: Any = _MISSING) -> bool:
        self._record(name, "boolean", default)
        return default if default is not _MISSING else False

    def string(self, name: str, default: Any = _MISSING, *,
               choices: tuple[str, ...] | None = None) -> str:
        self._record(name, "string", default, choices=choices)
        if default is not _MISSING:
            return typing.cast(str, default)
        return choices[0] if choices else "x"

    def numbers(self, name: str, default: Any = _MISSING, *, minimum: float | None = None,
                integers: bool = False, nonempty: bool = True, **_: Any) -> list[float]:
        self._record(name, "array of " + ("integers" if integers else "numbers"), default,
                     minimum=minimum)
        return list(default) if default is not _MISSING else [minimum or 1, minimum or 1]

    def raw(self, name: str, default: Any = _MISSING) -> Any:
        self._record(name, "value", default)
        return default if default is not _MISSING else []

    def _child(self, prefix: str) -> RecordingParams:
        child = RecordingParams(self.found, self.present)
        child.name_prefix = self.name_prefix + prefix
        child.asked_has = self.asked_has
        return child

    def table_of(self, name: str, default: Any = _MISSING) -> Params:
        self._record(name, "table", default)
        return self._child(name + ".")

    def tables(self, name: str) -> list[Params]:
        self._record(name, "array of tables", _MISSING)
        return [self._child(name + "[]."), self._child(name + "[].")]

    def finish(self) -> None:
        pass


def plugin_parameters(factory: Any) -> list[ParameterInfo]:
    """The parameters ``factory`` reads, found by running it on recording tables."""
    found: dict[str, ParameterInfo] = {}
    probe = RecordingParams(found, None)
    attempts: list[set[str] | None] = [None, set()]
    with contextlib.suppress(Exception):
        factory(probe)
    names = list(dict.fromkeys(probe.asked_has))
    attempts += [{n} for n in names]
    for present in attempts[1:]:
        try:
            factory(RecordingParams(found, present))
        except Exception:
            continue
    meanings = getattr(factory, "PARAMETERS", {}) or {}
    for name, info in found.items():
        info.meaning = meanings.get(name, "")
        info.optional = name in names
    return list(found.values())


@dataclass
class PluginInfo:
    """An installed rule plugin as ``blockyard plugins`` shows it: ``source`` is
    the package providing it and ``version`` that package's version (``None``
    for a plugin registered at run time); ``wrappers`` are the hooks among
    ``hooks`` it implements as a wrapper (``wrapper=True`` or the old-style
    ``hookwrapper=True``)."""

    name: str
    source: str
    summary: str
    parameters: list[ParameterInfo] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    version: str | None = None
    wrappers: list[str] = field(default_factory=list)


def is_wrapper(impl: Any) -> bool:
    """Whether the hook implementation ``impl`` is a wrapper (``@hookimpl`` with
    ``wrapper=True`` or ``hookwrapper=True``)."""
    options = getattr(impl, f"{hookspecs.PROJECT}_impl", None) or {}
    return bool(options.get("wrapper") or options.get("hookwrapper"))


def plugin_catalogue() -> list[PluginInfo]:
    """Every installed rule plugin, sorted by name."""
    out = []
    for name in registry().names():
        entry = registry().get(name)
        assert entry is not None
        factory = entry.factory
        doc = factory.__doc__ or sys.modules[factory.__module__].__doc__ or ""
        doc = inspect.cleandoc(doc)
        summary = rst_to_markdown(" ".join(doc.split("\n\n")[0].split()))
        hooks = sorted(attr for attr in dir(factory) if attr.startswith("blockyard_")
                       and hasattr(getattr(factory, attr), "blockyard_impl"))
        wrappers = [hook for hook in hooks if is_wrapper(getattr(factory, hook))]
        out.append(PluginInfo(name, entry.source, summary, plugin_parameters(factory), hooks,
                              package_version(entry.source), wrappers))
    return out


def plugin_reference(source: str | None = "blockyard") -> str:
    """The plugin reference as Markdown (plugins of ``source``, or all)."""
    out = []
    for plugin in plugin_catalogue():
        if source is not None and plugin.source != source:
            continue
        out.append(f"### `{plugin.name}`\n\n{plugin.summary}\n")
        if plugin.parameters:
            out.append("| parameter | type | default | meaning |\n|---|---|---|---|")
            for p in plugin.parameters:
                meaning = p.meaning.replace("|", "\\|")
                out.append(f"| `{p.name}` | {p.type_text()} | {p.default_text()} | {meaning} |")
            out.append("")
        else:
            out.append("No parameters (`[plugins.NAME]` or `NAME = true`).\n")
        hooks = ", ".join(f"`{h}`" for h in plugin.hooks) or "none"
        out.append(f"Hooks: {hooks}.\n")
    return "\n".join(out)


GENERATORS = {"hooks": hook_reference, "plugins": plugin_reference}


def generated_sections(text: str) -> dict[str, str]:
    """The generated sections found in ``text``, by name."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r"<!-- generated: (\w+) -->\n(.*?)<!-- end: \1 -->", text, re.DOTALL)}


def regenerate(text: str) -> str:
    """``text`` with every generated section written anew."""
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"<!-- generated: {name} -->\n{GENERATORS[name]()}\n<!-- end: {name} -->"
    return re.sub(r"<!-- generated: (\w+) -->\n.*?<!-- end: \1 -->", fill, text,
                  flags=re.DOTALL)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0] if args else "MODDING.md")
    text = path.read_text(encoding="utf-8")
    path.write_text(regenerate(text), encoding="utf-8")
    print(f"regenerated {', '.join(generated_sections(text))} in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
