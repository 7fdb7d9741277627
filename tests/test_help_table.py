"""The rule file's [help] table: plain player texts, the bundled rulesets' pages."""

from __future__ import annotations

import pytest
from rule_texts import HELPED

import blockyard
from blockyard.ruleset import HELP_MAX_CHARS


def load(tmp_path, extra: str) -> blockyard.Ruleset:
    path = tmp_path / "helped.toml"
    path.write_text(HELPED + extra, encoding="utf-8")
    return blockyard.load_ruleset(path)


def test_help_texts_are_read_by_name(tmp_path):
    ruleset = load(tmp_path, '[help]\ntext = """\nFirst.\n\nSecond."""\nduel = "A note."\n')
    assert ruleset.help.page == "First.\n\nSecond."
    assert ruleset.help.get("duel") == "A note."
    assert ruleset.help.get("missing", "x") == "x"
    assert bool(ruleset.help)


def test_a_rule_file_without_help_has_an_empty_page(tmp_path):
    ruleset = load(tmp_path, "")
    assert ruleset.help.page == "" and not ruleset.help


@pytest.mark.parametrize("extra, words", [
    ('[help]\ntext = 3\n', "help.text"),
    ('[help]\n"Bad Name" = "x"\n', "lower-case name"),
    (f'[help]\ntext = "{"x" * (HELP_MAX_CHARS + 1)}"\n', f"at most {HELP_MAX_CHARS}"),
    ('[hepl]\ntext = "x"\n', "did you mean 'help'"),
])
def test_bad_help_tables_are_refused_by_name(tmp_path, extra, words):
    with pytest.raises(blockyard.RulesetError, match=words.replace("(", r"\(")):
        load(tmp_path, extra)


RULE_WORDS = {  # every rule a player meets, in the page of the rulesets that have it
    "eu-classic": ["Combo", "Perfect clear", "continue"],
    "eu-daily": ["practice", "first finished game"],
    "eu-zen": ["no game over"],
    "tiered": ["tier", "Swaps", "Combo", "Perfect clear"],
    "tiered-gravity": ["gravity", "tier", "Swaps"],
    "arcadeforge": ["gravity"],
    "arcadeforge-rotate": ["Rotate"],
    "woodoku": ["3×3 block", "Streak"],
    "nepal-today": ["Streak", "midnight"],
    "sudoku-bloxx": ["sudoku rule", "Golden digits", "Symbol stones", "Jokers", "Errors",
                     "Discards"],
}


@pytest.mark.parametrize("ruleset_id", sorted(RULE_WORDS))
def test_bundled_pages_cover_their_rules(ruleset_id):
    page = blockyard.load_ruleset(ruleset_id).help.page
    for word in RULE_WORDS[ruleset_id]:
        assert word.lower() in page.lower(), (ruleset_id, word)


def test_every_bundled_ruleset_has_a_page_and_the_tiered_ones_a_duel_note():
    for info in blockyard.list_rulesets():
        ruleset = blockyard.load_ruleset(info.path)
        if info.path is not None and "rulesets" in str(info.path):
            assert ruleset.help.page, ruleset.id
    for rid in ("tiered", "tiered-gravity"):
        note = blockyard.load_ruleset(rid).help.get("duel")
        assert "equal only while" in note and "tier" in note
