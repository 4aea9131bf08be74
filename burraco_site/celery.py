"""The Celery app: turn timers and computer moves run here.

In production a separate `celery worker` and `celery beat` use Redis as the broker. With the
embedded defaults (no REDIS_URL) the ASGI server starts one worker thread on the in-memory broker,
so the single development process still has working timers and computer players.
"""

from __future__ import annotations

import os
import threading

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "burraco_site.settings")

app = Celery("burraco_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The queue tasks go to (and a worker started without -Q reads): tests give each run its own.
app.conf.task_default_queue = os.environ.get("CELERY_QUEUE", "celery")
# (Read from the environment as settings.py does: touching app.conf here would load the Django
# settings while this package is still being imported.)
if os.environ.get("CELERY_BROKER_URL", "" if os.environ.get("REDIS_URL") else "memory://").startswith("memory://"):
    # The embedded worker polls the in-memory broker: every 0.1 s rather than every second, so a
    # computer's move follows its pause promptly (an idle poll in-process costs nothing).
    app.conf.broker_transport_options = {"polling_interval": 0.1}

# Beat: the sweep that catches any lost turn timer or computer move (RULES §13: the hand never
# stalls). An interval schedule needs no state on disk, so the in-memory scheduler is enough,
# for the embedded worker and for a separate `celery beat` alike.
SWEEP_SECONDS = float(os.environ.get("TURN_SWEEP_SECONDS", "5"))
app.conf.beat_scheduler = "celery.beat:Scheduler"
app.conf.beat_schedule = {
    "sweep-turns": {
        "task": "games.sweep",
        "schedule": SWEEP_SECONDS,
        "options": {"expires": SWEEP_SECONDS * 2},  # a backlog of sweeps is pointless
    },
}

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
        worker = app.Worker(
            pool="solo",
            concurrency=1,
            beat=True,
            loglevel="WARNING",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        worker.start()

    threading.Thread(target=run, name="embedded-celery-worker", daemon=True).start()
    return True
