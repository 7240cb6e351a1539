"""How many examples a hypothesis test draws.

CI runs the `ci` profile (tests/conftest.py): derandomized, so every run draws the same
inputs and a failure reproduces. A developer who wants more exploration runs
`TILEC_HYPOTHESIS=explore TILEC_HYPOTHESIS_SCALE=10 bash tests/run-all`: fresh random
inputs each run, and `examples(n)` draws n * scale of them.
"""

from __future__ import annotations

import os


def scale() -> int:
    """The factor TILEC_HYPOTHESIS_SCALE gives (1 when unset); a bad value is an error."""
    raw = os.environ.get("TILEC_HYPOTHESIS_SCALE", "1")
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"TILEC_HYPOTHESIS_SCALE must be a positive integer, not {raw!r}") from None
    if value < 1:
        raise SystemExit(f"TILEC_HYPOTHESIS_SCALE must be a positive integer, not {raw!r}")
    return value


def examples(n: int) -> int:
    """`n` examples under CI's profile, n * TILEC_HYPOTHESIS_SCALE when a developer asks,
    at most TILEC_HYPOTHESIS_MAX when set (the mutation script's quick runs)."""
    count = n * scale()
    cap = os.environ.get("TILEC_HYPOTHESIS_MAX")
    return min(count, int(cap)) if cap else count
