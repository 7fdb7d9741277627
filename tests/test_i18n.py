"""Languages: the catalogues in step with the source, the language chosen and
applied at once, numbers and dates per language, and rule-file texts per
language ([display.i18n.<language>])."""

from __future__ import annotations

import datetime as dt
import textwrap
from pathlib import Path

import pytest

import blockyard
from blockyard import RulesetError
from blockyard.frontend import catalogues, i18n


def test_every_text_is_translated_and_every_translation_used():
    # extracts the source into a fresh catalogue and compares it with each .po
    assert list(catalogues.problems()) == []


def test_the_check_finds_untranslated_unused_and_broken_texts(monkeypatch):
    real = catalogues.extract
    template = real()
    template.add("A text nobody translated", locations=[("frontend/x.py", 1)])
    monkeypatch.setattr(catalogues, "extract", lambda: template)
    found = list(catalogues.problems())
    assert {line.split(":")[0] for line in found} == {"de", "es", "ne"}
    assert all("untranslated" in line and "A text nobody translated" in line for line in found)
    # a text of the .po that the source no longer has
    smaller = real()
    smaller.delete("Swap")
    monkeypatch.setattr(catalogues, "extract", lambda: smaller)
    assert sorted(catalogues.problems()) == [
        f"{code}: unused (no longer in the source): 'Swap'" for code in ("de", "es", "ne")]


def test_a_translation_that_loses_a_field_is_refused(monkeypatch, tmp_path):
    de = catalogues.read("de")
    de["Best {points}"].string = "Bestwert"
    monkeypatch.setattr(catalogues, "read",
                        lambda code, real=catalogues.read: de if code == "de" else real(code))
    found = [p for p in catalogues.problems() if p.startswith("de:")]
    assert any("the fields of 'Best {points}'" in p for p in found)
    assert any("blockyard.mo is not the compiled" in p for p in found)


def test_every_language_has_a_compiled_catalogue_in_the_package():
    for code in ("de", "es", "ne"):
        mo = i18n.LOCALE_DIR / code / "LC_MESSAGES" / "blockyard.mo"
        assert mo.is_file(), mo
    assert (Path(i18n.__file__).parent / "assets" / "fonts" / "OFL.txt").is_file()


@pytest.mark.parametrize(("environ", "expected"), [
    ({}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "es_MX.UTF-8", "LC_MESSAGES": "ne_NP.UTF-8"}, "ne"),
    ({"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE"}, "en"),   # the first set variable decides
    ({"LANGUAGE": "fr:es:de", "LANG": "de_DE"}, "es"),    # a list: the first supported
    ({"LANGUAGE": "fr", "LANG": "ne_NP"}, "ne"),
])
def test_the_language_follows_the_system(environ, expected):
    assert i18n.system_language(environ) == expected


def test_set_language_applies_at_once_and_tells_listeners():
    heard: list[str] = []
    stop = i18n.on_change(heard.append)
    try:
        assert i18n._("No piece fits") == "No piece fits"
        i18n.set_language("de")
        assert i18n._("No piece fits") == "Kein Stein passt"
        i18n.set_language("ne_NP.UTF-8")
        assert i18n.language() == "ne"
        assert i18n._("No piece fits") == "कुनै टुक्रा अटाउँदैन"
        assert i18n.ngettext("{n} point", "{n} points", 1) == "{n} अङ्क"
        i18n.set_language("es")
        assert i18n.ngettext("{n} point", "{n} points", 1) == "{n} punto"
        assert i18n.ngettext("{n} point", "{n} points", 2) == "{n} puntos"
        assert heard == ["de", "ne", "es"]
    finally:
        stop()
        i18n.set_language("en")
    with pytest.raises(ValueError, match="no such language 'fr'; the languages are de, en, es, ne"):
        i18n.set_language("fr")
    assert i18n.language() == "en"


@pytest.mark.parametrize(("code", "number", "date", "long_date"), [
    ("en", "1,234,567", "30 Nov 2026", "30 November 2026"),
    ("de", "1.234.567", "30.11.2026", "30. November 2026"),
    ("es", "1.234.567", "30 nov 2026", "30 de noviembre de 2026"),
    ("ne", "१२,३४,५६७", "२०२६ नोभेम्बर ३०", "२०२६ नोभेम्बर ३०"),
])
def test_numbers_and_dates_follow_the_language(code, number, date, long_date):
    i18n.set_language(code)
    assert i18n.format_number(1234567) == number
    assert i18n.format_date(dt.date(2026, 11, 30)) == date
    assert i18n.format_date(dt.date(2026, 11, 30), "long") == long_date


def test_nepali_digits_can_be_turned_off():
    i18n.set_language("ne")
    assert i18n.format_number(12480) == "१२,४८०"
    assert i18n.localise_digits("3:07") == "३:०७"
    i18n.set_native_digits(False)
    assert i18n.format_number(12480) == "12,480"
    assert i18n.format_date(dt.date(2026, 1, 5)) == "2026 जनवरी 5"
    assert i18n.localise_digits("३:०७") == "3:07"
    i18n.set_native_digits(True)
    i18n.set_language("de")
    assert i18n.localise_digits("3:07") == "3:07"


def test_bundled_rule_files_speak_all_four_languages():
    for info in blockyard.list_rulesets():
        if not info.path.startswith(str(Path(blockyard.__file__).parent.parent)) and \
                "rulesets" not in info.path:
            continue
        ruleset = blockyard.load_ruleset(info.id)
        if ruleset.id == "diagonals-classic":  # the example plugin's, English only
            continue
        assert set(ruleset.display.languages()) == {"de", "es", "ne"}, ruleset.id
        names = {ruleset.name_in(code) for code in ("en", "de", "es", "ne")}
        assert ruleset.name_in("en") == ruleset.name
        assert any("\u0900" <= ch <= "\u097f" for ch in ruleset.name_in("ne")), ruleset.id
        assert any("\u0900" <= ch <= "\u097f" for ch in ruleset.description_in("ne"))
        assert ruleset.description_in("de") != ruleset.description, ruleset.id
        assert len(names) >= 2 or ruleset.id in ("sudoku-bloxx", "woodoku"), ruleset.id


def test_rule_file_texts_per_language_with_fallbacks():
    today = blockyard.load_ruleset("nepal-today")
    german = today.display.in_language("de")
    assert (german.entry, german.option, german.combo_text(3)) == (
        "Nepal-Blöcke", "Spiel des Tages", "Serie 3")
    assert today.display.in_language("de_at") == german   # a region falls back
    assert today.display.in_language("fr") == today.display  # none given: as written
    assert today.name_in("fr") == today.name
    # the combo cap and other numbers are the rule file's own in every language
    assert german.combo_from == today.display.combo_from


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


BASE = """\
[ruleset]
id = "{id}"
name = "Base"
family = "test"
description = "The base"
extends = "eu-classic"
"""


@pytest.mark.parametrize(("table", "message"), [
    ('[display.i18n.DE]\nname = "x"\n', "display.i18n.DE: expected a language code"),
    ('[display.i18n.de]\ntitle = "x"\n', "display.i18n.de.title"),
    ('[display.i18n.de]\nname = 3\n', "display.i18n.de.name"),
    ('[display.i18n.de]\ncombo_label = "Kombo {m}"\n', "unknown field {m}"),
    ('[display.i18n.de]\nnote = "' + "x" * 301 + '"\n', "at most 300 characters"),
    ('[display.i18n.de.texts]\nstuck = "' + "x" * 201 + '"\n', "at most 200 characters"),
    ("[display.i18n]\nde = 1\n", "display.i18n.de: expected a table"),
])
def test_bad_translations_are_refused_with_their_key(tmp_path, table, message):
    path = _write(tmp_path, "bad.toml", BASE.format(id="bad") + table)
    with pytest.raises(RulesetError) as caught:
        blockyard.load_ruleset(str(path))
    assert message in str(caught.value)


def test_a_variant_keeps_its_own_name_in_every_language(tmp_path):
    base = _write(tmp_path, "base.toml", BASE.format(id="base") + """
[display.i18n.de]
name = "Basis"
description = "Die Basis"
note = "Notiz"
""")
    renamed = _write(tmp_path, "renamed.toml", f"""\
[ruleset]
id = "renamed"
name = "Renamed"
extends = "{base.name}"
""")
    same = _write(tmp_path, "same.toml", f"""\
[ruleset]
id = "same"
extends = "{base.name}"
""")
    translated = _write(tmp_path, "translated.toml", f"""\
[ruleset]
id = "translated"
name = "Renamed"
extends = "{base.name}"

[display.i18n.de]
name = "Umbenannt"
""")
    r = blockyard.load_ruleset(str(renamed))
    # its own English name, not the base's German one; the inherited note stays
    assert (r.name_in("de"), r.description_in("de")) == ("Renamed", "Die Basis")
    assert r.display.in_language("de").note == "Notiz"
    s = blockyard.load_ruleset(str(same))
    assert s.name_in("de") == "Basis"
    t = blockyard.load_ruleset(str(translated))
    assert t.name_in("de") == "Umbenannt"
