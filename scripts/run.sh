#!/usr/bin/env bash
# Installs everything and runs dupfinder: the desktop app when a display is available,
# otherwise a headless scan of the sample corpus in resources/sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh gui,heif
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${DUPFINDER_HEADLESS:-0}" != 1 ]; then
  exec .venv/bin/dupfinder gui resources/sample "$@"
fi
echo "No display: scanning the sample corpus headless (resources/sample)." >&2
exec .venv/bin/dupfinder scan resources/sample --no-cache "$@"
