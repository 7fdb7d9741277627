"""Helpers of the web page's tests (fixtures in conftest.py): the built site on a
plain static server on 127.0.0.1, Debian's Chromium driven by Playwright, and
reading the page's data-testid hooks (docs/web.md)."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium (apt, installed by scripts/setup.sh): never a browser of
Playwright's own (``playwright install`` is not run)."""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
"""Without the background-networking flags Chromium keeps calling home, which the
closed test network refuses again and again."""

READY_MS = 120_000
"""A bound on the engine's start and on each answer waited for (a deadline on a
condition of the page, never a measured time): Pyodide takes seconds to start and
a loaded machine may give the browser a small share of a core."""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """A plain HTTP server of ``folder`` on a free port of 127.0.0.1; yields its URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def board_cells(page: Any) -> list[list[int]]:
    """The board as the page shows it: ``data-filled`` of every cell by row."""
    rows = int(page.get_attribute("[data-testid=board]", "data-rows"))
    cols = int(page.get_attribute("[data-testid=board]", "data-cols"))
    filled = page.eval_on_selector_all(
        "[data-testid=board] [data-testid=cell]",
        "cells => cells.map(c => [+c.dataset.row, +c.dataset.col, +c.dataset.filled])")
    board = [[0] * cols for _ in range(rows)]
    for row, col, value in filled:
        board[row][col] = value
    return board


def engine_cells(game: Any) -> list[list[int]]:
    """The engine's board as filled (1) or empty (0)."""
    return [[1 if value else 0 for value in row] for row in game.board]


def tray_pieces(page: Any) -> list[str]:
    """The ``data-piece`` of every tray slot, in slot order."""
    pieces: list[str] = page.eval_on_selector_all(
        "[data-testid=tray-slot]",
        "slots => slots.sort((a, b) => a.dataset.slot - b.dataset.slot)"
        ".map(s => s.dataset.piece)")
    return pieces


def cell_box(page: Any, row: int, col: int) -> dict[str, float]:
    """The bounding box of a board cell on the screen."""
    box: dict[str, float] | None = page.locator(
        f"[data-testid=cell][data-row='{row}'][data-col='{col}']").bounding_box()
    assert box is not None
    return box


def wait_for_ghost(page: Any, row: int, col: int, fits: bool) -> None:
    """Wait until the ghost stands at ``(row, col)`` with ``data-fits`` as given."""
    page.wait_for_selector(f"[data-testid=ghost][data-row='{row}'][data-col='{col}']"
                           f"[data-fits='{1 if fits else 0}']", timeout=READY_MS)


def wait_for_score(page: Any, score: int) -> None:
    """Wait until the page's score shows ``score``."""
    page.wait_for_function(
        "score => document.querySelector('[data-testid=score]')?.textContent === score",
        arg=str(score), timeout=READY_MS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright: one per test module (a
    module's tests stay on one parallel worker)."""
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
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """``new_page(width, height, touch=False)``: a page in a browser context of its
    own (fresh storage), closed after the test; an error in the page fails the test."""
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
