"""Live tables (to come)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI

if TYPE_CHECKING:
    from .app import Server


def install(app: FastAPI, server: Server) -> None:
    """Add the table routes to ``app``."""
