#!/usr/bin/env bash
# Installs everything dupfinder needs into ./.venv (and, as root, the Debian packages
# Qt links against). Safe to run again: it only adds what is missing.
# Usage: scripts/setup.sh [EXTRAS]   (default extras: gui,heif,test)
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-gui,heif,test}"

# Debian packages: Qt's shared libraries (offscreen and X11), fonts for Latin and CJK text.
DEB_PACKAGES=(
  libglib2.0-0 libgl1 libegl1 libxkbcommon0 libx11-6 libdbus-1-3 libfontconfig1 libfreetype6
  fontconfig fonts-dejavu-core fonts-wqy-microhei
  libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
  libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libxcb-randr0 libxcb-xfixes0 libxcb-shm0
  libxcb-sync1 libxcb-xinerama0 libxrender1
)
if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for pkg in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "setup: installing Debian packages: ${missing[*]}" >&2
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >/dev/null || apt-get update
      apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      echo "setup: the desktop app needs these Debian packages (run as root to install):" >&2
      echo "  sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    fi
  fi
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "setup: dupfinder needs Python 3.11 or newer ($("$PYTHON" --version))" >&2; exit 1; }
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=23.2"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[${EXTRAS}]"
