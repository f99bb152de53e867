"""One wording of operating-system errors, for every place that shows one to a person.

The walk, the readers, actions and undo all report failed file operations; they use this one
function so the same cause reads the same everywhere (and tests can match it).
"""

from __future__ import annotations

import errno

__all__ = ["os_error_reason"]

_REASONS = {
    errno.ENOENT: "vanished",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a folder",
    errno.EROFS: "read-only filesystem",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.ENAMETOOLONG: "file name too long",
    errno.EIO: "input/output error",
}


def os_error_reason(exc: OSError) -> str:
    """A short, lower-case reason for people, stable enough to group problems by."""
    if isinstance(exc, FileNotFoundError):
        return _REASONS[errno.ENOENT]
    if isinstance(exc, PermissionError):
        return _REASONS[errno.EACCES]
    reason = _REASONS.get(exc.errno or 0) or exc.strerror or exc.__class__.__name__
    return reason[0].lower() + reason[1:]
