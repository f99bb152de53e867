"""No call that exists only on Linux or POSIX runs unguarded: the same code must start on Windows
and macOS; nor one that exists only on Windows (``msvcrt``, ``ctypes.WinDLL``...), the other way.

The test reads every module of ``dupfinder`` and finds the uses of POSIX-only functions,
constants, modules, ``dir_fd`` arguments to ``os`` and ``/proc`` paths. A use is guarded when
a condition around it (``if``, a conditional expression, an early return in the same function)
asks ``sys.platform``, ``os.name``, ``hasattr``, ``getattr``, ``os.supports_dir_fd`` or
``FOLDER_FDS`` (the actions' "folders open as descriptors"), or a ``try`` around it catches
what that use raises where it is missing (``AttributeError`` for a function or constant,
``ImportError`` for a module, ``NotImplementedError`` for ``dir_fd``, ``OSError`` for a path).
``KNOWN`` lists the unguarded uses a reader can see are safe, each with its reason; a new one
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
        "pread",
        "pwrite",
        "fchmod",
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
#: What only Windows has, held to the same guards the other way round (Linux and macOS lack it).
WINDOWS_ONLY = {
    "ctypes": {
        "WinDLL",
        "windll",
        "OleDLL",
        "oledll",
        "WinError",
        "FormatError",
        "GetLastError",
        "get_last_error",
        "set_last_error",
    },
    "signal": {"CTRL_C_EVENT", "CTRL_BREAK_EVENT"},
    "os": {"startfile", "O_BINARY", "O_NOINHERIT"},
}
WINDOWS_MODULES = {"msvcrt", "winreg", "_winapi", "winsound", "_overlapped", "nt"}
#: Every name and module that exists on one kind of system only.
ONE_SYSTEM_ONLY = {
    module: POSIX_ONLY.get(module, set()) | WINDOWS_ONLY.get(module, set())
    for module in POSIX_ONLY.keys() | WINDOWS_ONLY.keys()
}
ONE_SYSTEM_MODULES = POSIX_MODULES | WINDOWS_MODULES
#: Keyword arguments that name a file relative to an open folder: Windows has none.
DIR_FD_KEYWORDS = {"dir_fd", "src_dir_fd", "dst_dir_fd"}
#: What a ``try`` must catch to guard each kind of use: a missing function or constant
#: (AttributeError), a missing module (ImportError), a dir_fd the system cannot take
#: (NotImplementedError), a path that is not there (OSError).
CAUGHT = {
    "attribute": {"AttributeError"},
    "import": {"ImportError", "ModuleNotFoundError"},
    "dir_fd": {"NotImplementedError"},
    "path": {"OSError", "FileNotFoundError"},
}
#: Names a platform test reads (``FOLDER_FDS``: whether folders open as descriptors).
PLATFORM_WORDS = (
    "platform",
    "os.name",
    "hasattr",
    "getattr",
    "POSIX",
    "WINDOWS",
    "LINUX",
    "FOLDER_FDS",
    "supports_dir_fd",
)

#: (module, what) -> why it is still unguarded. The actions name files through
#: ``core/actions/folders.py``, which holds every use of dir_fd and the POSIX open flags
#: behind ``FOLDER_FDS``; this list is for what a test cannot see is guarded.
KNOWN: dict[tuple[str, str], str] = {
    ("dupfinder/core/media/tools.py", "import resource"): (
        "the memory limit runs as preexec_fn, which its caller passes only on POSIX"
    ),
}


def _mentions_platform(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return any(word in text for word in PLATFORM_WORDS)


def _catches(handler: ast.ExceptHandler, kind: str) -> bool:
    if handler.type is None:
        return True
    names = {ast.unparse(n) for n in ast.walk(handler.type) if isinstance(n, ast.Name)}
    return bool(names & (CAUGHT[kind] | {"Exception", "BaseException"}))


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST], kind: str) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and _mentions_platform(parent.test):
            return True
        if isinstance(parent, ast.BoolOp) and _mentions_platform(parent):
            return True
        if (
            isinstance(parent, ast.Try)
            and child in parent.body
            and any(_catches(handler, kind) for handler in parent.handlers)
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
    """What ``path`` uses that only POSIX (or only Windows) has, outside any guard."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in ast.walk(tree):
        what, kind = None, "attribute"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr in ONE_SYSTEM_ONLY.get(node.value.id, ()):
                what = f"{node.value.id}.{node.attr}"
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] in ONE_SYSTEM_MODULES]
            what, kind = (f"import {names[0]}" if names else None), "import"
        elif (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").split(".")[0] in ONE_SYSTEM_MODULES
        ):
            what, kind = f"import {node.module}", "import"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            what, kind = ("/proc/" if node.value.startswith("/proc/") else None), "path"
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).startswith("os.")
            and any(k.arg in DIR_FD_KEYWORDS and not _is_none(k.value) for k in node.keywords)
        ):
            what, kind = "dir_fd", "dir_fd"
        if what and not _guarded(node, parents, kind):
            found.add(what)
    return found


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


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
        "BAD = os.O_RDONLY | os.O_DIRECTORY\n"
        "def at(fd):\n    return os.stat('x', dir_fd=fd)\n"
        "def wrong_catch(fd):\n    try:\n        os.fchmod(fd, 0o600)\n"
        "    except FileNotFoundError:\n        pass\n",
        encoding="utf-8",
    )
    assert unguarded_uses(module) == {"os.nice", "os.O_DIRECTORY", "dir_fd", "os.fchmod"}


def test_a_windows_only_call_needs_a_guard_too(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text("import ctypes\nkernel32 = ctypes.WinDLL('kernel32')\nimport msvcrt\n")
    assert unguarded_uses(module) == {"ctypes.WinDLL", "import msvcrt"}
    module.write_text(
        "import ctypes, os\nif os.name == 'nt':\n    kernel32 = ctypes.WinDLL('kernel32')\n"
        "try:\n    import msvcrt\nexcept ImportError:\n    msvcrt = None\n"
    )
    assert unguarded_uses(module) == set()
