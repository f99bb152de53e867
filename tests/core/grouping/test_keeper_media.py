"""The suggested keeper of music and videos: lossless, then bitrate, then length, then pixels."""

from __future__ import annotations

from dupfinder.core.actions.marks import best_member, parse_rules
from dupfinder.core.grouping.keeper import longest_of, member_key, reasons, suggested
from dupfinder.core.model import Fingerprint, Group, KeepReason, Kind, MediaFacts, Member


def _song(path: str, facts: MediaFacts | None, *, mtime: int = 1, size: int = 1000) -> Member:
    return Member(path, size, mtime, 0, Fingerprint(Kind.AUDIO, 1), media=facts)


def _video(path: str, facts: MediaFacts, width: int, height: int) -> Member:
    return Member(path, 1000, 1, 0, Fingerprint(Kind.VIDEO, 1), width, height, media=facts)


FLAC = MediaFacts(200.0, 900_000, "flac", True)
MP3_320 = MediaFacts(200.1, 320_000, "mp3", False)
MP3_128 = MediaFacts(200.0, 128_000, "mp3", False)
MP3_128_CUT = MediaFacts(150.0, 128_000, "mp3", False)


def test_lossless_before_bitrate_before_length() -> None:
    # the newer, smaller FLAC still beats the older MP3s: quality before age and size
    flac = _song("/m/b/tune.flac", FLAC, mtime=9, size=10)
    mp3 = _song("/m/tune.mp3", MP3_320)
    low = _song("/m/tune-low.mp3", MP3_128)
    cut = _song("/m/tune-cut.mp3", MP3_128_CUT)
    ordered = sorted([cut, low, mp3, flac], key=member_key)
    assert [m.path for m in ordered] == [flac.path, mp3.path, low.path, cut.path]


def test_a_header_that_could_not_be_read_ranks_last() -> None:
    unknown = _song("/m/a.mp3", MediaFacts())
    assert member_key(_song("/m/b.mp3", MP3_128_CUT)) < member_key(unknown)


def test_copy_marks_still_come_first() -> None:
    copy = _song("/m/tune (copy).flac", FLAC)
    original = _song("/m/tune.mp3", MP3_128)
    assert member_key(original) < member_key(copy)


def test_the_keeper_of_a_song_group_says_why() -> None:
    group = Group(
        Kind.AUDIO,
        (
            _song("/m/tune.mp3", MP3_320),
            _song("/m/tune.flac", FLAC),
            _song("/m/tune.ogg", MP3_128_CUT),
        ),
    )
    keeper = min(group.members, key=member_key)
    assert keeper.path == "/m/tune.flac"
    # the Ogg is cut (150 s of 200): the whole before a part, then lossless
    assert reasons(keeper, group.members) == (KeepReason.LONGEST, KeepReason.LOSSLESS)
    lossy = (group.members[0], group.members[2])
    assert reasons(group.members[0], lossy) == (
        KeepReason.LONGEST,  # the other is cut
        KeepReason.HIGHEST_BITRATE,
    )


def test_videos_prefer_higher_resolution_after_length() -> None:
    same = MediaFacts(60.0, 2_000_000, "h264", False)
    big = _video("/v/clip.mp4", same, 1280, 720)
    small = _video("/v/clip-phone.mp4", same, 640, 360)
    assert member_key(big) < member_key(small)
    assert reasons(big, (big, small)) == (KeepReason.MOST_PIXELS,)
    better = _video("/v/clip-hq.mp4", MediaFacts(60.0, 4_000_000, "h264", False), 640, 360)
    assert member_key(better) < member_key(big)  # bitrate before resolution


def test_suggested_only_swaps_identical_copies() -> None:
    # the flac is better, but its similarity is measured against the representative: the
    # grouping chose the keeper; suggested() leaves a group of different files alone
    group = Group(Kind.AUDIO, (_song("/m/tune.mp3", MP3_320), _song("/m/tune.flac", FLAC)))
    assert suggested(group).members[0].path == "/m/tune.mp3"


def test_keep_rules_break_ties_by_media_quality() -> None:
    group = Group(
        Kind.AUDIO,
        (_song("/m/tune.mp3", MP3_320, size=1000), _song("/m/tune.flac", FLAC, size=1000)),
    )
    # "largest" ties (equal sizes): the suggested order decides, and the FLAC is better
    assert best_member(group, parse_rules(["largest"])).path == "/m/tune.flac"
    assert best_member(group, parse_rules(["quality"])).path == "/m/tune.flac"


def test_a_clip_is_never_kept_over_the_whole_recording() -> None:
    whole = _song("/m/tune.mp3", MP3_128)  # 200 s, lossy
    clip = _song("/m/tune-clip.flac", MediaFacts(15.0, 900_000, "flac", True))
    trimmed = _song("/m/tune-trim.flac", MediaFacts(190.0, 900_000, "flac", True))
    padded = _song("/m/tune.flac", MediaFacts(199.0, 900_000, "flac", True))  # 1 s less
    group = Group(Kind.AUDIO, (clip, whole, trimmed))
    longest = longest_of(group.members)
    assert min(group.members, key=lambda m: member_key(m, (), longest)) is whole
    assert reasons(whole, group.members)[0] is KeepReason.LONGEST
    for rule in ("quality", "largest"):  # equal sizes: the keeper's order decides
        assert best_member(group, parse_rules([rule])) is whole
    # a second of padding is no cut: the lossless copy still comes first
    assert min((whole, padded), key=lambda m: member_key(m, (), 200.0)) is padded
