#!/usr/bin/env bash
# The Linux bundle built on Debian 11 (glibc 2.31), so that it runs there and on every newer
# system (Ubuntu 20.04 and later): as root, on a Debian or Ubuntu machine with debootstrap.
#
#   sudo bash packaging/build_on_debian11.sh      # -> build/debian11/dist/ (.deb, tarball)
#
# Debian 11 has no Python 3.11, so CPython 3.11 is compiled inside the chroot from Debian's own
# source package (bookworm's python3.11), then the project is installed there from its wheels
# and the kernels compiled with Debian 11's clang. The release workflow does the same in the
# python:3.11-bullseye container (.github/workflows/ci.yml). Nothing outside build/ changes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CHROOT="$ROOT/build/chroot/bullseye-build"
OUT="$ROOT/build/debian11"
PY=/opt/python3.11

if [ ! -f "$CHROOT/.complete" ]; then
  rm -rf "$CHROOT"
  debootstrap --variant=minbase --include=build-essential,ca-certificates,libssl-dev,\
zlib1g-dev,libbz2-dev,libffi-dev,liblzma-dev,libsqlite3-dev,uuid-dev,xz-utils,binutils,clang,\
libgl1,libegl1,libxkbcommon0,libxkbcommon-x11-0,libdbus-1-3,libfontconfig1,fonts-dejavu-core,\
libxcb-cursor0,libxcb-icccm4,libxcb-image0,libxcb-keysyms1,libxcb-render-util0,libxcb-shape0,\
libxcb-xinerama0,libglib2.0-0,libxcb-xkb1,libxcb-randr0,libxcb-xfixes0,libxcb-shm0,\
libxcb-sync1,libx11-xcb1,dpkg-dev bullseye "$CHROOT"
  touch "$CHROOT/.complete"
fi

cleanup() { for m in proc dev tmp; do umount -l "$CHROOT/$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mount -t proc proc "$CHROOT/proc"
mount --bind /dev "$CHROOT/dev"
mount -t tmpfs tmpfs "$CHROOT/tmp"
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
# pip inside needs this machine's certificates (a proxy may re-sign); kept apart from Debian's
cp /etc/ssl/certs/ca-certificates.crt "$CHROOT/etc/host-ca.crt"

if [ ! -x "$CHROOT$PY/bin/python3.11" ]; then
  src="$ROOT/build/chroot/python-src"
  mkdir -p "$src"
  if ! ls "$src"/python3.11_*.orig.tar.* >/dev/null 2>&1; then
    echo "deb-src http://deb.debian.org/debian bookworm main" >"$src/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$src/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$src/lists" -o "Dir::Cache=$src/cache")
    mkdir -p "$src/lists/partial" "$src/cache"
    apt-get -q "${apt_opts[@]}" update >/dev/null
    (cd "$src" && apt-get -q "${apt_opts[@]}" source --download-only python3.11 >/dev/null)
  fi
  tar -xf "$src"/python3.11_*.orig.tar.* -C "$CHROOT/tmp"
  chroot "$CHROOT" sh -c "cd /tmp/Python-3.11* && ./configure -q --prefix=$PY --enable-shared \
    LDFLAGS=-Wl,-rpath,$PY/lib && make -s -j$(nproc) && make -s install" >/dev/null
fi

rm -rf "$CHROOT/src" && mkdir -p "$CHROOT/src"
git -C "$ROOT" archive HEAD | tar -x -C "$CHROOT/src"
chroot "$CHROOT" env PIP_CERT=/etc/host-ca.crt SSL_CERT_FILE=/etc/host-ca.crt \
  REQUESTS_CA_BUNDLE=/etc/host-ca.crt DUPFINDER_NATIVE=required HOME=/root sh -c "
  cd /src && $PY/bin/python3.11 -m venv .venv &&
  .venv/bin/pip install -q --disable-pip-version-check -e '.[gui,heif,package]' &&
  .venv/bin/python packaging/build.py --no-measure &&
  .venv/bin/python packaging/linux_packages.py &&
  ldd --version | head -1"
mkdir -p "$OUT"
cp -a "$CHROOT/src/dist/." "$OUT/"
echo "build_on_debian11: $(ls "$OUT")"
