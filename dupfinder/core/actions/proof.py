"""Proof at the moment of acting: a removal goes ahead only when, right then, a *different*
file that stays holds what the group claims.

Nothing a scan, a results file, the cache or the journal says is taken as proof; they only
say where to look. Before each removal (trash, move, delete, link) :func:`prove`:

1. opens the folder holding the file and the file in it (no symbolic link followed for the
   file itself), and opens each kept candidate the same way, so every later step works on
   what was checked, not on a name looked up again;
2. takes an advisory lock on both open files, so a second dupfinder run (of any user) acting
   on the same files waits its turn;
3. shows the two are two files: different (device, inode) and, on file systems where inode
   numbers do not name a file (FAT, exFAT, network shares), different real paths compared
   case-folded;
4. shows the content: byte-identical claims by comparing the digests of both files read
   now; near-duplicate claims by fingerprinting both files now and running the scan's own
   second check between them, which must reach the required similarity.

After acting, :meth:`Proof.kept_intact` reads the kept file again: when it vanished or
changed meanwhile, the caller puts the removed file back.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from dupfinder.core.actions.folders import NONBLOCK, lock_file, open_dir, open_file_at, stat_at
from dupfinder.core.filesystem import inodes_name_files, same_spelling
from dupfinder.core.fingerprints.digest import CHUNK, DIGEST_BYTES, hasher
from dupfinder.core.fingerprints.worker import Task, fingerprint_file
from dupfinder.core.model import MEDIA_KINDS, Kind, Member, ScanOptions
from dupfinder.core.wording import os_error_reason, similarity_percent

__all__ = [
    "Claim",
    "Evidence",
    "Opened",
    "Proof",
    "Unproven",
    "digest_of_open",
    "open_in_folder",
    "prove",
    "same_file",
]


class Unproven(Exception):
    """The removal could not be proven safe right now; the file is left alone."""


class Evidence(enum.Enum):
    """What the fresh reads must show about the file and the kept file."""

    #: what the group claims: byte copies show the same bytes, near-duplicates pass the
    #: scan's second check at the required similarity
    CLAIMED = "claimed"
    #: the same bytes, whatever the group claims (a link replaces only identical content)
    SAME_BYTES = "same bytes"
    #: only that the kept file is another file: the user allowed different content, and the
    #: original goes to the trash first
    ANOTHER_FILE = "another file"


@dataclass(frozen=True, slots=True)
class Claim:
    """What is being proven: a file of ``kind`` and, when it is no byte copy, the least
    similarity (0..1) it must show now against the kept file, by the scan's second check."""

    kind: Kind
    required: float
    evidence: Evidence = Evidence.CLAIMED


@dataclass(slots=True)
class Opened:
    """A file opened for a proof: the folder holding it, its name there, and the handle."""

    path: str
    folder: int
    name: str
    fd: int
    stat: os.stat_result

    @property
    def identity(self) -> tuple[int, int]:
        return self.stat.st_dev, self.stat.st_ino

    def close(self) -> None:
        for fd in (self.fd, self.folder):
            with contextlib.suppress(OSError):
                os.close(fd)

    def fresh_stat(self) -> os.stat_result:
        """What the name points at now, in the very folder that was opened."""
        return stat_at(self.folder, self.name)


@dataclass(slots=True)
class Proof:
    """The proven pair: act on ``target`` (its folder and name), ``kept`` stays."""

    target: Opened
    kept: Opened
    kept_member: Member
    digest: bytes  # the target's bytes as read during the proof
    kept_digest: bytes
    similarity: float  # 1.0 for the same bytes
    _closed: bool = field(default=False, repr=False)

    @property
    def identical(self) -> bool:
        return self.digest == self.kept_digest

    def kept_intact(self) -> str | None:
        """None when the kept file is still in place with the proven bytes; else why not."""
        try:
            now = os.stat(self.kept.path, follow_symlinks=False)
        except FileNotFoundError:
            return f"the kept file {self.kept.path} vanished"
        except OSError as exc:
            return f"the kept file {self.kept.path}: {os_error_reason(exc)}"
        if (now.st_dev, now.st_ino) != self.kept.identity and inodes_name_files(self.kept.path):
            return f"the kept file {self.kept.path} was replaced by another file"
        if _changed(now, self.kept.stat):
            try:
                fresh = open_in_folder(self.kept.path)
            except Unproven as problem:
                return f"the kept file {self.kept.path}: {problem}"
            try:
                if digest_of_open(fresh.fd) != self.kept_digest:
                    return f"the kept file {self.kept.path} was rewritten"
            finally:
                fresh.close()
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.target.close()
            self.kept.close()


def _changed(now: os.stat_result, then: os.stat_result) -> bool:
    return (now.st_size, now.st_mtime_ns, now.st_ctime_ns) != (
        then.st_size,
        then.st_mtime_ns,
        then.st_ctime_ns,
    )


def open_in_folder(path: str) -> Opened:
    """Open ``path``'s folder, then the file in it without following a symbolic link.

    The folder is found the way the system finds it (a ``..`` after a link goes to the link
    target's parent, never undone by text rules), and every later step names the file
    relative to that open folder, so a folder renamed or swapped meanwhile changes nothing.
    """
    folder_path, name = os.path.split(path)
    if not name or name in (".", ".."):
        raise Unproven(f"{path!r} does not name a file")
    try:
        folder = open_dir(folder_path or ".")
    except FileNotFoundError:
        raise Unproven("its folder vanished") from None
    except OSError as exc:
        raise Unproven(f"its folder: {os_error_reason(exc)}") from None
    try:
        fd = open_file_at(folder, name, os.O_RDONLY | NONBLOCK)
    except OSError as exc:
        os.close(folder)
        if exc.errno == errno.ELOOP:
            raise Unproven("replaced by a symbolic link") from None
        if isinstance(exc, FileNotFoundError):
            raise Unproven("vanished") from None
        raise Unproven(os_error_reason(exc)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        os.close(folder)
        raise Unproven("no longer a regular file")
    return Opened(path, folder, name, fd, st)


def digest_of_open(fd: int) -> bytes:
    """The content digest of an open file, read from its start (the handle's position moves)."""
    state = hasher()
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, CHUNK):
        state.update(chunk)
    return state.digest(DIGEST_BYTES)


def same_file(a: Opened, b: Opened) -> bool:
    """Whether two opened names are one file: one (device, inode), or, where inode numbers do
    not name files, one real path whatever its case."""
    if a.identity == b.identity:
        return True
    if a.stat.st_dev != b.stat.st_dev:
        return False
    if inodes_name_files(a.path) and inodes_name_files(b.path):
        return False
    return same_spelling(a.path, b.path)


def _lock(opened: Opened) -> None:
    """Runs of any user acting on the same file take turns (a file system without locks
    leaves it to the per-user lock)."""
    if lock_file(opened.fd) is False:
        raise Unproven("another dupfinder run is acting on it")


def _similarity(kind: Kind, target: str, kept: str, options: ScanOptions) -> float:
    """The scan's second check between the two files, fingerprinted now."""
    if kind in MEDIA_KINDS:
        return _media_similarity(kind, target, kept, options)
    import numpy as np  # only here: the command line's help must not load numpy

    from dupfinder.core.grouping.groups import drawn_apart_of, second_check, shapes_apart_of

    check = second_check(kind, options)
    if check is None:
        return 0.0
    rows = []
    sizes = []
    for path in (target, kept):
        outcome = fingerprint_file(Task(0, path, kind), image_invariance=options.image_invariance)
        if outcome.sketch is None:
            raise Unproven(f"{path} could not be read again: {outcome.error or 'no content'}")
        row = np.zeros(check.width, dtype=np.uint8)
        data = np.frombuffer(outcome.sketch, dtype=np.uint8)[: check.width]
        row[: data.size] = data
        rows.append(row.reshape(1, -1))
        sizes.append((outcome.width or 0, outcome.height or 0))
    if kind is Kind.IMAGE and shapes_apart_of(rows, sizes, options.image_invariance):
        return 0.0
    similarity = float(np.asarray(check.measure(rows[0], rows[1]), dtype=np.float64)[0])
    if kind is Kind.IMAGE and drawn_apart_of(rows, sizes, similarity):
        return 0.0
    return similarity


def _media_similarity(kind: Kind, target: str, kept: str, options: ScanOptions) -> float:
    """Music and videos: both printed again and aligned, as the scan checked them; a file
    only part of which is in the kept one (the kept file is a clip of it) is not a copy."""
    from dupfinder.core.errors import FileProblem
    from dupfinder.core.grouping.media_check import recheck
    from dupfinder.core.wording import format_duration

    try:
        found = recheck(kind, target, kept, options)
    except (FileProblem, OSError) as exc:
        raise Unproven(f"it or the kept file could not be read again: {exc}") from exc
    if found.similarity > 0 and not found.whole:
        raise Unproven(
            f"only {format_duration(found.matched_s)} of its {format_duration(found.duration_s)}"
            " are in the kept file (a part of it, not a copy)"
        )
    return found.similarity


@contextlib.contextmanager
def prove(
    target: Member,
    candidates: Sequence[Member],
    claim: Claim,
    options: ScanOptions,
    digests: Mapping[tuple[int, int, int, int, int], bytes] | None = None,
) -> Iterator[Proof]:
    """Prove that removing ``target`` leaves its content in one of ``candidates`` (tried in
    order; the first that proves is the kept file). Raises :class:`Unproven` with every
    candidate's reason when none does. The files stay open and locked for the ``with``."""
    cache: dict[tuple[int, int, int, int, int], bytes] = dict(digests or {})
    opened = open_in_folder(target.path)
    reasons: list[str] = []
    proof: Proof | None = None
    try:
        if target.ino and opened.identity != (target.dev, target.ino):
            raise Unproven("changed since the scan (replaced by another file)")
        _lock(opened)
        digest = _digest(opened, cache)
        for member in candidates:
            try:
                copy = (
                    target.content_hash is not None and target.content_hash == member.content_hash
                )
                proof = _prove_against(opened, digest, member, copy, claim, options, cache)
                break
            except Unproven as problem:
                reasons.append(f"{member.path}: {problem}")
        if proof is None:
            detail = "; ".join(reasons) if reasons else "the group has no kept file"
            raise Unproven(f"no kept file of its group proves it a copy ({detail})")
        yield proof
    finally:
        if proof is not None:
            proof.close()
        else:
            opened.close()


def _digest(opened: Opened, cache: dict[tuple[int, int, int, int, int], bytes]) -> bytes:
    st = opened.stat
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key not in cache:
        try:
            cache[key] = digest_of_open(opened.fd)
        except OSError as exc:
            raise Unproven(f"could not be read: {os_error_reason(exc)}") from None
        if _changed(os.fstat(opened.fd), st):
            raise Unproven("changed while it was read")
    return cache[key]


def _prove_against(
    target: Opened,
    digest: bytes,
    member: Member,
    byte_identical: bool,
    claim: Claim,
    options: ScanOptions,
    cache: dict[tuple[int, int, int, int, int], bytes],
) -> Proof:
    kept = open_in_folder(member.path)
    try:
        if same_file(target, kept):
            raise Unproven("it is this same file under another name")
        _lock(kept)
        kept_digest = _digest(kept, cache)
        if kept_digest == digest:
            similarity = 1.0
        elif claim.evidence is Evidence.SAME_BYTES:
            raise Unproven(
                "its bytes differ from the kept file; allow different content to replace it anyway"
            )
        elif claim.evidence is Evidence.ANOTHER_FILE:
            similarity = 0.0
        elif byte_identical:
            raise Unproven("its bytes are not the same (the group said they were)")
        else:
            similarity = _similarity(claim.kind, target.path, kept.path, options)
            for opened in (target, kept):  # what was read by name must be what is open
                now = opened.fresh_stat()
                moved = (now.st_dev, now.st_ino) != opened.identity
                if _changed(os.fstat(opened.fd), opened.stat) or (
                    moved and inodes_name_files(opened.path)
                ):
                    raise Unproven("changed while it was compared")
            if similarity < claim.required:
                raise Unproven(
                    f"only {similarity_percent(similarity, False)} similar now, "
                    f"below the {similarity_percent(claim.required, False)} required"
                )
    except BaseException:
        kept.close()
        raise
    return Proof(target, kept, member, digest, kept_digest, similarity)
