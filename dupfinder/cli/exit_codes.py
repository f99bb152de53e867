"""The command line's exit codes, in one place: every command returns one of these."""

from __future__ import annotations

__all__ = [
    "EXIT_CANCELLED",
    "EXIT_CODES",
    "EXIT_FATAL",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_USAGE",
]

EXIT_OK = 0
EXIT_FATAL = 1
EXIT_USAGE = 2
EXIT_PROBLEMS = 3
EXIT_CANCELLED = 130

EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}    success, with or without duplicates
  {EXIT_FATAL}    fatal error (the scan or the result file failed)
  {EXIT_USAGE}    usage error, or a plan refused as unsafe
  {EXIT_PROBLEMS}    some planned actions were skipped or failed (each is listed with its reason)
  {EXIT_CANCELLED}  cancelled with Ctrl-C
"""
