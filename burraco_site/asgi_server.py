"""`python -m burraco_site.asgi_server [daphne's arguments]`: Daphne on uvloop.

Daphne runs Twisted on an asyncio event loop it makes when `daphne.server` is imported; made
under uvloop's policy that loop is uvloop's (libuv, in C), which schedules the consumers'
coroutines, futures and callbacks for a fraction of the pure-Python loop's CPU
(docs/performance.md). Without uvloop installed, this is plain Daphne.
"""

from __future__ import annotations

import asyncio
import os
import sys


def main() -> None:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - requirements.txt installs it
        uvloop = None
    if uvloop is not None:
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "burraco_site.settings")
    from burraco_site import preflight  # reads the settings: only once the module is named

    preflight.exit_on_problems("Daphne")
    from daphne.cli import CommandLineInterface

    sys.argv[0] = "daphne"
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
