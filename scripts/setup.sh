#!/usr/bin/env bash
# Installs everything dupfinder needs into ./.venv (and, as root, the Debian packages
# Qt links against and the C compiler that builds the kernels). Safe to run again: it only adds
# what is missing. Usage: scripts/setup.sh [EXTRAS]   (default extras: gui,heif,test;
# "package" adds the bundle tools). DUPFINDER_NATIVE=required fails when a kernel does not
# compile (CI does); =0 installs without them (numpy answers).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-gui,heif,test}"
PYTHON="${PYTHON:-python3}"

# Debian packages: Qt's shared libraries (offscreen and X11), fonts for Latin and CJK text.
DEB_PACKAGES=(
  libglib2.0-0 libgl1 libegl1 libxkbcommon0 libx11-6 libdbus-1-3 libfontconfig1 libfreetype6
  fontconfig fonts-dejavu-core fonts-wqy-microhei
  libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0
  libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libxcb-randr0 libxcb-xfixes0 libxcb-shm0
  libxcb-sync1 libxcb-xinerama0 libxrender1
)
# Music and videos are decoded by the ffmpeg and ffprobe programs (run as child processes, never
# linked); without them media files are compared by their bytes only.
DEB_PACKAGES+=(ffmpeg)
# The compiled kernels (Cython, built by pip when it installs the package): a C compiler, the C
# library's headers and Python's own headers (Debian keeps those of its python3 in a package
# of their own); clang where it installs, whose vectoriser speeds the index up 1.5x over gcc.
DEB_PACKAGES+=(gcc libc6-dev clang)
python_real="$(readlink -f "$(command -v "$PYTHON")")"
if [[ "$python_real" == /usr/bin/python3.* ]]; then
  DEB_PACKAGES+=("${python_real#/usr/bin/}-dev")
fi
# The bundle build (extra "package"): PyInstaller reads link dependencies with objdump
# (binutils; strip comes with it) and needs the interpreter's shared library, which Debian's
# python3 keeps in a package of its own.
# The tests (extra "test") check the man page with groff and the metainfo with appstreamcli.
if [[ ",$EXTRAS," == *,test,* ]]; then
  # and act on a real exFAT volume (FUSE on a loop device) in the safety tests, as root
  DEB_PACKAGES+=(groff-base appstream exfat-fuse exfatprogs)
  # and speak the media benchmark's speech tracks (espeak-ng)
  DEB_PACKAGES+=(espeak-ng)
  # and name what changed between real pictures: a photo series and an icon theme drawn at
  # every size (the picture tests skip where these are missing)
  DEB_PACKAGES+=(mate-backgrounds oxygen-icon-theme)
fi
# The compiled kernels (a C extension built with the package) need a C compiler and, for
# Debian's own python3, its headers; without them the install falls back to numpy.
DEB_PACKAGES+=(gcc libc6-dev)
build_python="$(readlink -f "$(command -v "$PYTHON")")"
if [[ "$build_python" == /usr/bin/python3.* ]]; then
  DEB_PACKAGES+=("libpython${build_python#/usr/bin/python}-dev")
fi
if [[ ",$EXTRAS," == *,package,* ]]; then
  # binutils for PyInstaller; dpkg-deb builds the .deb, debootstrap makes the bare Debian
  # its test installs it on
  DEB_PACKAGES+=(binutils debootstrap)
  python_path="$(readlink -f "$(command -v "$PYTHON")")"
  if [[ "$python_path" == /usr/bin/python3.* ]]; then
    DEB_PACKAGES+=("libpython${python_path#/usr/bin/python}")
  fi
fi
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
      # wait for another apt run (an unattended upgrade) instead of failing at once
      apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends \
        "${missing[@]}" >/dev/null
    else
      echo "setup: dupfinder needs these Debian packages (run as root to install them):" >&2
      echo "  sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    fi
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "setup: dupfinder needs Python 3.11 or newer ($("$PYTHON" --version))" >&2; exit 1; }
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=23.2"
# the distribution was called "dupfinder" before it took a free name on PyPI
if .venv/bin/python -m pip show --quiet dupfinder >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall --quiet --yes dupfinder
fi
# An editable install compiles the kernels in place (a minute or two). When this project is
# installed already, its pyproject.toml and kernel sources unchanged since, only the
# requirements are installed: a second run with other extras (CI runs two) compiles nothing.
if .venv/bin/python -I - "$EXTRAS" <<'PY'
import importlib.metadata, pathlib, sys, tomllib
try:
    installed = importlib.metadata.distribution("dupfinder-app")
except importlib.metadata.PackageNotFoundError:
    sys.exit(1)
record = installed.locate_file(f"{installed._path.name}/RECORD")  # type: ignore[attr-defined]
if pathlib.Path("pyproject.toml").stat().st_mtime > pathlib.Path(record).stat().st_mtime:
    sys.exit(1)  # the project's metadata changed since it was installed
for source in pathlib.Path("dupfinder").rglob("*.pyx"):
    built = list(source.parent.glob(source.stem + ".*.so")) + list(source.parent.glob(source.stem + ".*.pyd"))
    if not built or min(p.stat().st_mtime for p in built) < source.stat().st_mtime:
        sys.exit(1)
project = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["project"]
wanted = [r for extra in sys.argv[1].split(",") for r in project["optional-dependencies"].get(extra, [])]
print("\n".join(project["dependencies"] + wanted), file=open(".venv/requirements-now.txt", "w"))
PY
then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r .venv/requirements-now.txt
else
  # compat: the source folder on the path by a plain .pth line, as an installed package is
  # found; the default import hook costs every start 15-20 ms (every CLI test, every bench)
  .venv/bin/python -m pip install --quiet --disable-pip-version-check \
    --config-settings editable_mode=compat -e ".[${EXTRAS}]"
fi
# say so when a kernel could not be built
.venv/bin/python - <<'PY'
from dupfinder.core.jit import engine

missing = [k.label for k in engine.Kernel if engine.load(k) is None]
if missing:
    print(f"setup: built without {', '.join(missing)}; numpy answers for them", flush=True)
PY
