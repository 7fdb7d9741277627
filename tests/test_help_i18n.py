"""[help.i18n.<language>]: the how-to-play texts in other languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rule_texts import HELPED

import blockyard
from blockyard.ruleset import Help

RULESETS = Path(__file__).resolve().parent.parent / "rulesets"


def load(tmp_path, extra: str, name: str = "helped") -> blockyard.Ruleset:
    path = tmp_path / f"{name}.toml"
    path.write_text(HELPED.replace('"helped"', f'"{name}"') + extra, encoding="utf-8")
    return blockyard.load_ruleset(path)


def test_translated_help_texts_are_read_with_english_fallback(tmp_path):
    ruleset = load(tmp_path, '[help]\ntext = "Page."\nduel = "Note."\n'
                   '[help.i18n.de]\ntext = """\nSeite.\n\nZwei."""\n'
                   '[help.i18n.ne]\nduel = "टिप्पणी।"\n')
    help_ = ruleset.help
    assert help_.languages() == ("de", "ne")
    assert help_.page_in("de") == "Seite.\n\nZwei."
    assert help_.page_in("de_at") == "Seite.\n\nZwei."     # region falls back to the language
    assert help_.text_in("duel", "de") == "Note."          # not translated: English
    assert help_.text_in("duel", "ne") == "टिप्पणी।"
    assert help_.page_in("ne") == "Page."
    assert help_.page_in("es") == "Page."
    assert help_.page_in("en") == "Page."
    assert help_.page == "Page."                           # English stays as it was
    assert help_.text_in("missing", "de", "x") == "x"
    assert Help().page_in("de") == ""


@pytest.mark.parametrize(("extra", "key", "words"), [
    ('[help]\ntext = "P."\n[help.i18n.de]\nduel = "N."\n', "help.i18n.de.duel",
     "no [help] duel to translate"),
    ('[help]\ntext = "P."\n[help.i18n.de]\ntexte = "N."\n', "help.i18n.de.texte",
     "did you mean 'text'"),
    ('[help]\ntext = "P."\n[help.i18n.DE]\ntext = "N."\n', "help.i18n.DE", "language code"),
    ('[help]\ntext = "P."\n[help.i18n.de]\ntext = 3\n', "help.i18n.de.text", "expected a string"),
    ('[help]\ntext = "P."\n[help.i18n]\nde = "x"\n', "help.i18n.de", "expected a table"),
    ('[help]\ntext = "P."\n[help.i18n.de]\ntext = "' + "x" * 4001 + '"\n', "help.i18n.de.text",
     "at most 4000 characters"),
])
def test_bad_translations_are_named(tmp_path, extra, key, words):
    with pytest.raises(blockyard.RulesetError) as info:
        load(tmp_path, extra)
    assert info.value.key == key
    assert words in str(info.value)


def test_a_variant_with_its_own_page_drops_the_inherited_translations(tmp_path):
    load(tmp_path, '[help]\ntext = "Base page."\nduel = "Base note."\n'
         '[help.i18n.de]\ntext = "Basisseite."\nduel = "Basisnotiz."\n'
         '[help.i18n.es]\ntext = "Página base."\n', name="base")
    variant = tmp_path / "variant.toml"
    variant.write_text('[ruleset]\nextends = "base.toml"\nid = "variant"\n'
                       '[help]\ntext = "Variant page."\n'
                       '[help.i18n.es]\ntext = "Página variante."\n', encoding="utf-8")
    help_ = blockyard.load_ruleset(variant).help
    assert help_.page_in("de") == "Variant page."          # the base's German page is stale
    assert help_.page_in("es") == "Página variante."       # its own translation is kept
    assert help_.text_in("duel", "de") == "Basisnotiz."    # duel not replaced: still inherited
    plain = tmp_path / "plain.toml"
    plain.write_text('[ruleset]\nextends = "base.toml"\nid = "plain"\n', encoding="utf-8")
    assert blockyard.load_ruleset(plain).help.page_in("de") == "Basisseite."


DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")


@pytest.mark.parametrize("path", sorted(RULESETS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_bundled_help_text_is_given_in_german_spanish_and_nepali(path):
    help_ = blockyard.load_ruleset(path).help
    names = [name for name, _ in help_.texts]
    assert "text" in names
    for code in ("de", "es", "ne"):
        given = dict(dict(help_.translations)[code])
        assert sorted(given) == sorted(names), (path.stem, code)
        for name in names:
            english, text = help_.get(name), given[name]
            assert text != english
            assert text.count("\n\n") == english.count("\n\n"), (path.stem, code, name)
            if code == "ne":
                assert re.search("[\u0900-\u097f]", text)
            # every number of the English text is kept (decimal comma or native digits)
            numbers = re.findall(r"\d+", english)
            assert sorted(re.findall(r"\d+", text.translate(DIGITS))) == sorted(numbers), \
                (path.stem, code, name)
