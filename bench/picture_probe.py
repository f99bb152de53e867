"""Edits the picture corpus never made: is each still called a copy, and is a non-copy refused?

    python -m bench.picture_probe [--split held|tune|all] [--per-kind N] [--tools ...] [--quick]

``bench/picture_corpus.py`` holds the edits the check was chosen on (resize, crop, pad, tone,
grey, sepia, text, overlay, formats). People make others, and a check tuned on one set of
edits is narrower than the world. Each original of the corpus (``--split``, at most
``--per-kind`` of each kind, 10 with ``--quick``: photo, graphic = icon and drawn art,
screenshot) is edited here in ways the corpus never did, and each edited copy is checked
against its original with the scan's check at its default threshold (``pair_similarity`` >=
0.85, what a scan needs before two pictures may be grouped):

- **copies** (a person would call them the same picture; the share that passes):
  ``straighten1``-``straighten3`` (turned by 1-3 degrees and cut to the largest upright
  rectangle inside, as a photo editor straightens a horizon), ``vignette`` (corners darkened
  by up to a quarter), ``noise``, ``sharpen``, ``warmer`` (red up, blue down by 6 %),
  ``desaturate`` (Photoshop's lightness, (max + min) / 2) and ``average`` ((R + G + B) / 3),
  ``stretch`` (a quarter wider), ``jpeg30`` (flattened over white), ``watermark`` (a
  translucent word across the middle), ``thumb64`` (64 pixels on its long side);
- **turned and mirrored copies**, copies for a scan that looks for them (``--mirror-rotate``,
  checked and scanned that way too): ``mirrored``, ``upside-down``, ``turned90`` and
  ``turned90+jpeg30``;
- **not copies** (another picture; the share that passes should be 0): ``negative`` (of the
  colours, transparency kept), ``grey-negative`` (of its grey copy, against that grey copy),
  ``halves-swapped`` (left and right halves traded).

Then the probe's folder (each original, its grey copy and every edit) is scanned whole by each
of ``--tools`` in a fresh process, as a person would scan it: dupfinder (``scan --kind image``,
its defaults, then with ``--mirror-rotate``) and Czkawka at its three presets (as
``bench.picture_bench`` runs it), each pair counted found where its two pictures share a
group, with the CPU of every process.

Without ``--mirror-rotate`` the turned and mirrored copies are another picture to a scan
(a symmetric drawing is its own mirror image, so their shares there are not misses). JSON goes
to ``bench/out/picture_probe.json``.
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import math
import os
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps

from bench.picture_bench import CZKAWKA_LEVELS, _czkawka, _dupfinder, _kind
from bench.picture_corpus import FONT, Item, _per_rgb, _rgb, build
from dupfinder.core.image import check
from dupfinder.core.image.perceptual import image_fingerprint
from dupfinder.core.model import DEFAULT_IMAGE_SIMILARITY

OUT = Path(__file__).parent / "out" / "picture_probe.json"
Edit = Callable[[Image.Image], Image.Image]


def _straighten(degrees: float) -> Edit:
    def edit(im: Image.Image) -> Image.Image:
        turned = im.rotate(degrees, resample=Image.Resampling.BICUBIC)
        w, h = im.size
        a = math.radians(abs(degrees))
        cw = int(w * math.cos(a) - h * math.sin(a))
        ch = int(h * math.cos(a) - w * math.sin(a))
        left, top = (w - cw) // 2, (h - ch) // 2
        return turned.crop((left, top, left + cw, top + ch))

    return edit


def _vignette(im: Image.Image) -> Image.Image:
    w, h = im.size
    y, x = np.mgrid[0:h, 0:w]
    r = np.hypot((x - w / 2) / (w / 2), (y - h / 2) / (h / 2)) / math.sqrt(2)
    gain = 1.0 - 0.25 * np.clip((r - 0.4) / 0.6, 0.0, 1.0) ** 2

    def darken(rgb: Image.Image) -> Image.Image:
        pixels = np.asarray(rgb, dtype=np.float64) * gain[:, :, None]
        return Image.fromarray(pixels.round().astype(np.uint8), "RGB")

    return _per_rgb(im, darken)


def _noise(im: Image.Image) -> Image.Image:
    def noisy(rgb: Image.Image) -> Image.Image:
        pixels = np.asarray(rgb, dtype=np.float64)
        pixels += np.random.default_rng(0).normal(0.0, 8.0, pixels.shape)
        return Image.fromarray(np.clip(pixels, 0, 255).round().astype(np.uint8), "RGB")

    return _per_rgb(im, noisy)


def _warmer(im: Image.Image) -> Image.Image:
    def warm(rgb: Image.Image) -> Image.Image:
        r, g, b = rgb.split()
        return Image.merge(
            "RGB", (r.point(lambda v: min(255, round(v * 1.06))), g, b.point(lambda v: v * 0.94))
        )

    return _per_rgb(im, warm)


def _grey_by(reduce: Callable[[np.ndarray], np.ndarray]) -> Edit:
    def edit(im: Image.Image) -> Image.Image:
        def grey(rgb: Image.Image) -> Image.Image:
            level = reduce(np.asarray(rgb, dtype=np.float64))
            return Image.fromarray(level.round().astype(np.uint8), "L").convert("RGB")

        return _per_rgb(im, grey)

    return edit


def _jpeg(im: Image.Image) -> Image.Image:
    out = io.BytesIO()
    _rgb(im).save(out, "JPEG", quality=30)
    out.seek(0)
    return Image.open(out).convert("RGB")


def _watermark(im: Image.Image) -> Image.Image:
    picture = im.convert("RGBA")
    w, h = picture.size
    layer = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    font = ImageFont.truetype(FONT, max(8, w // 10))
    ImageDraw.Draw(layer).text(
        (w // 6, h // 2 - h // 12), "© SAMPLE", fill=(255, 255, 255, 110), font=font
    )
    return Image.alpha_composite(picture, layer)


def _thumb(im: Image.Image) -> Image.Image:
    w, h = im.size
    scale = 64 / max(w, h)
    return im.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS)


def _halves_swapped(im: Image.Image) -> Image.Image:
    w, h = im.size
    out = im.copy()
    out.paste(im.crop((0, 0, w // 2, h)), (w - w // 2, 0))
    out.paste(im.crop((w // 2, 0, w, h)), (0, 0))
    return out


COPIES: dict[str, Edit] = {
    "straighten1": _straighten(1.0),
    "straighten2": _straighten(2.0),
    "straighten3": _straighten(3.0),
    "vignette": _vignette,
    "noise": _noise,
    "sharpen": lambda im: im.filter(ImageFilter.UnsharpMask(2, 120, 2)),
    "warmer": _warmer,
    "desaturate": _grey_by(lambda p: (p.max(axis=2) + p.min(axis=2)) / 2),
    "average": _grey_by(lambda p: p.mean(axis=2)),
    "stretch": lambda im: im.resize((round(im.width * 1.25), im.height), Image.Resampling.LANCZOS),
    "jpeg30": _jpeg,
    "watermark": _watermark,
    "thumb64": _thumb,
}
#: Copies for a scan that looks for turned and mirrored pictures (``--mirror-rotate``).
TURNED: dict[str, Edit] = {
    "mirrored": ImageOps.mirror,
    "upside-down": lambda im: im.rotate(180),
    "turned90": lambda im: im.rotate(90, expand=True),
    "turned90+jpeg30": lambda im: _jpeg(im.rotate(90, expand=True)),
}
#: Not copies: (edit, whether the original is first made grey, as its counterpart is).
OTHERS: dict[str, tuple[Edit, bool]] = {
    "negative": (lambda im: _per_rgb(im, ImageOps.invert), False),
    "grey-negative": (lambda im: ImageOps.invert(im.convert("L")), True),
    "halves-swapped": (_halves_swapped, False),
}


@dataclass(frozen=True, slots=True)
class Pair:
    """An edited picture and the one it is to be compared with (its original, or for a grey
    copy's negative that grey copy), both written to the probe's folder."""

    kind: str
    edit: str
    original: Path
    edited: Path
    copy: bool


def _opened(path: str) -> Image.Image:
    with Image.open(path) as opened:
        return opened.convert("RGBA") if "A" in opened.getbands() else opened.convert("RGB")


def stage(items: list[Item], per_kind: int, folder: Path) -> list[Pair]:
    """The probe's pictures in ``folder`` (a folder per original: the original, its grey copy
    and every edit), as pairs to score."""
    originals: dict[str, list[Item]] = defaultdict(list)
    for item in sorted(items, key=lambda i: i.group):
        if item.edit == "original" and len(originals[_kind(item)]) < per_kind:
            originals[_kind(item)].append(item)
    pairs: list[Pair] = []
    for kind, chosen in originals.items():
        for item in chosen:
            im = _opened(item.path)
            place = folder / item.group.replace("/", "__")
            place.mkdir(parents=True)
            original, grey = place / "original.png", place / "grey.png"
            im.save(original)
            im.convert("L").save(grey)
            edits = {name: (edit, False, True) for name, edit in (COPIES | TURNED).items()}
            edits.update({name: (edit, greyed, False) for name, (edit, greyed) in OTHERS.items()})
            for name, (edit, greyed, copy) in edits.items():
                edited = place / f"{name}.png"
                edit(im).save(edited)
                pairs.append(Pair(kind, name, grey if greyed else original, edited, copy))
    return pairs


def _descriptor(path: Path) -> np.ndarray | None:
    try:
        return np.frombuffer(image_fingerprint(path).descriptor, np.uint8)
    except Exception:  # too flat to fingerprint: nothing a scan could group
        return None


def checked(pairs: list[Pair], invariant: bool = False) -> dict[str, dict[str, list[bool]]]:
    """Whether each pair passes the scan's check at its default threshold (``invariant``: as
    ``--mirror-rotate`` checks), by edit and kind (a pair of which a picture cannot be
    fingerprinted is left out)."""
    measure = check.invariant_pair_similarity if invariant else check.pair_similarity
    found: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        a, b = _descriptor(pair.original), _descriptor(pair.edited)
        if a is not None and b is not None:
            similarity = float(measure(a, b)[0])
            found[pair.edit][pair.kind].append(similarity >= DEFAULT_IMAGE_SIMILARITY)
    return found


def grouped(pairs: list[Pair], groups: list[list[str]]) -> dict[str, dict[str, list[bool]]]:
    """Whether each pair's two pictures are in one group of a whole scan, by edit and kind."""
    group_of = {os.path.realpath(path): n for n, group in enumerate(groups) for path in group}
    found: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        a = group_of.get(os.path.realpath(pair.original), -1)
        b = group_of.get(os.path.realpath(pair.edited), -2)
        found[pair.edit][pair.kind].append(a == b)
    return found


def report(title: str, found: dict[str, dict[str, list[bool]]]) -> None:
    kinds = ("photo", "graphic", "screenshot")
    print(f"\n{title}")
    print(f"{'edit':16s}" + "".join(f"{k:>16s}" for k in kinds))
    for heading, names in (
        ("copies (share found)", COPIES),
        (
            "turned and mirrored copies (share found; a scan finds them with --mirror-rotate)",
            TURNED,
        ),
        ("not copies (share paired)", OTHERS),
    ):
        print(f"-- {heading}")
        for name in names:
            cells = []
            for kind in kinds:
                values = found.get(name, {}).get(kind, [])
                cells.append(f"{sum(values) / len(values):.2f} ({len(values)})" if values else "—")
            print(f"{name:16s}" + "".join(f"{c:>16s}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="held", choices=("held", "tune", "all"))
    parser.add_argument("--per-kind", type=int, default=40)
    parser.add_argument("--tools", nargs="*", default=["dupfinder", "czkawka"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quick", action="store_true", help="10 originals of each kind")
    args = parser.parse_args(argv)
    if args.quick:
        args.per_kind = min(args.per_kind, 10)
    items = [i for i in build() if args.split == "all" or i.split == args.split]
    results: dict[str, Any] = {"split": args.split}
    with tempfile.TemporaryDirectory(prefix="picture-probe-") as tmp:
        folder = Path(tmp)
        pairs = stage(items, args.per_kind, folder)
        found = checked(pairs)
        report("the check, each pair alone (dupfinder's second check at its default, 85 %)", found)
        results["check"] = found
        found = checked(pairs, invariant=True)
        report("the check with --mirror-rotate, each pair alone", found)
        results["check --mirror-rotate"] = found
        runs: list[tuple[str, Callable[[], tuple[list[list[str]], float, float]]]] = []
        if "dupfinder" in args.tools:
            runs.append(("dupfinder", functools.partial(_dupfinder, folder, args.jobs)))
            runs.append(
                (
                    "dupfinder --mirror-rotate",
                    functools.partial(_dupfinder, folder, args.jobs, ("--mirror-rotate",)),
                )
            )
        if "czkawka" in args.tools:
            for name, level in CZKAWKA_LEVELS.items():
                runs.append(
                    (f"czkawka {name}", functools.partial(_czkawka, folder, level, args.jobs))
                )
        for tool, run in runs:
            try:
                groups, wall, cpu = run()
            except (RuntimeError, OSError) as exc:
                print(f"\n{tool}: not run ({exc})")
                continue
            scored = grouped(pairs, groups)
            report(f"{tool}: whole scan of the probe's folder, CPU {cpu:.1f} s", scored)
            results[tool] = {"groups": scored, "cpu": cpu, "wall": wall}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
