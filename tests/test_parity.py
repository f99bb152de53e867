"""Headless parity: the command line and the desktop app find identical groups.

The app's side is driven as a user drives it: folders, kinds, thresholds and globs are set
on the scan panel's widgets, the panel builds the options, and the scan runs through the
same job the window starts (``dupfinder.app.jobs.scan_job`` on a ``worker.Job`` thread). The CLI's
side is ``dupfinder scan --format json`` with the matching flags. Groups are compared
member by member: path, order, distance to the representative and fingerprint.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot
from scan_helpers import edit, essay, picture, write

from dupfinder.app.jobs import Rescored, scan_job
from dupfinder.cli import EXIT_OK, main
from dupfinder.core.model import ScanResult
from dupfinder.core.results.decisions import DecisionStore
from dupfinder.core.results.report import result_to_dict
from dupfinder.gui.scan_panel import ScanPanel
from dupfinder.gui.worker import Job

Groups = list[tuple[str, list[tuple[str, int, str]]]]


def _corpus(root: Path) -> Path:
    """Near-duplicate documents and pictures at several distances, plus files the globs
    and kinds leave out."""
    for seed in range(6):
        base = essay(seed)
        write(root / "docs" / f"essay{seed}.txt", base)
        write(root / "docs" / f"essay{seed}-edit.md", edit(base, seed, changes=seed + 1))
        write(root / "docs" / "drafts" / f"essay{seed}-draft.txt", edit(base, 99 + seed, changes=3))
    write(root / "notes" / "unrelated.txt", essay(40))
    for seed in range(4):
        image = picture(seed)
        folder = root / "pictures"
        folder.mkdir(parents=True, exist_ok=True)
        image.save(folder / f"photo{seed}.png")
        image.save(folder / f"photo{seed}.jpg", quality=70)
        image.resize((160, 120)).save(folder / f"photo{seed}-small.webp")
    return root


def _groups_of(data: dict[str, Any]) -> Groups:
    return [
        (g["kind"], [(m["path"], m["distance"], m["fingerprint"]) for m in g["members"]])
        for g in data["groups"]
    ]


def _gui_scan(qtbot: QtBot, panel: ScanPanel, decisions: DecisionStore) -> ScanResult:
    job = Job(scan_job(panel.scan_options(), panel.reference_folders(), decisions))
    try:
        with (
            qtbot.waitSignal(job.done, timeout=60_000),
            qtbot.waitSignal(job.finished, timeout=60_000) as blocker,
        ):
            job.start()
    finally:
        assert job.stop(), "the scan thread did not stop"
    outcome = blocker.args[0]
    assert isinstance(outcome, Rescored)
    assert outcome.warning is None
    return outcome.prepared.result


SETTINGS = [
    pytest.param({}, [], id="defaults"),
    pytest.param(
        {"kinds": 1, "text": 60, "exclude": "drafts"},
        ["--kind", "text", "--text-threshold", "60", "--exclude", "drafts"],
        id="text-only-looser-share-excluding-a-folder",
    ),
    pytest.param(
        {"kinds": 2, "image": 95, "include": "*.png; *.jpg"},
        ["--kind", "image", "--image-similarity", "95", "--include", "*.png", "--include", "*.jpg"],
        id="images-only-strict-similarity-with-globs",
    ),
]


@pytest.mark.parametrize(("widgets", "flags"), SETTINGS)
def test_cli_and_app_find_identical_groups(
    qtbot: QtBot, tmp_path: Path, widgets: dict[str, Any], flags: list[str]
) -> None:
    root = _corpus(tmp_path / "corpus")
    decisions = tmp_path / "decisions.json"
    panel = ScanPanel()
    qtbot.addWidget(panel)
    panel.add_folders([str(root)])
    panel.kinds.setCurrentIndex(widgets.get("kinds", 0))
    panel.text_similarity.set_value(widgets.get("text", panel.text_similarity.value()))
    panel.image_similarity.set_value(widgets.get("image", panel.image_similarity.value()))
    panel.include.setText(widgets.get("include", ""))
    panel.exclude.setText(widgets.get("exclude", ""))
    gui = result_to_dict(_gui_scan(qtbot, panel, DecisionStore(decisions)))

    out, err = io.StringIO(), io.StringIO()
    argv = ["scan", str(root), "--format", "json", "--decisions", str(decisions), *flags]
    assert main(argv, out, err) == EXIT_OK, err.getvalue()
    cli = json.loads(out.getvalue())

    assert _groups_of(gui), "the corpus must produce groups for the comparison to mean much"
    if not flags:
        assert {kind for kind, _ in _groups_of(gui)} == {"text", "image"}
    assert _groups_of(cli) == _groups_of(gui)
    assert sorted(map(str, cli["errors"])) == sorted(map(str, gui["errors"]))
    assert cli["stats"]["files_seen"] == gui["stats"]["files_seen"]
