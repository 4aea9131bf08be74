"""The Celery app: turn timers and computer moves run here.

In production a separate `celery worker` (RabbitMQ as the broker: see docs/operations.md) runs
computer moves, and every worker also runs the turn scheduler in a thread (started when the
worker is ready), so turn deadlines fire with the worker alone: no beat is needed. With the
embedded defaults (no REDIS_URL) the ASGI server starts one worker thread on the in-memory broker
and the scheduler thread, so the single development process still has working timers and
computer players.
"""

from __future__ import annotations

import os
import threading

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "burraco_site.settings")

app = Celery("burraco_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Queue, broker and pool behaviour are CELERY_* settings in settings.py.
# Celery's Django fixup closes the database connections (and, under prefork, the whole psycopg
# pool) after every task unless told to reuse them: keep them, the pool checks them itself.
app.conf.CELERY_DB_REUSE_MAX = 10_000


@task_prerun.connect
@task_postrun.connect
def _give_back_connection(**kwargs) -> None:
    """Each task hands its database connection back to the pool, as every request and socket call
    does (`close_old_connections`: with the pool, closing gives it back; a broken one is dropped).
    With the fixup told to reuse connections and nothing else closing them, a connection that
    PostgreSQL's restart had broken stayed this worker's for good: every later task failed with
    "the connection is closed" and the scheduler had to play the computer's moves, slowly."""
    from django.db import close_old_connections

    close_old_connections()


@worker_init.connect
def _preflight(**kwargs) -> None:
    """A broker, Redis or database setting that can never work stops the worker here, saying
    which, instead of its retrying for ever (burraco_site/preflight.py). Imported here: this
    module is loaded with the settings, which preflight reads."""
    from burraco_site import preflight

    preflight.exit_on_problems("The Celery worker")


@worker_ready.connect
def _start_scheduler(**kwargs) -> None:
    from django.conf import settings

    if settings.SCHEDULER_IN_WORKER:
        # Here: this module is loaded with the settings, before Django's apps (and so the
        # services' models) can be imported.
        from games.services import scheduler

        scheduler.start_in_background()

_embedded_lock = threading.Lock()
_embedded_started = False


def start_embedded_worker() -> bool:
    """Run a worker (with beat) in a daemon thread of this process; once per process.

    Returns True when this call started it. Only meaningful with the in-memory broker, which is
    visible to this process alone.
    """
    global _embedded_started
    with _embedded_lock:
        if _embedded_started:
            return False
        _embedded_started = True

    def run() -> None:
        from django.conf import settings

        worker = app.Worker(
            pool="solo",
            concurrency=1,
            queues=[settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_ANALYSIS_ASKED_QUEUE,
                    settings.CELERY_ANALYSIS_QUEUE],
            loglevel="WARNING",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        worker.start()

    threading.Thread(target=run, name="embedded-celery-worker", daemon=True).start()
    return True
