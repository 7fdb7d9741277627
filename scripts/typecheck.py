"""Type-check the package as it is installed (``mypy --strict``).

The repository maps folders to one import package (``core/`` → ``blockyard``,
``plugins/`` → ``blockyard.plugins``, ...), which an editable install resolves
through an import hook that mypy cannot follow. This script lays out the same
package as links under ``build/typecheck/`` and runs mypy on it: ``--strict`` for
``blockyard`` (core), ``blockyard.plugins`` and ``blockyard.frontend``.

Run:  python scripts/typecheck.py   (the test command runs it)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"
CACHE = ROOT / "build" / "mypy-cache"


def lay_out() -> Path:
    package = TREE / "blockyard"
    if TREE.exists():
        shutil.rmtree(TREE)
    package.mkdir(parents=True)
    for source in (ROOT / "core").iterdir():
        if source.suffix in (".py", ".pyi") or source.name == "py.typed":
            os.symlink(source, package / source.name)
    os.symlink(ROOT / "core" / "server", package / "server")
    os.symlink(ROOT / "plugins", package / "plugins")
    os.symlink(ROOT / "frontend", package / "frontend")
    return package


def main() -> int:
    lay_out()
    # the cache outside the tree laid out anew each run: a second run checks only
    # what changed
    command = [sys.executable, "-m", "mypy", "--strict", "--config-file",
               str(ROOT / "pyproject.toml"), "--cache-dir", str(CACHE), "-p", "blockyard"]
    env = {**os.environ, "MYPYPATH": str(TREE)}
    return subprocess.call(command, cwd=TREE, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
