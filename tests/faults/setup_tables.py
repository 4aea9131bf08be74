"""Make the fault tests' tables, in a Django process of the stack under test.

    python -m tests.faults.setup_tables '[{"count": 4, "prefix": "f1", "draw_seconds": 10, ...}, ...]'

The test process itself has no Django database (the fault tests run on a PostgreSQL of their
own, which pytest-django knows nothing about), so the tables are made here, through the same
services the lobby calls (`games.benchmarks.live.prepare_tables`), with the stack's environment:
the deal's frames and the computer's first move go to the stack's Redis and broker. Prints the
tables of each spec as JSON: [[{"id", "game_id", "sessions": [session key or null per seat]}], ...].
"""

from __future__ import annotations

import json
import sys


def main(specs: list[dict]) -> list[list[dict]]:
    import django

    django.setup()
    return [make(spec) for spec in specs]


def make(spec: dict) -> list[dict]:
    from games.benchmarks.live import prepare_tables
    from games.engine import Ruleset

    ruleset = Ruleset.preset(spec.get("preset", "classico"), players=2,
                             draw_seconds=int(spec.get("draw_seconds", 30)),
                             play_seconds=int(spec.get("play_seconds", 60)),
                             grace_seconds=int(spec.get("grace_seconds", 45)))
    return prepare_tables(int(spec["count"]), prefix=spec["prefix"], ruleset=ruleset,
                          computer=spec.get("computer"))


if __name__ == "__main__":
    print("TABLES " + json.dumps(main(json.loads(sys.argv[1]))))
