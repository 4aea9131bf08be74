"""Fault: the turn scheduler is killed with SIGKILL: first a `manage.py run_scheduler` process,
then a Celery worker whose thread was the scheduler.

Two tables play with 2-second timers, each seat letting every other turn of its own run out.
While no scheduler runs, no deadline is enforced (the turns wait); as soon as another scheduler
runs (a worker's thread, then a new run_scheduler process) the overdue turns are completed
within a few seconds, once each.
"""

from __future__ import annotations

import asyncio
import time

from .harness import (
    RECOVERY_LIMIT,
    SETUP_SECONDS,
    Db,
    Play,
    checked,
    clients_for,
    in_thread,
    make_tables,
    recovery,
    report,
    settle,
    wait_for,
)

TIMER = 2


def timeouts_since(db: Db, tables, since: float) -> dict[int, float]:
    """Per table, when its first move by the timer after `since` (wall clock) was made."""
    rows = db.rows("SELECT g.table_id, min(m.created_at) FROM games_move m JOIN games_game g ON g.id = m.game_id "
                   "WHERE m.actor = 'timeout' AND m.created_at > to_timestamp(%s) AND g.table_id = ANY(%s) "
                   "GROUP BY g.table_id", [since, [t.id for t in tables]])
    return {table_id: first.timestamp() for table_id, first in rows}


def last_tick(db: Db) -> float:
    rows = db.rows("SELECT last_tick FROM games_schedulerstate")
    return rows[0][0].timestamp() if rows else 0.0


async def no_scheduler_runs(db: Db, tables, since: float) -> None:
    """With the scheduler gone, the turns wait: deadlines pass and nothing is played for them."""
    await asyncio.sleep(2 * TIMER + 1)
    late = await in_thread(db.rows, "SELECT count(*) FROM games_game WHERE table_id = ANY(%s) "
                                    "AND turn_deadline < now()", [[t.id for t in tables]])
    assert late[0][0] == len(tables), "every table waits on a deadline that has passed"
    fired = await in_thread(timeouts_since, db, tables, since + 0.5)
    assert not fired, f"a turn timed out with no scheduler running: {fired}"


async def first_timeouts(db: Db, tables, ready: float) -> float:
    fired = await wait_for(lambda: (lambda f: len(f) == len(tables) and f)(timeouts_since(db, tables, ready)),
                           RECOVERY_LIMIT + 5, "every overdue turn completed by the new scheduler", every=0.2)
    return max(fired.values()) - ready


async def test_scheduler_kill(make_stack):
    stack = await in_thread(make_stack, scheduler=True, env={"SCHEDULER_IN_WORKER": "0"})
    db = Db(stack.database_url)
    (lazy,) = await in_thread(make_tables, stack, {"count": 2, "prefix": "sk", "draw_seconds": TIMER,
                                                   "play_seconds": TIMER, "grace_seconds": 60})
    tables = clients_for(lazy, stack.daphne_ports)
    for table in tables:
        table.lazy = True
        table.pace = 0.15
    play = Play(tables)
    figures = {}
    try:
        await play.start()
        began = time.time()
        await wait_for(lambda: len(timeouts_since(db, tables, began)) == len(tables), SETUP_SECONDS,
                       "the run_scheduler process completes the turns that run out", every=0.2)

        killed = time.time()
        await in_thread(stack.kill, "scheduler")
        await no_scheduler_runs(db, tables, killed)
        await in_thread(stack.start_worker, 1, env={"SCHEDULER_IN_WORKER": "1"})
        ready = await wait_for(lambda: (lambda t: t > killed and t)(last_tick(db)), 10, "the worker's scheduler ticks")
        figures["worker_thread_recovery_seconds"] = round(await first_timeouts(db, tables, ready), 2)
        await asyncio.sleep(2 * TIMER)  # the worker's scheduler keeps the lazy turns going
        windows = [(ready, time.time())]

        killed = time.time()
        await in_thread(stack.kill, "worker-1")
        await no_scheduler_runs(db, tables, killed)
        spawned = time.time()
        await in_thread(stack.start_scheduler, "scheduler-2")
        ready = await wait_for(lambda: (lambda t: t > spawned and t)(last_tick(db)), SETUP_SECONDS,
                               "run_scheduler ticks")
        figures["process_start_seconds"] = round(ready - spawned, 2)
        figures["process_recovery_seconds"] = round(await first_timeouts(db, tables, ready), 2)
        await asyncio.sleep(2 * TIMER)
        windows.append((ready, time.time()))
        await play.stop_driving()
        await in_thread(stack.kill, "scheduler-2")  # no more timeouts while the clients catch up
        versions = await settle(play, db)
    finally:
        await play.close()

    integrity = await checked(db, tables, allow_timeouts=True)
    # The longest stand-still while a new scheduler ran (each seat lets every other turn of its
    # own run out: a 2-second timer is the expected wait between two moves).
    stall = max(recovery(tables, a, b)["max_stall_seconds"] for a, b in windows)
    figures = report("scheduler_kill", recovery_seconds=max(figures["worker_thread_recovery_seconds"],
                                                            figures["process_recovery_seconds"]),
                     max_stall_seconds=stall, **figures, timeouts=integrity["timeouts"],
                     moves_checked=integrity["moves_checked"],
                     frames_checked=integrity["frames_checked"], versions=sum(versions.values()))
    assert figures["recovery_seconds"] <= RECOVERY_LIMIT, figures
    assert stall <= RECOVERY_LIMIT, figures
