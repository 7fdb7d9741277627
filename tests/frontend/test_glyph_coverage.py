"""Every glyph of every text the window shows is drawn, in all four languages: each
string of the catalogues (English and its de, es and ne translations), of the rule
files and the numbers of each language is laid out by the text component's font
runs, and every character must be in the font chosen for it (none is left to a
font without it, which would draw a gap or a box)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from blockyard.frontend import i18n, text
from blockyard.frontend.catalogues import languages, po_path

ROOT = Path(__file__).resolve().parents[2]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def catalogue_texts() -> list[str]:
    found: list[str] = []
    for code in languages():
        with po_path(code).open("rb") as handle:
            for message in read_po(handle):
                for value in (message.id, message.string):
                    found += [v for v in (value if isinstance(value, tuple) else (value,))
                              if v]
    return found


def rule_file_texts() -> list[str]:
    return [s for path in sorted((ROOT / "rulesets").glob("*.toml"))
            for s in _strings(tomllib.loads(path.read_text(encoding="utf-8")))]


def number_texts() -> list[str]:
    found = []
    for code in ("en", *languages()):
        i18n.set_language(code)
        found += [i18n.format_number(n) for n in (-100, -1, 0, 12480, 1_000_000)]
    i18n.set_language("en")
    return found


@pytest.mark.parametrize("source", [catalogue_texts, rule_file_texts, number_texts],
                         ids=["catalogues", "rule-files", "numbers"])
def test_every_glyph_of_every_text_is_in_the_font_that_draws_it(source):
    texts = source()
    assert len(texts) > 10
    missing = {t: text.missing_glyphs(t) for t in texts if text.missing_glyphs(t)}
    assert missing == {}


@pytest.mark.parametrize("sample", ["−१०० अंक", "६५ → ६५", "← र → ले", "✦ ×२"])
def test_signs_mixed_into_nepali_are_drawn(sample):
    # each sign drawn alone has ink, and the line is as wide as its parts drawn apart
    for ch in sample.replace(" ", ""):
        assert text.render_image(ch, 24).getbbox() is not None, ch
    minus = text.render_image("−", 24).getchannel("A").getbbox()
    left, top, right, bottom = minus
    assert right - left > 2 * (bottom - top)  # a bar, not a missing-glyph box
    assert text.missing_glyphs(sample) == ""
    assert all(not (part.endswith(" ") and which == 2) for which, part in text.runs(sample))
