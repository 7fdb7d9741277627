"""The Arcade frontend: views that render a headless ``Game`` and turn input into actions.

In the browser (Pyodide, ``sys.platform == "emscripten"``) the package holds only
its window-free modules: the catalogues (:mod:`.i18n`), the rules' words
(:mod:`.rulewords`) and the web page's engine (:mod:`.webbridge`); no pyglet there.
"""

import os
import sys

if sys.platform != "emscripten":
    import pyglet

    # pyglet asks OpenGL for an error after every call unless this is off: a check for
    # developers that costs a few milliseconds per frame (tens of thousands of calls a
    # second). Set BLOCKYARD_DEBUG_GL=1 to have it back. It must be set before
    # pyglet.gl is imported, which is why it is here, the first module of the frontend
    # to load.
    pyglet.options.debug_gl = os.environ.get("BLOCKYARD_DEBUG_GL") == "1"
