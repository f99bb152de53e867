"""Two-stage matching on real, boilerplate-heavy text: SimHash proposes, the sketch decides."""

from __future__ import annotations

import dataclasses
import glob
import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest
from group_rules import check_groups
from hypothesis import given, settings
from hypothesis import strategies as st
from scan_helpers import essay, write

from dupfinder.core.grouping import verify
from dupfinder.core.model import Fingerprint, Group, Grouping, Kind, Member, ScanOptions
from dupfinder.core.scan import pipeline as scan
from dupfinder.core.text import simhash as textsim
from dupfinder.core.text import sketch

COPYRIGHTS = sorted(glob.glob("/usr/share/doc/*/copyright"))
#: Packages whose copyright files share licence boilerplate but little else (within 8 bits of
#: SimHash): libisl23 (MIT) against gnupg's and krb5's long files.
ISL = "/usr/share/doc/libisl23/copyright"


def _shingles(path: str) -> np.ndarray:
    text = Path(path).read_text("utf-8", "replace")
    return textsim._features(textsim._token_hashes(text), textsim.SHINGLE, textsim.WEIGHTING)[0]


def _jaccard(a: str, b: str) -> float:
    x, y = _shingles(a), _shingles(b)
    shared = np.intersect1d(x, y).size
    return shared / (x.size + y.size - shared)


@pytest.mark.skipif(len(COPYRIGHTS) < 100, reason="needs Debian's /usr/share/doc")
def test_real_copyright_files_group_only_what_they_share(tmp_path: Path) -> None:
    picked = [p for p in COPYRIGHTS if "gnupg" in p or "gpg" in p or "krb5" in p or p == ISL]
    rest = [p for p in COPYRIGHTS if p not in picked]
    picked += rest[:: max(1, len(rest) // (100 - len(picked)))][: 100 - len(picked)]
    folder = tmp_path / "docs"
    for path in picked:
        target = folder / f"{Path(path).parent.name}.copyright.txt"
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(path, target)
    options = ScanOptions(roots=(folder,), kinds=frozenset({Kind.TEXT}), use_cache=False, jobs=1)
    result = scan.run(options)
    assert result.groups
    by_name = {str(folder / f"{Path(p).parent.name}.copyright.txt"): p for p in picked}
    for group in result.groups:
        rep = group.representative
        for member in group.members[1:]:
            # the stated threshold holds for the estimate and, within its error, for the text
            assert member.similarity >= options.text_similarity
            exact = _jaccard(by_name[rep.path], by_name[member.path])
            assert exact >= options.text_similarity - 0.1, (rep.path, member.path, exact)
    if Path(ISL).exists():
        isl = str(folder / "libisl23.copyright.txt")
        assert not any(isl in {m.path for m in g.members} for g in result.groups)


def _member(path: Path, similarity: float) -> Member:
    value = textsim.simhash(path.read_text())
    return Member(str(path), 10, 0, 0, Fingerprint(Kind.TEXT, value), similarity=similarity)


def test_the_group_check_fails_on_a_weak_member(tmp_path: Path) -> None:
    a = write(tmp_path / "a.txt", essay(1))
    b = write(tmp_path / "b.txt", essay(2))
    group = Group(Kind.TEXT, (_member(a, 1.0), _member(b, 0.9)))
    options = ScanOptions(roots=(tmp_path,))
    with pytest.raises(AssertionError):
        check_groups([group], options)  # the files share only vocabulary, not 90 % of runs
    weak = Group(Kind.TEXT, (_member(a, 1.0), _member(b, 0.1)))
    with pytest.raises(AssertionError):
        check_groups([weak], options)


def test_candidates_below_the_similarity_are_dropped() -> None:
    texts = [essay(1), essay(1) + " one more closing sentence.", essay(2)]
    prints = [textsim.text_fingerprint(t) for t in texts]
    sketches = np.stack([np.frombuffer(s, dtype=np.uint8) for _, s in prints])
    every = np.array([[0, 1], [0, 2], [1, 2]], dtype=np.int64)  # as if all were proposed
    found = verify.Candidates(np.arange(3), np.arange(3), every)
    pairs, sims = verify.verified(found, sketches, 0.5, sketch.pair_similarity)
    assert {tuple(sorted(found.first[p].tolist())) for p in pairs} == {(0, 1)}
    assert sims[0] > 0.9


def test_same_fingerprint_different_sketch_are_two_nodes() -> None:
    values = np.array([7, 7, 7], dtype=np.uint64)
    sketches = np.zeros((3, sketch.BINS), dtype=np.uint8)
    sketches[2, 0] = 5
    found = verify.candidates(values, sketches, 0)
    assert found.inverse[0] == found.inverse[1] != found.inverse[2]
    assert found.pairs.tolist() == [[0, 1]]


def test_drafts_that_drift_stay_together_only_when_asked(tmp_path: Path) -> None:
    # a chain of drafts: each a quarter rewritten from the one before
    import random

    rng = random.Random(5)
    words = essay(11, 600).split(" ")
    for step in range(4):
        write(tmp_path / f"draft{step}.txt", " ".join(words))
        for i in rng.sample(range(len(words)), len(words) // 12):
            words[i] = f"new{step}x{i}"
    star_options = ScanOptions(
        roots=(tmp_path,),
        use_cache=False,
        jobs=1,
        text_threshold=20,
        text_similarity=0.5,  # neighbours share ~60 % of runs, drafts two apart ~40 %
    )
    star = scan.run(star_options)
    drafts = scan.run(dataclasses.replace(star_options, text_grouping=Grouping.CONNECTED))
    assert max(len(g.members) for g in drafts.groups) == 4
    assert max(len(g.members) for g in star.groups) < 4


def test_pairs_reach_the_right_nodes_when_a_fingerprint_has_two() -> None:
    # value 0 has two nodes (different sketches); 0b1 and 0b11 pair up beyond them
    values = np.array([0, 0, 0b1, 0b11, 0xFF00], dtype=np.uint64)
    sketches = np.zeros((5, sketch.BINS), dtype=np.uint8)
    sketches[1, 0] = 9
    found = verify.candidates(values, sketches, 1)
    rows = {tuple(sorted(int(found.first[n]) for n in pair)) for pair in found.pairs.tolist()}
    brute = {
        (i, j)
        for i in range(5)
        for j in range(i + 1, 5)
        if int(values[i] ^ values[j]).bit_count() <= 1
    }
    assert rows == brute


def test_equal_sketch_bands_propose_pairs_beyond_the_radius() -> None:
    rng = np.random.default_rng(4)
    sketches = rng.integers(1, 256, size=(4, sketch.BINS), dtype=np.uint8)
    sketches[1, : verify.BAND_BINS] = sketches[0, : verify.BAND_BINS]  # one band in common
    sketches[3, : verify.BAND_BINS] = sketches[0, : verify.BAND_BINS]
    sketches[3, 0] = 0  # an empty bin: that band proposes nothing
    assert verify.band_pairs(sketches).tolist() == [[0, 1]]
    values = np.array([0, 2**64 - 1, 0xF0F0, 0x0F0F], dtype=np.uint64)  # far apart
    found = verify.candidates(values, sketches, 3, bands=True)
    rows = {tuple(sorted(found.first[p].tolist())) for p in found.pairs}
    assert rows == {(0, 1)}
    assert len(verify.candidates(values, sketches, 3).pairs) == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), max_size=30))
def test_equal_keys_give_every_pair_once(keys: list[int]) -> None:
    pairs = verify._equal_runs(np.array(keys, dtype=np.uint64), np.arange(len(keys)))
    got = sorted(tuple(sorted(p)) for p in pairs.tolist())
    want = [(i, j) for i, j in itertools.combinations(range(len(keys)), 2) if keys[i] == keys[j]]
    assert got == want


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=2, max_value=40))
def test_band_pairs_are_every_pair_sharing_a_band_once_in_order(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    sketches = rng.integers(1, 3, size=(n, 3 * verify.BAND_BINS), dtype=np.uint8)
    width = verify.BAND_BINS
    brute = [
        [i, j]
        for i, j in itertools.combinations(range(n), 2)
        if any(
            (sketches[i, b : b + width] == sketches[j, b : b + width]).all()
            for b in range(0, sketches.shape[1], width)
        )
    ]
    assert verify.band_pairs(sketches).tolist() == brute
