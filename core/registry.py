"""The plugin registry: rule plugins and rule files contributed by packages.

Every package, Blockyard itself included, contributes through the entry-point
group ``blockyard``: the entry point names a module (or object) implementing
the hooks of :class:`~blockyard.hookspecs.RegistrySpecs`. Two environment
variables choose which third-party packages load (Blockyard's own plugins always
do):

``BLOCKYARD_DISABLE_PLUGINS=1``
    skips every entry point that does not belong to the ``blockyard``
    distribution (it wins over the allow-list);
``BLOCKYARD_LOAD_PLUGINS=name,name``
    an allow-list, as ``LLM_LOAD_PLUGINS`` in simonw/llm: only entry points whose
    distribution name (``blockyard-diagonals``; ``-``, ``_`` and ``.`` and case
    are alike) or entry-point name (``diagonals``) is listed load. Set but empty,
    it loads no third-party package. A listed name that no installed package has
    is reported in :attr:`Registry.problems` (and warned about).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from .errors import PluginError
from .hookspecs import PROJECT, RegistrySpecs

ENTRY_POINT_GROUP = "blockyard"
DISABLE_ENV = "BLOCKYARD_DISABLE_PLUGINS"
LOAD_ENV = "BLOCKYARD_LOAD_PLUGINS"
BUNDLED_MODULE = "blockyard.plugins.bundled"
BUNDLED_DIST = "blockyard"
BUNDLED_BOTS = frozenset({"random", "greedy", "search"})


@dataclass(frozen=True, slots=True)
class PluginEntry:
    """A registered rule plugin: its name, factory and the package providing it."""

    name: str
    factory: Callable[..., Any]
    source: str


@dataclass
class Registry:
    """Rule plugins and bots by name and the rule-file locations packages contribute."""

    plugins: dict[str, PluginEntry] = field(default_factory=dict)
    bots: dict[str, PluginEntry] = field(default_factory=dict)
    ruleset_paths: list[tuple[Any, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> PluginEntry | None:
        return self.plugins.get(name)

    def names(self) -> list[str]:
        return sorted(self.plugins)

    def add_module(self, module: Any, source: str) -> None:
        """Register one entry-point object (module or instance) from ``source``."""
        pm = pluggy.PluginManager(PROJECT)
        pm.add_hookspecs(RegistrySpecs)
        try:
            pm.register(module, name=f"{source}:{getattr(module, '__name__', id(module))}")
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin package {source!r}: {exc}") from exc

        def register_plugin(name: str, factory: Callable[..., Any]) -> None:
            if not isinstance(name, str) or not name:
                raise PluginError(f"plugin package {source!r} registered a plugin without a name")
            old = self.plugins.get(name)
            if old is not None and old.factory is not factory:
                raise PluginError(
                    f"plugin name {name!r} is registered twice: by {old.source!r} and by {source!r}"
                )
            self.plugins[name] = PluginEntry(name, factory, source)

        def register_rulesets(path: Any) -> None:
            self.ruleset_paths.append((path, source))

        def register_bot(name: str, factory: Callable[..., Any]) -> None:
            if not isinstance(name, str) or not name or not callable(factory):
                raise PluginError(f"plugin package {source!r} registered a bot without a "
                                  "name or a callable factory")
            old = self.bots.get(name)
            if name in BUNDLED_BOTS or (old is not None and old.factory is not factory):
                by = "Blockyard" if name in BUNDLED_BOTS else repr(old.source if old else "")
                message = f"bot name {name!r} of {source!r} is taken (by {by}); skipped"
                self.problems.append(message)
                warnings.warn(message, stacklevel=2)
                return
            self.bots[name] = PluginEntry(name, factory, source)

        pm.hook.blockyard_register_plugins(register=register_plugin)
        pm.hook.blockyard_register_bots(register=register_bot)
        pm.hook.blockyard_register_rulesets(register=register_rulesets)


_registry: Registry | None = None
_runtime: dict[str, PluginEntry] = {}


def register_plugin(name: str, factory: Callable[..., Any]) -> None:
    """Register a rule plugin in this process only (tests, notebooks): afterwards
    rule files can name it exactly like an entry-point plugin. ``factory(params)``
    builds the plugin from its parameter table. A taken name raises
    :class:`PluginError`."""
    if not isinstance(name, str) or not name or len(name) > 64:
        raise PluginError(f"register_plugin: expected a plugin name, found {name!r}")
    if not callable(factory):
        raise PluginError(f"register_plugin: the factory of {name!r} is not callable")
    reg = registry()
    old = reg.plugins.get(name)
    if old is not None:
        raise PluginError(f"plugin name {name!r} is taken (registered by {old.source!r})")
    entry = PluginEntry(name, factory, "runtime")
    reg.plugins[name] = entry
    _runtime[name] = entry
    _forget_rulesets()


def unregister_plugin(name: str) -> None:
    """Remove a plugin registered with :func:`register_plugin`."""
    if name not in _runtime:
        raise PluginError(f"no plugin {name!r} was registered with register_plugin")
    del _runtime[name]
    registry().plugins.pop(name, None)
    _forget_rulesets()


def _forget_rulesets() -> None:
    from .discovery import clear_caches

    clear_caches()


def plugins_disabled() -> bool:
    """Whether third-party plugins are switched off by ``BLOCKYARD_DISABLE_PLUGINS``."""
    value = os.environ.get(DISABLE_ENV, "").strip().lower()
    return value in ("1", "true", "yes", "on")


def plugins_allowed() -> frozenset[str] | None:
    """The names ``BLOCKYARD_LOAD_PLUGINS`` allows (normalised with
    :func:`normalise_name`), or ``None`` when the variable is not set (every
    installed package loads). Blank entries are ignored, so ``""`` allows none."""
    value = os.environ.get(LOAD_ENV)
    if value is None:
        return None
    return frozenset(normalise_name(part) for part in value.split(",") if part.strip())


def normalise_name(name: str) -> str:
    """A package or entry-point name as the allow-list compares it: lower case,
    runs of ``-``, ``_`` and ``.`` as one ``-`` (PEP 503), no surrounding blanks."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def package_version(source: str) -> str | None:
    """The version of the package a plugin comes from (its ``source``, the
    distribution name): Blockyard's own version for the bundled plugins, the
    installed distribution's otherwise, ``None`` for plugins registered at run
    time (:func:`register_plugin`) or a distribution without metadata."""
    if source == BUNDLED_DIST:
        from . import __version__

        return __version__
    if source == "runtime":
        return None
    return distribution_version(source)


def distribution_version(name: str) -> str | None:
    """The version of the installed distribution ``name``, or ``None`` when no
    distribution of that name has metadata here."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def registry() -> Registry:
    """The process-wide registry, loaded from entry points on first use."""
    global _registry
    if _registry is None:
        _registry = _load()
    return _registry


def reload() -> Registry:
    """Forget the registry and load it again (after installing a plugin, or in tests)."""
    global _registry
    _registry = None
    return registry()


def _load() -> Registry:
    reg = Registry()
    loaded_bundled = False
    disabled = plugins_disabled()
    allowed = None if disabled else plugins_allowed()
    unmatched = set(allowed or ())
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP),
                     key=lambda e: (e.dist.name if e.dist else "", e.name)):
        dist = ep.dist.name if ep.dist else "?"
        if ep.value == BUNDLED_MODULE:
            unmatched -= {normalise_name(BUNDLED_DIST), normalise_name(ep.name)}
            if loaded_bundled:
                continue
            loaded_bundled = True
        elif disabled:
            continue
        elif allowed is not None:
            names = {normalise_name(dist), normalise_name(ep.name)}
            if not names & allowed:
                continue
            unmatched -= names
        try:
            obj = ep.load()
        except Exception as exc:
            message = f"plugin package {dist!r} (entry point {ep.name!r}) failed to load: {exc}"
            reg.problems.append(message)
            warnings.warn(message, stacklevel=2)
            continue
        reg.add_module(obj, dist)
    if not loaded_bundled:
        # Blockyard's own metadata is missing (a source tree on sys.path):
        # register the bundled plugins exactly as the entry point would.
        reg.add_module(importlib.import_module(BUNDLED_MODULE), BUNDLED_DIST)
    for name, entry in _runtime.items():
        reg.plugins.setdefault(name, entry)
    for name in sorted(unmatched):
        message = f"{LOAD_ENV} names {name!r}, but no installed plugin package has that name"
        reg.problems.append(message)
        warnings.warn(message, stacklevel=2)
    return reg


def as_path(location: Any) -> Path:
    """A filesystem path for a registered ruleset location."""
    return Path(str(location))
