"""Fault across hosts: an app host cut from the data host for 10 s (every packet between them
dropped, as on a cut cable), its Daphnes, worker and scheduler still running.

The players are on the clients host and reach the site through nginx on the edge, which spreads
their sockets over the four Daphnes of both app hosts. While the cut lasts, what app1 serves
cannot reach PostgreSQL, Redis or RabbitMQ; app2 carries on. After it: every table moves again
within 5 s, nothing is lost or played twice, no seated player's turn went to the timer or the
computer, and every page is in sync without a reload.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import pytest

from games.benchmarks import hosts
from tests.faults.harness import (
    PLAY_ON_SECONDS,
    SETUP_SECONDS,
    Db,
    Play,
    checked,
    clients_for,
    close_codes,
    error_codes,
    recovery,
    report,
    settle,
    wait_for,
)

# Three minutes with the bed's start: with the long runs (bin/test -m slow; CI runs them).
pytestmark = pytest.mark.slow

CUT_SECONDS = 10
BACK_WITHIN = 5.0  # seconds from the network coming back to every table's next move


def make_tables(*specs: dict) -> list[list[dict]]:
    """Tables made on app1 (tests/faults/setup_tables.py), in the bed's database."""
    done = subprocess.run(hosts.host("app1").wrap([sys.executable, "-m", "tests.faults.setup_tables",
                                                   json.dumps(list(specs))]),
                          cwd=hosts.ROOT, env=hosts.app_env(), capture_output=True, text=True, timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith("TABLES ")), None)
    assert done.returncode == 0 and line, f"setting up the tables failed:\n{done.stdout}\n{done.stderr}"
    return json.loads(line[len("TABLES "):])


async def cut_and_heal(db: Db) -> dict:
    timers = {"draw_seconds": 30, "play_seconds": 60, "grace_seconds": 45}
    people, computer = await asyncio.to_thread(make_tables, {"count": 4, "prefix": "hc", **timers},
                                               {"count": 2, "prefix": "hcb", "computer": "principiante", **timers})
    tables = clients_for(people + computer, [80], host=hosts.host("edge").address)
    play = Play(tables)
    await play.start()
    try:
        await wait_for(lambda: all(t.newest() >= 8 for t in tables), SETUP_SECONDS, "every table played a few moves")
        cut_at = time.time()
        await asyncio.to_thread(hosts.cut, "app1", "data")
        await asyncio.sleep(CUT_SECONDS)
        await asyncio.to_thread(hosts.heal, "app1")
        healed = time.time()
        moved_in_cut = {t.id: sum(1 for when, _v in t.moved_at() if cut_at <= when < healed) for t in tables}
        start = {t.id: t.newest() for t in tables}
        await wait_for(lambda: all(t.newest() >= start[t.id] + 8 for t in tables), PLAY_ON_SECONDS,
                       "every table played on after the cut")
        await play.stop_driving()
        versions = await settle(play, db)
    finally:
        await play.close()
    rec = recovery(tables, healed)
    integrity = await checked(db, tables)
    return report("app_host_cut_10s", recovery_seconds=rec["recovery_seconds"], per_table=rec["per_table"],
                  max_stall_seconds=rec["max_stall_seconds"], worst_stall=rec["worst_stall"],
                  moves_during_cut=moved_in_cut, moves_checked=integrity["moves_checked"],
                  frames_checked=integrity["frames_checked"], versions=sum(versions.values()),
                  close_codes=close_codes(play.clients), errors=error_codes(play.clients))


def test_app_host_cut_from_the_data_host_for_ten_seconds(bed):
    db = Db(bed["DATABASE_URL"])
    figures = hosts.in_host("clients", asyncio.run, cut_and_heal(db))
    print(json.dumps(figures, indent=2, default=str))
    assert figures["recovery_seconds"] <= BACK_WITHIN, figures
