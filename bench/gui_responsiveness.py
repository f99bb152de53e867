"""How responsive the window stays during a large scan: event-loop stalls, as figures.

    python bench/gui_responsiveness.py [--files 20000] [--pictures] [--keep DIR]

Writes a synthetic folder (half originals, half lightly edited or resized copies, so the
result has thousands of groups; documents, or small pictures with ``--pictures``), opens the
real window (offscreen unless a display is chosen with QT_QPA_PLATFORM), and runs what a user
does: scan, show the groups, sort by another column, apply a keep rule, page down through
the list (with pictures, their thumbnails load meanwhile), filter. A 10 ms timer runs
throughout; a stall is any gap between ticks longer than expected. Prints the longest stall
and how many exceeded 100 ms, per step and in total. The bar: no stall over 100 ms on a
20,000-file scan. This is a figure to watch, not a timed test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TICK_MS = 10
STALL_MS = 100
WORDS = (
    "river bridge garden window morning evening kitchen market letter station winter summer "
    "harbour village mountain forest valley meadow orchard library teacher doctor painter "
    "baker farmer sailor engine ladder basket candle lantern mirror pocket ribbon saddle"
).split()


def write_corpus(folder: Path, files: int, seed: int = 1) -> None:
    """``files`` text files: originals and copies with one word changed, in 100 folders."""
    rng = random.Random(seed)
    for i in range(files // 2):
        sub = folder / f"part-{i % 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        words = [rng.choice(WORDS) for _ in range(160)]
        (sub / f"doc-{i:06d}.txt").write_text(" ".join(words), encoding="utf-8")
        words[rng.randrange(len(words))] = "changed"
        (sub / f"doc-{i:06d}-copy.txt").write_text(" ".join(words), encoding="utf-8")


def write_pictures(folder: Path, files: int, seed: int = 1) -> None:
    """``files`` small pictures: PNG originals and their copies enlarged and saved as JPEG."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    for i in range(files // 2):
        sub = folder / f"part-{i % 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        blocks = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
        image = Image.fromarray(blocks, "RGB").resize((96, 96), Image.Resampling.BILINEAR)
        image.save(sub / f"pic-{i:06d}.png")
        copy = image.resize((128, 128), Image.Resampling.BICUBIC)
        copy.save(sub / f"pic-{i:06d}-copy.jpg", quality=85)


class StallMeter:
    """Counts gaps between timer ticks: a long gap is a frozen window.

    Each gap also records how much CPU the GUI thread itself spent in it. On a machine shared
    with other jobs the wall gap includes time the thread waited for a core; the CPU part is
    the work the window did and is the figure a quiet machine would show.
    """

    def __init__(self) -> None:
        self.last = time.perf_counter()
        self.last_cpu = time.thread_time()
        self.gaps: list[tuple[float, float]] = []

    def restart(self) -> None:
        self.last = time.perf_counter()
        self.last_cpu = time.thread_time()
        self.gaps = []

    def tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.gaps.append(((now - self.last) * 1000 - TICK_MS, (cpu - self.last_cpu) * 1000))
        self.last, self.last_cpu = now, cpu

    def take(self) -> list[tuple[float, float]]:
        gaps, self.gaps = self.gaps, []
        return gaps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--pictures", action="store_true", help="pictures, not documents")
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dupfinder-bench-gui-") as temp_name:
        temp = Path(temp_name)
        for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
            (temp / name.lower()).mkdir()
            os.environ[name] = str(temp / name.lower())
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        corpus = args.keep or temp / "corpus"
        started = time.perf_counter()
        (write_pictures if args.pictures else write_corpus)(corpus, args.files)
        print(f"wrote {args.files:,} files in {time.perf_counter() - started:.1f} s")
        return _run(corpus, temp)


def _run(corpus: Path, temp: Path) -> int:
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from dupfinder.core.actions.journal import Journal
    from dupfinder.core.results.decisions import DecisionStore
    from dupfinder.gui.main_window import MainWindow
    from dupfinder.gui.results_model import Column
    from dupfinder.gui.settings import Settings

    app = QApplication.instance() or QApplication(["dupfinder-bench"])
    window = MainWindow(
        Settings(QSettings(str(temp / "settings.ini"), QSettings.Format.IniFormat)),
        journal=Journal(temp / "journal.jsonl"),
        decisions=DecisionStore(temp / "decisions.json"),
    )
    window.resize(1280, 800)
    window.show()
    meter = StallMeter()
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.timeout.connect(meter.tick)
    timer.start(TICK_MS)

    def run_until(condition: Callable[[], bool], timeout: float = 900.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("the step did not finish")
            app.processEvents()
            time.sleep(0.001)  # the loop stays free; the timer measures every gap

    rows: list[tuple[str, float, list[tuple[float, float]]]] = []

    def step(name: str, start: Callable[[], object], done: Callable[[], bool]) -> None:
        meter.restart()
        began = time.perf_counter()
        start()
        run_until(done)
        for _ in range(20):  # repaints after the step
            app.processEvents()
        rows.append((name, time.perf_counter() - began, meter.take()))

    window.panel.add_folders([str(corpus)])
    step("scan + show groups", window.start_scan, lambda: not window.busy())
    step(
        "sort by name",
        lambda: window.view.sortByColumn(Column.NAME, Qt.SortOrder.AscendingOrder),
        lambda: True,
    )
    step("keep the oldest", lambda: window.apply_keep_rule("oldest"), lambda: not window.busy())
    step("mark all but kept", window.app.mark_all, lambda: True)
    pages_left = [60]

    def page_down() -> None:  # one page every 30 ms, as a held Page Down key
        if pages_left[0] == 0:
            return
        pages_left[0] -= 1
        bar = window.view.verticalScrollBar()
        bar.setValue(bar.value() + bar.pageStep())
        QTimer.singleShot(30, page_down)

    step(
        "page down 60 times",
        page_down,
        lambda: pages_left[0] == 0 and not window.model.thumbnails.busy(),
    )
    step(
        "filter",
        lambda: window.filter.setText("part-007"),
        lambda: window.model.rowCount() < window.model.totals()[0],
    )
    timer.stop()
    groups, files, _ = window.model.totals()
    print(f"result: {groups:,} groups, {files:,} files, {len(window.model.marks()):,} marked")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    header = ("step", "seconds", "longest stall ms", "stalls > 100 ms", "GUI CPU ms", "> 100 ms")
    print(f"{header[0]:22s} " + " ".join(f"{h:>17s}" for h in header[1:]))
    everything: list[tuple[float, float]] = []
    for name, seconds, gaps in rows:
        everything += gaps
        print(f"{name:22s} {seconds:17.2f} " + " ".join(f"{v:>17}" for v in _summary(gaps)))
    wall, over, cpu, cpu_over = _summary(everything)
    print(f"longest stall: {wall} ms ({over} over {STALL_MS} ms); longest GUI-thread CPU burst:")
    print(f"{cpu} ms ({cpu_over} over {STALL_MS} ms)")
    window.shutdown()
    window.close()
    return 0


def _summary(gaps: list[tuple[float, float]]) -> tuple[str, int, str, int]:
    """Longest wall gap, gaps over the bar, longest CPU burst, bursts over the bar."""
    wall = max((g for g, _ in gaps), default=0.0)
    cpu = max((c for _, c in gaps), default=0.0)
    over = sum(1 for g, _ in gaps if g > STALL_MS)
    cpu_over = sum(1 for _, c in gaps if c > STALL_MS)
    return f"{wall:.0f}", over, f"{cpu:.0f}", cpu_over


if __name__ == "__main__":
    sys.exit(main())
