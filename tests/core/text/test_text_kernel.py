"""The compiled document kernel gives the numpy reference's fingerprints, and loads only when
a process has enough text to pay for it."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scan_helpers import essay, picture, write

from dupfinder.core.errors import TooLittleContent
from dupfinder.core.jit import engine as jit_engine
from dupfinder.core.jit.engine import Engine
from dupfinder.core.model import ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.text import compiled as text_compiled
from dupfinder.core.text import simhash as textsim

pytestmark = pytest.mark.skipif(
    jit_engine.load(jit_engine.Kernel.TEXT) is None, reason="numba is not installed"
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
    from dupfinder.core.text import kernels as text_jit

    assert (text_jit.WORD, text_jit.CJK) == (textchars.WORD, textchars.CJK)
    assert text_jit.NOT_SINGLE == textchars.NOT_SINGLE
    assert (text_jit._P, text_jit._Q) == (textsim._P, textsim._Q)
    assert (text_jit._M1, text_jit._M2) == (textsim._M1, textsim._M2)


def test_compiled_code_is_cached_in_the_user_cache_folder() -> None:
    textsim.text_fingerprint(SAMPLES["mixed"], Engine.COMPILED)
    from dupfinder.core.jit import cache as jit_cache

    folder = jit_cache.cache_folder() / "dupfinder.core.text.kernels"
    assert any(folder.glob("*.nbi")), "numba wrote no index of compiled functions"


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


@pytest.fixture
def fresh_usage(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(text_compiled.ENGINE_VARIABLE, raising=False)
    monkeypatch.setattr(text_compiled, "COMPILED_AFTER", 1000)
    text_compiled._usage.cache_clear()
    yield
    text_compiled._usage.cache_clear()


@pytest.mark.usefixtures("fresh_usage")
def test_auto_starts_on_numpy_and_loads_the_kernel_after_enough_text() -> None:
    assert text_compiled.kernel(600) is None
    assert text_compiled.kernel(600) is None  # 600 seen before: still below 1000
    assert text_compiled.kernel(10) is not None  # 1200 seen
    assert text_compiled.kernel(10) is not None


@pytest.mark.usefixtures("fresh_usage")
def test_an_announced_large_job_gets_the_kernel_from_its_first_document() -> None:
    text_compiled.expect(999)
    assert text_compiled.kernel(10) is None  # too little announced: numpy, and counting
    text_compiled.expect(1000)
    assert text_compiled.kernel(10) is not None
    text_compiled.expect(0)  # a later, small job: back to counting (10 seen so far)
    assert text_compiled.kernel(10) is None


def test_a_scan_announces_the_bytes_of_its_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    announced: list[int] = []
    monkeypatch.setattr(text_compiled, "expect", announced.append)
    root = tmp_path / "files"
    documents = [write(root / "a.txt", essay(1)), write(root / "b.md", essay(2))]
    picture(3).save(root / "p.png")
    scan.run(ScanOptions(roots=(root,), cache_dir=tmp_path / "cache", jobs=1))
    assert announced == [sum(p.stat().st_size for p in documents)]


@pytest.mark.usefixtures("fresh_usage")
def test_environment_forces_either_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(text_compiled.ENGINE_VARIABLE, "compiled")
    assert text_compiled.kernel(1) is not None
    monkeypatch.setenv(text_compiled.ENGINE_VARIABLE, "numpy")
    assert text_compiled.kernel(10**9) is None
    assert text_compiled.kernel(1, Engine.COMPILED) is not None  # an explicit engine wins


def test_engine_must_be_an_engine() -> None:
    with pytest.raises(TypeError, match="Engine"):
        text_compiled.kernel(1, "compiled")  # type: ignore[arg-type]


@pytest.mark.usefixtures("fresh_usage")
def test_without_numba_documents_fall_back_to_numpy_and_say_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "dupfinder.core.text.kernels", None)  # import fails
    jit_engine.load.cache_clear()
    text = SAMPLES["english"]
    try:
        with caplog.at_level(logging.WARNING, logger="dupfinder.core.text.compiled"):
            for _ in range(5):  # past COMPILED_AFTER: AUTO would load the kernel
                assert textsim.text_fingerprint(text) == _result(text, Engine.NUMPY)
            with pytest.raises(RuntimeError, match="numba"):
                textsim.text_fingerprint(text, Engine.COMPILED)
        warnings = [r for r in caplog.records if "numpy" in r.getMessage()]
        assert len(warnings) == 1
    finally:
        monkeypatch.undo()
        jit_engine.load.cache_clear()
    assert jit_engine.load(jit_engine.Kernel.TEXT) is not None
