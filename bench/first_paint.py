"""Time from the start of ``dupfinder-gui`` to the first paint of a window, and what was loaded
by then (run it under a display: ``xvfb-run -a .venv/bin/python bench/first_paint.py``).

Each run is a fresh interpreter that runs the app's own entry point. A filter on the
application notes the first paint of a top-level window (the seconds since the parent
started the process, whether numpy and the scan were loaded), then the next paint of the
main window, and closes the app. Prints one JSON line per run, then the medians, with the CPU
seconds of the runs. ``FIRST_PAINT_MODULE`` names another module with the same ``main`` and
``create_application`` (an older copy of ``dupfinder/gui/app.py`` on ``PYTHONPATH``) to
compare with, run after run on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

CHILD = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

started = float(os.environ["FIRST_PAINT_STARTED"])
seen = {}

class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and getattr(obj, "isWindow", lambda: False)():
            name = type(obj).__name__
            if "first" not in seen:
                seen["first"] = (time.time() - started, name,
                                 "numpy" in sys.modules, "dupfinder.core.scan" in sys.modules)
            if name == "MainWindow" and "main" not in seen:
                seen["main"] = time.time() - started
                seen["cpu"] = time.process_time()
                QTimer.singleShot(0, QApplication.closeAllWindows)
        return False

import importlib
gui_app = importlib.import_module(os.environ.get("FIRST_PAINT_MODULE", "dupfinder.gui.app"))
original = gui_app.create_application

def create(args):
    app = original(args)
    watch = Watch(app)
    app.installEventFilter(watch)
    app._watch = watch
    return app

gui_app.create_application = create
code = gui_app.main([])
first, name, numpy_loaded, scan_loaded = seen["first"]
print("RESULT", first, name, numpy_loaded, scan_loaded, seen.get("main"), seen.get("cpu"), code,
      flush=True)
"""


def one_run() -> dict[str, object]:
    env = dict(os.environ, FIRST_PAINT_STARTED=repr(time.time()))
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=60
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT")), None)
    if line is None:
        raise SystemExit(f"no result: {done.stderr[-2000:]}")
    _, first, name, numpy_loaded, scan_loaded, main, cpu, code = line.split()
    return {
        "first_paint_s": round(float(first), 3),
        "first_window": name,
        "numpy_loaded_at_first_paint": numpy_loaded == "True",
        "scan_loaded_at_first_paint": scan_loaded == "True",
        "main_window_painted_s": None if main == "None" else round(float(main), 3),
        "cpu_s_at_main_window": None if cpu == "None" else round(float(cpu), 3),
        "exit": int(code),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    one_run()  # a warm disk: the first run reads the files into the page cache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    runs = [one_run() for _ in range(args.runs)]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    for run in runs:
        print(json.dumps(run))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = {
        "median_first_paint_s": statistics.median(float(str(r["first_paint_s"])) for r in runs),
        "median_main_window_s": statistics.median(
            float(str(r["main_window_painted_s"])) for r in runs
        ),
        "median_cpu_s_at_main_window": statistics.median(
            float(str(r["cpu_s_at_main_window"])) for r in runs
        ),
        "cpu_s_per_run": round(cpu / len(runs), 3),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
