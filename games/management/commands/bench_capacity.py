"""What one PostgreSQL and one Redis carry of a table's action (games/benchmarks/capacity.py;
the capacity plan in docs/operations.md).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/burraco_cap \\
        python manage.py bench_capacity --games 4000 --clients 1,2,4,8,16 --seconds 8 --json

Needs DATABASE_URL on PostgreSQL (migrated; it adds --games copies of a real table to it and
plays on them with pgbench), pgbench and redis-server on PATH. Starts its own Redis on
--redis-port for the channel layer's part.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from games.benchmarks import capacity


class Command(BaseCommand):
    help = "pgbench the action's own statements, and load one Redis with the channel layer's pattern."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--games", type=int, default=4000, help="games copied from a real one for pgbench")
        parser.add_argument("--clients", default="1,2,4,8,16", help="pgbench client counts, comma-separated")
        parser.add_argument("--seconds", type=float, default=8.0, help="length of each pgbench run")
        parser.add_argument("--redis-port", type=int, default=8379)
        parser.add_argument("--redis-tables", type=int, default=500)
        parser.add_argument("--redis-seconds", type=float, default=10.0, help="length of each Redis window")
        parser.add_argument("--redis-concurrency", type=int, default=32)
        parser.add_argument("--benchmark-requests", type=int, default=300_000,
                            help="requests of each redis-benchmark run (0: skip it)")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--write-scripts", metavar="DIR", help="only write the pgbench scripts to DIR")

    def handle(self, *args, **options) -> None:
        if options["write_scripts"]:
            for path in capacity.write_scripts(Path(options["write_scripts"])).values():
                self.stdout.write(str(path))
            return
        if connection.vendor != "postgresql":
            raise CommandError("bench_capacity needs DATABASE_URL on PostgreSQL.")
        clients = [int(c) for c in options["clients"].split(",")]
        report = capacity.measure(games=options["games"], clients=clients, seconds=options["seconds"],
                                  redis_port=options["redis_port"], redis_tables=options["redis_tables"],
                                  redis_seconds=options["redis_seconds"],
                                  redis_concurrency=options["redis_concurrency"],
                                  benchmark_requests=options["benchmark_requests"])
        self.stdout.write(json.dumps(report, indent=1) if options["json"] else _summary(report))


def _summary(report: dict) -> str:
    pg, rd = report["postgres"], report["redis"]
    lines = [f"statements per action: {report['statements_per_action']}"]
    for run in pg["runs"]:
        turn = run["turn"]
        lines.append(f"{run['clients']:>3} clients: SELECT 1 {run['select1']['tps']:>9.0f}/s, "
                     f"actions {turn['actions_per_s']:>7.0f}/s "
                     f"({turn['backend_cpu_ms_per_action']} ms backend CPU each)")
    lines.append(f"Redis: {rd['action']['per_s']} actions/s at {rd['action']['redis_cores']} of a core, "
                 f"{rd['action']['redis_cpu_us_each']} µs each ({rd['action_cost_in_pings']} PINGs)")
    return "\n".join(lines)
