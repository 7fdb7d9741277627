"""Blockyard's version, as installed (``importlib.metadata``), in one place that
every module can import without importing the whole package.

The version is the repository's, given by setuptools-scm when the package is
built or installed (pyproject.toml, ``[tool.setuptools_scm]``): a tagged commit
is its tag's version, any other build a development build of the next release
that names its commit, ``0.1.dev597+ga62b116ce`` (597 commits, commit
``a62b116ce``), with ``.dYYYYMMDD`` added when the tree had changes not
committed. ``0.1.dev0`` with nothing after it was built from a tree without git
metadata: its commit is not known. An editable install (``pip install -e .``,
which scripts/setup.sh runs) keeps the version of the commit it was installed
at until it is installed again.
"""

from __future__ import annotations

import importlib.metadata
import re

try:
    __version__ = importlib.metadata.version("blockyard")
except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
    __version__ = "0+unknown"

_RELEASE = re.compile(r"\s*[vV]?(?:(\d+)!)?(\d+(?:\.\d+)*)")


def release(version: str) -> tuple[int, ...] | None:
    """The release a version is a build of, as numbers without trailing zeros
    (the epoch first): ``(0, 0, 1)`` for ``0.1.0``, for ``0.1`` and for the
    development builds ``0.1.dev597+ga62b116ce``; ``None`` for text that does not
    start like a version (PEP 440)."""
    match = _RELEASE.match(version)
    if match is None:
        return None
    numbers = [int(match[1] or 0), *(int(part) for part in match[2].split("."))]
    while len(numbers) > 2 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def same_release(one: str, other: str) -> bool:
    """Whether two versions are builds of the same release (:func:`release`):
    ``0.1.0``, ``0.1.dev597+ga62b116ce`` and ``0.1.dev600+g1a2b3c4.d20261202`` all
    are; text that is no version is the same only as itself."""
    if one == other:
        return True
    mine, theirs = release(one), release(other)
    return mine is not None and mine == theirs
