"""The picture benchmark's corpus: real pictures from Debian packages, each with everyday edits.

Every source is a real file from a Debian package (installed with apt-get when missing and
running as root), split into a *tuning* half, which the check's constants were chosen on, and
a *held-out* half, which nothing was tuned on and which the README's figures come from:

| kind | tuning | held-out |
|---|---|---|
| icon | ``oxygen-icon-theme`` | ``adwaita-icon-theme``, ``tango-icon-theme``, ``moka-icon-theme``, ``elementary-xfce-icon-theme`` |
| art (wallpapers drawn, not photographed) | ``mate-backgrounds`` abstract/desktop | ``gnome-backgrounds``, ``plasma-workspace-wallpapers`` |
| photo | ``mate-backgrounds`` nature, half of ``python3-skimage``'s photos | ``plasma-workspace-wallpapers`` photos, the other half |
| screenshot | the app's Xvfb screenshots (``docs/xvfb-*.png``) | its offscreen screenshots (``docs/screenshot-*.png``) |

Each picture (an icon at its largest drawing: the theme's PNG or its SVG rendered at 256 px
with ``rsvg-convert``; a wallpaper or photo scaled to a long side of ``MASTER_SIDE``) gets
every edit of ``SINGLE_EDITS`` and the pairs of ``PAIRED_EDITS``; an icon also brings the
theme's own drawings of it at its other sizes (``size<N>``: the artists redrew them). Hard
negatives (``family``: same family, other group): icons of one theme whose names share a
look-alike stem (``folder-*``, ``battery-*``, ``text-x-*``…), the light and dark variants of
one wallpaper, the colour variants of one design, two views of one scene (``skimage``'s stereo
motorcycle, and two overlapping framings of one photo, 30 % apart), screenshots of one app.

``manifest.json`` lists every file: ``group`` (same group: the same picture), ``edit``,
``family``, ``kind``, ``split`` and the source package. Two groups whose originals are the
same pixels (one drawing under two names) are one picture when scored (``pixel_twins``).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

from PIL import Image, ImageDraw, ImageEnhance, ImageFont, ImageOps

__all__ = [
    "DEFAULT_DIR",
    "PAIRED_EDITS",
    "SINGLE_EDITS",
    "Item",
    "build",
    "load",
    "pixel_twins",
]

VERSION = "4"
DEFAULT_DIR = Path(tempfile.gettempdir()) / "dupfinder-picture-corpus"
MASTER_SIDE = 1024
ICON_SIDE = 256
#: Icons drawn at other sizes that count as the same icon (the issue asks for 32 px at least).
OTHER_SIZES = (128, 96, 64, 48, 32, 24, 16)
ICONS_PER_THEME = 36
#: Name stems whose icons look alike within one theme: the hard negatives.
LOOKALIKE_STEMS = (
    "folder",
    "battery",
    "network-wireless",
    "audio-volume",
    "text-x",
    "application-x",
    "face-",
    "weather-",
    "media-playback",
    "user-",
    "emblem-",
    "go-",
    "edit-",
    "document-",
    "view-",
    "x-office",
    "drive-",
    "mail-",
)
PACKAGES = (
    "oxygen-icon-theme",
    "adwaita-icon-theme",
    "tango-icon-theme",
    "moka-icon-theme",
    "elementary-xfce-icon-theme",
    "gnome-backgrounds",
    "mate-backgrounds",
    "plasma-workspace-wallpapers",
    "librsvg2-bin",
)
SKIMAGE_DEB = "python3-skimage"
SKIMAGE_PHOTOS = (
    "astronaut.png",
    "coffee.png",
    "chelsea.png",
    "rocket.jpg",
    "camera.png",
    "coins.png",
    "hubble_deep_field.jpg",
    "retina.jpg",
    "moon.png",
    "ihc.png",
    "gravel.png",
    "brick.png",
    "grass.png",
    "page.png",
)
PLASMA_PHOTOS = frozenset(
    "Autumn BytheWater Canopee ColorfulCups FallenLeaf Kite Path MilkyWay summer_1am".split()
)
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
_REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Item:
    """One file: the same ``group`` means the same picture; the same ``family`` and another
    group a look-alike (a hard negative)."""

    path: str
    group: str
    edit: str
    family: str
    kind: str  # icon, art, photo, screenshot
    split: str  # tune or held
    source: str


# ------------------------------------------------------------------------------ edits


def _rng(name: str) -> random.Random:
    return random.Random(int(hashlib.sha256(name.encode()).hexdigest()[:12], 16))


def _rgb(im: Image.Image) -> Image.Image:
    if im.mode == "RGBA":
        flat = Image.new("RGBA", im.size, (255, 255, 255, 255))
        return Image.alpha_composite(flat, im).convert("RGB")
    return im.convert("RGB")


def _per_rgb(im: Image.Image, op: Callable[[Image.Image], Image.Image]) -> Image.Image:
    """``op`` on the colours, the alpha channel kept."""
    if im.mode == "RGBA":
        out = op(im.convert("RGB"))
        out.putalpha(im.getchannel("A"))
        return out
    return op(im.convert("RGB"))


def _resize(im: Image.Image, factor: float) -> Image.Image:
    w, h = im.size
    return im.resize(
        (max(1, round(w * factor)), max(1, round(h * factor))), Image.Resampling.LANCZOS
    )


def _to_side(im: Image.Image, side: int) -> Image.Image:
    return _resize(im, side / max(im.size))


def _crop(im: Image.Image, share: float, sides: str) -> Image.Image:
    """Remove ``share`` of the width (height) split over the named sides of ``"lrtb"``."""
    w, h = im.size
    horizontal = [s for s in sides if s in "lr"]
    vertical = [s for s in sides if s in "tb"]
    cut = {s: share / len(horizontal) * w for s in horizontal}
    cut |= {s: share / len(vertical) * h for s in vertical}
    box = (cut.get("l", 0), cut.get("t", 0), w - cut.get("r", 0), h - cut.get("b", 0))
    return im.crop(tuple(round(v) for v in box))  # type: ignore[arg-type]


def _random_sides(rng: random.Random, count: int) -> str:
    if count == 1:
        return rng.choice("lrtb")
    return rng.choice("lr") + rng.choice("tb") if count == 2 else "lrtb"


def _pad(im: Image.Image, share: float) -> Image.Image:
    w, h = im.size
    dx, dy = round(w * share / 2), round(h * share / 2)
    fill: tuple[int, ...] = (255, 255, 255, 255) if im.mode == "RGBA" else (255, 255, 255)
    out = Image.new(
        im.mode if im.mode in ("RGB", "RGBA") else "RGB", (w + 2 * dx, h + 2 * dy), fill
    )
    out.paste(im.convert(out.mode), (dx, dy))
    return out


def _text(im: Image.Image, rng: random.Random) -> Image.Image:
    """A caption in a corner, as people stamp a date, a name or "DRAFT" on a picture."""
    out = im.convert("RGBA") if im.mode == "RGBA" else im.convert("RGB")
    draw = ImageDraw.Draw(out)
    w, h = out.size
    word = rng.choice(["DRAFT", "Holiday 2024", "© Ana", "Copy", "v2", "final", "Sample"])
    size = max(8, round(h * 0.09))
    font = ImageFont.truetype(FONT, size)
    left, top, right, bottom = draw.textbbox((0, 0), word, font=font)
    while right - left > 0.6 * w and size > 8:
        size -= 2
        font = ImageFont.truetype(FONT, size)
        left, top, right, bottom = draw.textbbox((0, 0), word, font=font)
    margin = round(0.04 * w)
    x = margin if rng.random() < 0.5 else w - margin - (right - left)
    y = margin if rng.random() < 0.3 else h - margin - (bottom - top)
    colour = rng.choice([(255, 255, 255), (0, 0, 0), (220, 30, 30), (255, 220, 0)])
    stroke = (0, 0, 0) if sum(colour) > 400 else (255, 255, 255)
    draw.text((x - left, y - top), word, font=font, fill=colour, stroke_width=max(1, size // 12),
              stroke_fill=stroke)  # fmt: skip
    return out


def _overlay(im: Image.Image, rng: random.Random) -> Image.Image:
    """A small semi-transparent logo (a disc with a mark) in a corner."""
    out = im.convert("RGBA")
    w, h = out.size
    side = max(6, round(0.16 * min(w, h)))
    logo = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    d = ImageDraw.Draw(logo)
    d.ellipse((0, 0, side - 1, side - 1), fill=(30, 90, 200, 170))
    d.rectangle((side // 3, side // 4, side * 2 // 3, side * 3 // 4), fill=(255, 255, 255, 200))
    x = round(0.05 * w) if rng.random() < 0.5 else w - side - round(0.05 * w)
    y = round(0.05 * h) if rng.random() < 0.5 else h - side - round(0.05 * h)
    out.alpha_composite(logo, (x, y))
    return out if im.mode == "RGBA" else out.convert("RGB")


def _sepia(im: Image.Image) -> Image.Image:
    return _per_rgb(
        im, lambda rgb: ImageOps.colorize(rgb.convert("L"), (40, 26, 13), (255, 240, 192))
    )


def _gamma(im: Image.Image, gamma: float) -> Image.Image:
    table = [round(255 * (i / 255) ** gamma) for i in range(256)] * 3
    return _per_rgb(im, lambda rgb: rgb.point(table))


def _grey(im: Image.Image) -> Image.Image:
    if im.mode == "RGBA":
        return im.convert("LA")
    return im.convert("L")


#: Edit name -> (function of (picture, rng), file format). The format: PNG keeps alpha.
Edit = Callable[[Image.Image, random.Random], Image.Image]
SINGLE_EDITS: dict[str, tuple[Edit, str]] = {
    "resize50": (lambda im, r: _resize(im, 0.5), "png"),
    "resize25": (
        lambda im, r: _resize(im, 0.25) if max(im.size) >= 256 else _to_side(im, 48),
        "png",
    ),
    "jpeg85": (lambda im, r: im, "jpeg85"),
    "jpeg60": (lambda im, r: im, "jpeg60"),
    "webp": (lambda im, r: im, "webp"),
    "gif": (lambda im, r: im, "gif"),
    "flatten": (lambda im, r: _rgb(im), "png"),
    "grey": (lambda im, r: _grey(im), "png"),
    "sepia": (lambda im, r: _sepia(im), "png"),
    "brighter": (
        lambda im, r: _per_rgb(im, lambda x: ImageEnhance.Brightness(x).enhance(1.25)),
        "png",
    ),
    "darker": (
        lambda im, r: _per_rgb(im, lambda x: ImageEnhance.Brightness(x).enhance(0.75)),
        "png",
    ),
    "contrast_up": (
        lambda im, r: _per_rgb(im, lambda x: ImageEnhance.Contrast(x).enhance(1.3)),
        "png",
    ),
    "contrast_down": (
        lambda im, r: _per_rgb(im, lambda x: ImageEnhance.Contrast(x).enhance(0.7)),
        "png",
    ),
    "gamma": (lambda im, r: _gamma(im, 0.6), "png"),
    "saturate": (lambda im, r: _per_rgb(im, lambda x: ImageEnhance.Color(x).enhance(1.5)), "png"),
    "crop5": (lambda im, r: _crop(im, 0.05, _random_sides(r, 2)), "png"),
    "crop10": (lambda im, r: _crop(im, 0.10, _random_sides(r, r.choice((1, 2)))), "png"),
    "crop15": (lambda im, r: _crop(im, 0.15, _random_sides(r, r.choice((1, 2, 4)))), "png"),
    "pad10": (lambda im, r: _pad(im, 0.10), "png"),
    "text": (lambda im, r: _text(im, r), "png"),
    "overlay": (lambda im, r: _overlay(im, r), "png"),
    "exif": (lambda im, r: im, "exif"),
}
PAIRED_EDITS: tuple[tuple[str, str], ...] = (
    ("grey", "crop10"),
    ("resize50", "jpeg60"),
    ("brighter", "crop5"),
    ("text", "resize50"),
    ("pad10", "grey"),
    ("contrast_up", "webp"),
    ("sepia", "resize50"),
    ("crop10", "jpeg60"),
    ("overlay", "grey"),
    ("gamma", "crop5"),
    ("flatten", "resize25"),
    ("darker", "text"),
)


def _save(im: Image.Image, dest: Path, fmt: str) -> Path:
    if fmt.startswith("jpeg"):
        path = dest.with_suffix(".jpg")
        _rgb(im).save(path, quality=int(fmt[4:]))
    elif fmt == "webp":
        path = dest.with_suffix(".webp")
        im.save(path, quality=80)
    elif fmt == "gif":
        path = dest.with_suffix(".gif")
        source = im.convert("RGBA") if im.mode in ("RGBA", "LA") else im.convert("RGB")
        pal = source.convert("RGB").quantize(255, method=Image.Quantize.MEDIANCUT)
        if source.mode == "RGBA":  # binary transparency, as GIF keeps it
            clear = source.getchannel("A").point(lambda a: 255 if a < 128 else 0)
            pal.paste(255, mask=clear)
            pal.save(path, transparency=255)
        else:
            pal.save(path)
    elif fmt == "exif":
        # stored turned a quarter, with the tag that shows it upright (a phone's way)
        path = dest.with_suffix(".jpg")
        exif = Image.Exif()
        exif[0x0112] = 6
        _rgb(im).transpose(Image.Transpose.ROTATE_90).save(path, quality=92, exif=exif)
    else:
        path = dest.with_suffix(".png")
        im.save(path)
    return path


def _apply(im: Image.Image, names: tuple[str, ...], seed: str) -> tuple[Image.Image, str]:
    rng = _rng(seed)
    fmt = "png"
    for name in names:
        func, edit_fmt = SINGLE_EDITS[name]
        im = func(im, rng)
        if edit_fmt != "png":
            if edit_fmt.startswith("jpeg") and len(names) > 1:
                # a re-encode before another edit: the other edit sees its artefacts
                buffer = io.BytesIO()
                _rgb(im).save(buffer, "JPEG", quality=int(edit_fmt[4:]))
                im = Image.open(buffer).convert("RGB")
                fmt = edit_fmt if name == names[-1] else fmt
            else:
                fmt = edit_fmt
    return im, fmt


# ------------------------------------------------------------------------------ sources


@dataclass(frozen=True, slots=True)
class _Source:
    key: str  # unique, also the group of the picture's copies
    kind: str
    split: str
    family: str
    source: str
    open: Callable[[], Image.Image]
    sizes: tuple[tuple[int, Path], ...] = ()  # an icon's other drawings


def _size_of(part: str) -> int | None:
    match = re.fullmatch(r"(\d+)(?:x\d+)?", part)
    return int(match.group(1)) if match else None


def _theme_icons(root: Path) -> dict[str, dict[int, Path]]:
    """name -> {size: png} over the theme's fixed-size folders (no @2x, no symbolic)."""
    found: dict[str, dict[int, Path]] = {}
    for path in sorted(root.rglob("*.png")):
        parts = path.relative_to(root).parts
        if any("@" in p or "symbolic" in p for p in parts) or path.is_symlink():
            continue
        sizes = [s for s in (_size_of(p) for p in parts[:-1]) if s]
        if len(sizes) != 1:
            continue
        found.setdefault(path.stem, {})[sizes[0]] = path
    return found


def _theme_svgs(root: Path) -> dict[str, Path]:
    return {
        p.stem: p
        for p in sorted((root / "scalable").rglob("*.svg"))
        if "symbolic" not in str(p) and not p.is_symlink()
    }


def _render_svg(svg: Path, side: int) -> Image.Image:
    out = subprocess.run(
        ["rsvg-convert", "-w", str(side), "-h", str(side), str(svg)],
        capture_output=True,
        check=True,
    )
    return Image.open(io.BytesIO(out.stdout)).convert("RGBA")


def _open_rgba(path: Path) -> Callable[[], Image.Image]:
    return lambda: Image.open(path).convert("RGBA")


def _stem_family(name: str) -> str | None:
    return next((s for s in LOOKALIKE_STEMS if name.startswith(s)), None)


def _icon_sources(theme: str, root: Path, split: str, package: str) -> list[_Source]:
    pngs = _theme_icons(root)
    svgs = _theme_svgs(root) if shutil.which("rsvg-convert") else {}
    chosen: list[_Source] = []
    names = sorted(set(pngs) | set(svgs))
    by_family: dict[str, list[str]] = {}
    for name in names:
        family = _stem_family(name)
        sizes = pngs.get(name, {})
        big = max(sizes, default=0)
        if family and (big >= 96 or name in svgs) and len([s for s in sizes if s >= 32]) >= 1:
            by_family.setdefault(family, []).append(name)
    rng = _rng(theme)
    picked: list[str] = []
    families = sorted(by_family)
    while len(picked) < ICONS_PER_THEME and any(by_family.values()):
        for family in families:
            if by_family[family] and len(picked) < ICONS_PER_THEME:
                picked.append(by_family[family].pop(rng.randrange(len(by_family[family]))))
    for name in sorted(picked):
        sizes = pngs.get(name, {})
        opener: Callable[[], Image.Image]
        if name in svgs:
            opener = functools.partial(_render_svg, svgs[name], ICON_SIDE)
            others = tuple((s, p) for s, p in sorted(sizes.items(), reverse=True))
        else:
            big = max(sizes)
            opener = _open_rgba(sizes[big])
            others = tuple((s, p) for s, p in sorted(sizes.items(), reverse=True) if s < big)
        family = f"{theme}:{_stem_family(name)}"
        chosen.append(_Source(f"{theme}/{name}", "icon", split, family, package, opener, others))
    return chosen


def _master(path: Path) -> Callable[[], Image.Image]:
    def opener() -> Image.Image:
        im: Image.Image = ImageOps.exif_transpose(Image.open(path))
        if "A" in im.getbands():  # a translucent overlay (MATE's Silk): its desktop is dark
            dark = Image.new("RGBA", im.size, (0, 0, 0, 255))
            im = Image.alpha_composite(dark, im.convert("RGBA"))
        im = im.convert("RGB")
        if max(im.size) > MASTER_SIDE:
            im = _to_side(im, MASTER_SIDE)
        return im

    return opener


def _pan(path: Path, left: bool) -> Callable[[], Image.Image]:
    """One of two framings of one scene, each 70 % of the width, 30 % apart."""

    def opener() -> Image.Image:
        im = Image.open(path).convert("RGB")
        w, h = im.size
        box = (0, 0, round(0.7 * w), h) if left else (round(0.3 * w), 0, w, h)
        return _to_side(im.crop(box), MASTER_SIDE * 7 // 10)

    return opener


def _wallpaper_sources(skimage: Path | None) -> list[_Source]:
    out: list[_Source] = []
    gnome = Path("/usr/share/backgrounds/gnome")
    for path in sorted(gnome.glob("*.webp")):
        series = re.sub(r"-[ld]$", "", path.stem)
        out.append(
            _Source(
                f"gnome/{path.stem}",
                "art",
                "held",
                f"gnome:{series}",
                "gnome-backgrounds",
                _master(path),
            )
        )
    plasma = Path("/usr/share/wallpapers")
    for folder in sorted(plasma.iterdir()):
        images = sorted((folder / "contents" / "images").glob("1920x1080.*")) or sorted(
            (folder / "contents" / "images").glob("*.*")
        )
        if not images:
            continue
        kind = "photo" if folder.name in PLASMA_PHOTOS else "art"
        out.append(_Source(f"plasma/{folder.name}", kind, "held", f"plasma:{folder.name}",
                           "plasma-workspace-wallpapers", _master(images[0])))  # fmt: skip
        if kind == "photo" and folder.name in ("Path", "Kite", "Canopee"):
            for left in (True, False):
                side = "left" if left else "right"
                out.append(_Source(f"plasma/{folder.name}-{side}", "photo", "held", f"scene:{folder.name}",
                                   "plasma-workspace-wallpapers", _pan(images[0], left)))  # fmt: skip
    mate = Path("/usr/share/backgrounds/mate")
    for path in sorted(mate.rglob("*.*")):
        if path.suffix.lower() not in (".png", ".jpg") or re.search(r"_\d+x\d+", path.stem):
            continue
        kind = "photo" if path.parent.name == "nature" else "art"
        family = "mate:ubuntu-mate" if path.stem.startswith("Ubuntu-Mate") else (
            "mate:stripes" if "Stripes" in path.stem else f"mate:{path.stem}")  # fmt: skip
        out.append(
            _Source(f"mate/{path.stem}", kind, "tune", family, "mate-backgrounds", _master(path))
        )
        if path.stem in ("Dune", "Garden"):
            for left in (True, False):
                side = "left" if left else "right"
                out.append(_Source(f"mate/{path.stem}-{side}", "photo", "tune", f"scene:{path.stem}",
                                   "mate-backgrounds", _pan(path, left)))  # fmt: skip
    if skimage is not None:
        for i, name in enumerate(SKIMAGE_PHOTOS):
            split = "tune" if i % 2 else "held"
            out.append(_Source(f"skimage/{Path(name).stem}", "photo", split, f"skimage:{name}",
                               SKIMAGE_DEB, _master(skimage / name)))  # fmt: skip
        for side in ("left", "right"):
            out.append(_Source(f"skimage/motorcycle_{side}", "photo", "held", "scene:motorcycle",
                               SKIMAGE_DEB, _master(skimage / f"motorcycle_{side}.png")))  # fmt: skip
    return out


def _screenshot_sources() -> list[_Source]:
    docs = _REPO / "docs"
    out = []
    for path in sorted(docs.glob("*.png")):
        split = "tune" if path.stem.startswith("xvfb") else "held"
        out.append(_Source(f"app/{path.stem}", "screenshot", split, f"screenshots:{split}",
                           "dupfinder docs", _master(path)))  # fmt: skip
    return out


def _skimage_data() -> Path | None:
    """python3-skimage's photos, unpacked from its .deb (the package itself pulls in scipy)."""
    cache = Path(tempfile.gettempdir()) / "dupfinder-skimage-deb"
    data = cache / "usr/lib/python3/dist-packages/skimage/data"
    if data.is_dir():
        return data
    cache.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            ["apt-get", "download", SKIMAGE_DEB], cwd=cache, check=True, capture_output=True
        )
        deb = next(cache.glob("python3-skimage_*.deb"))
        subprocess.run(["dpkg", "-x", str(deb), str(cache)], check=True)
    except (OSError, subprocess.CalledProcessError, StopIteration):
        return None
    return data if data.is_dir() else None


def ensure_packages() -> None:
    """Install the Debian packages holding the pictures, when missing and allowed to."""
    missing = [
        p
        for p in PACKAGES
        if not subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True, check=False
        ).stdout.endswith("installed")
    ]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SystemExit("the picture corpus needs: apt-get install " + " ".join(missing))
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL, check=False)
    subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
                   env=env, stdout=subprocess.DEVNULL, check=True)  # fmt: skip


def sources() -> list[_Source]:
    """Every source picture, tuning and held-out."""
    themes = [
        ("oxygen", Path("/usr/share/icons/oxygen/base"), "tune", "oxygen-icon-theme"),
        ("adwaita", Path("/usr/share/icons/Adwaita"), "held", "adwaita-icon-theme"),
        ("tango", Path("/usr/share/icons/Tango"), "held", "tango-icon-theme"),
        ("moka", Path("/usr/share/icons/Moka"), "held", "moka-icon-theme"),
        (
            "elementary",
            Path("/usr/share/icons/elementary-xfce"),
            "held",
            "elementary-xfce-icon-theme",
        ),
    ]
    out: list[_Source] = []
    for theme, root, split, package in themes:
        if root.is_dir():
            out += _icon_sources(theme, root, split, package)
    out += _wallpaper_sources(_skimage_data())
    out += _screenshot_sources()
    return out


def _items_for(src: _Source, out: Path) -> Iterator[Item]:
    master = src.open()
    extrema = cast(tuple[tuple[int, int], ...], master.convert("RGB").getextrema())
    if all(low == high for low, high in extrema):
        return  # one flat colour: no picture to find copies of
    folder = out / src.key.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    base = dict(group=src.key, family=src.family, kind=src.kind, split=src.split, source=src.source)
    path = _save(master, folder / "original", "png")
    yield Item(str(path), edit="original", **base)
    if src.family.startswith("scene:"):
        return  # a framing of a scene is a look-alike of the other, not edited further
    for name in SINGLE_EDITS:
        im, fmt = _apply(master, (name,), f"{src.key}/{name}")
        yield Item(str(_save(im, folder / name, fmt)), edit=name, **base)
    for pair in PAIRED_EDITS:
        name = "+".join(pair)
        im, fmt = _apply(master, pair, f"{src.key}/{name}")
        yield Item(str(_save(im, folder / name, fmt)), edit=name, **base)
    for size, source in src.sizes:
        if size in OTHER_SIZES:
            dest = folder / f"size{size}.png"
            shutil.copyfile(source, dest)
            yield Item(str(dest), edit=f"size{size}", **base)


def build(out: Path = DEFAULT_DIR, *, install: bool = True) -> list[Item]:
    """The corpus in ``out`` (rebuilt when its version changed), and its manifest."""
    manifest = out / "manifest.json"
    if manifest.is_file():
        data = json.loads(manifest.read_text())
        if data.get("version") == VERSION:
            return [Item(**row) for row in data["items"]]
    if install:
        ensure_packages()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    items: list[Item] = []
    for src in sources():
        items.extend(_items_for(src, out))
    manifest.write_text(json.dumps({"version": VERSION, "items": [asdict(i) for i in items]}))
    return items


def pixel_twins(items: list[Item]) -> dict[str, str]:
    """Each group's picture: the first group (by name) whose original decodes to the very same
    pixels. Two names a theme gives one drawing (Adwaita's ``application-x-generic`` and
    ``text-x-preview``: other bytes, not one pixel apart) are one picture, and a finder that
    groups them is right; scoring them as look-alikes would count it as a mistake."""
    twins: dict[str, str] = {}
    first_of: dict[bytes, str] = {}
    for item in sorted((i for i in items if i.edit == "original"), key=lambda i: i.group):
        with Image.open(item.path) as im:
            pixels = im.convert("RGBA")
            key = hashlib.blake2b(repr(pixels.size).encode() + pixels.tobytes()).digest()
        twins[item.group] = first_of.setdefault(key, item.group)
    return twins


def load(out: Path = DEFAULT_DIR) -> list[Item]:
    """The manifest of a built corpus (built first when missing)."""
    return build(out)


if __name__ == "__main__":
    built = build()
    counts: dict[tuple[str, str], int] = {}
    for item in built:
        counts[(item.split, item.kind)] = counts.get((item.split, item.kind), 0) + 1
    print(f"{len(built)} files in {DEFAULT_DIR}")
    for key, count in sorted(counts.items()):
        print(*key, count)
