"""Test-wide isolation: no test may touch the user's real home, trash, cache, config or display.

These variables are set at import time, before any test module imports send2trash
(which reads XDG_DATA_HOME once) or creates a QApplication.
"""

from __future__ import annotations

import os
import signal
import tempfile

_SANDBOX = tempfile.mkdtemp(prefix="dupfinder-tests-")
for _name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
    os.environ[_name] = os.path.join(_SANDBOX, _name.lower())
    os.makedirs(os.environ[_name], exist_ok=True)
# send2trash picks the home trash only for files on the same device as HOME: keep HOME beside
# the test files, or a tmpfs /tmp would send them to a per-volume trash instead.
os.environ["HOME"] = os.path.join(_SANDBOX, "home")
os.makedirs(os.environ["HOME"], exist_ok=True)
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")
# Started in the background (`cmd &`, nohup), a runner inherits SIGINT ignored and Python then
# installs no KeyboardInterrupt handler; the Ctrl-C tests need the one a terminal gives.
signal.signal(signal.SIGINT, signal.default_int_handler)


import pytest  # noqa: E402 - after the environment above is set


@pytest.fixture(autouse=True)
def _every_group_keeps_its_promise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scan a test runs (core, CLI or app) has its groups checked by group_rules."""
    from dupfinder.core.scan import pipeline as scan
    from tests.group_rules import check_groups

    compare = scan._compare

    def checked(*args: object, **kwargs: object) -> object:
        groups, pairs = compare(*args, **kwargs)  # type: ignore[arg-type]
        options = args[2] if len(args) > 2 else kwargs["options"]
        check_groups(groups, options)  # type: ignore[arg-type]
        return groups, pairs

    monkeypatch.setattr(scan, "_compare", checked)
