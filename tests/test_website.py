"""blockyard web build (blockyard.website): the static site, and the Python archive
the page's worker unpacks, which must hold everything play imports and nothing of
the server or the window."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import blockyard
from blockyard import cli, website


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    assert cli.main(["web", "build", str(folder)]) == 0
    return folder


def test_the_site_holds_the_page_pyodide_and_every_rulesets_page(site: Path) -> None:
    for name in ("index.html", "app.mjs", "engine.mjs", "worker.mjs", "store.mjs", "sw.js",
                 "style.css", "manifest.webmanifest", "icons/icon-192.png",
                 "fonts/NotoSansDevanagari-Regular.ttf", "blockyard.zip",
                 *(f"pyodide/{n}" for n in website.PYODIDE_FILES)):
        assert (site / name).is_file(), name
    assert '<base href="./">' in (site / "index.html").read_text("utf-8")
    for info in blockyard.list_rulesets():
        page = (site / "play" / info.id / "index.html").read_text("utf-8")
        assert '<base href="../../">' in page
    manifest = json.loads((site / "manifest.webmanifest").read_text("utf-8"))
    assert {icon["src"] for icon in manifest["icons"]} <= \
        {p.relative_to(site).as_posix() for p in (site / "icons").iterdir()}
    assert not (site / "node_modules").exists() and not (site / "package.json").exists()


def test_the_archive_holds_what_play_needs_and_no_server_or_window(site: Path) -> None:
    names = zipfile.ZipFile(site / "blockyard.zip").namelist()
    assert "blockyard/__init__.py" in names and "blockyard/plugins/bundled.py" in names
    assert "blockyard/rulesets/eu-classic.toml" in names
    assert not [n for n in names if n.startswith("blockyard/server/")]
    frontend = {n.split("/", 2)[2] for n in names if n.startswith("blockyard/frontend/")
                and n.endswith(".py")}
    assert frontend == set(website.FRONTEND_MODULES)
    assert "blockyard/frontend/locale/ne/LC_MESSAGES/blockyard.mo" in names
    babel_data = sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("babel/locale-data/"))
    assert babel_data == sorted(f"{n}.dat" for n in ("root", "en", "en_001", "en_GB", "de",
                                                     "de_DE", "es", "es_ES", "ne", "ne_NP"))
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    # the same build, the same bytes
    assert website.python_archive() == (site / "blockyard.zip").read_bytes()


def test_the_archive_plays_on_its_own(site: Path, tmp_path: Path) -> None:
    """Unpacked beside the standard library alone (no site-packages), as the worker
    unpacks it in Pyodide: the bridge starts a game, its plugins found through the
    archive's entry points, and imports nothing of the window or the server."""
    zipfile.ZipFile(io.BytesIO((site / "blockyard.zip").read_bytes())).extractall(tmp_path)
    code = f"""
import json, sys
sys.path.insert(0, {str(tmp_path)!r})
sys.platform = "emscripten"
from blockyard.frontend import webbridge
listed = json.loads(webbridge.handle(json.dumps({{"op": "rulesets", "language": "ne"}})))
game = json.loads(webbridge.handle(json.dumps({{"op": "new", "ruleset": "eu-classic",
                                               "seed": 3, "language": "de"}})))
outside = sorted({{m.split(".")[0] for m in sys.modules}} - set(sys.stdlib_module_names))
print(json.dumps([len(listed["rulesets"]), game["game"]["tray"][0]["piece"], outside,
                  webbridge.__file__]))
"""
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                          text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    count, piece, outside, where = json.loads(done.stdout)
    assert count == len(blockyard.list_rulesets())
    tray = blockyard.new_game("eu-classic", seed=3).tray[0]
    assert tray is not None and piece == tray.id
    assert set(outside) <= {"blockyard", "pluggy", "tomli_w", "platformdirs", "tzdata", "babel",
                            "__main__"}
    assert where.startswith(str(tmp_path))


def test_without_pyodide_installed_the_build_says_to_run_npm_ci(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    sources = tmp_path / "web"
    sources.mkdir()
    (sources / "package.json").write_text('{"dependencies": {"pyodide": "314.0.8"}}')
    monkeypatch.setattr(website, "page_sources", lambda: sources)
    assert cli.main(["web", "build", str(tmp_path / "out")]) == 2
    said = capsys.readouterr().err
    assert "Pyodide 314.0.8 is not installed" in said and "npm ci" in said
    assert not (tmp_path / "out").exists()


def test_the_service_worker_keeps_every_file_the_page_loads(site: Path) -> None:
    # docs/web.md: after one visit the page plays offline, so the service worker's
    # list is the built site: every file but itself, the licence text and the
    # rulesets' own pages (kept as the launcher's page, with its base moved)
    listed = re.search(r"const FILES = \[(.*?)\];", (site / "sw.js").read_text("utf-8"),
                       re.S)
    assert listed is not None
    kept = {name if name != "./" else "index.html"
            for name in re.findall(r'"([^"]+)"', listed.group(1))}
    built = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    loaded = {name for name in built if not name.startswith("play/")
              and name not in ("sw.js", "fonts/OFL.txt")}
    assert kept == loaded
