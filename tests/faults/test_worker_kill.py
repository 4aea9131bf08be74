"""Fault: the Celery worker (RabbitMQ broker, the production choice) is killed with SIGKILL while
computer moves are pending (queued with their human-like pause, held by the worker unacked).

While no worker runs the computer does not play (it is the only worker, and with it the only
scheduler). Once a new worker is started the tables resume within a few seconds: the broker
hands the killed worker's unacknowledged tasks to it (acks_late), the scheduler in its thread
finds anything else overdue, and a move that was already played is not played again (the
version check makes the redelivered task stale).
"""

from __future__ import annotations

import asyncio
import time

from .harness import (
    PLAY_ON_SECONDS,
    RECOVERY_LIMIT,
    SETUP_SECONDS,
    Db,
    Play,
    checked,
    clients_for,
    error_codes,
    in_thread,
    make_tables,
    moves_around,
    recovery,
    report,
    settle,
    wait_for,
)

BOT_DELAY = 1.0


def computer_moves(db: Db) -> int:
    return db.rows("SELECT count(*) FROM games_move WHERE actor = 'computer'")[0][0]


async def test_worker_kill(make_stack, rabbitmq):
    stack = await in_thread(make_stack, broker=rabbitmq,
                            env={"BOT_MOVE_DELAY_SECONDS": str(BOT_DELAY)})
    db = Db(stack.database_url)
    (computer,) = await in_thread(make_tables, stack, {"count": 3, "prefix": "wk", "computer": "principiante",
                                                       "draw_seconds": 20, "play_seconds": 20})
    tables = clients_for(computer, stack.daphne_ports)
    for table in tables:
        table.pace = 0.15
    play = Play(tables)
    await play.start()
    try:
        await wait_for(lambda: all(t.newest() >= 8 for t in tables), SETUP_SECONDS, "every table played a few moves")
        pending = await wait_for(lambda: db.computer_to_move(tables), 10, "a computer move pending")
        killed = time.time()
        await in_thread(stack.kill, "worker-0")
        before = await in_thread(computer_moves, db)
        await asyncio.sleep(2 * BOT_DELAY + 1)
        assert await in_thread(computer_moves, db) == before, "the computer played with no worker running"
        pending = await in_thread(db.computer_to_move, tables)
        await in_thread(stack.start_worker, 1)
        ready = time.time()
        start = {t.id: t.newest() for t in tables}
        await wait_for(lambda: all(t.newest() >= start[t.id] + 8 for t in tables), PLAY_ON_SECONDS,
                       "every table played on with the new worker")
        await play.stop_driving()
        versions = await settle(play, db)
    finally:
        await play.close()

    log = (stack.logdir / "worker-1.log").read_text()
    rec = recovery(tables, ready)
    integrity = await checked(db, tables)
    figures = report("worker_kill", recovery_seconds=rec["recovery_seconds"],
                     max_stall_seconds=rec["max_stall_seconds"], per_table=rec["per_table"],
                     worst_stall=rec["worst_stall"],
                     worker_restart_seconds=round(ready - killed, 2), pending_at_restart=len(pending),
                     stale_tasks_after_restart=log.count("'stale'"), moves_checked=integrity["moves_checked"],
                     frames_checked=integrity["frames_checked"], versions=sum(versions.values()),
                     errors=error_codes(play.clients))
    assert pending, "no computer move was pending while the worker was down: the fault tested nothing"
    if rec["max_stall_seconds"] > RECOVERY_LIMIT and rec["worst_at"]:
        table, version = rec["worst_at"]
        print("\n".join(await in_thread(moves_around, db, table, version, ready)))
        print(log[-1500:])
    assert rec["max_stall_seconds"] <= RECOVERY_LIMIT, figures
