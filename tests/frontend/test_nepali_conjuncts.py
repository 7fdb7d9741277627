"""ङ before ग stays stacked (ढुङ्गा, the sudoku page's "stone") on a desktop whose
locale is Nepali: the text component names the language of every Devanagari run,
because shaping with none takes the process locale's language, and under
``ne_NP.UTF-8`` that is Nepali, whose forms show the halant. The word is drawn in a
process started under that locale (compiled into a temporary folder with
``localedef``) and compared pixel for pixel with the stacked drawing here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import features

from blockyard.frontend import text

WORD = "ढुङ्गा"
PIXELS = 48
LOCALE_SOURCE = Path("/usr/share/i18n/locales/ne_NP")

DRAW = """
import json, locale, sys
import numpy as np
from PIL import ImageFont
from blockyard.frontend import text
face = text.font(text._DEVANAGARI, False, {pixels})
image = np.asarray(text.render_image({word!r}, {pixels}).getchannel("A")).tolist()
print(json.dumps({{"locale": locale.setlocale(locale.LC_CTYPE),
                  "unset": face.getlength("ङ्ग"), "image": image}}))
"""


def nepali_locale(folder: Path) -> dict[str, str]:
    """The environment of a process whose locale is Nepali (Nepal), compiled here."""
    localedef = shutil.which("localedef")
    assert localedef is not None and LOCALE_SOURCE.is_file(), (
        "this test needs glibc's localedef and the ne_NP locale source: "
        "apt-get install locales (scripts/setup.sh test does)")
    subprocess.run([localedef, "-i", "ne_NP", "-f", "UTF-8", str(folder / "ne_NP.UTF-8")],
                   check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    return {**env, "LOCPATH": str(folder), "LC_ALL": "ne_NP.UTF-8", "DISPLAY": ""}


def test_nga_ga_is_stacked_under_a_nepali_locale(tmp_path):
    assert features.check("raqm")
    env = nepali_locale(tmp_path)
    done = subprocess.run([sys.executable, "-c", DRAW.format(word=WORD, pixels=PIXELS)],
                          env=env, check=True, capture_output=True, text=True)
    drawn = json.loads(done.stdout)
    assert drawn["locale"] == "ne_NP.UTF-8"
    face = text.font(text._DEVANAGARI, False, PIXELS)
    # the premise: there, a run shaped with no language is shaped as Nepali (unstacked)
    assert drawn["unset"] == face.getlength("ङ्ग", language="ne")
    assert drawn["unset"] > face.getlength("ङ्ग", language="hi") + 10  # Hindi forms stack
    there = np.asarray(drawn["image"], dtype=np.int16)
    here = np.asarray(text.render_image(WORD, PIXELS).getchannel("A"), dtype=np.int16)
    assert there.shape == here.shape  # as narrow as the stacked word, not wider
    assert np.abs(there - here).max() <= 2
    assert here.shape[1] < face.getlength(WORD, language="ne") - 10  # here, stacked too
