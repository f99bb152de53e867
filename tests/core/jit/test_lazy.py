"""A module named through ``core.jit.lazy`` is imported when it is first used."""

from __future__ import annotations

import sys

import pytest

from dupfinder.core.jit import lazy


def test_a_module_is_imported_at_its_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    colours = lazy.module("colorsys")
    assert "colorsys" not in sys.modules
    assert lazy.loaded("colorsys") is None
    assert colours.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
    assert lazy.loaded("colorsys") is sys.modules["colorsys"]
    assert "hls_to_rgb" in vars(colours)  # the rest is found without another import


def test_a_module_imported_already_is_itself() -> None:
    assert lazy.module("os") is sys.modules["os"]


def test_a_name_the_module_lacks_is_an_attribute_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    with pytest.raises(AttributeError):
        lazy.module("colorsys").no_such_name  # noqa: B018
