"""A results path is read only when it is a regular file of a bounded size: a FIFO, a device
or a folder is refused before a byte is read, and a huge file before it fills the memory."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dupfinder.core.errors import ResultFormatError
from dupfinder.core.results import reader
from dupfinder.core.results.report import load_result


def load_in_a_child(path: Path) -> subprocess.CompletedProcess[str]:
    """Load ``path`` in another process (bounded in memory), so a hang cannot hang the tests."""
    code = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        from dupfinder.core.errors import ResultFormatError
        from dupfinder.core.results.report import load_result
        try:
            load_result({str(path)!r})
        except ResultFormatError as exc:
            print("refused:", exc)
        """
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_is_refused_without_reading(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "result.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path(kind)
    done = load_in_a_child(path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout
    assert "not a regular file" in done.stdout


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultFormatError, match=r"not a regular file \(a folder\)"):
        load_result(tmp_path)


def test_a_file_over_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_RESULT_BYTES", 1000)
    path = tmp_path / "result.json"
    path.write_text('{"version": 1, "groups": [], "padding": "' + "x" * 2000 + '"}')
    with pytest.raises(ResultFormatError, match="too large"):
        load_result(path)


def test_a_file_under_the_limit_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text('{"version": 1, "groups": []}')
    result, _ = load_result(path)
    assert result.groups == ()


def test_text_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b'{"version": 1, "groups": [], "x": "\xff"}')
    with pytest.raises(ResultFormatError, match="not UTF-8"):
        load_result(path)


def test_a_decisions_path_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "decisions.json"
    os.mkfifo(path)
    code = textwrap.dedent(
        f"""
        from dupfinder.core.errors import ResultFormatError
        from dupfinder.core.results.decisions import DecisionStore
        try:
            DecisionStore({str(path)!r}).load()
        except ResultFormatError as exc:
            print("refused:", exc)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "not a regular file" in done.stdout, done.stderr[-2000:]
