"""The game clock: the one place the live-play code reads the time.

`now()` is `timezone.now()` plus an offset. The offset exists only for tests: it is read when
`settings.BURRACO_CLOCK_ADJUSTABLE` is true (default False, so production never pays for the
look-up) and it lives in the Django cache (Redis in production-like runs), so moving the clock in
the test process moves it for every Daphne process and Celery worker on the same cache too.

    clock.advance(31)   # a 30-second draw timer has now run out, everywhere
    clock.reset()       # back to real time
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

OFFSET_KEY = "burraco:clock:offset_seconds"


def adjustable() -> bool:
    """True when tests may move the clock (settings.BURRACO_CLOCK_ADJUSTABLE, from the
    environment variable of the same name in the server processes a test starts)."""
    return bool(settings.BURRACO_CLOCK_ADJUSTABLE)


def offset_seconds() -> float:
    """The current offset (0 unless the clock is adjustable and a test moved it)."""
    if not adjustable():
        return 0.0
    return float(cache.get(OFFSET_KEY, 0.0))


def now() -> datetime:
    """The current time as the game sees it (aware, UTC)."""
    current = timezone.now()
    offset = offset_seconds()
    return current + timedelta(seconds=offset) if offset else current


def advance(seconds: float) -> float:
    """Move the game clock forward (tests only); returns the new offset in seconds."""
    if not adjustable():
        raise RuntimeError("Set BURRACO_CLOCK_ADJUSTABLE = True to move the game clock.")
    offset = offset_seconds() + float(seconds)
    cache.set(OFFSET_KEY, offset, timeout=None)
    return offset


def reset() -> None:
    """Back to real time."""
    cache.delete(OFFSET_KEY)
