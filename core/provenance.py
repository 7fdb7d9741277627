"""What code and rules a game was played with, and what differs from another's.

A game's outcome depends on its resolved rule file *and* on the code that
answers its rules' hooks: Blockyard's own and the plugin distributions whose
plugins the rule file names (and whose mode it plays). :class:`Provenance`
holds both: the plugin distributions with their versions, the rules' digest
and, when known, the resolved rule text. A replay file records it, a server
says what it serves (``GET /api/rulesets``), and :func:`mismatch` is the one
comparison the server, :mod:`blockyard.online` and the window make: the first
difference, said as what it is (a :class:`Mismatch`: the plugin with both
versions, or the first differing rule key with both values), never as "the
file was altered".
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from . import validate
from .registry import BUNDLED_DIST, normalise_name, registry
from .version import same_release

if TYPE_CHECKING:
    from .ruleset import Ruleset

MAX_PLUGINS = 64
"""The most plugin distributions a replay file may list."""
MAX_SHOWN = 60
"""Characters of a rule value a sentence shows (longer ones are cut)."""
UNKNOWN_VERSION = "unknown"
"""The version said of a distribution whose metadata has none."""


@dataclass(frozen=True, slots=True)
class PluginVersion:
    """One distribution whose code answers a ruleset's hooks, and its version."""

    name: str
    version: str

    def as_json(self) -> dict[str, str]:
        """``{"name", "version"}`` as replay files and ``GET /api/rulesets`` write it."""
        return {"name": self.name, "version": self.version}


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a game was played with, or what a place plays a ruleset with:
    ``plugins`` (``None``: not known, as in a replay written before replays
    recorded them), the resolved rules' SHA-256 ``digest`` and their text
    (``rules``; ``None`` when only the digest is known)."""

    plugins: tuple[PluginVersion, ...] | None
    digest: str
    rules: str | None = None


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first difference between what a game was played with and what a place
    has. ``kind`` ``"plugin"``: ``name`` is the distribution, ``played`` and
    ``served`` its two versions; ``"rule"``: ``name`` is the rule key (dotted,
    ``""`` when the rules differ but no key can be named: only the digests were
    compared), ``played`` and ``served`` its two values as TOML writes them.
    ``None`` on either side: that side has no such plugin or key."""

    kind: Literal["plugin", "rule"]
    name: str
    played: str | None
    served: str | None
    plugins: tuple[str, ...] = field(default=(), compare=False)
    """``"plugin"``: the names the rule files give the plugins of that
    distribution, as far as either side's rules and this installation tell
    (:func:`plugins_of`); ``()`` when none is known. Not compared: the same
    difference whatever is known of it."""

    def sentence(self, played: str = "played with", served: str = "this server has") -> str:
        """The difference in one English sentence: ``played with quad-mono 0.1.0;
        this server has 0.2.0`` or ``played with scoring.line = 314; this server
        has 304``. ``played`` and ``served`` name the two sides."""
        if self.kind == "rule" and not self.name:
            return (f"{played} other rules (digest {str(self.played)[:12]}); {served} "
                    f"rules of digest {str(self.served)[:12]}")
        sep = " " if self.kind == "plugin" else " = "
        ours = f"no {self.name}" if self.played is None else f"{self.name}{sep}{self.played}"
        if self.served is None:
            theirs = f"no {self.name}"
        elif self.played is None:
            theirs = f"{self.name}{sep}{self.served}"
        else:
            theirs = self.served
        said = f"{played} {ours}; {served} {theirs}"
        if self.kind == "plugin" and self.plugins:
            names = ", ".join(repr(name) for name in self.plugins)
            said += f" (plugin{'s' if len(self.plugins) > 1 else ''} {names} of package " \
                    f"{self.name})"
        return said


def ruleset_plugins(ruleset: Ruleset) -> tuple[PluginVersion, ...]:
    """The distributions whose code answers ``ruleset``'s hooks, with their
    versions: Blockyard's own first, then those of the plugins its rule file
    names and of its mode, by name (plugins registered at run time with
    :func:`blockyard.register_plugin` belong to no distribution and are not
    listed)."""
    reg = registry()
    key = (tuple(name for name, _plugin in ruleset.plugin_objects), ruleset.mode)
    found: tuple[PluginVersion, ...] | None = reg.distributions.get(key)
    if found is None:  # asked for every game a server verifies: worked out once
        sources = {BUNDLED_DIST}
        for name in key[0]:
            entry = reg.get(name)
            if entry is not None and entry.source != "runtime":
                sources.add(entry.source)
        mode_source = reg.mode_sources.get(ruleset.mode)
        if mode_source:
            sources.add(mode_source)
        found = reg.distributions[key] = tuple(
            PluginVersion(source, reg.version_of(source) or UNKNOWN_VERSION)
            for source in sorted(sources, key=lambda s: (s != BUNDLED_DIST, s)))
    return found


def of_ruleset(ruleset: Ruleset) -> Provenance:
    """What this installation plays ``ruleset`` with: its plugin distributions,
    digest and resolved rule text."""
    return Provenance(ruleset_plugins(ruleset), ruleset.digest, ruleset.to_toml())


def plugins_json(plugins: Sequence[PluginVersion]) -> list[dict[str, str]]:
    """``plugins`` as replay files and ``GET /api/rulesets`` write them."""
    return [p.as_json() for p in plugins]


_PLUGINS_JSON: dict[tuple[PluginVersion, ...], list[dict[str, str]]] = {}


def served_plugins_json(ruleset: Ruleset) -> list[dict[str, str]]:
    """:func:`plugins_json` of :func:`ruleset_plugins`, made once per set of
    versions (a server compares it with every submitted replay's): to read and
    compare, never to change."""
    plugins = ruleset_plugins(ruleset)
    found = _PLUGINS_JSON.get(plugins)
    if found is None:
        if len(_PLUGINS_JSON) >= 64:
            _PLUGINS_JSON.clear()
        found = _PLUGINS_JSON[plugins] = plugins_json(plugins)
    return found


def read_plugins(value: Any, where: str = "plugins") -> tuple[PluginVersion, ...]:
    """The plugin versions of a replay file or a server's answer (a list of
    ``{"name", "version"}``); :class:`~blockyard.DataError` naming the entry
    otherwise."""
    items = validate.check_list(value, where, MAX_PLUGINS)
    out = []
    for index, item in enumerate(items):
        at = f"{where}[{index}]"
        table = validate.check_table(item, at)
        name = validate.check_str(table.get("name"), f"{at}.name", 100, empty=False)
        version = validate.check_str(table.get("version"), f"{at}.version", 64, empty=False)
        out.append(PluginVersion(name, version))
    return tuple(out)


def mismatch(played: Provenance, served: Provenance) -> Mismatch | None:
    """The first difference between what a game was ``played`` with and what a
    place ``served``, or ``None`` when both are the same: a plugin distribution
    of another version (Blockyard's own: of another release) or only on one side
    first, in the served order, then
    the first rule key whose value differs (when both rule texts are known;
    otherwise a ``"rule"`` mismatch without a key, naming the digests). Plugins
    are compared only when both sides know them."""
    if played.plugins is not None and served.plugins is not None:
        found = _plugin_difference(played.plugins, served.plugins)
        if found is not None:  # named with its plugins (only on this path: it parses rules)
            return replace(found, plugins=plugins_of(found.name, played.rules, served.rules))
    if played.digest == served.digest:
        return None
    if played.rules is not None and served.rules is not None:
        found = rule_difference(played.rules, served.rules)
        if found is not None:
            return found
    return Mismatch("rule", "", played.digest, served.digest)


def _rule_plugins(rules: str | None) -> list[str]:
    """The plugin names a resolved rule text's ``[plugins]`` table gives (``[]``
    for no text, text that is no TOML, or no such table)."""
    if rules is None:
        return []
    try:
        table = tomllib.loads(rules).get("plugins")
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    return [str(name) for name in table] if isinstance(table, dict) else []


def plugins_of(distribution: str, *rules: str | None) -> tuple[str, ...]:
    """The plugins of ``distribution`` that the resolved rule texts ``rules``
    name: those this installation registers from it, or, when it is not
    installed here, those no installed package brings (the ones it would);
    ``()`` for Blockyard's own distribution (the engine, not a plugin package)."""
    key = normalise_name(distribution)
    if key == normalise_name(BUNDLED_DIST):  # the engine itself: its plugins are not named
        return ()
    names = list(dict.fromkeys(name for text in rules for name in _rule_plugins(text)))
    reg = registry()
    ours = tuple(name for name in names if (entry := reg.get(name)) is not None
                 and normalise_name(entry.source) == key)
    if ours or reg.version_of(distribution) is not None:
        return ours
    return tuple(name for name in names if reg.get(name) is None)


def needed_here(played: Sequence[PluginVersion], rules: str | None,
                here: str = "this server") -> str | None:
    """What a game played with the distributions ``played`` (and the resolved
    rule text ``rules``) needs that this installation lacks, as a sentence: each
    plugin package not installed here, or installed at another version, with the
    version the game was played with and the plugins of the rules it brings;
    ``None`` when every one is here. Said where the game's ruleset cannot be
    loaded here; Blockyard's own distribution is not named (another engine
    loads the same rule files: its version is compared where the game is)."""
    reg = registry()
    parts = []
    for plugin in played:
        if normalise_name(plugin.name) == normalise_name(BUNDLED_DIST):
            continue
        installed = reg.version_of(plugin.name)
        if installed == plugin.version:
            continue
        names = plugins_of(plugin.name, rules)
        of = "" if not names else \
            f" (plugin{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))})"
        has = "does not have it" if installed is None else f"has {installed}"
        parts.append(f"{plugin.name} {plugin.version}{of}, and {here} {has}")
    if not parts:
        return None
    return "the game needs the plugin package " + "; the plugin package ".join(parts)


def _plugin_difference(played: Sequence[PluginVersion], served: Sequence[PluginVersion]
                       ) -> Mismatch | None:
    ours = {normalise_name(p.name): p for p in played}
    theirs = {normalise_name(p.name): p for p in served}
    for key, server_has in theirs.items():
        mine = ours.get(key)
        if mine is None:
            return Mismatch("plugin", server_has.name, None, server_has.version)
        if not _same_code(key, mine.version, server_has.version):
            return Mismatch("plugin", server_has.name, mine.version, server_has.version)
    for key, mine in ours.items():
        if key not in theirs:
            return Mismatch("plugin", mine.name, mine.version, None)
    return None


def _same_code(name: str, played: str, served: str) -> bool:
    """Whether two versions of the distribution ``name`` (normalised) count as the
    same code: the same version, or for Blockyard itself builds of the same
    release (:func:`blockyard.version.same_release`). Every commit of Blockyard
    has a version of its own (``0.1.dev597+ga62b116ce``), and builds of one
    release verify each other's games as before they said their commits: the log
    played again decides, and names both engines when it plays differently."""
    if played == served:
        return True
    return name == normalise_name(BUNDLED_DIST) and same_release(played, served)


def rule_difference(played: str, served: str) -> Mismatch | None:
    """The first key (in the played file's order, then the served file's) whose
    value differs between two resolved rule texts, with both values; ``None``
    when they hold the same tables. Text that is no TOML is a ``"rule"``
    mismatch without a key."""
    try:
        ours, theirs = tomllib.loads(played), tomllib.loads(served)
    except (tomllib.TOMLDecodeError, ValueError):
        return Mismatch("rule", "", None, None)
    for key, mine, server_has in _differences(ours, theirs, ""):
        return Mismatch("rule", key, _shown(mine), _shown(server_has))
    return None


_ABSENT = object()


def _differences(ours: Any, theirs: Any, prefix: str) -> Iterator[tuple[str, Any, Any]]:
    """Each differing key path with both values (``_ABSENT`` for a missing one)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in [*ours, *(k for k in theirs if k not in ours)]:
            a, b = ours.get(key, _ABSENT), theirs.get(key, _ABSENT)
            if a != b or type(a) is not type(b):
                yield from _differences(a, b, f"{prefix}.{_key(key)}" if prefix else _key(key))
        return
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if a != b or type(a) is not type(b):
                yield from _differences(a, b, f"{prefix}[{index}]")
        return
    yield prefix, ours, theirs


def _key(key: str) -> str:
    """A key as a dotted path shows it (quoted unless a bare TOML key)."""
    bare = key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
    return key if bare else json.dumps(key)


def _shown(value: Any) -> str | None:
    """A rule value as a sentence shows it (TOML's spelling for scalars), cut
    short; ``None`` for a missing one."""
    if value is _ABSENT:
        return None
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int | float):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."


def served_json(ruleset: Ruleset) -> dict[str, Any]:
    """A served ruleset as ``GET /api/rulesets`` lists it: ``id``, ``name``,
    ``family``, ``digest`` and ``plugins``."""
    return {"id": ruleset.id, "name": ruleset.name, "family": ruleset.family,
            "digest": ruleset.digest, "plugins": plugins_json(ruleset_plugins(ruleset))}


def served_provenance(data: Mapping[str, Any], rules: str | None = None,
                      where: str = "ruleset") -> Provenance:
    """The :class:`Provenance` of a ruleset as a server lists it (``digest`` and
    ``plugins``; ``rules``: its resolved text, when fetched); ``DataError``
    naming a malformed field."""
    digest = validate.check_str(data.get("digest"), f"{where}.digest", 64, empty=False)
    return Provenance(read_plugins(data.get("plugins"), f"{where}.plugins"), digest, rules)


__all__ = ["MAX_PLUGINS", "Mismatch", "PluginVersion", "Provenance", "mismatch", "needed_here",
           "of_ruleset", "plugins_json", "plugins_of", "read_plugins", "rule_difference",
           "ruleset_plugins", "served_json", "served_provenance"]
