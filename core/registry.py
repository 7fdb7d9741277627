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
    is reported in :attr:`Registry.problems` (and on standard error).

No package can stop Blockyard: whatever a package does while it is imported or
registers (raises, exits, registers a name Blockyard or another package has,
registers something that is no name or no factory, misspells a registration
hook), that package is disabled — none of its plugins, bots or rule folders is
registered — and listed in :attr:`Registry.broken` with the reason; everything
else loads. Each such problem is said once per run as one line on standard
error (``blockyard: plugin package 'x' is disabled: …``). A package that takes
longer than :data:`SLOW_LOAD_SECONDS` to import and register is named the same
way, with the time it took (an import cannot be interrupted safely, so it
completes).

Building a rule file's plugins (:func:`build_plugins`, with the checks of
their hook signatures) lives here too, beside the entries it builds from,
which makes the module a little over 600 lines.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from .errors import PluginError, RulesetError, did_you_mean
from .hookspecs import PROJECT, SPEC_CLASSES, RegistrySpecs
from .modes import Mode
from .params import Params, describe

ENTRY_POINT_GROUP = "blockyard"
DISABLE_ENV = "BLOCKYARD_DISABLE_PLUGINS"
LOAD_ENV = "BLOCKYARD_LOAD_PLUGINS"
BUNDLED_MODULE = "blockyard.plugins.bundled"
BUNDLED_DIST = "blockyard"
BUNDLED_BOTS = frozenset({"random", "greedy", "search"})
REGISTRY_HOOKS = ("blockyard_register_plugins", "blockyard_register_modes",
                  "blockyard_register_bots", "blockyard_register_rulesets")
BUNDLED_MODES = frozenset({"tray", "falling"})
MAX_NAME = 64
SLOW_LOAD_SECONDS = 2.0
"""A plugin package that takes longer than this to import and register is
named on standard error with the time it took."""


_reported: set[str] = set()


def report(message: str) -> None:
    """Say ``message`` once per run: one line ``blockyard: message`` on standard
    error (a message already said, e.g. after :func:`reload`, is not repeated)."""
    line = " ".join(message.split())
    if line in _reported:
        return
    _reported.add(line)
    try:
        sys.stderr.write(f"blockyard: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # no usable standard error
        pass


@dataclass(frozen=True, slots=True)
class BrokenPackage:
    """A plugin package that is disabled because it failed to import or register.

    ``package`` is its distribution name, ``entry_point`` the entry point that
    failed, ``reason`` one line saying what went wrong, and ``plugins`` the
    plugin names it had registered before it failed (none of them is kept)."""

    package: str
    entry_point: str
    reason: str
    plugins: tuple[str, ...] = ()

    def line(self) -> str:
        """The one line reported for this package."""
        return (f"plugin package {self.package!r} (entry point {self.entry_point!r}) is "
                f"disabled: {self.reason}")


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
    """Every problem reported while loading, one line each (broken packages, slow
    packages, taken bot names, unmatched allow-list names)."""
    broken: list[BrokenPackage] = field(default_factory=list)
    """The plugin packages disabled because they failed to import or register."""
    load_seconds: dict[str, float] = field(default_factory=dict)
    """Seconds each plugin package (by distribution name) took to import and register."""
    versions: dict[str, str | None] = field(default_factory=dict, repr=False)
    """The versions :meth:`version_of` looked up, by source (for this registry's life)."""
    distributions: dict[Any, Any] = field(default_factory=dict, repr=False)
    """:func:`blockyard.provenance.ruleset_plugins`'s answers by a ruleset's plugin
    names and mode (for this registry's life; emptied when a plugin is registered)."""

    def version_of(self, source: str) -> str | None:
        """:func:`package_version` of a plugin's ``source``, looked up once per
        registry (reading a distribution's metadata takes about a millisecond; a
        server asks for every game it verifies). :func:`reload` starts anew."""
        if source not in self.versions:
            self.versions[source] = package_version(source)
        return self.versions[source]

    def get(self, name: str) -> PluginEntry | None:
        return self.plugins.get(name)

    def names(self) -> list[str]:
        return sorted(self.plugins)

    def broken_package(self, package: str) -> BrokenPackage | None:
        """The :class:`BrokenPackage` of a distribution name, or ``None``."""
        return next((b for b in self.broken if b.package == package), None)

    def add_module(self, module: Any, source: str) -> None:
        """Register one entry-point object (module or instance) from ``source``.

        All or nothing: when the object misspells a registration hook, a hook
        raises, or it registers a taken plugin name, something that is no name
        or a factory that cannot be called, a :class:`PluginError` naming
        ``source`` is raised and nothing of it is registered (its ``plugins``
        attribute lists the plugin names it had registered). A bot name that
        is taken is reported and skipped, as its hook documents."""
        plugins: dict[str, PluginEntry] = {}
        bots: dict[str, PluginEntry] = {}
        modes: dict[str, Mode] = {}
        paths: list[tuple[Any, str]] = []
        skipped: list[str] = []
        open_ = [True]

        def fail(problem: str, cause: BaseException | None = None) -> PluginError:
            error = PluginError(f"plugin package {source!r}: {problem}")
            error.__cause__ = cause
            error.plugins = tuple(plugins)  # type: ignore[attr-defined]
            return error

        def check_open(what: str) -> None:
            if not open_[0]:
                raise PluginError(f"plugin package {source!r} called {what} after its "
                                  "registration hook returned")

        def register_plugin(name: str, factory: Callable[..., Any]) -> None:
            check_open("register (plugins)")
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
                raise fail(f"registered a plugin whose name is {describe(name)}; expected a "
                           f"name of 1 to {MAX_NAME} characters")
            if not callable(factory):
                raise fail(f"registered the plugin {name!r} with a factory that cannot be "
                           f"called ({describe(factory)})")
            old = plugins.get(name) or self.plugins.get(name)
            if old is not None and old.factory is not factory:
                if old.source == source:
                    raise fail(f"plugin name {name!r} is registered twice by {source!r}")
                if old.source == BUNDLED_DIST:
                    raise fail(f"plugin name {name!r} is taken by Blockyard's own plugin")
                raise fail(f"plugin name {name!r} is registered twice: by {old.source!r} "
                           f"and by {source!r}")
            plugins[name] = PluginEntry(name, factory, source)

        def register_rulesets(path: Any) -> None:
            check_open("register (rulesets)")
            if not isinstance(path, str | os.PathLike) and not hasattr(path, "iterdir"):
                raise fail(f"registered rule files at {describe(path)}; expected a path")
            paths.append((path, source))

        def register_bot(name: str, factory: Callable[..., Any]) -> None:
            check_open("register (bots)")
            if not isinstance(name, str) or not name or len(name) > MAX_NAME \
                    or not callable(factory):
                raise fail("registered a bot without a name or a callable factory")
            old = bots.get(name) or self.bots.get(name)
            if name in BUNDLED_BOTS or (old is not None and old.factory is not factory):
                by = "Blockyard" if name in BUNDLED_BOTS else repr(old.source if old else "")
                skipped.append(f"bot name {name!r} of {source!r} is taken (by {by}); skipped")
                return
            bots[name] = PluginEntry(name, factory, source)

        def register_mode(mode: Mode) -> None:
            check_open("register (modes)")
            if not isinstance(mode, Mode):
                raise fail(f"registered a mode that is not a blockyard.modes.Mode: "
                           f"{describe(mode)}")
            old = modes.get(mode.name) or self.modes.get(mode.name)
            old_source = source if mode.name in modes else self.mode_sources.get(mode.name)
            bundled = mode.name in BUNDLED_MODES and source != BUNDLED_DIST
            if bundled or (old is not None and old is not mode):
                by = "Blockyard" if bundled else repr(old_source)
                skipped.append(f"mode name {mode.name!r} of {source!r} is taken (by {by}); "
                               "skipped")
                return
            modes[mode.name] = mode

        pm = pluggy.PluginManager(PROJECT)
        pm.add_hookspecs(RegistrySpecs)
        for attr in _attributes(module):
            if attr.startswith("blockyard_") and attr not in REGISTRY_HOOKS:
                raise fail(f"{attr} is not a registration hook"
                           f"{did_you_mean(attr, REGISTRY_HOOKS)} (they are: "
                           f"{', '.join(REGISTRY_HOOKS)})")
        try:
            pm.register(module, name=f"{source}:{getattr(module, '__name__', id(module))}")
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise fail(str(exc), exc) from exc
        except Exception as exc:
            raise fail(f"cannot be registered: {type(exc).__name__}: {exc}", exc) from exc
        try:
            for hook, register in (("blockyard_register_plugins", register_plugin),
                                   ("blockyard_register_modes", register_mode),
                                   ("blockyard_register_bots", register_bot),
                                   ("blockyard_register_rulesets", register_rulesets)):
                try:
                    getattr(pm.hook, hook)(register=register)
                except PluginError as exc:
                    if not hasattr(exc, "plugins"):
                        exc.plugins = tuple(plugins)  # type: ignore[attr-defined]
                    raise
                except Exception as exc:
                    raise fail(f"{hook} raised {type(exc).__name__}: {exc}", exc) from exc
        finally:
            open_[0] = False
        self.plugins.update(plugins)
        self.bots.update(bots)
        self.modes.update(modes)
        self.mode_sources.update(dict.fromkeys(modes, source))
        self.ruleset_paths.extend(paths)
        for message in skipped:
            self.problems.append(message)
            report(message)


def _attributes(obj: Any) -> list[str]:
    """The attribute names of an entry-point object (none when it refuses ``dir``)."""
    try:
        return [name for name in dir(obj) if isinstance(name, str)]
    except Exception:
        return []


_registry: Registry | None = None
_loading = False
_registry_lock = threading.RLock()
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
    reg.distributions.clear()
    _runtime[name] = entry
    _forget_rulesets()


def unregister_plugin(name: str) -> None:
    """Remove a plugin registered with :func:`register_plugin`."""
    if name not in _runtime:
        raise PluginError(f"no plugin {name!r} was registered with register_plugin")
    del _runtime[name]
    reg = registry()
    reg.plugins.pop(name, None)
    reg.distributions.clear()
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
    """The process-wide registry, loaded from entry points on first use (once,
    whichever thread asks first; the others wait for it)."""
    global _registry, _loading
    reg = _registry
    if reg is not None:
        return reg
    with _registry_lock:  # reentrant: a plugin package asking while imported is named
        if _registry is None:
            if _loading:
                raise PluginError("a plugin package used Blockyard's plugin registry while "
                                  "it was being imported; register through "
                                  "blockyard_register_plugins instead")
            _loading = True
            try:
                _registry = _load()
            finally:
                _loading = False
        return _registry


def reload() -> Registry:
    """Forget the registry and load it again (after installing a plugin, or in tests)."""
    global _registry
    with _registry_lock:
        _registry = None
        return registry()


def _entry_points() -> list[Any]:
    """The entry points of the ``blockyard`` group, Blockyard's own first, then by
    distribution and entry-point name (so a package can never take a bundled
    plugin's name by loading before Blockyard)."""
    try:
        found = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # unreadable package metadata
        report(f"cannot read the installed packages' entry points: "
               f"{type(exc).__name__}: {exc}")
        return []
    return sorted(found, key=lambda e: (e.value != BUNDLED_MODULE, _dist_name(e),
                                        str(e.name)))


def _dist_name(ep: Any) -> str:
    try:
        name = ep.dist.name if ep.dist else None
    except Exception:
        name = None
    return name if isinstance(name, str) and name else "?"


def _load() -> Registry:
    reg = Registry()
    loaded_bundled = False
    disabled = plugins_disabled()
    allowed = None if disabled else plugins_allowed()
    unmatched = set(allowed or ())
    chosen: dict[str, list[Any]] = {}
    for ep in _entry_points():
        dist = _dist_name(ep)
        if ep.value == BUNDLED_MODULE:
            unmatched -= {normalise_name(BUNDLED_DIST), normalise_name(ep.name)}
            if loaded_bundled:
                continue
            loaded_bundled = True
            dist = BUNDLED_DIST
        elif disabled:
            continue
        elif allowed is not None:
            names = {normalise_name(dist), normalise_name(ep.name)}
            if not names & allowed:
                continue
            unmatched -= names
        chosen.setdefault(dist, []).append(ep)
    if not loaded_bundled:
        # Blockyard's own metadata is missing (a source tree on sys.path):
        # register the bundled plugins exactly as the entry point would.
        reg.add_module(importlib.import_module(BUNDLED_MODULE), BUNDLED_DIST)
    for dist, eps in chosen.items():
        _load_package(reg, dist, eps)
    for name, entry in _runtime.items():
        reg.plugins.setdefault(name, entry)
    for name in sorted(unmatched):
        message = f"{LOAD_ENV} names {name!r}, but no installed plugin package has that name"
        reg.problems.append(message)
        report(message)
    return reg


def registered_modes() -> dict[str, Mode]:
    """The registered modes by name (a copy)."""
    return dict(registry().modes)


def get_mode(name: str) -> Mode:
    """The registered mode ``name``; ``KeyError`` naming the registered ones."""
    modes = registered_modes()
    try:
        return modes[name]
    except (KeyError, TypeError):
        raise KeyError(f"unknown mode {name!r} (registered modes: "
                       f"{', '.join(sorted(modes))})") from None


def _load_package(reg: Registry, dist: str, eps: list[Any]) -> None:
    """Import and register every entry point of the distribution ``dist``, all or
    nothing: a failure of one disables the whole package (recorded in
    ``reg.broken`` and reported); the time taken is recorded and a slow package
    reported."""
    staged = Registry(dict(reg.plugins), dict(reg.bots), dict(reg.modes),
                      dict(reg.mode_sources), list(reg.ruleset_paths))
    started = time.perf_counter()
    broken: BrokenPackage | None = None
    for ep in eps:
        name = str(getattr(ep, "name", "?"))
        try:
            obj = ep.load()
        except (Exception, SystemExit) as exc:
            kind = "exited" if isinstance(exc, SystemExit) else "failed to import"
            broken = BrokenPackage(dist, name, f"{kind}: {type(exc).__name__}: "
                                   f"{_first_line(exc)}")
            break
        try:
            staged.add_module(obj, dist)
        except PluginError as exc:
            broken = BrokenPackage(dist, name, _first_line(exc).removeprefix(
                f"plugin package {dist!r}: "), tuple(getattr(exc, "plugins", ())))
            break
        except (Exception, SystemExit) as exc:
            broken = BrokenPackage(dist, name, f"{type(exc).__name__}: {_first_line(exc)}")
            break
    seconds = time.perf_counter() - started
    reg.load_seconds[dist] = seconds
    if broken is not None:
        reg.broken.append(broken)
        reg.problems.append(broken.line())
        report(broken.line())
    else:
        reg.plugins.update(staged.plugins)
        reg.bots.update(staged.bots)
        reg.modes.update(staged.modes)
        reg.mode_sources.update(staged.mode_sources)
        reg.ruleset_paths[:] = staged.ruleset_paths
        reg.problems.extend(staged.problems)
    if seconds > SLOW_LOAD_SECONDS:
        message = (f"plugin package {dist!r} took {seconds:.1f} s to import and register "
                   f"(every blockyard command waits for it; over {SLOW_LOAD_SECONDS:g} s "
                   "is slow)")
        reg.problems.append(message)
        report(message)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    line = lines[0] if lines else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."


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
            raise RulesetError(unknown_plugin(name, reg), path=where, key=key)
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


def is_bundled_plugin(name: str) -> bool:
    """Whether the installed plugin ``name`` ships with Blockyard (the purity
    check trusts those: see :func:`blockyard.rulehooks.purity_check`)."""
    entry = registry().get(name)
    return entry is not None and entry.source == BUNDLED_DIST


def unknown_plugin(name: str, reg: Registry) -> str:
    """Why no plugin ``name`` is installed, for a rule file naming it: close
    names, the installed plugins, and the broken package that registered it —
    or, when no package did, every package that failed to import or register
    (one of them may be the one providing it)."""
    owner = next((b for b in reg.broken if name in b.plugins), None)
    if owner is not None:
        return (f"unknown plugin {name!r}: it comes from the plugin package "
                f"{owner.package!r}, which is disabled: {owner.reason}")
    text = (f"unknown plugin {name!r}{did_you_mean(name, reg.names())} "
            f"(installed plugins: {', '.join(reg.names())}")
    if plugins_disabled():
        text += f"; third-party plugins are switched off by {DISABLE_ENV}"
    text += ")"
    return text + disabled_may_provide(reg)


def disabled_may_provide(reg: Registry) -> str:
    """``"; these plugin packages are disabled and may provide it: …"`` when some
    plugin package failed to import or register, else ``""`` (the end of an
    "unknown plugin" or "unknown ruleset" message)."""
    if not reg.broken:
        return ""
    shown = reg.broken[:3]
    more = len(reg.broken) - len(shown)
    return ("; these plugin packages are disabled and may provide it: "
            + "; ".join(f"{b.package!r} ({b.reason})" for b in shown)
            + (f"; and {more} more (blockyard plugins lists them)" if more else ""))


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
