# Sourced by play.sh and test.sh: create .venv and install Blockyard (editable).
# With the argument "test", also the test extra and the programs the frontend
# tests drive (Xvfb, xdotool), installed with apt-get when running as root.
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
if [ "${1:-}" = "test" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
else
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
fi
