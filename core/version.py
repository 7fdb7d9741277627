"""Blockyard's version, as installed (``importlib.metadata``), in one place that
every module can import without importing the whole package."""

from __future__ import annotations

import importlib.metadata

try:
    __version__ = importlib.metadata.version("blockyard")
except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
    __version__ = "0+unknown"
