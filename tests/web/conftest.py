"""Fixtures of the web page's tests: the site built once per module, one headless
Chromium per module (so per parallel worker: a module's tests stay on one), and a
fresh browser context, with its own storage, for each test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import CHROMIUM, CHROMIUM_FLAGS, static_server


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page built by ``blockyard web build`` (needs ``npm ci`` in frontend/web,
    which scripts/setup.sh runs)."""
    from blockyard.website import build

    folder = tmp_path_factory.mktemp("site")
    build(folder)
    return folder


@pytest.fixture(scope="module")
def site_url(site: Path) -> Iterator[str]:
    """The built site on a plain static server on 127.0.0.1."""
    with static_server(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS,
                                              headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """``new_page(width=, height=, touch=)``: a page in a context of its own (fresh
    storage), closed after the test; page errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(width: int = 1280, height: int = 800, touch: bool = False) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      has_touch=touch, is_mobile=touch)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == []
