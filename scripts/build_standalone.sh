#!/usr/bin/env bash
# Build the standalone program for players without Python: one folder holding
# the `blockyard` executable and everything it needs (PyInstaller).
# Usage: bash scripts/build_standalone.sh [OUTPUT_FOLDER]   (default: dist/standalone)
# Result: OUTPUT_FOLDER/blockyard/blockyard  (copy or archive the whole folder)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-dist/standalone}")
if [ ! -x .venv/bin/python ]; then
    source scripts/setup.sh
fi
if ! .venv/bin/python -c "import PyInstaller, build" 2>/dev/null; then
    echo "installing PyInstaller and build into .venv"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[standalone]"
fi
stage=$(mktemp -d "${TMPDIR:-/tmp}/blockyard-standalone.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# a regular (not editable) install of this checkout, dist-info included, for
# PyInstaller to analyse and copy; the wheel is built from the sdist, so nothing
# left over in a build/ folder of the checkout can slip in
.venv/bin/python -m build --outdir "$stage/dist" . >"$stage/build.log" 2>&1 \
    || { cat "$stage/build.log"; exit 1; }
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$stage/site" "$stage"/dist/blockyard-*.whl
BLOCKYARD_STAGE="$stage/site" .venv/bin/python -m PyInstaller --noconfirm --clean \
    --log-level WARN --distpath "$out" --workpath "$stage/work" packaging/blockyard.spec
echo "built $out/blockyard/blockyard ($(du -sh "$out/blockyard" | cut -f1))"
