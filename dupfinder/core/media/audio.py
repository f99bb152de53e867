"""Music as fingerprints: robust sub-fingerprints per short frame, SimHashes for the index, and
the check that aligns two songs and measures how many of their frames agree.

Decoding: ffmpeg turns the first audio stream into mono 16-bit PCM at ``SAMPLE_RATE`` Hz (the
band that survives every lossy codec), as a child process under the file's time limit.
Sub-fingerprints (the robust hash of Haitsma and Kalker, 2002): frames of ``FRAME`` samples
(Hann window) every ``HOP`` samples; the energy of ``BANDS`` log-spaced bands between
``LOW_HZ`` and ``HIGH_HZ``; bit m of frame n is set when the energy difference between bands
m and m+1 grows from frame n-1 to frame n. Signs of differences do not change with volume,
codec or sample rate, so a re-encoded song keeps most bits (about 1 in 10 flips at 128 kbit/s).
Frames quieter than ``SILENCE_DB`` are not informative: silence matches every silence.
Index: each sub-fingerprint is hashed to 64 bits by random hyperplanes over its bits (similar
sub-fingerprints, similar hashes), and ``value`` is the SimHash (bitwise majority) of all of
them; ``windows`` are the SimHashes of windows of ``WINDOW_S`` every ``STRIDE_S``, so that a
clip or a trimmed copy meets its original in the index.
Check (``compare``): a quick look first (``quick_agreement``: the best agreement over every
offset of a few bits per frame, a tenth of the cost) turns away songs that share nothing; then
the offset where the two bit sequences agree most (``align``), then each
aligned frame is matched when the bit error rate of the second around it is below
``MATCH_BER``; the similarity is the share of the shorter file's informative frames matched.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dupfinder.core.errors import TooLittleContent
from dupfinder.core.media.align import (
    align,
    decode_both,
    lsh64,
    pack,
    quick_agreement,
    simhash,
    unpack,
    window_simhashes,
)
from dupfinder.core.media.match import MediaMatch
from dupfinder.core.media.tools import FILE_LIMIT_S, input_url, require_tools, run_tool

__all__ = [
    "ALGORITHM_VERSION",
    "INDEX_RADIUS",
    "MIN_SIMILARITY",
    "AudioPrint",
    "Frames",
    "audio_print",
    "compare",
    "print_samples",
]

SAMPLE_RATE = 8000
FRAME = 2048
HOP = 256
BANDS = 33
LOW_HZ = 300.0
HIGH_HZ = 3000.0
#: Frames whose level is below this (dB under full scale) are silence.
SILENCE_DB = -55.0
#: Decoding stops after this much of a file (a DJ mix of several hours is read in part).
MAX_SECONDS = 3600
WINDOW_S = 20.0
STRIDE_S = 5.0
#: An aligned frame matches when the bit error rate over the second around it is below this
#: (unrelated audio: 0.5; the same song through a lossy codec: 0.05..0.2).
MATCH_BER = 0.25
#: Frames over which the local bit error rate is measured (about one second).
_SMOOTH = 31
#: The fewest informative frames two prints must share to be compared (about 5 s).
MIN_OVERLAP_FRAMES = 150
#: Every edit of the benchmark (a 30-s clip of a 3-minute track included) met its original
#: within 10 bits; album mates (same tempo, key and instruments) start at 9.
INDEX_RADIUS = 10
MIN_SIMILARITY = 0.6
#: The bits of each sub-fingerprint the quick first look compares (every fourth band pair).
QUICK_BITS = tuple(range(0, 32, 4))
#: Below this quick agreement a pair is no match and the full check is skipped. The weakest
#: pair the full check keeps (``MIN_SIMILARITY`` of the frames matched, each matched second at
#: ``MATCH_BER``) scores about 0.3; on the benchmark every duplicate pair scored 0.62 or more,
#: album mates at most 0.16 (tracks locked to one beat in one phase may reach 0.4: the index
#: keeps those apart, or the full check does).
QUICK_AGREEMENT = 0.25
ALGORITHM_VERSION = f"audio1-{SAMPLE_RATE}-{FRAME}-{HOP}-{BANDS}-w{WINDOW_S:g}s{STRIDE_S:g}"

_LSH_SEED = 0xA0D10
_MAGIC = b"DFAS"
_HEADER = struct.Struct("<4sBHHHI")
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class AudioPrint:
    """``value``: SimHash of the whole song; ``windows``: SimHashes of overlapping windows;
    ``sequence``: the sub-fingerprints ``compare`` aligns; ``duration_s``: what was decoded."""

    value: int
    windows: tuple[int, ...]
    sequence: bytes
    duration_s: float


def _band_matrix() -> npt.NDArray[np.float32]:
    """Sums power-spectrum bins into ``BANDS`` log-spaced bands (bin weights 0 or 1)."""
    edges = np.geomspace(LOW_HZ, HIGH_HZ, BANDS + 1)
    freqs = np.fft.rfftfreq(FRAME, 1.0 / SAMPLE_RATE)
    band = np.searchsorted(edges, freqs, side="right") - 1
    matrix = np.zeros((freqs.size, BANDS), dtype=np.float32)
    inside = (band >= 0) & (band < BANDS)
    matrix[np.nonzero(inside)[0], band[inside]] = 1.0
    return matrix


def _energies(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Band energies of every frame (frames x ``BANDS``), a block of frames at a time."""
    count = 1 + (samples.size - FRAME) // HOP
    window = np.hanning(FRAME).astype(np.float32)
    bands = _band_matrix()
    views = np.lib.stride_tricks.sliding_window_view(samples, FRAME)[::HOP][:count]
    out = np.empty((count, BANDS), dtype=np.float32)
    block = 1024
    for start in range(0, count, block):
        spectrum = np.fft.rfft(views[start : start + block] * window, axis=1)
        power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
        out[start : start + block] = power @ bands
    return out


@dataclass(frozen=True, slots=True)
class Frames:
    """A decoded song's sub-fingerprints, informative mask and 64-bit index features."""

    values: npt.NDArray[np.uint32]
    mask: npt.NDArray[np.bool_]
    features: npt.NDArray[np.uint64]


def print_samples(samples: npt.NDArray[np.float32]) -> Frames:
    """Sub-fingerprints of mono samples at ``SAMPLE_RATE`` (-1..1), the mask of the informative
    ones, and each one's index feature: random hyperplanes over the same band-energy changes
    before they are cut to signs, with each frame's energies as shares of its total (a bit
    near its threshold weighs little, so a codec moves the feature less than the bits)."""
    if samples.size < FRAME + HOP:
        empty = np.zeros(0, dtype=np.uint32)
        return Frames(empty, np.zeros(0, dtype=bool), empty.astype(np.uint64))
    energy = _energies(samples)
    total = energy.sum(axis=1, keepdims=True)
    step = energy[:, :-1] - energy[:, 1:]
    change = step[1:] - step[:-1]
    packed = np.packbits(change > 0, axis=1, bitorder="little")
    values = np.ascontiguousarray(packed).view("<u4").reshape(-1).astype(np.uint32)
    level = total[:, 0] / (FRAME * FRAME / 8.0)  # a full-scale sine reads about 1
    loud = 10.0 * np.log10(np.maximum(level, 1e-12)) > SILENCE_DB
    shares = energy / np.maximum(total, 1e-12)
    relative = (shares[:, :-1] - shares[:, 1:])[1:] - (shares[:, :-1] - shares[:, 1:])[:-1]
    return Frames(values, loud[1:] & loud[:-1], lsh64(relative, _LSH_SEED))


def encode(values: npt.NDArray[np.uint32], mask: npt.NDArray[np.bool_]) -> bytes:
    """The self-describing serialised sequence (format, rate, frame, hop, count, bits, mask)."""
    head = _HEADER.pack(_MAGIC, _FORMAT, SAMPLE_RATE, FRAME, HOP, values.size)
    return pack(head, values, mask, "<u4")


def decode(sequence: bytes) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.bool_], float]:
    """Sub-fingerprints, mask and seconds per frame step; ValueError for another format."""
    if len(sequence) < _HEADER.size:
        raise ValueError("not an audio sequence")
    magic, version, rate, frame, hop, count = _HEADER.unpack_from(sequence)
    if (magic, version, rate, frame, hop) != (_MAGIC, _FORMAT, SAMPLE_RATE, FRAME, HOP):
        raise ValueError("an audio sequence of another format")
    values, mask = unpack(sequence, _HEADER.size, count, "<u4")
    return values.astype(np.uint32), mask, HOP / SAMPLE_RATE


def decode_samples(path: str, *, time_limit_s: float) -> npt.NDArray[np.float32]:
    """The first audio stream as mono float samples at ``SAMPLE_RATE``."""
    tools = require_tools()
    raw = run_tool(
        [
            tools.ffmpeg,
            "-nostdin",
            "-v",
            "error",
            "-threads",
            "1",
            "-i",
            input_url(path),
            "-map",
            "0:a:0",
            "-vn",
            "-sn",
            "-dn",
            "-t",
            str(MAX_SECONDS),
            "-ac",
            "1",
            "-ar",
            str(SAMPLE_RATE),
            "-f",
            "s16le",
            "-acodec",
            "pcm_s16le",
            "-",
        ],
        time_limit_s=time_limit_s,
    )
    pcm = np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2")
    return pcm.astype(np.float32) / 32768.0


def audio_print(path: str, *, time_limit_s: float = FILE_LIMIT_S) -> AudioPrint:
    """Fingerprint one file's audio; raises ``FileProblem`` subclasses (no audio, damaged,
    timed out, silent or too short)."""
    samples = decode_samples(path, time_limit_s=time_limit_s)
    frames = print_samples(samples)
    values, mask, features = frames.values, frames.mask, frames.features
    if int(mask.sum()) < MIN_OVERLAP_FRAMES // 3:
        raise TooLittleContent("too short or silent to compare by its sound")
    width = round(WINDOW_S * SAMPLE_RATE / HOP)
    stride = round(STRIDE_S * SAMPLE_RATE / HOP)
    return AudioPrint(
        value=simhash(features[mask]),
        windows=window_simhashes(features, mask, width, stride),
        sequence=encode(values, mask),
        duration_s=samples.size / SAMPLE_RATE,
    )


def _long_runs(flags: npt.NDArray[np.bool_], shortest: int) -> npt.NDArray[np.bool_]:
    """``flags`` with the runs of set flags shorter than ``shortest`` cleared (a stray second
    of chance agreement is no match)."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.astype(np.int8), [0]])))
    kept = np.zeros_like(flags)
    for start, end in zip(edges[::2], edges[1::2], strict=True):
        if end - start >= shortest:
            kept[start:end] = True
    return kept


def compare(a: bytes, b: bytes) -> MediaMatch | None:
    """Align two sequences and measure them; None when they cannot be aligned (too little
    shared sound, or sequences of another format)."""
    both = decode_both(decode, a, b)
    if both is None:
        return None
    (va, ma, step), (vb, mb, _) = both
    if quick_agreement(va, ma, vb, mb, bits=QUICK_BITS) < QUICK_AGREEMENT:
        return MediaMatch(0.0, 0.0, 0.0, 0.0, 0.0)
    found = align(va, ma, vb, mb, bits=32, min_overlap=MIN_OVERLAP_FRAMES)
    if found is None or found.a_steps.size == 0:
        return None
    kernel = np.ones(_SMOOTH) / (32.0 * _SMOOTH)
    local = np.convolve(found.differences.astype(np.float64), kernel, mode="same")
    matched = _long_runs(local < MATCH_BER, _SMOOTH)
    if not matched.any():
        return MediaMatch(0.0, 0.0, 0.0, 0.0, 0.0)
    first, last = np.flatnonzero(matched)[[0, -1]]
    shorter = max(1, min(int(ma.sum()), int(mb.sum())))
    tail = FRAME / SAMPLE_RATE + step  # a sub-fingerprint spans two frames
    return MediaMatch(
        similarity=min(1.0, float(matched.sum()) / shorter),
        a_start_s=float(found.a_steps[first]) * step,
        a_end_s=float(found.a_steps[last]) * step + tail,
        b_start_s=float(found.b_steps[first]) * step,
        b_end_s=float(found.b_steps[last]) * step + tail,
    )
