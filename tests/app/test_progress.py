"""Progress lines: counts with separators, and an estimate that waits for data and drifts."""

from __future__ import annotations

from itertools import pairwise

from dupfinder.app.progress import ProgressEstimate
from dupfinder.core.model import Phase, Progress

TOTAL = 14_017


def _run(rate_at: list[int], step: float = 0.1) -> list[tuple[float, float, float]]:
    """(time, estimate, true remaining) for a phase that does ``rate_at[tick]`` files a tick."""
    estimate = ProgressEstimate()
    estimate.describe(Progress(Phase.FINGERPRINTING, 0, TOTAL), now=0.0)
    done_at = [0]
    for files in rate_at:
        done_at.append(min(TOTAL, done_at[-1] + files))
    finish_tick = next(i for i, d in enumerate(done_at) if d >= TOTAL)
    seen = []
    for tick in range(1, finish_tick):
        now = tick * step
        sample = Progress(Phase.FINGERPRINTING, done_at[tick], TOTAL)
        remaining = estimate.remaining_seconds(sample, now)
        if remaining is not None:
            seen.append((now, remaining, (finish_tick - tick) * step))
    return seen


def test_no_estimate_while_the_pool_warms_up() -> None:
    estimate = ProgressEstimate()
    estimate.describe(Progress(Phase.FINGERPRINTING, 0, TOTAL), now=0.0)
    text = estimate.describe(Progress(Phase.FINGERPRINTING, 10, TOTAL), now=1.5)
    assert text == "Fingerprinting: 10 of 14,017"


def test_a_slow_start_does_not_promise_hours() -> None:
    # workers start for two seconds, then 25 files a tick: about 58 s in all
    seen = _run([1] * 20 + [25] * 1000)
    assert seen
    assert all(estimate < 2 * truth + 5 for _, estimate, truth in seen)


def test_the_estimate_does_not_jump_when_a_slow_file_holds_the_workers() -> None:
    seen = _run([25] * 200 + [0] * 60 + [25] * 1000)
    rises = [b[1] - a[1] for a, b in pairwise(seen)]
    assert max(rises) < 1.0  # at most a second more from one sample (0.1 s) to the next
    assert seen[-1][1] < seen[0][1]


def test_the_estimate_says_it_is_the_steps_not_the_scans() -> None:
    """A scan's later steps (comparing bytes, grouping) are not foreseen while it
    fingerprints: "about 1 min left" read as the whole scan's on one that took 4 min."""
    estimate = ProgressEstimate()
    estimate.describe(Progress(Phase.FINGERPRINTING, 0, TOTAL), now=0.0)
    text = ""
    for tick in range(1, 100):
        text = estimate.describe(Progress(Phase.FINGERPRINTING, tick * 50, TOTAL), now=tick)
    assert text.startswith("Fingerprinting: 4,950 of 14,017 · this step about ")
    assert text.endswith(" left")
