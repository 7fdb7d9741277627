"""Write blockyard(1), the manual page of the ``blockyard`` command, from its
argument parser (``blockyard.cli.build_parser``), so the page says what the
command takes and cannot drift from it (tests/test_manpage.py checks it).

    .venv/bin/python scripts/manpage.py          # writes docs/blockyard.1
    man ./docs/blockyard.1                       # read it

argparse-manpage (in the test extra) turns the parser into roff; every
subcommand's options get a section of their own.
"""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path
from unittest import mock

from argparse_manpage.manpage import Manpage

from blockyard.cli import build_parser

PAGE = Path(__file__).resolve().parent.parent / "docs" / "blockyard.1"
DESCRIPTION = "block puzzles: play, check and simulate rulesets, run the online server"


def manpage(date: str) -> str:
    """The page's roff text, dated ``date`` (argparse wraps its usage lines to the
    terminal's width: set to 80 columns here, so the page is the same wherever it
    is made)."""
    parser = build_parser()
    parser.prog = "blockyard"
    with mock.patch.dict(os.environ, {"COLUMNS": "80"}):
        return str(Manpage(parser, _data={
            "date": date, "project_name": "blockyard", "manual_title": "Blockyard Manual",
            "description": DESCRIPTION}))


def undated(page: str) -> str:
    """``page`` without its title line (``.TH``, which carries the date)."""
    return "\n".join(line for line in page.splitlines() if not line.startswith(".TH "))


def main() -> int:
    PAGE.write_text(manpage(datetime.date.today().isoformat()), encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
