"""Every exception dupfinder raises on purpose, in one tree.

``DupfinderError`` is the root. Per-file problems during a scan are never raised to the
caller: they are caught and recorded as ``ScanError`` values in the result. The classes
below are what the pieces raise internally (and what a library user may catch):

- ``FileProblem``: one file cannot be fingerprinted; its message is shown to the user.
  - ``UnsupportedFile``: not a format dupfinder reads (binary data with a text suffix...).
  - ``TooLittleContent``: too little text, or a flat image, to compare reliably.
  - ``TooLarge``: over a size or pixel limit (also decompression bombs).
  - ``CorruptFile``: truncated, malformed, or a decoder failed.
  - ``EncryptedFile``: password protected.
  - ``TimedOut``: reading it took longer than its time limit (a stalled or endless decoder).
- ``CacheError``: the fingerprint cache cannot be opened even after a rebuild.
- ``ResultFormatError``: a saved result file is not a dupfinder result (also ``ValueError``).
- ``ActionError``: an action was refused as a whole (e.g. it would remove every member).
  - ``ActionBusy``: another apply or undo holds the per-user action lock.
- ``JournalWriteError``: the action journal cannot be written (also ``OSError``); apply stops
  before the next file, because a file changed without a journal record could not be undone.
- ``JournalReadError``: the action journal cannot be read (also ``OSError``): unreadable, or
  not a regular file; apply and undo change nothing.
- ``ExtraMissing``: an optional part (e.g. the ``distributed`` extra) is not installed (also
  ``ImportError``); its message says what to install.
- ``FingerprintStoreError``: fingerprint or pair files (Parquet) are malformed, incomplete,
  of an unknown schema, or mix algorithm versions (also ``ValueError``).
"""

from __future__ import annotations

__all__ = [
    "ActionBusy",
    "ActionError",
    "CacheError",
    "CorruptFile",
    "DupfinderError",
    "EncryptedFile",
    "ExtraMissing",
    "FileProblem",
    "FingerprintStoreError",
    "JournalReadError",
    "JournalWriteError",
    "ResultFormatError",
    "TimedOut",
    "TooLarge",
    "TooLittleContent",
    "UnsupportedFile",
]


class DupfinderError(Exception):
    """Root of every error dupfinder raises on purpose."""


class FileProblem(DupfinderError):
    """One file cannot be fingerprinted; ``code`` is a stable machine-readable reason."""

    code = "unreadable"


class UnsupportedFile(FileProblem):
    code = "unsupported"


class TooLittleContent(FileProblem):
    code = "too-little-content"


class TooLarge(FileProblem):
    code = "too-large"


class CorruptFile(FileProblem):
    code = "corrupt"


class EncryptedFile(FileProblem):
    code = "encrypted"


class TimedOut(FileProblem):
    code = "timeout"


class CacheError(DupfinderError):
    """The fingerprint cache could not be opened or rebuilt."""


class ResultFormatError(DupfinderError, ValueError):
    """A saved result file is malformed or of an unknown version."""


class ActionError(DupfinderError):
    """An action plan was refused as a whole."""


class ActionBusy(ActionError):
    """Another apply or undo is running; nothing was changed."""


class JournalWriteError(DupfinderError, OSError):
    """The journal could not record a step; the step was not taken (or not confirmed)."""


class JournalReadError(DupfinderError, OSError):
    """The journal could not be read; nothing was changed."""


class ExtraMissing(DupfinderError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class FingerprintStoreError(DupfinderError, ValueError):
    """Stored fingerprints or pairs cannot be used as they are (see the message)."""
