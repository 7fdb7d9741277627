"""Shared fixtures. Every test runs with its own BLOCKYARD_HOME, so no test
reads or writes the player's real settings, records or rule files."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import blockyard


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
                  ) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("BLOCKYARD_HOME", str(home))
    # the window's language follows the system's: the tests' windows speak English
    monkeypatch.setenv("LANGUAGE", "en")
    yield home
    import sys

    i18n = sys.modules.get("blockyard.frontend.i18n")
    if i18n is not None and (i18n.language() != "en" or not i18n.native_digits()):
        i18n.set_native_digits(True)
        i18n.set_language("en")


@pytest.fixture(autouse=True)
def process_wide_hook_limit_restored() -> Iterator[None]:
    """Each test ends with the hook watchdog's process-wide limit it started with
    (an in-process server sets one, as ``blockyard serve`` does: it must not time
    the tests after it)."""
    from blockyard import watchdog

    before = watchdog.default_limit()
    yield
    watchdog.set_default(before)


@pytest.fixture
def register_plugin() -> Iterator[Callable[[str, Any], None]]:
    """Register a rule plugin factory under a name for one test."""
    added: list[str] = []

    def register(name: str, factory: Any) -> None:
        blockyard.register_plugin(name, factory)
        added.append(name)

    yield register
    for name in added:
        blockyard.unregister_plugin(name)


@pytest.fixture
def rule_file(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a rule file (dedented) into a temporary folder and return its path."""

    def write(text: str, name: str = "rules.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


QUAD_MONO_MODULE = """\
\"\"\"quad-mono {version}: each placed cell pays {points} points (a test plugin).\"\"\"

from pathlib import Path

from blockyard import hookimpl
from blockyard.results import Scoring

POINTS = {points}


class QuadMono:
    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        return Scoring(POINTS * move.cells, 0)


@hookimpl
def blockyard_register_plugins(register):
    register("quad-mono", QuadMono)


@hookimpl
def blockyard_register_rulesets(register):
    register(Path(__file__).parent / "rulesets")
"""

QUAD_MONO_RULES = """\
[ruleset]
extends = "eu-classic"
id = "quad-mono"
name = "Quad mono"
family = "quad"

[records]
group = "quad-mono"

[plugins]
line-scoring = false
quad-mono = true
"""


@pytest.fixture(scope="session")
def quad_mono_site(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """Where the test plugin distribution ``quad-mono`` is installed at a
    version: ``quad_mono_site("0.1.0", points=3)`` writes it (once per version
    and points) into a folder of its own as pip installs a package (its module
    ``quad_mono``, which scores ``points`` per placed cell and brings the ruleset
    ``quad-mono``, and its ``.dist-info`` with the ``blockyard`` entry point) and
    returns the folder: put it on a server's ``PYTHONPATH``, or use
    :func:`plugin_at_version` in this process."""
    made: dict[tuple[str, int], Path] = {}

    def site(version: str, points: int = 3) -> Path:
        if (version, points) in made:
            return made[version, points]
        folder = tmp_path_factory.mktemp(f"quad-mono-{version}")
        package = folder / "quad_mono"
        (package / "rulesets").mkdir(parents=True)
        (package / "__init__.py").write_text(
            QUAD_MONO_MODULE.format(version=version, points=points), encoding="utf-8")
        (package / "rulesets" / "quad-mono.toml").write_text(QUAD_MONO_RULES,
                                                             encoding="utf-8")
        info = folder / f"quad_mono-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: quad-mono\n"
                                       f"Version: {version}\n", encoding="utf-8")
        (info / "entry_points.txt").write_text("[blockyard]\nquad-mono = quad_mono\n",
                                               encoding="utf-8")
        made[version, points] = folder
        return folder

    return site


@pytest.fixture
def plugin_at_version(quad_mono_site: Callable[..., Path]) -> Iterator[Callable[..., Path]]:
    """Install ``quad-mono`` at a version in this process until the test ends:
    ``plugin_at_version("0.1.0", points=3)`` puts :func:`quad_mono_site`'s
    folder on ``sys.path`` and loads the plugins again; returns the folder."""
    import importlib
    import sys

    from blockyard import discovery, registry

    added: list[str] = []

    def install(version: str, points: int = 3) -> Path:
        folder = quad_mono_site(version, points)
        for old in added:
            sys.path.remove(old)
        added[:] = [str(folder)]
        sys.path.insert(0, str(folder))
        _load_plugins_again(sys, importlib, registry, discovery)
        return folder

    yield install
    if added:
        for folder in added:
            sys.path.remove(folder)
        _load_plugins_again(sys, importlib, registry, discovery)


def _load_plugins_again(sys: Any, importlib: Any, registry: Any, discovery: Any) -> None:
    sys.modules.pop("quad_mono", None)
    importlib.invalidate_caches()
    registry.reload()
    discovery.clear_caches()


def board(*rows: str) -> str:
    """Join board rows (helper for readable starting positions)."""
    return "\n".join(rows)


def _fuzz_lines() -> list[str]:
    """The fuzz figures of tests/test_fuzz.py if it ran in this process."""
    import sys

    for name in ("test_fuzz", "tests.test_fuzz"):
        module = sys.modules.get(name)
        if module is not None:
            return list(module.figure_lines())
    return []


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A parallel worker hands its fuzz figures to the process that reports."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["fuzz_figures"] = _fuzz_lines()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """(pytest-xdist) A worker ended: keep the fuzz figures it ran."""
    lines = getattr(node, "workeroutput", {}).get("fuzz_figures") or []
    node.config.stash.setdefault(FUZZ_FIGURES, []).extend(lines)


FUZZ_FIGURES = pytest.StashKey[list[str]]()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the fuzz figures of tests/test_fuzz.py when it ran (here or on a
    parallel worker: all its tests run on one, tests/conftest.py's groups)."""
    lines = _fuzz_lines() or terminalreporter.config.stash.get(FUZZ_FIGURES, [])
    for line in lines:
        terminalreporter.write_line(line)


# -- tiers ------------------------------------------------------------------------------------
# Every test is in the core tier unless it needs one of these (registered in
# pyproject.toml; README, "Tests", says how to run one tier): `window` a real window on
# the virtual screen (tests/frontend), `server` a real ``blockyard serve`` (a subprocess
# or the application in this process), `postgresql` the throwaway PostgreSQL cluster,
# `slow` marked by hand on what takes tens of seconds by itself (builds, fuzzers),
# `browser` the web page in a real headless Chromium (tests/web).

SERVER_FIXTURES = frozenset({"server", "strict_server", "postgres", "two_servers",
                             "two_quick"})
"""Fixtures that start a server or its database (tests/server, tests/online and the
window's online tests)."""


def _tier_marks(item: pytest.Item) -> list[str]:
    parts = Path(str(item.fspath)).relative_to(Path(__file__).parent).parts
    marks = []
    if parts[0] == "frontend":
        marks.append("window")
    if parts[0] == "web" or "browser" in getattr(item, "fixturenames", ()):
        marks.append("browser")
    names = set(getattr(item, "fixturenames", ()))
    # a test module that imports the helpers starting a server of its own
    known = getattr(getattr(item, "function", None), "__globals__", {})
    starts_server = "start_server" in known or "serve" in known
    if parts[0] in ("server", "online") or names & SERVER_FIXTURES or starts_server:
        marks.append("server")
    callspec = getattr(item, "callspec", None)
    params = {v for v in callspec.params.values() if isinstance(v, str)} if callspec else set()
    if "postgres" in names or "postgresql" in params:
        marks.append("postgresql")
    return marks


ONE_WORKER_MODULES = frozenset({"tests/test_fuzz.py"})
"""Modules whose tests share state in the process on purpose: test_fuzz.py's last
test checks the figures all its fuzzers counted."""


def _module_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a fixture made once per module (a server, a build)."""
    info = getattr(item, "_fixtureinfo", None)
    for defs in (info.name2fixturedefs.values() if info is not None else ()):
        if any(d.scope in ("module", "package") for d in defs):
            return True
    return False


GROUPS_FILE = "xdist-groups.json"
"""Which tests go to one worker together, as the workers collected them (in the
run's temporary folder; read by :func:`pytest_xdist_make_scheduler`)."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tiers, and keep the tests that share what a module
    makes once (a server, a build) on one parallel worker: each such module is a
    group of its own (the PostgreSQL twins of its tests another group), every
    other test goes to whichever worker is free. (pytest-xdist's own
    ``xdist_group`` marks do not reach its scheduler under this pytest: the
    groups are written for :func:`pytest_xdist_make_scheduler` instead.)"""
    groups = {}
    for item in items:
        marks = _tier_marks(item)
        for name in marks:
            item.add_marker(name)
        module = item.nodeid.split("::")[0]
        if _module_fixture(item) or module in ONE_WORKER_MODULES:
            groups[item.nodeid] = module + ("[postgresql]" if "postgresql" in marks else "")
    # the longest units of work first, so that none starts last and runs alone at
    # the end of a parallel run: the groups holding slow tests (a build, the
    # fuzzers), then the other slow tests, then the other groups, then the rest
    # (each in collection order; every worker sorts alike)
    slow_groups = {groups[item.nodeid] for item in items
                   if item.nodeid in groups and item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        group = groups.get(item.nodeid)
        if group in slow_groups:
            return 0
        if item.get_closest_marker("slow"):
            return 1
        return 2 if group is not None else 3

    items.sort(key=rank)
    if hasattr(config, "workerinput"):
        import json
        import os

        shared = config._tmp_path_factory.getbasetemp().parent  # the run's folder
        temporary = shared / f".{GROUPS_FILE}.{os.getpid()}"
        temporary.write_text(json.dumps(groups))
        os.replace(temporary, shared / GROUPS_FILE)  # every worker writes the same


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """(pytest-xdist, the process that hands out the tests) Each group of
    :func:`pytest_collection_modifyitems` goes to one worker as one unit of work,
    every other test on its own (xdist's scope scheduling, with these scopes)."""
    import json

    from xdist.scheduler import LoadScopeScheduling

    basetemp = config._tmp_path_factory.getbasetemp()

    class GroupScheduling(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # written by the workers before they reported
                path = basetemp / GROUPS_FILE
                self.groups = json.loads(path.read_text()) if path.exists() else {}
            return self.groups.get(nodeid, nodeid)

    return GroupScheduling(config, log)

def pytest_unconfigure(config: pytest.Config) -> None:
    """At the end of the run (in the process that started the workers, or the only
    one): stop the throwaway PostgreSQL cluster if a test started it
    (tests/server/conftest.py wrote how, in the run's temporary folder)."""
    import json
    import shutil
    import subprocess

    if hasattr(config, "workerinput"):
        return
    factory = getattr(config, "_tmp_path_factory", None)
    basetemp = getattr(factory, "_basetemp", None)
    info_path = basetemp / "postgres.json" if basetemp is not None else None
    if info_path is None or not info_path.exists():
        return
    info = json.loads(info_path.read_text())
    info_path.unlink()
    subprocess.run(info["stop"], capture_output=True, timeout=60)
    shutil.rmtree(info["folder"], ignore_errors=True)


HAMMER_EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "hammer"
"""The bundled example of an action aimed at a board cell (MODDING.md)."""


@pytest.fixture
def hammer(register_plugin: Callable[[str, Any], None]) -> Any:
    """The example hammer (examples/hammer) registered for one test: its ruleset."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hammer_example", HAMMER_EXAMPLE / "hammer.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    register_plugin("hammer", module.Hammer)
    return blockyard.load_ruleset(HAMMER_EXAMPLE / "hammer.toml")
