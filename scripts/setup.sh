# Sourced by play.sh and test.sh: create .venv and install Blockyard (editable).
# With the argument "test", also the test, standalone and server extras (pytest,
# build, PyInstaller for the packaging tests, the server's libraries) and the
# programs the frontend tests need (Xvfb for a virtual screen, xdotool for real
# input events) and the server tests need (PostgreSQL's initdb and pg_ctl: the
# tests start their own throwaway database; nginx, which a test runs in front of
# the server), installed with apt-get when missing (as root, or through sudo).
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
if [ "${1:-}" = "test" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test,standalone,server]"
    # (the example third-party plugin, examples/blockyard-diagonals, is installed
    # into a temporary folder and tested by tests/test_modding.py itself)
    # libfribidi0: Pillow's Raqm layout (Nepali shaping) loads it at run time;
    # locales: the ne_NP locale source, which tests/frontend/test_nepali_conjuncts.py
    # compiles into a temporary folder to draw Nepali under a Nepali locale;
    # fonts-liberation: Liberation Sans, the Arial-like font that comes with Chromium
    # and LibreOffice and has none of ◀ ▶ ✗ ✦ ★ ✓, so the window's font is one that
    # lacks them on every test machine (tests/frontend/test_symbols_drawn.py checks
    # that they are drawn from the shipped fonts)
    if ! command -v Xvfb >/dev/null || ! command -v xdotool >/dev/null \
            || ! ldconfig -p 2>/dev/null | grep -q libfribidi.so.0 \
            || [ ! -f /usr/share/i18n/locales/ne_NP ] \
            || ! fc-list 2>/dev/null | grep -q "Liberation Sans"; then
        packages="xvfb xdotool libgl1-mesa-dri libglx-mesa0 fonts-dejavu-core fonts-liberation libfribidi0 locales"
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "installing $packages for the frontend tests"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >/dev/null
    fi
    # systemd-analyze for tests/test_service_unit.py (it checks the shipped unit;
    # nothing is started as a service)
    if ! command -v systemd-analyze >/dev/null; then
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "installing systemd (systemd-analyze) for the service unit's test"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq systemd >/dev/null
    fi
    # PostgreSQL for tests/server (Debian puts initdb and pg_ctl in
    # /usr/lib/postgresql/VERSION/bin; the tests look there too)
    if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "installing postgresql for the server tests"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    fi
    # nginx for tests/server/test_server_behind_proxy.py, which starts the binary
    # itself with a configuration in a temporary folder (Debian puts it in
    # /usr/sbin, outside a user's PATH; the test looks there too). Only the
    # binary is used: never the package's system service
    if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "installing nginx for the reverse-proxy test"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx >/dev/null
    fi
    # The web page (frontend/web, docs/web.md): Node.js and npm install the Pyodide
    # its lockfile pins (npm ci), and tests/web drive Debian's Chromium (with
    # fonts-liberation, its fonts) through Playwright
    if ! command -v npm >/dev/null || ! command -v chromium >/dev/null; then
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "installing nodejs, npm and chromium for the web page and its tests"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm chromium \
            fonts-liberation >/dev/null
    fi
    web_pins=frontend/web/package-lock.json
    web_installed=frontend/web/node_modules/.package-lock.json
    if [ -f "$web_pins" ] && { [ ! -f "$web_installed" ] || [ "$web_pins" -nt "$web_installed" ]; }; then
        (cd frontend/web && npm ci --no-audit --no-fund --loglevel=error)
    fi
else
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
fi
# Nepali shaping for players too (README, "Languages"): Pillow's Raqm layout loads
# libfribidi at run time; installed with apt-get where it is missing (as root or
# through sudo), else said
if ! ldconfig -p 2>/dev/null | grep -q libfribidi.so.0; then
    if command -v apt-get >/dev/null; then
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        echo "installing libfribidi0 (Nepali text shaping)"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libfribidi0 >/dev/null
    else
        echo "note: Nepali text is drawn unshaped until the FriBiDi library (libfribidi)" \
             "is installed with your system's package manager"
    fi
fi
