"""The fingerprint's picture hashes, numpy against the compiled kernel, on real pictures.

    .venv/bin/python -m bench.bench_picture_hashes [--icons 1000] [--rounds 3]

Takes about a thousand icons from /usr/share/icons (every n-th PNG, so every theme and size
shows) and the wallpapers of the mixed folder (bench/out/mixed/backgrounds), decodes each to its
working image once, then: checks that both engines give the same bits on every picture (and
counts the pictures the kernel left to numpy), times the hashes of the eight forms and nine
crops on each engine and build (CPU seconds, rounds interleaved), and times the whole
fingerprint (``image_fingerprint(invariant=True)``) with its hashes on either engine.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dupfinder.core.errors import FileProblem
from dupfinder.core.image import hashes
from dupfinder.core.image import perceptual as imagesim
from dupfinder.core.jit.engine import Kernel

ICONS = Path("/usr/share/icons")
WALLPAPERS = Path(__file__).parent / "out" / "mixed" / "backgrounds"


def _paths(icons: int) -> list[Path]:
    found = sorted(ICONS.rglob("*.png"))
    step = max(1, len(found) // icons)
    papers = sorted(p for p in WALLPAPERS.rglob("*") if p.is_file())
    return found[::step][:icons] + papers


def _forms(pixels: np.ndarray) -> np.ndarray:
    """The forms as ``image_fingerprint`` hands them to ``hashes.pdhashes``."""
    moved = [imagesim._ARRAY_TRANSFORMS[op](pixels) for op in imagesim.VARIANT_TRANSFORMS]
    return np.stack([pixels, *moved])


def _cpu(work: Callable[[], Any]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def _each(run: Callable[[np.ndarray, np.ndarray], object], inputs: list[Any]) -> None:
    for forms, pixels in inputs:
        run(forms, pixels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--icons", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    paths, inputs = [], []
    for path in _paths(args.icons):
        try:
            working = imagesim.load_working_image(path)
        except FileProblem:
            continue
        pixels = np.asarray(working.image, dtype=np.float64)
        paths.append(path)
        inputs.append((_forms(pixels), pixels))
    papers = sum(WALLPAPERS in p.parents for p in paths)
    print(f"{len(inputs)} pictures ({len(inputs) - papers} icons, {papers} wallpapers)")

    base = importlib.import_module(Kernel.PICTURE_HASH.module)
    builds = {"baseline": base}
    if base.avx2():
        builds["avx2"] = importlib.import_module(f"{Kernel.PICTURE_HASH.module}_avx2")
    hashers = {name: hashes._hasher(module) for name, module in builds.items()}

    for name, hasher in hashers.items():
        answers = [hasher.hashes(forms, pixels) for forms, pixels in inputs]
        left = sum(a is None for a in answers)
        same = sum(a == hashes.numpy_pdhashes(*x) for a, x in zip(answers, inputs, strict=True))
        print(f"{name}: {same}/{len(inputs)} identical, {left} left to numpy")

    engines: dict[str, Callable[[np.ndarray, np.ndarray], object]] = {
        "numpy": hashes.numpy_pdhashes,
        **{f"compiled {name}": hasher.hashes for name, hasher in hashers.items()},
    }
    grey = [(forms.astype(np.uint8), pixels.astype(np.uint8)) for forms, pixels in inputs]
    last = list(hashers)[-1]
    engines[f"compiled {last}, uint8 forms"] = hashers[last].hashes
    totals = dict.fromkeys(engines, 0.0)
    for _ in range(args.rounds):
        for name, run in engines.items():
            data = grey if name.endswith("uint8 forms") else inputs
            totals[name] += _cpu(functools.partial(_each, run, data))
    per = {name: 1e6 * t / (args.rounds * len(inputs)) for name, t in totals.items()}
    for name, us in per.items():
        print(f"pdhashes {name}: {us:.1f} us a picture ({per['numpy'] / us:.2f}x numpy)")

    fingerprints = dict.fromkeys(("numpy", "compiled"), 0.0)
    forced = os.environ.get(hashes.ENGINE_VARIABLE)
    try:
        for _ in range(args.rounds):
            for name in fingerprints:
                os.environ[hashes.ENGINE_VARIABLE] = name  # read at every call
                fingerprints[name] += _cpu(
                    lambda: [imagesim.image_fingerprint(p, invariant=True) for p in paths]
                )
    finally:
        if forced is None:
            os.environ.pop(hashes.ENGINE_VARIABLE, None)
        else:
            os.environ[hashes.ENGINE_VARIABLE] = forced
    whole = {name: 1e6 * t / (args.rounds * len(paths)) for name, t in fingerprints.items()}
    saved = whole["numpy"] - whole["compiled"]
    print(
        f"image_fingerprint(invariant=True): numpy {whole['numpy']:.0f} us, compiled "
        f"{whole['compiled']:.0f} us a picture: {saved:.0f} us saved "
        f"({100 * saved / whole['numpy']:.1f} %)"
    )


if __name__ == "__main__":
    main()
