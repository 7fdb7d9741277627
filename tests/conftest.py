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
