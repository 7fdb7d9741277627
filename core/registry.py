"""The plugin registry: rule plugins and rule files contributed by packages.

Every package, Blockyard itself included, contributes through the entry-point
group ``blockyard``: the entry point names a module (or object) implementing
the hooks of :class:`~blockyard.hookspecs.RegistrySpecs`. Setting the
environment variable ``BLOCKYARD_DISABLE_PLUGINS=1`` skips every entry point
that does not belong to the ``blockyard`` distribution.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from .errors import PluginError
from .hookspecs import PROJECT, RegistrySpecs
from .modes import Mode

ENTRY_POINT_GROUP = "blockyard"
DISABLE_ENV = "BLOCKYARD_DISABLE_PLUGINS"
BUNDLED_MODULE = "blockyard.plugins.bundled"
BUNDLED_DIST = "blockyard"
BUNDLED_BOTS = frozenset({"random", "greedy", "search"})
BUNDLED_MODES = frozenset({"tray", "falling"})


@dataclass(frozen=True, slots=True)
class PluginEntry:
    """A registered rule plugin: its name, factory and the package providing it."""

    name: str
    factory: Callable[..., Any]
    source: str


@dataclass
class Registry:
    """Rule plugins, bots and game modes by name and the rule-file locations
    packages contribute."""

    plugins: dict[str, PluginEntry] = field(default_factory=dict)
    bots: dict[str, PluginEntry] = field(default_factory=dict)
    modes: dict[str, Mode] = field(default_factory=dict)
    mode_sources: dict[str, str] = field(default_factory=dict)
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
        except Exception as exc:  # pluggy validation error
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

        def register_mode(mode: Mode) -> None:
            if not isinstance(mode, Mode):
                raise PluginError(f"plugin package {source!r} registered a mode that is not a "
                                  f"blockyard.modes.Mode: {mode!r:.80}")
            old = self.mode_sources.get(mode.name)
            bundled = mode.name in BUNDLED_MODES and source != BUNDLED_DIST
            if bundled or (old is not None and self.modes[mode.name] is not mode):
                by = "Blockyard" if bundled else repr(old)
                message = f"mode name {mode.name!r} of {source!r} is taken (by {by}); skipped"
                self.problems.append(message)
                warnings.warn(message, stacklevel=2)
                return
            self.modes[mode.name] = mode
            self.mode_sources[mode.name] = source

        pm.hook.blockyard_register_plugins(register=register_plugin)
        pm.hook.blockyard_register_modes(register=register_mode)
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
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP),
                     key=lambda e: (e.dist.name if e.dist else "", e.name)):
        dist = ep.dist.name if ep.dist else "?"
        if ep.value == BUNDLED_MODULE:
            if loaded_bundled:
                continue
            loaded_bundled = True
        elif disabled:
            continue
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
    return reg


def as_path(location: Any) -> Path:
    """A filesystem path for a registered ruleset location."""
    return Path(str(location))
