"""Real Celery worker processes (and scheduler processes) for the timer and computer-player tests.

A worker is `python -m celery -A burraco_site worker --pool=solo -c 1` with the env of
`server_env()` (so it works on this run's test database), on Redis (TIMERS_REDIS; always present
here, REDIS_URL in CI) with a Redis DB number and a queue name of this run's own, so parallel runs
do not mix. Its turn scheduler (a thread started on `worker_ready`) scans the due games every
SCHEDULER_INTERVAL_SECONDS = 0.2 s. This process publishes to the same broker and queue and shares
the same cache, where the adjustable game clock, the presence sets and the timer counters live:
`clock.advance(31)` here runs a 30-second timer out for the worker too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from tests.conftest import OUTPUT, ROOT, celery_worker_process, server_env, stop

REDIS_HOST = os.environ.get("TIMERS_REDIS", "redis://127.0.0.1:6379")
INTERVAL = 0.2  # the worker's SCHEDULER_INTERVAL_SECONDS


def _redis_ok(url: str) -> bool:
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        return True
    except Exception:
        return False


def wait_for(check: Callable[[], Any], timeout: float = 20, what: str = "the expected state") -> Any:
    """Poll `check` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def last_tick() -> datetime | None:
    from games.models import SchedulerState
    from games.services.scheduler import CLOCK_ROW

    return SchedulerState.objects.filter(name=CLOCK_ROW).values_list("last_tick", flat=True).first()


def scheduler_ticks(count: int = 2, timeout: float = 10) -> None:
    """Return once `count` scheduler ticks have started after this call: every tick that was
    running when it was called (and all it did) is then over, since one loop ticks in turn."""
    seen = timezone.now()
    for _ in range(count):
        def later(after=seen):
            tick = last_tick()
            return tick if tick is not None and tick > after else None

        seen = wait_for(later, timeout=timeout, what="a scheduler tick")


class Timers:
    """This module's broker, queue and cache, and the processes that work on them."""

    def __init__(self, url: str, queue: str, env: dict[str, str]) -> None:
        self.url, self.queue, self.env = url, queue, env
        self.started = 0

    @contextmanager
    def worker(self, label: str = "w"):
        """A real worker process on this queue, ready; stopped (SIGTERM) after, if still alive."""
        self.started += 1
        with celery_worker_process(self.env, name=f"{self.queue}-{label}{self.started}", queue=self.queue) as proc:
            yield proc

    @contextmanager
    def run_scheduler(self):
        """`manage.py run_scheduler`: a scheduler process of its own, beside the worker's thread.
        Yields at once (it starts while the test sets up); `proc.ready()` waits for its loop."""
        log_path = OUTPUT / f"scheduler-{self.queue}.log"
        with open(log_path, "w") as log:
            proc = subprocess.Popen([sys.executable, "manage.py", "run_scheduler"], cwd=ROOT, env=self.env,
                                    stdout=log, stderr=subprocess.STDOUT)

            def ready() -> None:
                wait_for(lambda: proc.poll() is not None or "turn scheduler running" in log_path.read_text(),
                         timeout=60, what="the scheduler process to start")
                assert proc.poll() is None, log_path.read_text()

            proc.ready = ready
            try:
                yield proc
            finally:
                stop(proc)

    def redis(self):
        import redis

        return redis.Redis.from_url(self.url)

    def queued(self) -> int:
        return int(self.redis().llen(self.queue))

    def forget_queue(self) -> None:
        """Drop what is left of this queue: its messages, and any a killed worker left unacked."""
        client = self.redis()
        for name in (self.queue, f"{self.queue}.analysis.asked", f"{self.queue}.analysis"):
            client.delete(name, f"_kombu.binding.{name}", f"_kombu.binding_permanent.{name}")
        keys = list(client.scan_iter(f"{self.queue}:*"))
        if keys:
            client.delete(*keys)
        for tag, raw in client.hgetall("unacked").items():
            try:
                routing_key = json.loads(raw)[2]
            except (ValueError, IndexError, TypeError):
                continue
            if routing_key == self.queue:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)


@pytest.fixture(scope="module")
def timers(django_db_setup, django_db_blocker):
    """This process set up to talk to the module's workers: same broker, queue and cache."""
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
            "ANALYSIS_WORLDS": "4",  # a game's analysis in a few seconds (the site's default is 24)
            "SCHEDULER_INTERVAL_SECONDS": str(INTERVAL),
            "CELERY_QUEUE": queue,
            "DJANGO_SETTINGS_MODULE": "tests.timers.worker_settings",
            "TIMERS_KEY_PREFIX": queue,
        })
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
        SCHEDULER_INTERVAL_SECONDS=INTERVAL,
        CELERY_ANALYSIS_QUEUE=f"{queue}.analysis",  # what the workers (CELERY_QUEUE=queue) read too
        CELERY_ANALYSIS_ASKED_QUEUE=f"{queue}.analysis.asked",
    )
    overrides.enable()
    timers = Timers(url, queue, env)
    try:
        yield timers
    finally:
        overrides.disable()
        app.conf.broker_url, app.conf.task_default_queue = saved
        app._after_fork()
        timers.forget_queue()
        client = timers.redis()
        keys = list(client.scan_iter(f"{queue}*"))  # the cache: clock, presence, counters
        if keys:
            client.delete(*keys)


@pytest.fixture(scope="module")
def celery_worker(timers):
    """One worker for the whole module (its scheduler thread included)."""
    with timers.worker("main") as process:
        yield process
    log = process.log_path.read_text()
    assert "scheduler tick failed" not in log, f"a tick of the worker's scheduler failed: see {process.log_path}"


@pytest.fixture
def quiet_after(timers, celery_worker, transactional_db):
    """For a module's tests on its worker: its worker must live through each, and each leaves
    nothing queued or due behind (`quiet`)."""
    yield
    assert celery_worker.poll() is None, "the worker died"
    quiet(timers)


def quiet(timers: Timers) -> None:
    """Before the test database is flushed: every game over (whatever is still queued or due for
    it is stale), the queue drained, and two scheduler ticks started since (so none is mid-way)."""
    from games.live import clock
    from games.models import Game

    clock.reset()
    Game.objects.update(finished=True)
    wait_for(lambda: timers.queued() == 0, what="the worker to drain its queue")
    scheduler_ticks(2)
