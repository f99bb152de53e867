"""Finding ``ffmpeg``/``ffprobe`` and running them safely as child processes.

Media decoders stall and crash on damaged files, so they never run inside a worker: each call
is a child process with a wall-clock limit, a cap on what it may write, and on POSIX a memory
limit (``RLIMIT_AS``) and a session of its own, so that killing it also kills anything it
started. The child is killed on timeout, on the output cap and on any exception in the waiting
code (the worker's own SIGALRM time limit included), and its pipes are always closed.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dupfinder.core.errors import CorruptFile, FileProblem, TimedOut, TooLarge, UnsupportedFile

if TYPE_CHECKING:  # imported where a decoder runs: every scan imports the suffixes below
    import subprocess

__all__ = [
    "AUDIO_SUFFIXES",
    "FILE_LIMIT_S",
    "MEMORY_LIMIT_BYTES",
    "MISSING_TOOLS_HINT",
    "OUTPUT_LIMIT_BYTES",
    "VIDEO_SUFFIXES",
    "MediaTools",
    "find_tools",
    "input_url",
    "require_tools",
    "run_tool",
]

AUDIO_SUFFIXES = frozenset(
    {
        ".mp3",
        ".flac",
        ".ogg",
        ".oga",
        ".opus",
        ".m4a",
        ".aac",
        ".wav",
        ".wma",
        ".aiff",
        ".ape",
        ".wv",
    }
)
VIDEO_SUFFIXES = frozenset(
    {
        ".mp4",
        ".m4v",
        ".mkv",
        ".webm",
        ".avi",
        ".mov",
        ".wmv",
        ".mpg",
        ".mpeg",
        ".ts",
        ".3gp",
        ".flv",
    }
)

MISSING_TOOLS_HINT = (
    "Install FFmpeg to compare music and videos by content (without it they are compared "
    "by their bytes only)."
)
#: Environment variable naming the folder that holds ffmpeg/ffprobe, or the ffmpeg program.
TOOLS_ENV = "DUPFINDER_FFMPEG"
#: Default wall-clock limit of one file's decode, in seconds.
FILE_LIMIT_S = 60.0
#: What one child may write to its stdout (1 hour of 8 kHz mono PCM is 58 MB).
OUTPUT_LIMIT_BYTES = 256 * 1024 * 1024
#: Address space one child may map (POSIX); decoders with their threads stay well below.
MEMORY_LIMIT_BYTES = 4 * 1024 * 1024 * 1024
#: How much of a child's stderr is kept for its error message.
_STDERR_KEEP = 8192
_CHUNK = 1 << 16
_EXE = ".exe" if sys.platform == "win32" else ""
#: Signals that end a decoder that crashed or hit its memory limit.
_CRASH_SIGNALS = frozenset(
    int(getattr(signal, name))
    for name in ("SIGKILL", "SIGSEGV", "SIGABRT", "SIGBUS")
    if hasattr(signal, name)
)


@dataclass(frozen=True, slots=True)
class MediaTools:
    """The two programs and ffmpeg's version line (part of cache keys and reports)."""

    ffmpeg: str
    ffprobe: str
    version: str


def _pair_in(folder: Path) -> tuple[str, str] | None:
    ffmpeg, ffprobe = folder / f"ffmpeg{_EXE}", folder / f"ffprobe{_EXE}"
    if ffmpeg.is_file() and ffprobe.is_file() and os.access(ffmpeg, os.X_OK):
        return str(ffmpeg), str(ffprobe)
    return None


def _candidates() -> list[Path]:
    folders: list[Path] = []
    named = os.environ.get(TOOLS_ENV, "").strip()
    if named:
        path = Path(named)
        folders.append(path if path.is_dir() else path.parent)
    if getattr(sys, "frozen", False):  # a bundle: an ffmpeg shipped beside the app
        folders.append(Path(sys.executable).resolve().parent)
    return folders


def find_tools() -> MediaTools | None:
    """ffmpeg and ffprobe from ``DUPFINDER_FFMPEG``, the app's own folder, then PATH; None
    when either is missing or does not run."""
    pair: tuple[str, str] | None = None
    for folder in _candidates():
        pair = _pair_in(folder)
        if pair:
            break
    if pair is None:
        ffmpeg, ffprobe = shutil.which("ffmpeg"), shutil.which("ffprobe")
        if not ffmpeg or not ffprobe:
            return None
        pair = (ffmpeg, ffprobe)
    version = _version(*pair)
    if version is None:
        return None
    return MediaTools(ffmpeg=pair[0], ffprobe=pair[1], version=version)


@functools.cache
def _version(ffmpeg: str, ffprobe: str) -> str | None:
    """ffmpeg's first ``-version`` line (asked once per program path)."""
    try:
        out = run_tool([ffmpeg, "-hide_banner", "-version"], time_limit_s=10.0)
    except (FileProblem, OSError):
        return None
    lines = out.decode("utf-8", "replace").strip().splitlines()
    return lines[0].strip() if lines else None


def require_tools() -> MediaTools:
    """The tools, or an ``UnsupportedFile`` whose message says to install FFmpeg."""
    tools = find_tools()
    if tools is None:
        raise UnsupportedFile(MISSING_TOOLS_HINT)
    return tools


def input_url(path: str) -> str:
    """A path as ffmpeg's input: ``file:`` keeps a name with a colon or a leading dash a file."""
    return "file:" + os.fspath(path)


def _limit_memory(limit: int) -> None:  # runs in the child, before exec
    """Cap the child's address space; where the system refuses (macOS ignores or rejects
    RLIMIT_AS), the decoder runs under the time and output limits alone."""
    import resource

    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass


class _Reader(threading.Thread):
    """Drains one pipe; keeps at most ``cap`` bytes (``tail``: the last ones) and reports more."""

    def __init__(self, stream: object, cap: int, *, tail: bool) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.cap = cap
        self.tail = tail
        self.parts: list[bytes] = []
        self.size = 0
        self.over = threading.Event()

    def run(self) -> None:
        read = self.stream.read  # type: ignore[attr-defined]
        try:
            while chunk := read(_CHUNK):
                self.parts.append(chunk)
                self.size += len(chunk)
                if self.size > self.cap:
                    if not self.tail:
                        self.over.set()
                        return
                    joined = b"".join(self.parts)[-self.cap :]
                    self.parts, self.size = [joined], len(joined)
        except (OSError, ValueError):  # the pipe was closed under us: the child is gone
            return

    def data(self) -> bytes:
        return b"".join(self.parts)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the child and everything in its session; never raises."""
    if process.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except OSError:
        pass


#: Seconds a killed child is waited for through ``subprocess`` before it is reaped directly.
_REAP_S = 5.0


def _reap(process: subprocess.Popen[bytes]) -> None:
    """Wait for a killed child. ``Popen.wait`` holds a lock while it waits, and a signal
    handler that raises (the worker's time limit) between taking and releasing it leaves it
    taken: a second ``wait()`` then blocks forever, and the worker with it. So the wait is
    bounded, and past it the child is reaped by its pid."""
    import subprocess

    try:
        process.wait(timeout=_REAP_S)
        return
    except subprocess.TimeoutExpired:
        if os.name != "posix":
            raise
    try:
        _, status = os.waitpid(process.pid, 0)
    except ChildProcessError:  # reaped already, its status gone with it
        process.returncode = -signal.SIGKILL
        return
    process.returncode = os.waitstatus_to_exitcode(status)


def _problem(stderr: bytes) -> str:
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    if not lines:
        return "the decoder failed"
    last = lines[-1]
    if last.startswith("file:") and ": " in last:  # "file:<path>: <reason>": the reason
        last = last.rsplit(": ", 1)[1]
    return last


def run_tool(
    args: Sequence[str],
    *,
    time_limit_s: float,
    output_limit: int = OUTPUT_LIMIT_BYTES,
    memory_limit: int | None = MEMORY_LIMIT_BYTES,
) -> bytes:
    """Run a program and return its stdout.

    Raises ``TimedOut`` past ``time_limit_s``, ``TooLarge`` past ``output_limit`` bytes of
    output, ``CorruptFile`` (with the program's last error line) when it exits non-zero.
    """
    import subprocess  # (4 ms that a scan without music or videos never needs)

    posix = os.name == "posix"
    process = subprocess.Popen(
        list(args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=posix,
        preexec_fn=(
            functools.partial(_limit_memory, memory_limit) if posix and memory_limit else None
        ),
    )
    out = _Reader(process.stdout, output_limit, tail=False)
    err = _Reader(process.stderr, _STDERR_KEEP, tail=True)
    try:
        out.start()
        err.start()
        deadline = time.monotonic() + time_limit_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimedOut(f"took longer than {time_limit_s:g} s to decode; skipped")
            if out.over.is_set():
                raise TooLarge("decodes to more data than the limit allows; skipped")
            try:
                process.wait(timeout=min(left, 0.05))
                break
            except subprocess.TimeoutExpired:
                continue
        for reader in (out, err):  # a grandchild may still hold a pipe open
            reader.join(timeout=max(0.0, deadline - time.monotonic()))
            if reader.is_alive():
                raise TimedOut(f"took longer than {time_limit_s:g} s to decode; skipped")
        if out.over.is_set():
            raise TooLarge("decodes to more data than the limit allows; skipped")
    finally:
        _kill(process)
        _reap(process)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        out.join(timeout=1.0)
        err.join(timeout=1.0)
    if process.returncode != 0:
        if -process.returncode in _CRASH_SIGNALS:
            raise CorruptFile("the decoder crashed or ran out of memory on this file")
        raise CorruptFile(f"cannot be decoded: {_problem(err.data())}")
    return out.data()
