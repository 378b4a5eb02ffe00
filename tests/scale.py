"""The size of the long property runs (the 10,000-deal loops, the fast path's agreement runs,
hypothesis' example counts): PISYEDILI_TEST_SCALE times their full size, never less than a
floor that still reaches every branch they test. `make test` and CI run them at full size (1);
`make test-fast` at 0.05."""

from __future__ import annotations

import os

SCALE = float(os.environ.get("PISYEDILI_TEST_SCALE", "1"))


def scaled(full: int, least: int = 10) -> int:
    """`full` at scale 1; at a smaller scale, that share of it, but at least `least`."""
    return max(min(full, least), round(full * SCALE))
