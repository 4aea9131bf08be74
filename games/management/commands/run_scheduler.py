"""Run the turn scheduler in its own process (games/services/scheduler.py).

Every Celery worker already runs one in a thread; this is for an operator who wants it apart
(or a deployment without workers in some zone). Several may run at once: each tick claims its
games with FOR UPDATE SKIP LOCKED, so no game is handled twice.
"""

from __future__ import annotations

import json
import signal
import threading

from django.core.management.base import BaseCommand

from burraco_site import preflight
from games.services.scheduler import Scheduler, interval


class Command(BaseCommand):
    help = ("Scan for due turn deadlines and overdue computer moves, and match the people in the queue, "
            "about once a second.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--once", action="store_true", help="run one tick, print what it did (JSON), exit")

    def handle(self, *args, **options) -> None:
        if options["once"]:
            self.stdout.write(json.dumps(Scheduler().tick(), sort_keys=True))
            return
        preflight.exit_on_problems("The turn scheduler")
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        self.stdout.write(f"turn scheduler running, every {interval():g} s")
        self.stdout.flush()
        Scheduler().run_forever(stop)
