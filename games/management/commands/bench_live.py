"""The live-play load benchmark (games/benchmarks/live.py; figures in docs/performance.md).

    python manage.py bench_live --tables 1000 --pace 5 --seconds 60 --daphnes 2 --json

Needs DATABASE_URL on PostgreSQL: it creates a fresh database (default "burraco_live_bench",
dropped at the end unless --keep), makes the tables through the project's services, starts its
own Redis, the Daphne processes, a Celery worker and the turn scheduler on free ports with the
production settings, plays, runs the echo baseline, and prints the figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from games.benchmarks import live
from games.benchmarks.stack import Stack, cpu_seconds


class Command(BaseCommand):
    help = "Play many tables over real sockets against the production stack and compare with an echo."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--tables", type=int, default=100)
        parser.add_argument("--pace", type=float, default=5.0, help="seconds between actions at one table")
        parser.add_argument("--seconds", type=float, default=60.0, help="length of the measured window")
        parser.add_argument("--daphnes", type=int, default=2)
        parser.add_argument("--connect-seconds", type=float, default=10.0,
                            help="spread the socket handshakes over this many seconds")
        parser.add_argument("--no-echo", action="store_true", help="skip the echo baseline")
        parser.add_argument("--rounds", type=int, default=3,
                            help="alternating game and echo windows, each --seconds/rounds long")
        parser.add_argument("--nginx", action="store_true",
                            help="connect through nginx (deploy/nginx/burraco-proxy.conf) in front of the Daphnes")
        parser.add_argument("--db-name", default=f"burraco_live_bench_{os.getpid()}")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("bench_live needs DATABASE_URL on PostgreSQL (the production database).")
        say = (lambda text: None) if options["json"] else (lambda text: self.stdout.write(text))
        report = {"machine": live.machine(), "options": {k: options[k] for k in (
            "tables", "pace", "seconds", "daphnes", "connect_seconds", "nginx")}}
        creation = connection.creation
        old_name = connection.settings_dict["NAME"]
        connection.settings_dict.setdefault("TEST", {})["NAME"] = options["db_name"]
        say(f"creating {options['db_name']} ...")
        creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        stack = None
        try:
            started = time.monotonic()
            tables = live.prepare_tables(options["tables"])
            report["setup_seconds"] = round(time.monotonic() - started, 1)
            say(f"{len(tables)} tables ready in {report['setup_seconds']} s; starting the stack ...")
            parts = urlsplit(str(connection.settings_dict.get("_URL", "")) or _database_url())
            database_url = urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))
            stack = Stack(database_url, daphnes=options["daphnes"],
                          extra_env={"BURRACO_BENCH_ECHO": "1", "BOT_MOVE_DELAY_SECONDS": "0.8",
                                     # the sessions were signed with this process's key
                                     "SECRET_KEY": settings.SECRET_KEY}).start()
            ports = stack.daphne_ports
            if options["nginx"]:
                ports = [stack.start_nginx()]
                report["nginx_port"] = ports[0]
            measure = _measurer(stack, connection.settings_dict["NAME"])
            table_ids = [t["id"] for t in tables]
            live.cache_sessions(stack.redis_url, [s for t in tables for s in t["sessions"]])
            live.restart_clocks(table_ids, seconds=3600)  # nobody's turn runs out while they connect
            say(f"playing on ports {stack.daphne_ports} for {options['seconds']} s ...")
            live.progress(f"load: {2 * len(tables)} sockets connect over {options['connect_seconds']} s, then "
                     f"{options['seconds']} s of play")
            if options["no_echo"]:
                report["load"] = asyncio.run(live.run_load(
                    tables, ports, pace=options["pace"], seconds=options["seconds"],
                    connect_seconds=options["connect_seconds"], measure=measure,
                    before_play=lambda: _in_thread(live.restart_clocks, table_ids)))
            else:
                say("game and echo in alternating windows ...")
                result = asyncio.run(live.run_interleaved(
                    tables, ports, pace=options["pace"], seconds=options["seconds"], rounds=options["rounds"],
                    connect_seconds=options["connect_seconds"], measure=measure,
                    before_play=lambda: _in_thread(live.restart_clocks, table_ids),
                    # Nobody's turn runs out while the echo has the processes and the scheduler is stopped.
                    before_echo=lambda: _in_thread(live.restart_clocks, table_ids, 3600),
                    # The echo touches Daphne and Redis only: the game's worker and scheduler are still.
                    echo_paused=lambda: stack.paused("worker", "scheduler")))
                report["load"], report["echo"] = result["load"], result["echo"]
                report["rounds"] = result["rounds"]
                report["ratio_to_echo"] = _ratios(report["load"], report["echo"])
        finally:
            if stack is not None:
                report["logs"] = str(stack.logdir)
                stack.close()
            connection.close()
            if not options["keep"]:
                creation.destroy_test_db(old_name, verbosity=0)
        report["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
        self.stdout.write(json.dumps(report, indent=1))


def _in_thread(func, *args) -> None:
    """Run `func` on a worker thread of the client's event loop and give its connection back."""
    from django.db import connections

    try:
        func(*args)
    finally:
        connections.close_all()


def _database_url() -> str:
    import os

    return os.environ["DATABASE_URL"]


def _measurer(stack: Stack, db_name: str):
    import psycopg

    settings = connection.settings_dict
    conninfo = {"host": settings["HOST"] or "127.0.0.1", "port": settings["PORT"] or 5432,
                "user": settings["USER"], "dbname": "postgres"}
    if settings.get("PASSWORD"):
        conninfo["password"] = settings["PASSWORD"]

    def measure() -> dict[str, float]:
        with psycopg.connect(**conninfo, autocommit=True) as pg:
            backends = [row[0] for row in pg.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", [db_name])]
        return {
            "daphne": cpu_seconds(stack.pids("daphne")),
            "nginx": cpu_seconds(stack.pids("nginx")),
            "celery": cpu_seconds(stack.pids("worker")),
            "scheduler": cpu_seconds(stack.pids("scheduler")),
            "postgres": cpu_seconds(backends),
            "redis": cpu_seconds(stack.pids("redis")),
            "host_steal": _steal_seconds(),
        }

    def total(values: dict[str, float]) -> dict[str, float]:
        return values | {"server_total": sum(v for role, v in values.items() if not role.startswith("host_"))}

    return lambda: total(measure())


def _steal_seconds() -> float:
    """CPU time the hypervisor gave to other guests, all cores (/proc/stat): a window with much
    of it ran on a slower machine, and its CPU figures are not comparable with another's."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _ratios(load: dict, echo: dict) -> dict:
    """The game's figures over the echo's: all server CPU of an action over the CPU of an echo
    message on its own path (Daphne and Redis), and the round trips."""
    echo_cpu = echo["cpu_ms_per_message"].get("echo_path")
    out = {"server_cpu_per_action": _div(load["cpu_ms_per_action"].get("server_total"), echo_cpu),
           "daphne_cpu": _div(load["cpu_ms_per_action"].get("daphne"), echo["cpu_ms_per_message"].get("daphne"))}
    out["round_trip_p50"] = _div(load["round_trip"]["p50_ms"], echo["round_trip"]["p50_ms"])
    out["round_trip_p99"] = _div(load["round_trip"]["p99_ms"], echo["round_trip"]["p99_ms"])
    # Opening a table socket (sign-in, seat, snapshot) over opening an echo socket (sign-in).
    out["connect_cpu_per_socket"] = _div(load["connect"]["cpu_ms_per_socket"].get("server_total"),
                                         echo["connect"]["cpu_ms_per_socket"].get("server_total"))
    return out


def _div(a, b):
    return round(a / b, 2) if a is not None and b else None
