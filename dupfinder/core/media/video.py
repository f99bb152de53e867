"""Videos as fingerprints: a picture hash a second from the keyframes, SimHashes for the index,
and the check that aligns two videos and counts the frames they share.

Decoding (one ffmpeg call, a child process under the file's time limit): only keyframes are
decoded (``-skip_frame nokey``: a 10-minute film costs a fraction of a second, where every
frame would cost a minute), scaled to ``GRID`` x ``GRID`` grey, and held one ``STEP_S`` slot at
a time (the ``fps`` filter repeats the last keyframe), so every copy is sampled on the same
clock whatever its keyframes: an encoder puts keyframes at scene cuts, where copies agree.
Not every encoder does: x264's ``-preset ultrafast`` and long keyframe intervals leave one
keyframe in 10 s or more, none at the cuts. A file whose keyframes are further apart than
``SPARSE_KEY_S`` on average, or hold fewer than ``MIN_OVERLAP_FRAMES`` informative pictures,
is decoded again whole (reference frames only, no loop filter) and sampled at each slot; the
check then finds the keyframes of the other copy among those samples.
Black bars (letterbox, pillarbox) are found over the whole file and cut off; each frame is then
hashed by the picture code (``dupfinder.core.image.perceptual.hash_working``). Near-constant
frames (black, one colour, the dark middle of a fade) are not informative and never count.
Index: ``value`` is the SimHash (bitwise majority) of the informative frame hashes, ``windows``
those of ``WINDOW_S`` windows every ``STRIDE_S``, so a clip meets the film it comes from.
Check (``compare``): the offset where the frame hashes agree most, then the aligned frames
within ``FRAME_MATCH_BITS`` bits. The similarity is the share of the *shorter file's*
informative frames that match: a trimmed copy or a clip scores near 1, while two different
videos that share an intro, credits or a logo score only the intro's share of the shorter one,
below ``MIN_SIMILARITY`` unless the intro is most of it.
"""

from __future__ import annotations

import io
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PIL import Image

from dupfinder.core.errors import CorruptFile, FileProblem, TooLittleContent
from dupfinder.core.image import perceptual
from dupfinder.core.media import align as aligning
from dupfinder.core.media.info import probe
from dupfinder.core.media.match import MediaMatch
from dupfinder.core.media.tools import FILE_LIMIT_S, input_url, require_tools, run_tool

__all__ = [
    "ALGORITHM_VERSION",
    "INDEX_RADIUS",
    "MIN_SIMILARITY",
    "VideoPrint",
    "compare",
    "frames_at",
    "video_print",
]

#: Seconds per sampled frame slot.
STEP_S = 1.0
#: Side of the grey square each keyframe is decoded to (bars are found at this size).
GRID = 96
#: Frames whose pixel standard deviation (0..255) is below this are near-constant.
FLAT_STD = 8.0
#: Rows and columns whose brightest pixel over the whole file is below this are black bars.
BAR_LEVEL = 40
#: Decoding stops after this much of a file.
MAX_SECONDS = 4 * 3600
#: Windows of 16 s every 4 s: on the benchmark, every 20-s clip met its film at radius 12
#: (windows of 20 s every 5 s: 5 of 6).
WINDOW_S = 16.0
STRIDE_S = 4.0
#: Two aligned frames match when their picture hashes differ in at most this many bits
#: (the picture index's radius; unrelated frames differ in about 32).
FRAME_MATCH_BITS = 12
#: The fewest informative aligned frames two prints must share to be compared.
MIN_OVERLAP_FRAMES = 4
#: A keyframe of one file is looked for this many slots either side of the aligned time in
#: the other (encoders place keyframes differently inside a shot).
TOLERANCE_SLOTS = 2
#: The fewest keyframes that must be found in the other file for any similarity at all.
MIN_MATCHED_EVENTS = 2
#: The least held time those keyframes must cover, in seconds.
MIN_MATCHED_S = 6.0
#: A file whose keyframes are further apart than this on average (x264's ``-preset ultrafast``
#: puts one every 250 frames and none at cuts) is sampled from all its frames instead.
SPARSE_KEY_S = 8.0
INDEX_RADIUS = 12
MIN_SIMILARITY = 0.7
ALGORITHM_VERSION = f"video2-key-{STEP_S:g}s-sparse{SPARSE_KEY_S:g}s-{GRID}-{perceptual.DEFAULT_ALGORITHM}-w{WINDOW_S:g}s{STRIDE_S:g}"

_MAGIC = b"DFVS"
_HEADER = struct.Struct("<4sBfI")
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class VideoPrint:
    """``value``: SimHash of the whole video; ``windows``: SimHashes of overlapping windows;
    ``sequence``: the frame hashes ``compare`` aligns; the duration sampled and the size."""

    value: int
    windows: tuple[int, ...]
    sequence: bytes
    duration_s: float
    width: int
    height: int


def _frames(path: str, time_limit_s: float, *, keyframes_only: bool) -> npt.NDArray[np.uint8]:
    """Grey ``GRID`` x ``GRID`` frames, one per ``STEP_S``: held from the keyframes, or taken
    from every reference frame (the loop filter skipped: the hash does not see it)."""
    tools = require_tools()
    skip = (
        ["-skip_frame", "nokey"]
        if keyframes_only
        else ["-skip_frame", "noref", "-skip_loop_filter", "all"]
    )
    raw = run_tool(
        [tools.ffmpeg, "-nostdin", "-v", "error", "-threads", "1", *skip,
         "-i", input_url(path), "-map", "0:v:0", "-an", "-sn", "-dn", "-t", str(MAX_SECONDS),
         "-vf", f"scale={GRID}:{GRID}:flags=area,format=gray,fps=1/{STEP_S:g}:round=near",
         "-f", "rawvideo", "-pix_fmt", "gray", "-"],
        time_limit_s=time_limit_s,
    )  # fmt: skip
    count = len(raw) // (GRID * GRID)
    return np.frombuffer(raw, dtype=np.uint8, count=count * GRID * GRID).reshape(count, GRID, GRID)


def _too_sparse(frames: npt.NDArray[np.uint8], duration_s: float | None) -> bool:
    """Whether the keyframes are too few or too far apart to sample the video: fewer than
    ``MIN_OVERLAP_FRAMES`` informative ones, or further apart than ``SPARSE_KEY_S`` on average
    (an encoder that places them by count only, not at the cuts where copies agree)."""
    if frames.shape[0] == 0:
        return True
    changed = np.any(frames[1:] != frames[:-1], axis=(1, 2))
    runs = frames[np.concatenate([[True], changed])]
    informative = int(sum(float(frame.std()) >= FLAT_STD for frame in runs))
    seconds = duration_s or frames.shape[0] * STEP_S
    return informative < MIN_OVERLAP_FRAMES or runs.shape[0] * SPARSE_KEY_S < seconds


def _sampled(path: str, duration_s: float | None, deadline: float) -> npt.NDArray[np.uint8]:
    """The keyframes held one slot at a time; for a file whose keyframes are too sparse, the
    frames at each slot instead, decoded whole (it costs a full decode, so only then). When
    that whole decode fails or runs out of time, usable keyframes are kept."""
    frames = _frames(path, max(0.1, deadline - time.monotonic()), keyframes_only=True)
    if not _too_sparse(frames, duration_s):
        return frames
    try:
        return _frames(path, max(0.1, deadline - time.monotonic()), keyframes_only=False)
    except FileProblem:
        if frames.shape[0] == 0:
            raise
        return frames


def _content_box(frames: npt.NDArray[np.uint8]) -> tuple[int, int, int, int]:
    """The rows and columns that are not black bars over the whole file (top, bottom, left,
    right); the whole frame when the bars would leave less than a third of it."""
    brightest = frames.max(axis=0)
    rows = np.flatnonzero(brightest.max(axis=1) >= BAR_LEVEL)
    cols = np.flatnonzero(brightest.max(axis=0) >= BAR_LEVEL)
    if rows.size < GRID // 3 or cols.size < GRID // 3:
        return 0, GRID, 0, GRID
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def hash_frames(
    frames: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]:
    """Each frame's picture hash (bars cut off) and whether it is informative; a frame held
    over several slots is hashed once."""
    top, bottom, left, right = _content_box(frames) if frames.size else (0, 0, 0, 0)
    hashes = np.zeros(frames.shape[0], dtype=np.uint64)
    mask = np.zeros(frames.shape[0], dtype=bool)
    previous: npt.NDArray[np.uint8] | None = None
    for i, frame in enumerate(frames):
        part = frame[top:bottom, left:right]
        if previous is not None and np.array_equal(part, previous):
            hashes[i], mask[i] = hashes[i - 1], mask[i - 1]
            continue
        previous = part
        if float(part.std()) < FLAT_STD:
            continue
        hashes[i] = perceptual.hash_working(Image.fromarray(np.ascontiguousarray(part), "L"))
        mask[i] = True
    return hashes, mask


def encode(hashes: npt.NDArray[np.uint64], mask: npt.NDArray[np.bool_]) -> bytes:
    """The self-describing serialised sequence (format, seconds a slot, count, hashes, mask)."""
    return aligning.pack(_HEADER.pack(_MAGIC, _FORMAT, STEP_S, hashes.size), hashes, mask, "<u8")


def decode(sequence: bytes) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_], float]:
    """Frame hashes, mask and seconds a slot; ValueError for another format."""
    if len(sequence) < _HEADER.size:
        raise ValueError("not a video sequence")
    magic, version, step, count = _HEADER.unpack_from(sequence)
    if (magic, version, step) != (_MAGIC, _FORMAT, STEP_S):
        raise ValueError("a video sequence of another format")
    hashes, mask = aligning.unpack(sequence, _HEADER.size, count, "<u8")
    return hashes, mask, float(step)


def video_print(path: str, *, time_limit_s: float = FILE_LIMIT_S) -> VideoPrint:
    """Fingerprint one file's video; raises ``FileProblem`` subclasses (no video, damaged,
    timed out, blank or too short)."""
    deadline = time.monotonic() + time_limit_s
    info = probe(path, time_limit_s=min(10.0, time_limit_s))
    if info.video_codec is None or not info.width or not info.height:
        raise TooLittleContent("holds no video to compare")
    frames = _sampled(path, info.duration_s, deadline)
    if frames.shape[0] == 0:
        raise CorruptFile("no picture could be decoded")
    hashes, mask = hash_frames(frames)
    if info.duration_s:  # the last keyframe is held to the end, as a player shows it
        slots = min(round(info.duration_s / STEP_S), round(MAX_SECONDS / STEP_S))
        extra = max(0, slots - hashes.size)
        hashes = np.concatenate([hashes, np.repeat(hashes[-1:], extra)])
        mask = np.concatenate([mask, np.repeat(mask[-1:], extra)])
    if int(mask.sum()) < MIN_OVERLAP_FRAMES:
        raise TooLittleContent("too short or blank to compare by its pictures")
    width = round(WINDOW_S / STEP_S)
    stride = round(STRIDE_S / STEP_S)
    return VideoPrint(
        value=aligning.simhash(hashes[mask]),
        windows=aligning.window_simhashes(hashes, mask, width, stride),
        sequence=encode(hashes, mask),
        duration_s=info.duration_s or frames.shape[0] * STEP_S,
        width=info.width,
        height=info.height,
    )


def _events(hashes: npt.NDArray[np.uint64], mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """The slots where a new informative keyframe appears (a held frame counts once)."""
    new = np.ones(hashes.size, dtype=bool)
    new[1:] = (hashes[1:] != hashes[:-1]) | ~mask[:-1]
    return np.flatnonzero(new & mask).astype(np.int64)


def _found_near(
    events: npt.NDArray[np.int64],
    own: npt.NDArray[np.uint64],
    other: npt.NDArray[np.uint64],
    other_mask: npt.NDArray[np.bool_],
    lag: int,
) -> list[tuple[int, int]]:
    """(event slot, matching slot of the other file) for each event that the other file shows
    within ``TOLERANCE_SLOTS`` of the aligned time (its keyframes may fall elsewhere)."""
    pairs: list[tuple[int, int]] = []
    for slot in events:
        lo = max(0, int(slot) - lag - TOLERANCE_SLOTS)
        hi = min(other.size, int(slot) - lag + TOLERANCE_SLOTS + 1)
        if lo >= hi:
            continue
        near = np.flatnonzero(other_mask[lo:hi])
        if near.size == 0:
            continue
        xor = other[lo:hi][near] ^ own[slot]
        distance = aligning.bit_rows(xor, 64).sum(axis=1)
        best = int(
            np.argmin(np.abs(near + lo - (int(slot) - lag)) + 100 * (distance > FRAME_MATCH_BITS))
        )
        if distance[best] <= FRAME_MATCH_BITS:
            pairs.append((int(slot), int(near[best]) + lo))
    return pairs


def _holds(events: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """How many informative slots each event's keyframe is held for."""
    informative = np.zeros(mask.size + 1, dtype=np.int64)
    np.cumsum(mask, out=informative[1:])
    ends = np.append(events[1:], mask.size)
    held: npt.NDArray[np.int64] = informative[ends] - informative[events]
    return held


def compare(a: bytes, b: bytes) -> MediaMatch | None:
    """Align two sequences and measure how much of each one's time shows keyframes the other
    shows too; None when they cannot be aligned (too few informative frames in common, or
    sequences of another format).

    Each file's events (the informative keyframes it holds, each once) are looked for in the
    other file near the aligned time, and weigh the time they are held. The similarity is the
    larger of the two shares of informative time found in the other file: the file with fewer
    keyframes (an encoder that puts them only at cuts; a clip) decides. At least
    ``MIN_MATCHED_EVENTS`` keyframes over ``MIN_MATCHED_S`` must be found, so one shared logo
    or title card is never enough.
    """
    both = aligning.decode_both(decode, a, b)
    if both is None:
        return None
    (ha, ma, step), (hb, mb, _) = both
    found = aligning.align(ha, ma, hb, mb, bits=64, min_overlap=MIN_OVERLAP_FRAMES)
    if found is None:
        return None
    best = 0.0
    pairs: list[tuple[int, int, int]] = []  # slot in A, slot in B, slots held
    for own, own_mask, other, other_mask, lag, flip in (
        (ha, ma, hb, mb, found.lag, False),
        (hb, mb, ha, ma, -found.lag, True),
    ):
        events = _events(own, own_mask)
        held = dict(zip(events.tolist(), _holds(events, own_mask).tolist(), strict=True))
        side = _found_near(events, own, other, other_mask, lag)
        time = sum(held[slot] for slot, _ in side)
        if len(side) < MIN_MATCHED_EVENTS or time * step < MIN_MATCHED_S:
            continue
        best = max(best, time / max(1, int(own_mask.sum())))
        pairs += [(y, x, held[x]) if flip else (x, y, held[x]) for x, y in side]
    if not pairs:
        return MediaMatch(0.0, 0.0, 0.0, 0.0, 0.0)
    ends_a = [x + hold for x, _, hold in pairs]
    ends_b = [y + hold for _, y, hold in pairs]
    return MediaMatch(
        similarity=min(1.0, best),
        a_start_s=min(x for x, _, _ in pairs) * step,
        a_end_s=min(max(ends_a), ha.size) * step,
        b_start_s=min(y for _, y, _ in pairs) * step,
        b_end_s=min(max(ends_b), hb.size) * step,
    )


def frames_at(path: str, times_s: Sequence[float], *, size: int) -> list[Image.Image]:
    """Pictures of the video at ``times_s`` (seconds; a time past the end shows the last
    second), the long side ``size`` pixels, for the app's preview row."""
    tools = require_tools()
    duration = probe(path).duration_s
    scale = f"scale={size}:{size}:force_original_aspect_ratio=decrease"
    pictures: list[Image.Image] = []
    for at in times_s:
        if duration is not None:
            at = min(at, duration - 1.0)
        raw = run_tool(
            [tools.ffmpeg, "-nostdin", "-v", "error", "-ss", f"{max(0.0, at):.3f}",
             "-i", input_url(path), "-map", "0:v:0", "-frames:v", "1", "-vf", scale,
             "-f", "image2pipe", "-c:v", "ppm", "-"],
            time_limit_s=FILE_LIMIT_S / 4,
        )  # fmt: skip
        pictures.append(_ppm(raw))
    return pictures


def _ppm(raw: bytes) -> Image.Image:
    if not raw:
        raise CorruptFile("no picture could be decoded at that time")
    with Image.open(io.BytesIO(raw)) as picture:
        picture.load()
        return picture.convert("RGB")
