"""Third-party notices for the bundles, and the licence rules every bundled part must meet.

The spec calls ``write_notices`` with what PyInstaller collected. Every collected file is
traced to where it came from:

- a Python distribution installed here (its RECORD lists the file): the licence comes from
  its metadata (``License-Expression``, else ``License``, else the classifiers) and the
  texts from its licence files;
- the Python interpreter and its standard library (PSF-2.0);
- a library copied from the system (Linux): the Debian package that owns it (dpkg), its
  ``/usr/share/doc/PKG/copyright`` as the text, the licence from that file's ``Files: *``
  stanza or from ``REVIEWED`` below.

The bundle is MIT: ``problems`` refuses GPL and AGPL (unless offered under another licence
too, or carrying a linking exception) and any licence nobody could determine. LGPL is allowed
for shared libraries the bundle loads dynamically (a user can replace them in the onedir
bundle), each with its reason written down. The result is ``THIRD-PARTY-NOTICES.txt`` (for
people) and ``THIRD-PARTY-NOTICES.json`` (for the tests) at the top of the bundle.

The text also says where the source of every LGPL and MPL part is (``SOURCES``: the upstream
release of the very version bundled), how to replace an LGPL library in each form of the
bundle, and, when ``DUPFINDER_QT_ATTRIBUTIONS`` names a folder of Qt's ``qt_attribution.json``
files (``qtbase/src/3rdparty`` of the bundled Qt's source, which the release workflow
unpacks), the texts of the third-party code inside Qt's libraries; without it, where they are.
"""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import json
import os
import re
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXTS = Path(__file__).resolve().parent / "licence-texts"
DPKG_INFO = Path("/var/lib/dpkg/info")

LGPL_REASON = (
    "an LGPL shared library the bundle loads dynamically and does not modify; in the onedir "
    "bundle it is a separate file in _internal/ that users may replace"
)

#: Licences decided by reading the package, where metadata alone would mislead: an offer of
#: several licences, a licence text pasted into the License field, a Debian copyright file
#: whose first stanza covers other files than the shared library, or none at all.
#: name -> (licence the bundle uses it under, why; texts from the package unless listed).
REVIEWED: dict[str, tuple[str, str]] = {
    # Python distributions
    "pyside6-essentials": (
        "LGPL-3.0-only",
        "offered as LGPL-3.0-only OR GPL-2.0-only OR GPL-3.0-only; used under the LGPL: "
        f"PySide6, Shiboken and Qt are {LGPL_REASON}. Qt's own third-party parts: "
        "https://doc.qt.io/qt-6/licenses-used-in-qt.html",
    ),
    "shiboken6": ("LGPL-3.0-only", "as PySide6 (same offer, same use)"),
    "pi-heif": (
        "BSD-3-Clause AND LGPL-3.0-or-later",
        f"the binding is BSD-3-Clause; libheif and libde265 (decoders only) are {LGPL_REASON}",
    ),
    "docutils": (
        "LicenseRef-Public-Domain AND BSD-2-Clause AND BSD-3-Clause",
        "the GPL-3.0 text it ships covers tools/editors/emacs/rst.el only, which is not in the "
        "wheel (COPYING.rst)",
    ),
    "pypdfium2": (
        "(Apache-2.0 OR BSD-3-Clause) AND BSD-3-Clause AND LicenseRef-PDFium-dependencies",
        "the binding is Apache-2.0 or BSD-3-Clause and PDFium BSD-3-Clause; the libraries built "
        "into PDFium are permissive (FreeType under the FTL, ICU, libjpeg-turbo, OpenJPEG, "
        "lcms2, libpng, zlib...), each text in BUILD_LICENSES",
    ),
    "pyromark": (
        "MIT AND Apache-2.0 AND BSD-2-Clause AND Unicode-3.0",
        "its metadata names no licence: the binding is MIT (LICENSE); the Rust crates compiled "
        "into it (pulldown-cmark and its dependencies) are MIT, Apache-2.0, BSD-2-Clause or "
        "Unicode-3.0, each text in LICENSE-THIRD-PARTY",
    ),
    "pyspng": (
        "BSD-3-Clause AND BSD-2-Clause AND Zlib",
        "its metadata says MIT, its LICENSE is BSD-3-Clause (pybind11's text); libspng "
        "(BSD-2-Clause) and zlib (Zlib) are compiled into its module: their texts added",
    ),
    "deflate": (
        "MIT",
        "the binding is MIT (LICENSE); libdeflate, compiled into its module, is MIT too: its "
        "text added",
    ),
    "webp": (
        "MIT AND BSD-3-Clause",
        "the binding is MIT (LICENSE); libwebp, compiled into its module, is BSD-3-Clause: "
        "its text added",
    ),
    "pyinstaller": (
        "GPL-2.0-or-later WITH PyInstaller-Bootloader-exception AND Apache-2.0",
        "the bootloader and the run-time hooks in the executables: the exception allows "
        "distributing them with programs under any licence (COPYING.txt)",
    ),
    # Debian packages the build copies libraries from
    "libc6": ("LGPL-2.1-or-later", f"glibc's libmvec: {LGPL_REASON}"),
    "libgcc-s1": (
        "GPL-3.0-or-later WITH GCC-exception-3.1",
        "the GCC runtime library exception allows distributing it with any program",
    ),
    "libstdc++6": (
        "GPL-3.0-or-later WITH GCC-exception-3.1",
        "the GCC runtime library exception allows distributing it with any program",
    ),
    "libgcrypt20": ("LGPL-2.1-or-later", LGPL_REASON),
    # Debian 11's names and copyright files (the glibc 2.31 build)
    "libffi7": ("MIT", "libffi's licence (Expat), as libffi8's"),
    "libpcre3": ("BSD-3-Clause", "PCRE 8's licence (its copyright file names it BSD)"),
    "libzstd1": (
        "BSD-3-Clause",
        "offered as BSD-3-Clause OR GPL-2.0-only (its copyright file); used under BSD-3-Clause",
    ),
    "libuuid1": ("BSD-3-Clause", "util-linux is GPL; its libuuid is BSD-3-Clause"),
    "libglib2.0-0": ("LGPL-2.1-or-later", LGPL_REASON),
    "libgpg-error0": ("LGPL-2.1-or-later", LGPL_REASON),
    "libsystemd0": ("LGPL-2.1-or-later", LGPL_REASON),
    "libbsd0": ("BSD-3-Clause AND ISC AND MIT", "libbsd's copyright file lists only these"),
    "libmd0": ("BSD-3-Clause AND ISC AND LicenseRef-Public-Domain", "as its copyright file"),
    "libfontconfig1": ("HPND-sell-variant", "Fontconfig's MIT-style licence"),
    "libxkbcommon0": ("MIT", "as its copyright file"),
    "libxkbcommon-x11-0": ("MIT", "as its copyright file"),
    **{
        name: ("MIT", "X.Org's MIT/X11 licence")
        for name in """libx11-6 libx11-xcb1 libxau6 libxdmcp6 libxcb1 libxcb-glx0 libxcb-randr0
        libxcb-render0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb-xkb1
        libxcb-xinerama0 libxcb-xinput0 libxcb-keysyms1 libxcb-render-util0 libxrender1
        libxext6""".split()
    },
}

#: Texts of libraries compiled into a Python package whose wheel carries only its own licence.
ADDED_TEXTS: dict[str, tuple[str, ...]] = {
    "pyspng": ("libspng-LICENSE.txt", "zlib-LICENSE.txt"),
    "webp": ("libwebp-COPYING.txt",),
    "deflate": ("libdeflate-COPYING.txt",),
}

#: Debian's packages of the interpreter (libpython3.11, libpython3.11-stdlib, ...): PSF-2.0.
PYTHON_PACKAGES = re.compile(r"^(lib)?python3\.\d+(-minimal|-stdlib)?$")

#: Classifier and free-text licence names as SPDX identifiers.
NAMES = {
    "mit license": "MIT",
    "mit": "MIT",
    "bsd license": "BSD-3-Clause",
    "apache software license": "Apache-2.0",
    "apache 2.0": "Apache-2.0",
    "mozilla public license 2.0 (mpl 2.0)": "MPL-2.0",
    "python software foundation license": "PSF-2.0",
    "psfl": "PSF-2.0",
    "isc license (iscl)": "ISC",
    "public domain": "LicenseRef-Public-Domain",
    "2-clause bsd license": "BSD-2-Clause",
    "gnu affero general public license": "AGPL-3.0-or-later",
    "gnu affero general public license v3 or later (agplv3+)": "AGPL-3.0-or-later",
    "gnu general public license (gpl)": "GPL-2.0-or-later",
    "gnu lesser general public license v3 (lgplv3)": "LGPL-3.0-only",
    "gnu library or lesser general public license (lgpl)": "LGPL-2.0-or-later",
}

#: Exceptions that let a GPL library ship inside a program under any licence.
LINKING_EXCEPTIONS = {"gcc-exception-3.1", "pyinstaller-bootloader-exception"}
#: Where the source of each LGPL or MPL part is, for the version bundled ({v}; {mm}: major.minor).
SOURCES: dict[str, tuple[str, ...]] = {
    "pyside6-essentials": (
        "PySide6 and Shiboken {v}: https://download.qt.io/official_releases/QtForPython/pyside6/"
        "PySide6-{v}-src/",
        "Qt {v} (the libraries in PySide6/Qt/lib): https://download.qt.io/official_releases/qt/"
        "{mm}/{v}/single/qt-everywhere-src-{v}.tar.xz",
    ),
    "shiboken6": ("as PySide6 {v} (the same source release)",),
    "pi-heif": (
        "pi-heif {v} (the binding and the scripts that build libheif and libde265 for its "
        "wheels): https://pypi.org/project/pi-heif/{v}/#files",
        "libheif: https://github.com/strukturag/libheif/releases (the release pi-heif {v} builds)",
        "libde265: https://github.com/strukturag/libde265/releases (likewise)",
    ),
    "pathspec": ("pathspec {v}: https://pypi.org/project/pathspec/{v}/#files",),
    "shtab": ("shtab {v}: https://pypi.org/project/shtab/{v}/#files",),
    "libc6": ("glibc (Debian {v}): https://sources.debian.org/src/glibc/",),
}

#: How to replace an LGPL library in each form the bundle takes.
REPLACING = """\
The LGPL parts (Qt, PySide6 and Shiboken; libheif and libde265 inside pi-heif) are shared
libraries the program loads at start, unmodified, each a file of its own. To use a version
you built (from the sources above, or a compatible later release), replace the file:
  Linux folder, tarball and .deb: _internal/PySide6/Qt/lib/libQt6*.so.6,
    _internal/PySide6/*.abi3.so, _internal/libpyside6*.so*, _internal/libshiboken6*.so*,
    _internal/pi_heif.libs/libheif-*.so*, libde265-*.so* (the .deb: under /opt/dupfinder)
  Windows (installed folder): _internal\\PySide6\\Qt6*.dll, pyside6*.dll, shiboken6*.dll
  macOS: dupfinder.app/Contents/Frameworks/ (the same names as on Linux, .dylib); sign the app
    again afterwards (codesign --force --deep --sign - dupfinder.app)
dupfinder ships no one-file executable (a one-file build packs these libraries inside it);
whoever builds one with packaging/build.py --onefile gets it from the same sources, and can
rebuild it with the replaced libraries in the environment: every file of dupfinder and its
build scripts is MIT licensed.
"""

#: Native libraries known to be GPL wherever they come from (a wheel may vendor them).
GPL_LIBRARIES = re.compile(r"(^|/)lib(x264|x265|fdk-aac|postproc|readline)[-.]")


@dataclass
class Component:
    """One bundled package: where it came from, its licence and the texts that go with it."""

    name: str
    version: str
    origin: str  # "python" (a distribution), "interpreter" or "system" (a Debian package)
    licence: str
    reason: str = ""
    texts: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


# --- licence expressions ---------------------------------------------------------------------


def _split(expression: str, word: str) -> list[str]:
    """Split on `` OR `` / `` AND `` (any case; a comma before AND too) outside parentheses."""
    parts, depth, start = [], 0, 0
    pattern = re.compile(rf",?\s+{word}\s+", re.IGNORECASE)
    position = 0
    while position < len(expression):
        char = expression[position]
        depth += (char == "(") - (char == ")")
        found = pattern.match(expression, position) if depth == 0 and char in " ," else None
        if found:
            parts.append(expression[start:position])
            start = position = found.end()
            continue
        position += 1
    parts.append(expression[start:])
    return [p.strip() for p in parts if p.strip()]


def refused(expression: str) -> str | None:
    """Why ``expression`` cannot ship in the MIT bundle, or None when it can."""
    expression = expression.strip()
    if not expression:
        return "no licence found"
    alternatives = _split(expression, "or")
    if len(alternatives) > 1:
        reasons = [refused(a) for a in alternatives]
        return None if None in reasons else " and ".join(r for r in reasons if r)
    parts = _split(expression, "and")
    if len(parts) > 1:
        return next((r for r in map(refused, parts) if r), None)
    if expression.startswith("(") and expression.endswith(")"):
        return refused(expression[1:-1])
    licence, _, exception = (s.strip() for s in expression.lower().partition(" with "))
    if re.search(r"(^|[^l])gpl", licence) and exception not in LINKING_EXCEPTIONS:
        return f"{expression} is copyleft for the whole program"
    return None


def _field(meta: metadata.PackageMetadata, name: str) -> str:
    """One field of a package's metadata, "" where the package leaves it out."""
    return str(meta[name] or "") if name in meta else ""


def _licence_of(dist: metadata.Distribution) -> str:
    meta = dist.metadata
    if expression := _field(meta, "License-Expression"):
        return expression
    text = _field(meta, "License").strip()
    if text and "\n" not in text and len(text) < 80:
        return NAMES.get(text.lower(), text)
    classifiers = [
        c.rsplit("::", 1)[1].strip()
        for c in meta.get_all("Classifier") or []
        if c.startswith("License ::") and c.count("::") >= 2
    ]
    return " OR ".join(NAMES.get(c.lower(), c) for c in classifiers)


# --- where each file came from -----------------------------------------------------------------


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _python_owners() -> dict[str, tuple[str, metadata.Distribution]]:
    """Every installed distribution's files, to its normalised name and the distribution."""
    owners = {}
    for dist in metadata.distributions():
        owner = (_normal(dist.metadata["Name"]), dist)  # parsing metadata costs: once each
        base = os.path.realpath(str(dist.locate_file("")))
        for file in dist.files or ():
            owners[os.path.normpath(os.path.join(base, file))] = owner
    return owners


@functools.cache
def _dpkg_owners() -> dict[str, str]:
    """Every path Debian's package database lists, as /usr paths (merged /usr), to its package."""
    owners: dict[str, str] = {}
    for listing in DPKG_INFO.glob("*.list") if DPKG_INFO.is_dir() else ():
        package = listing.stem.split(":")[0]
        for line in listing.read_text(encoding="utf-8", errors="replace").splitlines():
            owners.setdefault(_usr(line), package)
    return owners


def _usr(path: str) -> str:
    for top in ("/lib", "/bin", "/sbin", "/lib64"):
        if path.startswith(top + "/"):
            return "/usr" + path
    return path


def _dpkg_version(package: str) -> str:
    status = Path("/var/lib/dpkg/status")
    if not status.is_file():
        return ""
    for block in status.read_text(encoding="utf-8", errors="replace").split("\n\n"):
        if re.search(rf"^Package: {re.escape(package)}$", block, re.MULTILINE):
            found = re.search(r"^Version: (.+)$", block, re.MULTILINE)
            return found.group(1) if found else ""
    return ""


def _debian_licence(copyright_text: str) -> str:
    """The licence of a machine-readable copyright file's ``Files: *`` stanza ('' if none)."""
    if not copyright_text.startswith("Format:"):
        return ""
    found = re.search(r"^Files:\s*\*\s*$.*?^License:[ \t]*([^\n]+)", copyright_text, re.M | re.S)
    return found.group(1).strip() if found else ""


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _python_texts(dist: metadata.Distribution) -> dict[str, str]:
    base = Path(str(dist.locate_file("")))
    texts = {}
    for file in dist.files or ():
        name = str(file)
        if ".dist-info/" in name and re.search(r"licen[cs]e|copying|notice|authors", name, re.I):
            texts[name.split(".dist-info/", 1)[1].removeprefix("licenses/")] = _read(base / file)
    return texts


def _stock_texts(licence: str) -> dict[str, str]:
    """Texts of the licences a package names but does not ship (PySide6 ships none)."""
    texts = {}
    if "LGPL-3.0" in licence:
        texts = {name: _read(TEXTS / name) for name in ("LGPL-3.0.txt", "GPL-3.0.txt")}
    return texts


def _interpreter_text() -> dict[str, str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for candidate in (stdlib / "LICENSE.txt", Path(sys.base_prefix) / "LICENSE.txt"):
        if candidate.is_file():
            return {"LICENSE.txt": _read(candidate)}
    return {}


def collect(sources: Iterable[tuple[str, str]]) -> tuple[list[Component], list[str]]:
    """Components for ``(path in bundle, source path)`` pairs, and the files no one owns."""
    python, system = _python_owners(), _dpkg_owners()
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    prefix = os.path.realpath(sys.base_prefix)
    components: dict[str, Component] = {}
    unowned = []
    for dest, source in sorted(sources):
        real = os.path.realpath(source)
        if real.startswith(str(ROOT) + os.sep) and "site-packages" not in real:
            continue  # dupfinder itself: the LICENSE file
        component = None
        if real in python:
            name, dist = python[real]
            if name in ("dupfinder", "dupfinder-app"):
                continue
            component = components.get(name)
            if component is None:
                licence, reason = REVIEWED.get(name, (_licence_of(dist), ""))
                texts = _python_texts(dist) or _stock_texts(licence)
                texts.update({name: _read(TEXTS / name) for name in ADDED_TEXTS.get(name, ())})
                component = Component(name, dist.version, "python", licence, reason, texts)
        elif _usr(real) in system or _usr(source) in system:
            package = system.get(_usr(real)) or system[_usr(source)]
            component = components.get(package)
            if component is None:
                copyright_file = Path("/usr/share/doc") / package / "copyright"
                text = _read(copyright_file) if copyright_file.is_file() else ""
                licence, reason = REVIEWED.get(package, (_debian_licence(text), ""))
                if PYTHON_PACKAGES.match(package):  # Debian's own python3: the interpreter
                    licence, reason = "PSF-2.0", "the Python interpreter and its standard library"
                if not reason and re.search(r"(^|[^a-z])lgpl", licence, re.I):
                    reason = LGPL_REASON
                version = _dpkg_version(package)
                component = Component(package, version, "system", licence, reason)
                component.texts = {"copyright": text} if text else {}
        elif real.startswith((stdlib + os.sep, prefix + os.sep)):
            component = components.get("python")
            if component is None:
                version = ".".join(map(str, sys.version_info[:3]))
                component = Component("python", version, "interpreter", "PSF-2.0")
                component.texts = _interpreter_text()
        if component is None:
            unowned.append(dest)
            continue
        components[component.name] = component
        component.files.append(dest)
    return sorted(components.values(), key=lambda c: c.name), unowned


def problems(components: Iterable[Component], unowned: Iterable[str] = ()) -> list[str]:
    """Everything that keeps the bundle from shipping under MIT; empty when it may ship."""
    found = [f"{path}: comes from no known package" for path in unowned]
    for c in components:
        why = refused(c.licence)
        if why:
            found.append(f"{c.name} {c.version}: {why}")
        elif re.search(r"(^|[^a-z])lgpl", c.licence, re.I) and not c.reason:
            found.append(f"{c.name} {c.version}: LGPL without a stated reason")
        if not c.texts:
            found.append(f"{c.name} {c.version}: no licence text found")
        found += [f"{c.name}: {path} is GPL" for path in c.files if GPL_LIBRARIES.search(path)]
    return found


def render(components: Iterable[Component], program: str) -> str:
    """The notices for people: a summary table, then each package's licence texts."""
    components = list(components)
    rule = "=" * 78
    lines = [
        f"{program}: third-party software",
        "",
        "dupfinder is MIT licensed (LICENSE). The bundle also contains the software below,",
        "each under its own licence; the full texts follow the list.",
        "",
    ]
    for c in components:
        lines.append(f"  {c.name} {c.version}: {c.licence}")
    copyleft = [c for c in components if re.search(r"lgpl|mpl", c.licence, re.I)]
    if copyleft:
        lines += ["", rule, "Sources of the LGPL and MPL parts", ""]
        for c in copyleft:
            numbers = re.findall(r"\d+", c.version)
            mm = ".".join(numbers[:2])
            for line in SOURCES.get(c.name, (f"{c.name} {{v}}: from its upstream release",)):
                lines.append("  " + line.format(v=c.version, mm=mm))
        lines += ["", rule, "Replacing the LGPL libraries", "", REPLACING.rstrip()]
    qt = next((c for c in components if c.name == "pyside6-essentials"), None)
    if qt is not None:
        lines += ["", rule, "Third-party code inside Qt's libraries", ""]
        lines += _qt_attributions(qt.version)
    for c in components:
        lines += ["", rule, f"{c.name} {c.version} ({c.origin})", f"Licence: {c.licence}"]
        if c.reason:
            lines.append(f"Note: {c.reason}")
        for name, text in sorted(c.texts.items()):
            lines += ["", f"--- {name} ---", text.rstrip()]
    return "\n".join(lines) + "\n"


def _qt_attributions(version: str) -> list[str]:
    """The attributions of Qt's third-party parts (``DUPFINDER_QT_ATTRIBUTIONS``: a folder of
    Qt's qt_attribution.json files with the licence files they name), or where they are."""
    folder = os.environ.get("DUPFINDER_QT_ATTRIBUTIONS")
    mm = ".".join(re.findall(r"\d+", version)[:2])
    where = (
        f"Qt {version} contains third-party code (listed with its licences at "
        f"https://doc.qt.io/qt-{mm.split('.')[0]}/licenses-used-in-qt.html; the texts are in the "
        f"source release named above, beside each part's qt_attribution.json)."
    )
    if not folder:
        return [where]
    lines = [where, ""]
    for path in sorted(Path(folder).rglob("qt_attribution.json")):
        entries = json.loads(path.read_text(encoding="utf-8"))
        for entry in entries if isinstance(entries, list) else [entries]:
            lines += [
                f"--- {entry.get('Name', path.parent.name)} {entry.get('Version', '')} "
                f"({entry.get('License', '')}) ---",
                *entry.get("Copyright", "").splitlines(),
            ]
            licence_file = entry.get("LicenseFile") or ""
            for name in licence_file if isinstance(licence_file, list) else [licence_file]:
                text = path.parent / name
                if name and text.is_file():
                    lines += ["", _read(text).rstrip()]
            lines.append("")
    return lines


def write_notices(sources: Iterable[tuple[str, str]], folder: Path, program: str) -> list[Path]:
    """Write the notices for the collected files into ``folder``; fail on any problem."""
    components, unowned = collect(sources)
    found = problems(components, unowned)
    if found:
        raise SystemExit("notices: the bundle cannot ship under MIT:\n  " + "\n  ".join(found))
    folder.mkdir(parents=True, exist_ok=True)
    text, table = folder / "THIRD-PARTY-NOTICES.txt", folder / "THIRD-PARTY-NOTICES.json"
    text.write_text(render(components, program), encoding="utf-8")
    summary = [{k: v for k, v in asdict(c).items() if k != "texts"} for c in components]
    table.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(f"notices: {len(components)} packages, all licences allowed ({text.name})")
    return [text, table]
