"""HEIF pictures decode through pi-heif (decoders only), never through pillow-heif."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data"

pytest.importorskip("pi_heif")


def test_heic_decodes_through_pi_heif_alone() -> None:
    # A fresh process where pillow-heif cannot be imported: what the bundles ship.
    child = textwrap.dedent(
        """
        import json, sys
        sys.modules["pillow_heif"] = None  # importing it now raises ImportError
        from dupfinder.core.image import perceptual as imagesim
        heic = imagesim.image_fingerprint(sys.argv[1])
        png = imagesim.image_fingerprint(sys.argv[2])
        print(json.dumps({
            "size": [heic.width, heic.height],
            "distance": (heic.value ^ png.value).bit_count(),
            "decoders": sorted(m for m, v in sys.modules.items() if v and "heif" in m),
        }))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(DATA / "photo.heic"), str(DATA / "photo-of-heic.png")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["size"] == [96, 64]
    assert found["distance"] <= 4  # the same picture, through a lossy codec
    assert "pi_heif" in found["decoders"]
    assert "pillow_heif" not in found["decoders"]
