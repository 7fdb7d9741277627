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


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the fuzz figures of tests/test_fuzz.py when it ran."""
    import sys

    for name in ("test_fuzz", "tests.test_fuzz"):
        module = sys.modules.get(name)
        if module is not None:
            for line in module.figure_lines():
                terminalreporter.write_line(line)
            break
