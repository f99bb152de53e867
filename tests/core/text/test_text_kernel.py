"""The compiled document kernel gives the numpy reference's fingerprints; AUTO uses it whenever
it was built, and without it documents fall back to numpy."""

from __future__ import annotations

import logging
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dupfinder.core.errors import TooLittleContent
from dupfinder.core.jit import engine as jit_engine
from dupfinder.core.jit.engine import Engine
from dupfinder.core.text import compiled as text_compiled
from dupfinder.core.text import simhash as textsim

pytestmark = pytest.mark.skipif(
    jit_engine.load(jit_engine.Kernel.TEXT) is None, reason="the extension was not built"
)

SAMPLES = {
    "english": "The quick brown fox jumps over the lazy dog near the river bank today. " * 4,
    "chinese": "北京是中华人民共和国的首都，也是全国的政治中心和文化中心。这座城市有三千多年的建城史。",
    "japanese": "東京は日本の首都であり、世界でも有数の大都市です。「江戸」と呼ばれていた時代から発展。",
    "mixed": "Python 是一种广泛使用的编程语言。It was created by Guido van Rossum 最初は1991年に公開。"
    "서울에서도 많은 개발자가 Python을 사용합니다 ok ok ok ok.",
    # expansions, dropped and composing characters: the kernel hands these to the general fold
    "folding": ("\ufeffStraße ﬁle café cafe\u0301 ﬂow soft\u00adhyphen ™ ½ … ＡＢＣ " * 3),
    "ascii repeats": "to be or not to be " * 40,
}


def _result(text: str, engine: Engine) -> tuple[int, bytes] | str:
    try:
        return textsim.text_fingerprint(text, engine)
    except TooLittleContent as exc:
        return str(exc)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_kernel_equals_numpy_on_every_script(name: str) -> None:
    text = SAMPLES[name]
    assert _result(text, Engine.COMPILED) == _result(text, Engine.NUMPY)
    assert isinstance(_result(text, Engine.COMPILED), tuple)


def test_kernel_constants_are_those_of_the_numpy_path() -> None:
    from dupfinder.core.text import chars as textchars

    kernels = jit_engine.load(jit_engine.Kernel.TEXT)  # typed, unlike an import of it
    assert kernels is not None

    assert (kernels.WORD, kernels.CJK) == (textchars.WORD, textchars.CJK)
    assert kernels.NOT_SINGLE == textchars.NOT_SINGLE
    assert (kernels.P, kernels.Q) == (textsim._P, textsim._Q)
    assert (kernels.M1, kernels.M2) == (textsim._M1, textsim._M2)


def test_kernel_takes_read_only_and_both_widths_of_code_points() -> None:
    """ASCII texts arrive as bytes, others as UTF-32 from a read-only buffer: same hashes."""
    from dupfinder.core.text import chars as textchars

    kernels = jit_engine.load(jit_engine.Kernel.TEXT)  # typed, unlike an import of it
    assert kernels is not None

    text = "plain words in a row and more of them"
    narrow = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    wide = textchars.utf32(text)
    assert not wide.flags.writeable
    fold, classes = np.zeros(0, np.uint32), textchars.class_table()
    a, count_a = kernels.shingle_hashes(narrow, fold, classes, 3)
    b, count_b = kernels.shingle_hashes(wide, fold, classes, 3)
    assert count_a == count_b == 9
    np.testing.assert_array_equal(a, b)


def test_too_short_texts_are_refused_alike() -> None:
    short = "only a few words here"
    assert _result(short, Engine.COMPILED) == _result(short, Engine.NUMPY)
    assert "at least" in str(_result(short, Engine.COMPILED))


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.one_of(
            st.sampled_from(" .,\nabcdeé\u0301ßﬁ国語テ가\u00ad"),
            st.characters(codec=None, exclude_categories=()),
        ),
        min_size=0,
        max_size=300,
    )
)
def test_kernel_equals_numpy_on_arbitrary_text(text: str) -> None:
    assert _result(text, Engine.COMPILED) == _result(text, Engine.NUMPY)


def test_auto_uses_the_kernel_whenever_it_was_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(text_compiled.ENGINE_VARIABLE, raising=False)
    assert text_compiled.kernel() is jit_engine.load(jit_engine.Kernel.TEXT)


def test_environment_forces_either_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(text_compiled.ENGINE_VARIABLE, "compiled")
    assert text_compiled.kernel() is not None
    monkeypatch.setenv(text_compiled.ENGINE_VARIABLE, "numpy")
    assert text_compiled.kernel() is None
    assert text_compiled.kernel(Engine.COMPILED) is not None  # an explicit engine wins


def test_engine_must_be_an_engine() -> None:
    with pytest.raises(TypeError, match="Engine"):
        text_compiled.kernel("compiled")  # type: ignore[arg-type]


def test_without_the_extension_documents_fall_back_to_numpy_and_say_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "dupfinder.core.text.kernels", None)  # import fails
    jit_engine.load.cache_clear()
    text = SAMPLES["english"]
    try:
        with caplog.at_level(logging.WARNING, logger="dupfinder.core.text.compiled"):
            for _ in range(5):
                assert textsim.text_fingerprint(text) == _result(text, Engine.NUMPY)
            with pytest.raises(RuntimeError, match="not built"):
                textsim.text_fingerprint(text, Engine.COMPILED)
        warnings = [r for r in caplog.records if "numpy" in r.getMessage()]
        assert len(warnings) == 1
    finally:
        monkeypatch.undo()
        jit_engine.load.cache_clear()
    assert jit_engine.load(jit_engine.Kernel.TEXT) is not None
