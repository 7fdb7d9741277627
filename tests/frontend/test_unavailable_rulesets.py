"""The launcher lists rule files that cannot be loaded (a missing or disabled
plugin, a broken file) greyed at the end, with their reason; choosing one says
why instead of starting a game (issue 22, reproducer 6)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

import blockyard
from blockyard import paths
from blockyard.frontend import theme
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.menus import MenuView

NO_PLUGIN = ('[ruleset]\nextends = "eu-classic"\nid = "needs-nowhere"\nname = "Needs Nowhere"\n'
             "[plugins.nowhere]\n")


def write_user_files() -> None:
    folder = paths.user_rulesets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "needs-nowhere.toml").write_text(NO_PLUGIN, encoding="utf-8")
    (folder / "not-toml.toml").write_text("this is [not toml\n", encoding="utf-8")


@pytest.fixture
def short_home(isolated_home, monkeypatch):
    """A home at a short path, the same length on every machine and parallel worker:
    the reason shown begins with the rule file's path, and the launcher's line ends
    a text too long for it with "…" (a path as long as a worker's temporary folder's
    left only " …" of it)."""
    folder = Path(tempfile.mkdtemp(prefix="by-"))
    monkeypatch.setenv("BLOCKYARD_HOME", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_rulesets_that_cannot_load_are_greyed_with_their_reason_and_say_why(short_home, ui):
    write_user_files()
    broken = {info.id: info.error for info in blockyard.list_rulesets() if info.error}
    assert set(broken) == {"needs-nowhere", "not-toml"}
    ui.app.show_launcher()
    ui.pump(3)
    view = ui.view
    assert isinstance(view, LauncherView)
    # listed, last, under their own heading, with the reason as their description
    tail = view.entries[-2:]
    assert [(e.ruleset_id, e.family) for e in tail] == [("needs-nowhere", "unavailable"),
                                                         ("not-toml", "unavailable")]
    assert [e.error for e in tail] == [broken["needs-nowhere"], broken["not-toml"]]
    assert "unknown plugin 'nowhere'" in tail[0].error
    assert tail[0].texts[1].text.startswith(tail[0].error[:20])
    assert tail[0].texts[2].text == "cannot be loaded · Enter shows why"
    assert view.headers[-1].text == "Cannot be loaded"
    # every ruleset that loads is still there
    assert {rid for e in view.entries[:-2] for _, rid in e.options} == {
        info.id for info in blockyard.list_rulesets() if info.error is None}

    # ↑ from the first row goes round to the last: the greyed row is shown, greyed
    view.selected = 0
    ui.key("Up")
    assert view.selected == len(view.entries) - 1
    row = view.entries[-1]
    assert row.rect.bottom >= view.list_bottom - 1 and row.rect.top <= view.list_top + 1
    assert ui.pixel(row.rect.right - 3, row.rect.bottom + 3) == theme.DISABLED[:3]
    title = row.texts[0]
    image = ui.screenshot()
    top = ui.window.height - 1 - round(view.text_offset)  # the list's camera moves its texts
    box = image.crop((round(title.left), top - round(title.top),
                      round(title.left + title.content_width), top - round(title.bottom)))
    colours = {c[:3] for c in box.getdata()}
    assert theme.DISABLED_TEXT[:3] in colours and theme.TEXT[:3] not in colours

    # Enter says why, and starts no game; Esc goes back
    ui.key("Return")
    assert isinstance(ui.view, MenuView)
    assert ui.view.title.text == "not-toml cannot be loaded"
    assert ui.view.lines[0].text == broken["not-toml"]
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)

    # a click on the greyed row says why too; so do the row's keys (stats, rules …)
    view = ui.view
    view.selected = len(view.entries) - 2
    view._ensure_visible()
    ui.pump(2)
    row = view.entries[-2]
    ui.click(row.rect.center_x, row.rect.center_y)
    assert isinstance(ui.view, MenuView)
    assert ui.view.title.text == "Needs Nowhere cannot be loaded"
    assert ui.view.lines[0].text == broken["needs-nowhere"]
    ui.key("Return")  # Back
    assert isinstance(ui.view, LauncherView)
    ui.view.selected = len(ui.view.entries) - 1
    ui.key("t")
    assert isinstance(ui.view, MenuView)
    assert ui.view.title.text == "not-toml cannot be loaded"


def test_the_window_opens_with_a_broken_plugin_package_installed(tmp_path):
    """A package whose registration hook raises: the window still opens (on the
    launcher) and closes normally; standard error has the one line naming it."""
    import os
    import subprocess
    import sys

    site = tmp_path / "site"
    info = site / "badpkg-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "badpkg.py").write_text(
        "from blockyard import hookimpl\n\n@hookimpl\n"
        "def blockyard_register_plugins(register):\n    raise ValueError('boom')\n",
        encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badpkg\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("[blockyard]\nbad = badpkg\n", encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "blockyard", "--quit-after", "0.5"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Warning" not in done.stderr
    assert [line for line in done.stderr.splitlines() if "badpkg" in line] == [
        "blockyard: plugin package 'badpkg' (entry point 'bad') is disabled: "
        "blockyard_register_plugins raised ValueError: boom"]
