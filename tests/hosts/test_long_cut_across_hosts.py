"""An app host cut from the data host for 60 s, while six tables play through nginx.

Its Daphnes hear nothing from PostgreSQL and Redis for DATA_CUT_SECONDS (4 s) and step aside
(burraco_site/datareach.py): they close their sockets with 4503 and refuse new handshakes, so the
pages reconnect at once and nginx sends them to app2. The tables play on during the cut: every
table whose player was on app1 moves within 5 s of that player's socket moving, every table
within 5 s of the link coming back, and at the end nothing was lost or played twice, no seated
player's turn went to the timer or the computer, and every page is in sync without a reload.
On the code before, the cut host's sockets stayed, answered `unavailable`, and their tables
stood still for the minute.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from games.benchmarks import hosts
from tests.faults.harness import CLOSE_MOVE_ON, Db, Play, Table, recovery
from tests.hosts.test_faults_across_hosts import BACK_WITHIN, moves_between, on_six_tables, played_on

# The bed is brought up for the module (about 90 s) and may first be waited for (conftest.py).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CUT_SECONDS = 60


def moved_sockets(tables: list[Table], since: float, until: float) -> dict[int, list[dict]]:
    """Per table, each socket the cut closed with 4503: when, and when its next socket was
    answered (its first snapshot or event, through nginx on the other host)."""
    found: dict[int, list[dict]] = {}
    for table in tables:
        for client in table.clients:
            for index, attempt in enumerate(client.attempts):
                closed = attempt.get("closed")
                if attempt.get("close_code") != CLOSE_MOVE_ON or not closed or not since <= closed < until:
                    continue
                answered = next((a["answered_at"] for a in client.attempts[index + 1:] if "answered_at" in a), None)
                found.setdefault(table.id, []).append({"seat": client.seat, "closed": closed, "answered": answered})
    return found


def after_moving(table: Table, moved: list[dict]) -> float:
    """Seconds from the last of the table's sockets answering on the other host to its next move."""
    if any(m["answered"] is None for m in moved):
        return float("inf")
    on_again = max(m["answered"] for m in moved)
    return min((t - on_again for t, _v in table.moved_at() if t >= on_again), default=float("inf"))


async def long_cut(tables: list[Table], play: Play) -> dict:
    began = time.time()
    await asyncio.to_thread(hosts.cut, "app1", "data")
    await asyncio.sleep(CUT_SECONDS)
    await asyncio.to_thread(hosts.heal, "app1")
    back = time.time()
    await played_on(tables)
    rec = recovery(tables, back, until=time.time())
    moved = moved_sockets(tables, began, back)
    by_id = {t.id: t for t in tables}
    return {f"cut_app1_from_data_{CUT_SECONDS}s": {
        "recovery_seconds": rec["recovery_seconds"], "max_stall_seconds": rec["max_stall_seconds"],
        "worst_stall": rec["worst_stall"], "moves_during": moves_between(tables, began, back),
        "back_after_seconds": round(back - began, 2),
        "sockets_moved": sum(len(m) for m in moved.values()),
        "closed_after_seconds": sorted(round(m["closed"] - began, 2) for ms in moved.values() for m in ms),
        "moved_after_seconds": sorted(round(m["answered"] - m["closed"], 2) for ms in moved.values() for m in ms
                                      if m["answered"] is not None),
        "table_moved_after_its_sockets_seconds": {tid: round(after_moving(by_id[tid], ms), 2)
                                                  for tid, ms in moved.items()},
    }}


def test_an_app_host_cut_for_a_minute_sends_its_players_to_the_other(bed):
    db = Db(bed["DATABASE_URL"])
    figures = hosts.in_host("clients", asyncio.run, on_six_tables(db, "long_cut_across_hosts", "lc", long_cut))
    print(json.dumps(figures, indent=2, default=str))
    phase = figures["phases"][f"cut_app1_from_data_{CUT_SECONDS}s"]
    assert phase["sockets_moved"] > 0, phase  # nginx spreads the sockets over both hosts
    assert phase["recovery_seconds"] <= BACK_WITHIN, phase
    assert all(s <= BACK_WITHIN for s in phase["table_moved_after_its_sockets_seconds"].values()), phase
    # The cut host's players were back at their tables during the cut: every table played on.
    assert all(n >= 6 for n in phase["moves_during"].values()), phase
