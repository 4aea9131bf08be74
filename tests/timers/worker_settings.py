"""Settings of the test Celery worker: the site's own, with this run's cache key prefix, so that
presence counters and the game clock of earlier runs on the same Redis DB cannot leak in."""

import os

from burraco_site.settings import *  # noqa: F403
from burraco_site.settings import CACHES

CACHES["default"]["KEY_PREFIX"] = os.environ["TIMERS_KEY_PREFIX"]
