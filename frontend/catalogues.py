"""The window's translation catalogues: extract, update, compile and check them.

The texts are found in the frontend's source by Babel's extractor: the calls
``_("…")``, ``N_("…")``, ``Nn_("…", "…")`` and ``ngettext("…", "…", n)``. Each language of
:data:`.i18n.LANGUAGES` but English has ``locale/<code>/LC_MESSAGES/blockyard.po``
(written by translators) and its compiled ``blockyard.mo`` (written by
:func:`compile_all`, committed, so the package needs no build step). ::

    python -m blockyard.frontend.catalogues update   # new texts into every .po, compile
    python -m blockyard.frontend.catalogues check    # untranslated/unused texts? exit 1

``check`` is what the test suite runs: it fails on a text of the source with
no translation (or a fuzzy one) in some language, on a translation whose text
is no longer in the source, on a translation that drops or adds a ``{field}``,
and on a ``.mo`` that is not the compiled ``.po``.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from .i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALE_DIR

SOURCE_DIR = Path(__file__).resolve().parent
KEYWORDS = {"_": None, "N_": None, "Nn_": (1, 2), "ngettext": (1, 2)}
_FIELD = re.compile(r"\{(\w*)[^{}]*\}")


def extract() -> Catalog:
    """A catalogue of every translatable text in the frontend's source."""
    catalog = Catalog(project="Blockyard", domain=DOMAIN, charset="utf-8")
    found = extract_from_dir(str(SOURCE_DIR), method_map=[("**.py", "python")],
                             keywords=KEYWORDS, comment_tags=("TRANSLATORS:",))
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(f"frontend/{filename}", lineno)],
                    auto_comments=comments, context=context)
    return catalog


def po_path(code: str) -> Path:
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def languages() -> list[str]:
    """The languages that have a catalogue (all but English)."""
    return [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]


def read(code: str) -> Catalog:
    with po_path(code).open("rb") as file:
        return read_po(file, locale=code, domain=DOMAIN)


def compiled(catalog: Catalog) -> bytes:
    """The ``.mo`` bytes of ``catalog`` (fuzzy translations left out)."""
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def update() -> None:
    """Merge the texts of the source into every language's ``.po`` (new ones are
    added untranslated, gone ones dropped) and compile them all."""
    template = extract()
    for code in languages():
        path = po_path(code)
        if path.exists():
            catalog = read(code)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=code, domain=DOMAIN, project="Blockyard", charset="utf-8")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        with path.open("wb") as file:
            write_po(file, catalog, width=100, omit_header=False, ignore_obsolete=True)
    compile_all()


def compile_all() -> None:
    """Write every language's ``.mo`` from its ``.po``."""
    for code in languages():
        po_path(code).with_suffix(".mo").write_bytes(compiled(read(code)))


def _strings(message: Message) -> list[str]:
    ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
    return [str(i) for i in ids]


def _translations(message: Message) -> list[str]:
    texts = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return [str(t or "") for t in texts]


def problems() -> Iterator[str]:
    """Everything out of step between the source and the catalogues, in words."""
    template = extract()
    wanted = {m.id for m in template if m.id}
    for code in languages():
        path = po_path(code)
        if not path.exists():
            yield f"{code}: no catalogue {path}"
            continue
        catalog = read(code)
        have = {m.id for m in catalog if m.id}
        for msgid in sorted(wanted - have, key=str):
            yield f"{code}: untranslated (not in {path.name}): {msgid!r}"
        for msgid in sorted(have - wanted, key=str):
            yield f"{code}: unused (no longer in the source): {msgid!r}"
        for message in catalog:
            if not message.id or message.id not in wanted:
                continue
            texts = _translations(message)
            if message.fuzzy or not all(texts):
                yield f"{code}: untranslated (empty or fuzzy): {message.id!r}"
                continue
            fields = {f for s in _strings(message) for f in _FIELD.findall(s)}
            for text in texts:
                if set(_FIELD.findall(text)) != fields:
                    yield (f"{code}: the fields of {message.id!r} are "
                           f"{sorted(fields)}, the translation has "
                           f"{sorted(set(_FIELD.findall(text)))}: {text!r}")
        mo = path.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(catalog):
            yield f"{code}: {mo.name} is not the compiled {path.name} (run update)"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["update"]:
        update()
        return 0
    if args == ["check"]:
        found = list(problems())
        for line in found:
            print(line)
        return 1 if found else 0
    print("usage: python -m blockyard.frontend.catalogues update|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
