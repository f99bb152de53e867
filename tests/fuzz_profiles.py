"""Hypothesis settings for the fuzz tests: modest in CI, a long campaign on request.

    HYPOTHESIS_PROFILE=fuzz pytest tests/test_fuzz.py           # ~100x the CI examples
    HYPOTHESIS_PROFILE=fuzz FUZZ_EXAMPLES=200000 pytest tests/test_fuzz.py -x

The fuzz tests take their settings from ``fuzz_settings`` rather than from the globally
loaded profile, so choosing a profile here never changes the other property tests.
Failing inputs are kept in Hypothesis' example database (.hypothesis/) and replayed first.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["CAMPAIGN", "fuzz_settings"]

#: True when a long fuzzing campaign was asked for.
CAMPAIGN = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"

_SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "5000")),
    deadline=None,
    suppress_health_check=_SUPPRESSED,
    print_blob=True,
)


def fuzz_settings(ci_examples: int) -> settings:
    """``ci_examples`` per test in CI; the ``fuzz`` profile's count in a campaign."""
    if CAMPAIGN:
        return settings(settings.get_profile("fuzz"))
    return settings(
        max_examples=ci_examples,
        deadline=None,
        suppress_health_check=_SUPPRESSED,
        print_blob=True,
    )
