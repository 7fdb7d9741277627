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
import inspect
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from .errors import PluginError, RulesetError, did_you_mean
from .hookspecs import PROJECT, SPEC_CLASSES, RegistrySpecs
from .params import Params, describe

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


_on_change: list[Callable[[], None]] = []


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever the set of plugins changes (a plugin registered or
    unregistered at run time): :mod:`blockyard.discovery` forgets the rulesets it
    loaded, which may name that plugin."""
    if listener not in _on_change:
        _on_change.append(listener)


def _forget_rulesets() -> None:
    for listener in _on_change:
        listener()


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
        from .version import __version__

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


# ---------------------------------------------------------------------------
# starting the plugins a rule file names
# ---------------------------------------------------------------------------

def build_plugins(table: Any, where: str) -> list[tuple[str, Any]]:
    """Start the plugins a rule file's ``[plugins]`` table names, in file order:
    ``(name, plugin object)`` pairs. Each factory gets its parameter table and must
    read every parameter; each plugin's hook methods may take only arguments their
    hook passes. A :class:`~blockyard.RulesetError` names the key of any fault."""
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
        check_hook_arguments(name, obj, where)
        out.append((name, obj))
    return out


def check_hook_arguments(name: str, plugin: Any, where: str) -> None:
    """Refuse a hook implementation taking an argument its hook does not pass,
    naming the arguments it may take."""
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
