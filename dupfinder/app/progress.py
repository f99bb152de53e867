"""Progress samples turned into a line for people: the phase, the counts, a steady estimate.

The estimate waits until a phase has run a few seconds and done a share of its work (the
first files after a pool starts come slowly and would promise hours), then follows the rate
of the last few seconds (not of the slow start) through a smoothed finish time, so it drifts instead of jumping when one large file holds
the workers. It is the estimate of the step shown (fingerprinting, comparing...), and says so:
the steps after it are not foreseen.
"""

from __future__ import annotations

import math
import time
from collections import deque

from dupfinder.app.i18n import translate
from dupfinder.core.model import Phase, Progress

__all__ = ["ProgressEstimate", "duration_text", "stopped_text"]

#: Seconds a phase runs, and share of it done, before an estimate is shown.
WARM_UP_SECONDS = 3.0
WARM_UP_SHARE = 0.02
#: Time constant (seconds) of the smoothing of the finish time.
SMOOTHING_SECONDS = 5.0
#: Seconds of recent samples the rate is measured over, at most.
RATE_WINDOW_SECONDS = 20.0


def _label(phase: Phase) -> str:
    labels = {
        Phase.WALKING: translate("Progress", "Finding files"),
        Phase.FINGERPRINTING: translate("Progress", "Fingerprinting"),
        Phase.IDENTICAL: translate("Progress", "Comparing bytes"),
        Phase.COMPARING: translate("Progress", "Comparing"),
        Phase.DONE: translate("Progress", "Finishing"),
        Phase.APPLYING: translate("Progress", "Working"),
    }
    return labels[phase]


def stopped_text(last: Progress | None) -> str:
    """How far a cancelled scan got, from its last progress sample, in the phase's own
    words: files found, files fingerprinted, files whose bytes were compared, or files being
    grouped (a count of files in every case)."""
    if last is None:
        return translate("Progress", "Scan stopped.")
    done = f"{last.done:,}"
    if last.phase is Phase.WALKING:
        amount = last.done
        return translate("Progress", "Scan stopped after finding %Ln file(s).", None, amount)
    if last.total is None:
        return translate("Progress", "Scan stopped.")
    amount = last.total
    if last.phase is Phase.FINGERPRINTING:
        text = translate(
            "Progress", "Scan stopped after fingerprinting {done} of %Ln file(s).", None, amount
        )
    elif last.phase is Phase.IDENTICAL:
        text = translate(
            "Progress",
            "Scan stopped after comparing the bytes of {done} of %Ln file(s).",
            None,
            amount,
        )
    elif last.phase is Phase.COMPARING:
        text = translate("Progress", "Scan stopped while grouping %Ln file(s).", None, amount)
    else:
        return translate("Progress", "Scan stopped.")
    return text.format(done=done)


def duration_text(seconds: float) -> str:
    if seconds < 60:
        amount = max(1, round(seconds))
        return translate("Progress", "%n s", None, amount)
    if seconds < 3600:
        amount = round(seconds / 60)
        return translate("Progress", "%n min", None, amount)
    return translate("Progress", "{hours:.1f} h").format(hours=seconds / 3600)


class ProgressEstimate:
    """Describes samples of one job; make a new one per job."""

    def __init__(self) -> None:
        self._phase: Phase | None = None
        self._phase_start = 0.0
        self._done_at_start = 0
        self._finish: float | None = None  # smoothed finish time (monotonic seconds)
        self._last = 0.0
        self._recent: deque[tuple[float, int]] = deque()
        self.last: Progress | None = None

    def describe(self, sample: Progress, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        self.last = sample
        if sample.phase != self._phase:
            self._phase = sample.phase
            self._phase_start = now
            self._done_at_start = sample.done
            self._finish = None
            self._recent.clear()
        label = _label(sample.phase)
        if sample.total is None:
            amount = sample.done
            return translate("Progress", "{phase}: %Ln so far", None, amount).format(phase=label)
        amount = sample.total
        text = translate("Progress", "{phase}: {done} of %Ln", None, amount).format(
            phase=label, done=f"{sample.done:,}"
        )
        remaining = self.remaining_seconds(sample, now)
        if remaining is not None:  # of this step: the scan's later steps are not foreseen
            text += translate("Progress", " · this step about {time} left").format(
                time=duration_text(remaining)
            )
        return text

    def remaining_seconds(self, sample: Progress, now: float) -> float | None:
        """Seconds left, or None while there is too little to go on."""
        elapsed = now - self._phase_start
        advanced = sample.done - self._done_at_start
        recent = self._recent
        recent.append((now, sample.done))
        while len(recent) > 2 and now - recent[1][0] >= RATE_WINDOW_SECONDS:
            recent.popleft()
        if sample.total is None or advanced <= 0:
            return None
        share = advanced / max(sample.total - self._done_at_start, 1)
        if elapsed < WARM_UP_SECONDS or share < WARM_UP_SHARE:
            return None
        # The rate over the later half of the phase so far (at most the window): the slow
        # start of a pool stops counting as soon as there is better to go on.
        since = now - min(RATE_WINDOW_SECONDS, elapsed / 2)
        then, done_then = next((t, d) for t, d in recent if t >= since)
        if now - then <= 0 or sample.done <= done_then:
            then, done_then = self._phase_start, self._done_at_start
        rate = (sample.done - done_then) / max(now - then, 1e-6)
        finish = now + max(sample.total - sample.done, 0) / rate
        if self._finish is None:
            self._finish = finish
        else:
            weight = 1.0 - math.exp(-(now - self._last) / SMOOTHING_SECONDS)
            self._finish += (finish - self._finish) * weight
        self._last = now
        return max(self._finish - now, 0.0)
