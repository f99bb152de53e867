"""No call that exists only on Linux or POSIX runs unguarded: the same code must start on Windows
and macOS.

The test reads every module of ``dupfinder`` and finds the uses of POSIX-only functions,
constants, modules and ``/proc`` paths. A use is guarded when a condition around it (``if``,
a conditional expression, an early return in the same function) asks ``sys.platform``,
``os.name``, ``hasattr`` or ``getattr``, or a ``try`` around it catches what the missing
function raises (``AttributeError``, ``ImportError``, ``OSError``). ``KNOWN`` lists the
unguarded uses still waiting for their Windows and macOS path, each with its reason; a new one
fails the test, and so does a known one that has been fixed (delete its line).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Functions and constants of ``os`` and ``signal`` that Windows lacks.
POSIX_ONLY = {
    "os": {
        "nice",
        "fork",
        "forkpty",
        "getuid",
        "geteuid",
        "getgid",
        "getegid",
        "getpgid",
        "killpg",
        "setsid",
        "setpgrp",
        "sched_getaffinity",
        "sched_setaffinity",
        "posix_fadvise",
        "statvfs",
        "fstatvfs",
        "mkfifo",
        "mknod",
        "chown",
        "lchown",
        "fchown",
        "getloadavg",
        "O_NOFOLLOW",
        "O_DIRECTORY",
        "O_CLOEXEC",
        "O_NONBLOCK",
        "O_NOCTTY",
        "O_SYNC",
        "sync",
        "wait3",
        "wait4",
        "WNOHANG",
        "setpriority",
        "getpriority",
        "PRIO_PROCESS",
    },
    "signal": {
        "SIGALRM",
        "SIGKILL",
        "SIGHUP",
        "SIGUSR1",
        "SIGUSR2",
        "SIGCHLD",
        "SIGQUIT",
        "SIGPIPE",
        "alarm",
        "setitimer",
        "getitimer",
        "ITIMER_REAL",
        "pause",
        "siginterrupt",
        "pthread_kill",
    },
}
POSIX_MODULES = {"fcntl", "pwd", "grp", "resource", "termios", "posix", "pty", "tty"}
#: Exceptions that a guard may catch for a missing function or file.
CAUGHT = {"AttributeError", "ImportError", "ModuleNotFoundError", "OSError", "NotImplementedError"}
#: Names a platform test reads.
PLATFORM_WORDS = ("platform", "os.name", "hasattr", "getattr", "POSIX", "WINDOWS", "LINUX")

#: (module, what) -> why it is still unguarded. The actions' proofs, trash and put-back open
#: folders with POSIX flags and dir_fd; their Windows and macOS path (send2trash's trash and
#: its undo) is the safety engineer's issue.
KNOWN: dict[tuple[str, str], str] = {
    ("dupfinder/core/actions/journal_index.py", "os.O_CLOEXEC"): "the journal's index file",
    ("dupfinder/core/actions/journal_index.py", "os.O_NONBLOCK"): "the journal's index file",
    ("dupfinder/core/filesystem.py", "/proc/"): "the mount table (Linux)",
    ("dupfinder/core/actions/putback.py", "os.O_CLOEXEC"): "restore through open folders",
    ("dupfinder/core/actions/putback.py", "os.O_DIRECTORY"): "restore through open folders",
    ("dupfinder/core/actions/putback.py", "os.O_NOFOLLOW"): "restore through open folders",
    ("dupfinder/core/actions/putback.py", "os.O_NONBLOCK"): "restore through open folders",
    ("dupfinder/core/actions/putback.py", "os.fchown"): "restore through open folders",
    ("dupfinder/core/actions/trash.py", "os.O_CLOEXEC"): "the freedesktop trash",
    ("dupfinder/core/actions/trash.py", "os.O_DIRECTORY"): "the freedesktop trash",
    ("dupfinder/core/actions/trash.py", "os.O_NOFOLLOW"): "the freedesktop trash",
    ("dupfinder/core/actions/trash.py", "os.getuid"): "the freedesktop trash",
    ("dupfinder/core/actions/undo.py", "os.O_CLOEXEC"): "restoring a copy",
    ("dupfinder/core/actions/undo.py", "os.O_NOFOLLOW"): "restoring a copy",
}


def _mentions_platform(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return any(word in text for word in PLATFORM_WORDS)


def _catches(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = {ast.unparse(n) for n in ast.walk(handler.type) if isinstance(n, ast.Name)}
    return bool(names & (CAUGHT | {"Exception", "BaseException"}))


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and _mentions_platform(parent.test):
            return True
        if isinstance(parent, ast.BoolOp) and _mentions_platform(parent):
            return True
        if (
            isinstance(parent, ast.Try)
            and child in parent.body
            and any(map(_catches, parent.handlers))
        ):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # an early return on a platform test, before the use, guards the rest
            line = getattr(node, "lineno", 0)
            for statement in ast.walk(parent):
                if (
                    isinstance(statement, (ast.If, ast.Assign))
                    and statement.lineno < line
                    and _mentions_platform(statement)
                ):
                    return True
        child, parent = parent, parents.get(parent)
    return False


def unguarded_uses(path: Path) -> set[str]:
    """What ``path`` uses that only POSIX has, outside any guard."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr in POSIX_ONLY.get(node.value.id, ()):
                what = f"{node.value.id}.{node.attr}"
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] in POSIX_MODULES]
            what = f"import {names[0]}" if names else None
        elif (
            isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in POSIX_MODULES
        ):
            what = f"import {node.module}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            what = "/proc/" if node.value.startswith("/proc/") else None
        if what and not _guarded(node, parents):
            found.add(what)
    return found


def test_posix_only_calls_are_guarded() -> None:
    found = {
        (str(path.relative_to(ROOT)), what)
        for path in sorted((ROOT / "dupfinder").rglob("*.py"))
        for what in unguarded_uses(path)
    }
    new = sorted(found - set(KNOWN))
    assert not new, f"POSIX-only calls without a guard for Windows and macOS: {new}"
    fixed = sorted(known for known in set(KNOWN) - found if (ROOT / known[0]).is_file())
    assert not fixed, f"guarded now: delete them from KNOWN: {fixed}"


def test_the_guard_finder_sees_a_planted_use(tmp_path: Path) -> None:
    module = tmp_path / "planted.py"
    module.write_text(
        "import os, signal, sys\n"
        "def bare():\n    os.nice(5)\n"
        "def checked():\n    if hasattr(os, 'nice'):\n        os.nice(5)\n"
        "def early():\n    if not hasattr(signal, 'setitimer'):\n        return\n"
        "    signal.setitimer(signal.ITIMER_REAL, 1)\n"
        "def tried():\n    try:\n        return os.getuid()\n    except AttributeError:\n"
        "        return 0\n"
        "FLAGS = os.O_RDONLY | getattr(os, 'O_NOFOLLOW', 0)\n"
        "BAD = os.O_RDONLY | os.O_DIRECTORY\n",
        encoding="utf-8",
    )
    assert unguarded_uses(module) == {"os.nice", "os.O_DIRECTORY"}
