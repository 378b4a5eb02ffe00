"""Tournament tests: no test leaves in-process background work running (games.tasks
in_background) into the next test or the database flush after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.tasks import background_wait


@pytest.fixture(autouse=True)
def _background_idle() -> Iterator[None]:
    yield
    assert background_wait(120), "background tasks still running after the test"
