"""The window paints before the engine loads.

``dupfinder.gui.app`` imports Qt and nothing of the engine; ``main`` shows a first window,
which paints before numpy, the scan or the main window's module is imported, and the main
window takes its place once they are. Each test runs a fresh interpreter: this process has
loaded everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

#: What the first paint must not wait for.
ENGINE = ("numpy", "dupfinder.core", "dupfinder.app.controller", "dupfinder.gui.main_window")

LOADED = f"sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' or m in {ENGINE!r})"


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_entry_point_imports_no_engine() -> None:
    done = _run(f"import sys, dupfinder.gui.app\nprint({LOADED})")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_first_window_paints_before_the_engine_loads() -> None:
    done = _run(
        f"""
        import json, sys
        from PySide6.QtCore import QEvent, QObject, QTimer
        from PySide6.QtWidgets import QApplication, QWidget

        import dupfinder.gui.app as gui_app

        seen = []

        class Watch(QObject):
            def eventFilter(self, obj, event):
                if isinstance(obj, QWidget) and obj.isWindow():
                    kind = type(obj).__name__
                    if event.type() == QEvent.Type.Paint and not seen:
                        seen.append([kind, {LOADED}])
                    if event.type() == QEvent.Type.Show and kind == "MainWindow":
                        seen.append([kind, {LOADED}])
                        QTimer.singleShot(0, obj.close)
                return False

        app = gui_app.create_application([])
        watch = Watch()
        app.installEventFilter(watch)
        code = gui_app.main([])
        print(json.dumps({{"seen": seen, "exit": code}}))
        """
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["exit"] == 0
    (first, first_loaded), (last, last_loaded) = report["seen"]
    assert (first, first_loaded) == ("FirstWindow", [])
    assert last == "MainWindow"
    assert "dupfinder.gui.main_window" in last_loaded
