"""A real Celery worker process for the timer and computer-player tests.

The worker is started as `python -m celery -A burraco_site worker --pool=solo -c 1` with the env
of `server_env()` (so it works on this run's test database), on Redis (always present here;
REDIS_URL in CI) with a Redis DB number and a queue name of this run's own, so parallel runs do
not mix. This process publishes to the same broker and queue and shares the same cache (the
adjustable game clock and the presence counters live there).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings

from tests.conftest import celery_worker_process, server_env

REDIS_HOST = os.environ.get("TIMERS_REDIS", "redis://127.0.0.1:6379")


def _redis_ok(url: str) -> bool:
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="module")
def celery_worker(django_db_setup, django_db_blocker):
    """Yields the queue name; the module's tests run with the worker consuming it."""
    db = 8 + os.getpid() % 8
    url = f"{REDIS_HOST}/{db}"
    if not _redis_ok(url):
        if os.environ.get("CI"):
            pytest.fail(f"no Redis at {url} for the Celery worker")
        pytest.skip(f"no Redis broker at {url}: the timer tests need a real worker")
    queue = f"burraco-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    with django_db_blocker.unblock():
        env = server_env({
            "REDIS_URL": url,
            "CELERY_BROKER_URL": url,
            "CELERY_EMBEDDED_WORKER": "0",
            "BURRACO_CLOCK_ADJUSTABLE": "1",
            "BOT_MOVE_DELAY_SECONDS": "0",
            "CELERY_QUEUE": queue,
            "DJANGO_SETTINGS_MODULE": "tests.timers.worker_settings",
            "TIMERS_KEY_PREFIX": queue,
        })
    with celery_worker_process(env, name=queue, queue=queue):
        from burraco_site.celery import app

        saved = (app.conf.broker_url, app.conf.task_default_queue)
        app.conf.broker_url = url
        app.conf.task_default_queue = queue
        app._after_fork()  # drop connection pools made for the old broker
        overrides = override_settings(
            CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
                                "KEY_PREFIX": queue}},
            BURRACO_CLOCK_ADJUSTABLE=True,
            BOT_MOVE_DELAY_SECONDS=0,
        )
        overrides.enable()
        try:
            yield queue
        finally:
            overrides.disable()
            app.conf.broker_url, app.conf.task_default_queue = saved
            app._after_fork()
    # Countdown tasks the worker held go back to the queue when it stops: drop them.
    import redis

    client = redis.Redis.from_url(url)
    client.delete(queue)
    keys = list(client.scan_iter(f"{queue}:*"))
    if keys:
        client.delete(*keys)


def wait_for(check: Callable[[], Any], timeout: float = 20, what: str = "the expected state") -> Any:
    """Poll `check` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
