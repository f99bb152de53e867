"""Evaluation corpus for image hashes: real third-party pictures from Debian, plus edited copies.

Sources (installed with apt-get when missing and running as root):

- wallpapers: ``gnome-backgrounds``, ``mate-backgrounds``, ``sway-backgrounds`` and
  ``lomiri-wallpapers-20.04`` (photos, paintings, abstract art; light/dark and colour variants
  of one design are *hard negatives*; the same wallpaper shipped at several resolutions of one
  aspect ratio is a natural duplicate, at another aspect ratio it is left out of the scoring);
- icons: ``oxygen-icon-theme``: each 256 px icon with copies resized from it, flattened on
  white (JPEG and PNG), and the theme's own 128, 64 and 48 px files of that icon. The theme's
  artists redrew those small sizes (other layout, bigger emblems), so they are reported on
  their own and kept out of the overall positives. Emblem variants are hard negatives.

*Recolour* families (folder colours, the Ubuntu MATE colour variants) are the same drawing in
other colours: a luminance hash cannot separate them (nor a greyscale copy from its original),
so they are scored apart from the other hard negatives.

Each wallpaper is downscaled once to a master (long side 1600 px) and edited the way people edit
pictures. The manifest (``manifest.json``) lists every file with its group (same group =
duplicates), edit name and family (same family, other group = hard negative).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageEnhance, ImageFont

from dupfinder.core.errors import FileProblem
from dupfinder.core.image.perceptual import load_working_image

__all__ = ["DEFAULT_CORPUS_DIR", "PACKAGES", "CorpusItem", "build_corpus", "ensure_packages"]

CORPUS_VERSION = "5"
PACKAGES = (
    "gnome-backgrounds",
    "mate-backgrounds",
    "sway-backgrounds",
    "lomiri-wallpapers-20.04",
    "oxygen-icon-theme",
)
BACKGROUNDS = Path("/usr/share/backgrounds")
#: ~230 MB of generated files: kept out of the work tree, rebuilt when missing.
DEFAULT_CORPUS_DIR = Path(tempfile.gettempdir()) / "dupfinder-image-corpus"
OXYGEN = Path("/usr/share/icons/oxygen/base")
MASTER_SIDE = 1600
ICON_SIZES = (128, 64, 48)
#: Folder icons that differ only in colour (same drawing): a luminance hash cannot tell them apart.
FOLDER_COLOURS = frozenset("black blue brown cyan green grey orange red violet yellow".split())
ICON_CATEGORIES = ("places", "apps", "devices", "categories", "actions")
MIMETYPE_SAMPLE = 40
#: Families whose members at one aspect ratio are the same picture at another resolution.
NATURAL_RESOLUTION_FAMILIES = frozenset({"elephants", "sway"})
#: display orientation -> the transpose that stores pixels so that the viewer shows the master.
_EXIF_STORE = {
    6: Image.Transpose.ROTATE_90,
    8: Image.Transpose.ROTATE_270,
    3: Image.Transpose.ROTATE_180,
}


@dataclass(frozen=True, slots=True)
class CorpusItem:
    """One file: ``group`` = duplicates of each other; ``family`` links hard negatives."""

    path: str
    group: str
    edit: str
    family: str
    kind: str  # "wallpaper" or "icon"


def ensure_packages() -> None:
    """Install the Debian packages holding the pictures, if missing and allowed to."""
    missing = [p for p in PACKAGES if not _installed(p)]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SystemExit(
            "the image corpus needs these Debian packages: "
            + " ".join(missing)
            + "\ninstall them (sudo apt-get install --no-install-recommends ...) and run again"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=False).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL, check=True)
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)


def _installed(package: str) -> bool:
    result = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip().endswith("installed")


def _wallpaper_family(path: Path) -> str:
    stem = path.stem
    if stem.startswith("Elephants"):
        return "elephants"
    if stem.startswith("Sway_Wallpaper"):
        return "sway"
    if stem.startswith("Ubuntu-Mate-"):
        return "recolour:ubuntu-mate"
    if stem.startswith("MATE-Stripes"):
        return "mate-stripes"
    if path.parent.name == "gnome" and stem[-2:] in ("-d", "-l"):
        return "gnome-" + stem[:-2]
    return stem


def _has_content(path: Path) -> bool:
    """Whether dupfinder accepts the source at all (near-blank sources are out of scope)."""
    try:
        load_working_image(path)
    except FileProblem:
        return False
    return True


def _wallpaper_sources() -> list[tuple[Path, str, str]]:
    """(path, group, family) for each opaque wallpaper with content; overlays are skipped."""
    found: list[tuple[Path, str, str]] = []
    for path in sorted(BACKGROUNDS.rglob("*")):
        if path.suffix.lower() not in (".jpg", ".jpeg", ".png", ".webp"):
            continue
        with Image.open(path) as im:
            size, mode = im.size, im.mode
        if mode in ("RGBA", "LA") or min(size) < 512 or not _has_content(path):
            continue  # transparent overlay layers and tiles are not pictures on their own
        family = _wallpaper_family(path)
        if family in NATURAL_RESOLUTION_FAMILIES:
            w, h = size
            group = f"{family}@{w / h:.2f}"
        else:
            group = path.stem
        found.append((path, group, family))
    return found


def _master(path: Path) -> Image.Image:
    with Image.open(path) as im:
        im.draft("RGB", (MASTER_SIDE, MASTER_SIDE))
        rgb = im.convert("RGB")
    rgb.thumbnail((MASTER_SIDE, MASTER_SIDE), Image.Resampling.LANCZOS)
    return rgb


def _watermark(im: Image.Image) -> Image.Image:
    out = im.convert("RGBA")
    layer = Image.new("RGBA", out.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    w, h = out.size
    box = (int(w * 0.74), int(h * 0.90), int(w * 0.97), int(h * 0.97))
    draw.rectangle(box, fill=(255, 255, 255, 110))
    font = ImageFont.load_default(size=max(10, (box[3] - box[1]) * 2 // 3))
    draw.text((box[0] + 6, box[1] + 2), "© photo.example", fill=(20, 20, 20, 200), font=font)
    return Image.alpha_composite(out, layer).convert("RGB")


def _crop(im: Image.Image, left: float, top: float, right: float, bottom: float) -> Image.Image:
    w, h = im.size
    return im.crop((int(w * left), int(h * top), w - int(w * right), h - int(h * bottom)))


def _half(im: Image.Image, factor: int) -> Image.Image:
    return im.resize((im.width // factor, im.height // factor), Image.Resampling.LANCZOS)


#: edit name -> (transform of the RGB master, file suffix, save options)
_EDITS: dict[str, tuple[Callable[[Image.Image], Image.Image], str, dict[str, Any]]] = {
    "resize50": (lambda im: _half(im, 2), ".jpg", {"quality": 90}),
    "resize25": (lambda im: _half(im, 4), ".jpg", {"quality": 90}),
    "jpeg85": (lambda im: im, ".jpg", {"quality": 85}),
    "jpeg60": (lambda im: im, ".jpg", {"quality": 60}),
    "to_png": (lambda im: im, ".png", {}),
    "to_webp": (lambda im: im, ".webp", {"quality": 80}),
    "crop2": (lambda im: _crop(im, 0.01, 0.01, 0.01, 0.01), ".jpg", {"quality": 90}),
    "crop5": (lambda im: _crop(im, 0.0, 0.0, 0.05, 0.05), ".jpg", {"quality": 90}),
    "bright+10": (lambda im: ImageEnhance.Brightness(im).enhance(1.1), ".jpg", {"quality": 90}),
    "bright-10": (lambda im: ImageEnhance.Brightness(im).enhance(0.9), ".jpg", {"quality": 90}),
    "contrast+10": (lambda im: ImageEnhance.Contrast(im).enhance(1.1), ".jpg", {"quality": 90}),
    "contrast-10": (lambda im: ImageEnhance.Contrast(im).enhance(0.9), ".jpg", {"quality": 90}),
    "watermark": (_watermark, ".jpg", {"quality": 90}),
    "grey": (lambda im: im.convert("L"), ".jpg", {"quality": 90}),
}


def _save_exif_rotated(master: Image.Image, dest: Path, orientation: int) -> None:
    exif = Image.Exif()
    exif[0x0112] = orientation
    master.transpose(_EXIF_STORE[orientation]).save(dest, quality=90, exif=exif.tobytes())


def _build_wallpapers(out: Path, items: list[CorpusItem]) -> None:
    seen_groups: set[str] = set()
    orientations = list(_EXIF_STORE)
    for index, (path, group, family) in enumerate(_wallpaper_sources()):
        master = _master(path)
        base = out / "wall" / f"{index:02d}-{path.stem}"
        master_suffix = ".png" if path.suffix.lower() == ".png" else ".jpg"
        master_path = base.with_name(base.name + "-master" + master_suffix)
        if master_suffix == ".jpg":
            master.save(master_path, quality=95)
        else:
            master.save(master_path)
        if group in seen_groups:  # another resolution of a picture already edited below
            items.append(CorpusItem(str(master_path), group, "upstream_size", family, "wallpaper"))
            continue
        seen_groups.add(group)
        items.append(CorpusItem(str(master_path), group, "original", family, "wallpaper"))
        for name, (edit, suffix, options) in _EDITS.items():
            dest = base.with_name(f"{base.name}-{name}{suffix}")
            edit(master).save(dest, **options)  # the writer's options
            items.append(CorpusItem(str(dest), group, name, family, "wallpaper"))
        dest = base.with_name(base.name + "-exif_rotated.jpg")
        _save_exif_rotated(master, dest, orientations[index % len(orientations)])
        items.append(CorpusItem(str(dest), group, "exif_rotated", family, "wallpaper"))


def _icon_names() -> list[Path]:
    big = OXYGEN / "256x256"
    chosen = [p for c in ICON_CATEGORIES for p in sorted((big / c).glob("*.png"))]
    mimetypes = sorted((big / "mimetypes").glob("*.png"))
    chosen += random.Random(7).sample(mimetypes, min(MIMETYPE_SAMPLE, len(mimetypes)))
    unique: dict[str, Path] = {}
    for path in chosen:
        digest = hashlib.sha1(path.read_bytes()).hexdigest()
        smaller = [OXYGEN / f"{s}x{s}" / path.parent.name / path.name for s in ICON_SIZES]
        if digest not in unique and all(p.exists() for p in smaller):
            unique[digest] = path
    return list(unique.values())


def _flatten(im: Image.Image) -> Image.Image:
    rgba = im.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def _build_icons(out: Path, items: list[CorpusItem]) -> None:
    for path in _icon_names():
        if not _has_content(path):
            continue
        category = path.parent.name
        group = f"icon:{category}/{path.stem}"
        family = f"icon:{category}/{path.stem.split('-')[0]}"
        if path.stem == "folder" or path.stem.removeprefix("folder-") in FOLDER_COLOURS:
            family = "recolour:folder"
        items.append(CorpusItem(str(path), group, "original", family, "icon"))
        for size in ICON_SIZES:
            theme_copy = OXYGEN / f"{size}x{size}" / category / path.name
            items.append(CorpusItem(str(theme_copy), group, f"theme{size}", family, "icon"))
        base = out / "icons" / f"{category}-{path.stem}"
        with Image.open(path) as im:
            flat = _flatten(im)
            for size in (128, 64):
                dest = base.with_name(f"{base.name}-resize{size}.png")
                im.resize((size, size), Image.Resampling.LANCZOS).save(dest)
                items.append(CorpusItem(str(dest), group, f"icon_resize{size}", family, "icon"))
        flat.save(base.with_name(base.name + "-flat.jpg"), quality=90)
        flat.save(base.with_name(base.name + "-flat.png"))
        for suffix, edit in ((".jpg", "flatten_jpeg"), (".png", "flatten_png")):
            dest = base.with_name(base.name + "-flat" + suffix)
            items.append(CorpusItem(str(dest), group, edit, family, "icon"))


def build_corpus(out: Path, *, install: bool = True) -> list[CorpusItem]:
    """Build (or reuse) the corpus under ``out``; returns its manifest."""
    manifest = out / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if data.get("version") == CORPUS_VERSION:  # paths inside ``out`` are stored relative
            rows = [{**row, "path": str(out / row["path"])} for row in data["items"]]
            return [CorpusItem(**row) for row in rows]
    if install:
        ensure_packages()
    if out.exists():
        shutil.rmtree(out)
    (out / "wall").mkdir(parents=True)
    (out / "icons").mkdir()
    items: list[CorpusItem] = []
    _build_wallpapers(out, items)
    _build_icons(out, items)
    rows = [asdict(item) for item in items]
    for row in rows:
        if Path(row["path"]).is_relative_to(out):
            row["path"] = str(Path(row["path"]).relative_to(out))
    manifest.write_text(json.dumps({"version": CORPUS_VERSION, "items": rows}, indent=1))
    return items


if __name__ == "__main__":
    corpus = build_corpus(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CORPUS_DIR)
    print(f"{len(corpus)} files")
