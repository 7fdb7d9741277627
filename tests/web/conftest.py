"""Fixtures of the web page's tests: the site built once per module, one headless
Chromium per module (so per parallel worker: a module's tests stay on one), and a
fresh browser context, with its own storage, for each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import browser, new_page, static_server

__all__ = ["browser", "new_page"]  # the browser's fixtures, shared with tests/server


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
