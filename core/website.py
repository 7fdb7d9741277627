"""The web page as a static site (``blockyard web build DIR``; docs/web.md).

The page (``frontend/web/``: HTML, CSS and ES modules, served as they are) runs
Blockyard's own engine in the browser through Pyodide. :func:`build` writes
everything it loads into one folder any web server can serve, with nothing
fetched from elsewhere at run time:

- the page's own files, and ``play/<ruleset id>/index.html`` for every ruleset
  found, so that ``/play/<id>`` opens a game on a plain static server too;
- ``fonts/``: the window's Devanagari font (Nepali), with its licence;
- ``pyodide/``: Pyodide's runtime files, from the npm package pinned by
  ``frontend/web/package-lock.json`` (``npm ci`` in ``frontend/web`` installs it);
- ``blockyard.zip``: the pure-Python parts play needs, which the page's worker
  unpacks into Pyodide's file system: Blockyard's core (not the server), the
  rule plugins, the rule files, the window's catalogues with the window-free
  modules that read them (``blockyard.frontend.i18n``, ``.rulewords``,
  ``.webbridge``), and the pure-Python packages they import (pluggy, tomli-w,
  platformdirs, tzdata, and Babel with the locales of the four languages), each
  with its ``.dist-info`` so that ``importlib.metadata`` finds Blockyard's
  version and its plugins' entry points as in an installation.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import io
import json
import os
import re
import shutil
import tempfile
import threading
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .version import __version__

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
"""The files of the npm package ``pyodide`` the page loads (no others: no CDN)."""

PAGE_SUFFIXES = (".html", ".mjs", ".js", ".css", ".webmanifest", ".svg", ".png")
"""The kinds of files of ``frontend/web/`` that are the page's own."""

NOT_PAGE = ("node_modules", "package.json", "package-lock.json")
"""What ``frontend/web/`` holds that is not the page (its build tooling)."""

FRONTEND_MODULES = ("__init__.py", "i18n.py", "rulewords.py", "webbridge.py")
"""The window-free modules of ``blockyard.frontend`` the page runs."""

CORE_LEFT_OUT = ("server",)
"""Folders of the core the page does not run."""

DEPENDENCIES = ("pluggy", "tomli_w", "platformdirs", "tzdata", "babel")
"""The pure-Python packages (import names) Blockyard imports while playing."""

BABEL_LOCALES = ("en_GB", "de_DE", "es_ES", "ne_NP")
"""The Babel locales of the page's four languages (as the window's
``blockyard.frontend.i18n.BABEL_LOCALES``)."""

FONTS = ("NotoSansDevanagari-Regular.ttf", "NotoSansDevanagari-Bold.ttf", "OFL.txt")
"""The window's fonts the page serves itself (``fonts/``): Nepali's script, which
browsers often have no font for (the page's style asks for it only for
Devanagari text); with their licence."""

ARCHIVE = "blockyard.zip"
"""The name of the Python archive in the site."""

_FIXED_TIME = (2020, 1, 1, 0, 0, 0)  # every archive entry's time: the same build, the same bytes


class WebBuildError(RuntimeError):
    """The site cannot be built; the message says what is missing and how to get it."""


@dataclass(frozen=True)
class SiteReport:
    """What :func:`build` wrote: the folder, its files and their bytes in all."""

    folder: Path
    files: int
    bytes: int
    archive_bytes: int
    pyodide_version: str


def _package_folder(name: str) -> Path:
    """The folder of package ``name``, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise WebBuildError(f"package {name!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def page_sources() -> Path:
    """``frontend/web/``: the page's sources, its package.json and lockfile."""
    return _package_folder("blockyard.frontend") / "web"


def pyodide_folder(sources: Path | None = None) -> tuple[Path, str]:
    """The installed npm package ``pyodide`` and its version; it must be the
    version ``package.json`` pins, or the build says to run ``npm ci``."""
    sources = sources if sources is not None else page_sources()
    folder = sources / "node_modules" / "pyodide"
    wanted = json.loads((sources / "package.json").read_text("utf-8"))["dependencies"]["pyodide"]
    hint = f"run `npm ci` in {sources} (Node.js and npm: docs/web.md)"
    try:
        installed = json.loads((folder / "package.json").read_text("utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise WebBuildError(f"Pyodide {wanted} is not installed in {folder}: {hint}") from None
    if installed != wanted:
        raise WebBuildError(f"{folder} holds Pyodide {installed}, package.json pins {wanted}: "
                            f"{hint}")
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        raise WebBuildError(f"{folder} lacks {', '.join(missing)}: {hint}")
    return folder, installed


def _python_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc",
                                                                                     ".pyo"):
            yield path


def _babel_data_files() -> set[str]:
    """Babel's locale files the four languages load (each locale and those it
    inherits from), as names under ``babel/locale-data``."""
    import babel.localedata
    from babel import Locale

    needed = {"root.dat"}
    for name in BABEL_LOCALES:
        chain = [name]
        # Babel's parents: an explicit exception (en_GB -> en_001), else the name cut short
        exceptions = babel.core.get_global("parent_exceptions")
        current = name
        while True:
            parent = exceptions.get(current) or (current.rsplit("_", 1)[0] if "_" in current
                                                 else None)
            if parent is None:
                break
            chain.append(parent)
            current = parent
        Locale.parse(name)  # a locale Babel does not know fails here, not in the page
        needed.update(f"{part}.dat" for part in chain)
    folder = Path(babel.localedata._dirname)
    missing = sorted(n for n in needed if not (folder / n).is_file())
    if missing:
        raise WebBuildError(f"Babel lacks the locale files {', '.join(missing)}")
    return needed


def _archive_entries() -> Iterator[tuple[str, bytes]]:
    """Every (name, bytes) of the Python archive."""
    core = _package_folder("blockyard")
    for path in _python_files(core):
        relative = path.relative_to(core)
        if relative.parts[0] in CORE_LEFT_OUT:
            continue
        yield f"blockyard/{relative.as_posix()}", path.read_bytes()
    for package in ("plugins", "rulesets"):
        folder = _package_folder(f"blockyard.{package}")
        for path in _python_files(folder):
            yield f"blockyard/{package}/{path.relative_to(folder).as_posix()}", path.read_bytes()
    frontend = _package_folder("blockyard.frontend")
    for name in FRONTEND_MODULES:
        yield f"blockyard/frontend/{name}", (frontend / name).read_bytes()
    for path in sorted((frontend / "locale").rglob("*.mo")):
        yield f"blockyard/frontend/{path.relative_to(frontend).as_posix()}", path.read_bytes()
    entry_points = importlib.metadata.distribution("blockyard").entry_points
    own = [ep for ep in entry_points if ep.group == "blockyard"]
    yield from _dist_info("blockyard", __version__, own)
    babel_data = _babel_data_files()
    for name in DEPENDENCIES:
        folder = _package_folder(name)
        for path in _python_files(folder):
            relative = path.relative_to(folder)
            if name == "babel" and relative.parts[0] == "locale-data" \
                    and relative.name not in babel_data:
                continue
            if name == "babel" and relative.parts[0] == "messages":
                continue  # catalogues are compiled before the build; numbers and dates only
            yield f"{name}/{relative.as_posix()}", path.read_bytes()
        distribution = _distribution_of(name)
        yield from _dist_info(distribution.metadata["Name"], distribution.version, [])


def _distribution_of(import_name: str) -> importlib.metadata.Distribution:
    for dist_name in importlib.metadata.packages_distributions().get(import_name, []):
        return importlib.metadata.distribution(dist_name)
    raise WebBuildError(f"no installed distribution provides {import_name!r}")


def _dist_info(name: str, version: str, entry_points: Iterable[importlib.metadata.EntryPoint]
               ) -> Iterator[tuple[str, bytes]]:
    folder = f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    yield f"{folder}/METADATA", metadata.encode()
    points = list(entry_points)
    if points:
        groups: dict[str, list[str]] = {}
        for ep in points:
            groups.setdefault(ep.group, []).append(f"{ep.name} = {ep.value}")
        text = "".join(f"[{group}]\n" + "\n".join(lines) + "\n\n"
                       for group, lines in groups.items())
        yield f"{folder}/entry_points.txt", text.encode()


def python_archive() -> bytes:
    """The zip of the pure-Python parts the page's worker unpacks (same build, same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in _archive_entries():
            info = zipfile.ZipInfo(name, _FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def _page_files(sources: Path) -> Iterator[Path]:
    for path in sorted(sources.rglob("*")):
        relative = path.relative_to(sources)
        if relative.parts[0] in NOT_PAGE or not path.is_file():
            continue
        if path.suffix in PAGE_SUFFIXES:
            yield path


def with_base(index_html: str, base: str) -> str:
    """The page's ``index.html`` with its ``<base href>`` set to ``base`` (the site's
    root seen from where the page is served: ``./``, ``../../``, ``/``)."""
    return index_html.replace('<base href="./">', f'<base href="{base}">', 1)


def build(folder: Path, *, ruleset_ids: Iterable[str] | None = None,
          archive: bytes | None = None) -> SiteReport:
    """Write the static site into ``folder`` (made when missing; the files of an
    earlier build replaced). ``ruleset_ids``: the ``play/<id>`` pages to write
    (default: every ruleset found); ``archive``: the Python archive when it is
    made already (:func:`python_archive`)."""
    sources = page_sources()
    pyodide, pyodide_version = pyodide_folder(sources)
    if folder.exists() and not folder.is_dir():
        raise WebBuildError(f"{folder} is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    for path in _page_files(sources):
        target = folder / path.relative_to(sources)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    index = (sources / "index.html").read_text("utf-8")
    if ruleset_ids is None:
        from .discovery import list_rulesets

        ruleset_ids = [info.id for info in list_rulesets()]
    for ruleset_id in ruleset_ids:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", ruleset_id):
            continue  # an id that is no plain folder name: opened from the launcher only
        page = folder / "play" / ruleset_id / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(with_base(index, "../../"), "utf-8")
    fonts = _package_folder("blockyard.frontend") / "assets" / "fonts"
    (folder / "fonts").mkdir(exist_ok=True)
    for name in FONTS:
        shutil.copyfile(fonts / name, folder / "fonts" / name)
    (folder / "pyodide").mkdir(exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copyfile(pyodide / name, folder / "pyodide" / name)
    archive = archive if archive is not None else python_archive()
    (folder / ARCHIVE).write_bytes(archive)
    files = [p for p in folder.rglob("*") if p.is_file()]
    return SiteReport(folder=folder, files=len(files), bytes=sum(p.stat().st_size for p in files),
                      archive_bytes=len(archive), pyodide_version=pyodide_version)


_served_lock = threading.Lock()
_served: Path | None = None


def served_site(cache: Path | None = None) -> Path:
    """The site ``blockyard serve`` serves, built on first use into ``cache``
    (default: ``web/`` in Blockyard's data folder) under a name that is the
    digest of what it is built from (the Python archive, the page's files,
    Pyodide's version), so a server of other code builds again and several
    server processes share one build. Raises :class:`WebBuildError` when the
    page cannot be built (Pyodide not installed: ``npm ci``)."""
    global _served
    with _served_lock:
        if _served is not None and (_served / "index.html").is_file():
            return _served
        sources = page_sources()
        _folder, pyodide_version = pyodide_folder(sources)
        archive = python_archive()
        digest = hashlib.sha256(archive)
        digest.update(pyodide_version.encode())
        for path in _page_files(sources):
            digest.update(path.relative_to(sources).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
        if cache is None:
            from .paths import data_dir

            cache = data_dir() / "web"
        folder = cache / digest.hexdigest()[:16]
        if not (folder / "index.html").is_file():
            cache.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".building-", dir=cache))
            try:
                build(staging, archive=archive)
                try:
                    os.rename(staging, folder)
                except OSError:  # another process built it meanwhile: theirs is the same
                    if not (folder / "index.html").is_file():
                        raise
            finally:
                if staging.exists():
                    shutil.rmtree(staging, ignore_errors=True)
        _served = folder
        return folder
