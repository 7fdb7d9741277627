"""blockyard(1), docs/blockyard.1: made from the command's argument parser by
scripts/manpage.py, so it says every subcommand and option the command takes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "manpage.py"


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("manpage_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_page_is_the_one_the_parser_makes() -> None:
    script = _script()
    shipped = script.PAGE.read_text(encoding="utf-8")
    assert shipped.startswith('.TH BLOCKYARD "1" ')
    assert script.undated(shipped) == script.undated(script.manpage("any day")), \
        "docs/blockyard.1 is out of date: run .venv/bin/python scripts/manpage.py"


def test_the_page_names_every_subcommand_and_option() -> None:
    page = (ROOT / "docs" / "blockyard.1").read_text(encoding="utf-8")
    for said in ("blockyard serve", "\\-\\-config", "\\-\\-workers", "blockyard list",
                 "\\-\\-json", "blockyard simulate", "blockyard serve\\-db"):
        assert said in page, said

