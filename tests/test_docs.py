"""The documentation is self-contained: every tracked text file points only to
documents inside the repository (README.md, MODDING.md, docs/rules.md,
docs/api.md, …), and every relative Markdown link resolves to a tracked file
(and, for a Markdown target with ``#anchor``, to one of its headings)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
# This file holds sample bad links and references to test the checker with.
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()

# Written in pieces so that this file does not match itself.
FORBIDDEN = (
    "../" + "shared",
    "shared/" + "RULES.md",
    "shared/" + "API.md",
    "RULES" + ".md",
    "API" + ".md",
)
# Citations in the style of documents outside the repository ("RULES §3.3",
# "RULES T7"); in-repo citations read "docs/rules.md §3.3".
FORBIDDEN_PATTERN = re.compile(r"\bRULES" + r" (?:§|T\d)")

LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                         check=True).stdout
    return [name for name in out.decode("utf-8").split("\0") if name]


def read_text(name: str) -> str | None:
    """The file's text, or ``None`` for a binary (or missing) file."""
    try:
        data = (ROOT / name).read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: inline markup dropped, lower case,
    punctuation removed, spaces turned into hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    out: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", markdown)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def markdown_links(text: str) -> list[str]:
    """Link targets of ``[text](target)``, outside code blocks and inline code."""
    prose = INLINE_CODE.sub("", FENCE.sub("", text))
    return LINK.findall(prose)


def broken_links(name: str, text: str, files: set[str], read=read_text) -> list[str]:
    """The relative links of file ``name`` (repository path) that do not resolve.

    In a Markdown file every link counts; in other text files only links whose
    target is a Markdown file (code often looks like ``a[i](x)``)."""
    is_markdown = name.endswith(".md")
    folders = {str(PurePosixPath(f).parent) for f in files}
    folders |= {str(p) for f in files for p in PurePosixPath(f).parents}
    problems = []
    for target in markdown_links(text):
        if SCHEME.match(target) or target.startswith("//"):
            continue
        path_part, _, anchor = target.partition("#")
        path_part = path_part.split("?", 1)[0]
        if not is_markdown and not path_part.endswith(".md"):
            continue
        if not path_part:
            where = name
        else:
            if path_part.startswith("/"):
                problems.append(f"{name}: link {target!r} is absolute")
                continue
            parts: list[str] = []
            escaped = False
            for part in PurePosixPath(PurePosixPath(name).parent, path_part).parts:
                if part == "..":
                    if not parts:
                        escaped = True
                        break
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            where = "/".join(parts)
            if escaped:
                problems.append(f"{name}: link {target!r} leaves the repository")
                continue
            if where not in files and where.rstrip("/") not in folders:
                problems.append(f"{name}: link {target!r} points to {where!r}, "
                                "which is not a file of the repository")
                continue
        if anchor and where.endswith(".md"):
            body = text if where == name else read(where)
            if body is not None and anchor not in anchors(body):
                problems.append(f"{name}: link {target!r}: {where} has no heading "
                                f"with the anchor #{anchor}")
    return problems


# -- the repository ----------------------------------------------------------------------

def test_no_file_points_outside_the_repository_documents():
    offenders = []
    for name in tracked_files():
        text = None if name == SELF else read_text(name)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits = [word for word in FORBIDDEN if word in line]
            if FORBIDDEN_PATTERN.search(line):
                hits.append(FORBIDDEN_PATTERN.search(line).group(0))
            if hits:
                offenders.append(f"{name}:{number}: {', '.join(hits)}: {line.strip()}")
    assert not offenders, "references to documents outside the repository:\n" + \
        "\n".join(offenders)


def test_every_relative_markdown_link_resolves():
    names = tracked_files()
    files = set(names)
    problems = []
    for name in names:
        text = None if name == SELF else read_text(name)
        if text is not None:
            problems += broken_links(name, text, files)
    assert not problems, "\n".join(problems)


def test_the_documents_exist_and_are_linked_from_the_readme():
    files = set(tracked_files())
    assert {"docs/rules.md", "docs/api.md", "MODDING.md"} <= files
    readme = read_text("README.md")
    assert readme is not None
    targets = set(markdown_links(readme))
    assert {"docs/rules.md", "docs/api.md", "MODDING.md"} <= targets


def test_rules_keep_the_cited_section_numbers():
    """Code and tests cite "docs/rules.md §3.3", "T7", …: every such citation
    names a section or item that exists."""
    rules = read_text("docs/rules.md")
    assert rules is not None
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", rules, re.MULTILINE))
    items = set(re.findall(r"^- (T\d+)\. ", rules, re.MULTILINE))
    assert {"1", "2", "3.3", "4.5", "6.2", "7.6", "9.2"} <= sections
    assert items == {f"T{i}" for i in range(1, 9)}
    cited = re.compile(r"docs/rules\.md((?:,? ?(?:§\d+(?:\.\d+)?|T\d+)(?:[–-]T?\d+)?)+)")
    missing = []
    for name in tracked_files():
        text = read_text(name)
        if text is None:
            continue
        for group in cited.findall(text):
            for ref in re.findall(r"§(\d+(?:\.\d+)?)|(T\d+)", group):
                section, item = ref
                if (section and section not in sections) or (item and item not in items):
                    missing.append(f"{name}: docs/rules.md {section or item}")
    assert not missing, "\n".join(missing)


def test_api_sections_cited_in_the_code_exist():
    api = read_text("docs/api.md")
    assert api is not None
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", api, re.MULTILINE))
    assert {str(i) for i in range(1, 12)} <= sections
    missing = []
    for name in tracked_files():
        text = read_text(name)
        if text is None:
            continue
        for section in re.findall(r"docs/api\.md §(\d+(?:\.\d+)?)", text):
            if section not in sections:
                missing.append(f"{name}: docs/api.md §{section}")
    assert not missing, "\n".join(missing)


# -- the checker itself ----------------------------------------------------------------

def test_the_link_checker_finds_broken_links_and_ignores_code():
    files = {"README.md", "docs/rules.md", "docs/api.md", "core/game.py"}
    bodies = {"docs/rules.md": "# Rules\n\n## 3. Family `eu` — 10×10, 48 pieces\n"}
    text = ("[ok](docs/rules.md) [ok](docs/rules.md#rules) [ok](docs/) "
            "[web](https://example.org/x.md) [self](#top)\n"
            "[gone](docs/missing.md) [up](../outside.md) [abs](/etc/passwd) "
            "[bad anchor](docs/rules.md#nope) [eu](docs/rules.md#3-family-eu--1010-48-pieces)\n"
            "`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n# Top\n")
    problems = broken_links("README.md", text, files, read=bodies.get)
    assert len(problems) == 4, problems
    assert any("docs/missing.md" in p for p in problems)
    assert any("leaves the repository" in p for p in problems)
    assert any("absolute" in p for p in problems)
    assert any("#nope" in p for p in problems)


def test_the_link_checker_reads_only_markdown_targets_outside_markdown_files():
    files = {"core/game.py", "docs/api.md"}
    code = "x = table[i](arg)\n# see [the API](../docs/api.md) and [x](../docs/gone.md)\n"
    problems = broken_links("core/game.py", code, files, read=lambda _: "")
    assert problems == ["core/game.py: link '../docs/gone.md' points to 'docs/gone.md', "
                        "which is not a file of the repository"]


def test_forbidden_references_are_recognised():
    assert FORBIDDEN_PATTERN.search("see RULES" + " §3.3")
    assert FORBIDDEN_PATTERN.search("(RULES" + " T7)")
    assert not FORBIDDEN_PATTERN.search("docs/rules.md §3.3 and RULESET")
    assert any(word in "see ../" + "shared/API.md" for word in FORBIDDEN)
    assert not any(word in "docs/rules.md docs/api.md" for word in FORBIDDEN)


EXTRA_INSTALL = re.compile(r"pipx? install\s+['\"]?(?P<target>(?:\$\(echo )?[^\s'\"`]*?)"
                           r"\[(?P<extras>[a-z,-]+)\]")
"""An install line of Blockyard with extras: ``pip install '.[server]'``,
``pip install "$(echo dist/blockyard-*.whl)[gym]"``, ``pip install
'blockyard[lab]'`` (``target`` is what comes before the brackets)."""
FROM_AN_INDEX_SAID = ("once Blockyard is published", "Blockyard is installed in")
"""What a paragraph with ``pip install 'blockyard[…]'`` says of it: that it adds
the extra to an installed Blockyard, or that it installs from PyPI once
Blockyard is published there (it is not: the bare name finds nothing yet)."""
def extra_installs(text: str) -> list[tuple[str, str, str]]:
    """Each ``(target, extra, paragraph)`` of an install line with extras in a
    Markdown text (paragraphs split at blank lines, their lines joined)."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        joined = " ".join(paragraph.split())
        for match in EXTRA_INSTALL.finditer(joined):
            found += [(match["target"], extra, joined) for extra in match["extras"].split(",")]
    return found


def test_every_install_of_an_extra_works_from_here_or_says_when_it_does():
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"])
    documents = [ROOT / "README.md", ROOT / "MODDING.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked = 0
    for document in documents:
        for target, extra, paragraph in extra_installs(document.read_text(encoding="utf-8")):
            where = f"{document.relative_to(ROOT)}: {paragraph[:120]}"
            assert extra in extras, f"{where}: no extra {extra!r} in pyproject.toml"
            if target == "blockyard":
                assert any(said in paragraph for said in FROM_AN_INDEX_SAID), (
                    f"{where}: pip install 'blockyard[{extra}]' finds nothing on PyPI "
                    "(Blockyard is not published): give the line from this project's "
                    "folder or its wheel, or say when this one works")
            else:
                assert target in (".", "blockyard", '$(echo dist/blockyard-*.whl)'), where
            checked += 1
    assert checked >= 10  # the README's, docs/online.md's, docs/gym.md's, …


def test_the_install_checker_finds_a_bare_install_from_pypi():
    said = extra_installs("Install it:\n\n    pip install 'blockyard[server]'\n\nthen\n"
                          "`pip install\n'blockyard[lab]'` once Blockyard is published.")
    assert [(target, extra) for target, extra, _ in said] == [
        ("blockyard", "server"), ("blockyard", "lab")]
    wheel = extra_installs('from a wheel, `pip install "$(echo dist/blockyard-*.whl)[gym]"`')
    assert [(target, extra) for target, extra, _ in wheel] == [
        ("$(echo dist/blockyard-*.whl)", "gym")]
    assert not any(s in said[0][2] for s in FROM_AN_INDEX_SAID)
    assert any(s in said[1][2] for s in FROM_AN_INDEX_SAID)


def test_the_operators_examples_name_this_builds_schema_revision():
    # docs/online.md shows the readiness answer as "the revision of this build" and
    # the upgrade's line: a migration added later must move them on
    from blockyard.server.db import head_revision

    text = (ROOT / "docs" / "online.md").read_text(encoding="utf-8")
    newest = head_revision()
    assert f'"schema_revision": "{newest}"}}` (the revision of this build)' in text
    assert f"already at {newest}, the newest revision" in text
