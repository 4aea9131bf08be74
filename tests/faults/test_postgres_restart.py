"""Fault: PostgreSQL restarts (`pg_ctl stop -m fast`, a pause longer than a turn timer, start)
while tables are in play.

During the outage an action is answered with an `error` frame, code `unavailable` (the socket
stays open: no 1011). Afterwards the first reconnect works (no HTTP 500 at the handshake from a
pooled connection the restart killed), play resumes within a few seconds, nothing is lost or
played twice, and the turn whose deadline passed during the outage was extended, not enforced.
"""

from __future__ import annotations

import asyncio
import time

from games.services.scheduler import AFTER_OUTAGE_SECONDS

from .harness import (
    PLAY_ON_SECONDS,
    RECOVERY_LIMIT,
    SETUP_SECONDS,
    Db,
    Play,
    checked,
    clients_for,
    clock_told,
    close_codes,
    error_codes,
    in_thread,
    make_tables,
    moves_around,
    pause_with_deadline,
    recovery,
    repeated_events,
    report,
    settle,
    unavailable_answers,
    wait_for,
)

SHORT_TIMER = 5  # the paused table's turn timer; the outage lasts longer
UNAVAILABLE_LIMIT = 1.0  # seconds from an action to its `unavailable` answer (the page waits 6)
MOVES_LIMIT = 5.0  # seconds after PostgreSQL is back by which every table moved


async def test_postgres_restart(make_stack, postgres):
    stack = await in_thread(make_stack)
    db = Db(stack.database_url)
    timers = {"draw_seconds": 15, "play_seconds": 15, "grace_seconds": 20}
    short = {"draw_seconds": SHORT_TIMER, "play_seconds": SHORT_TIMER, "grace_seconds": 20}
    people, quick, computer = await in_thread(
        make_tables, stack, {"count": 2, "prefix": "pg", **timers}, {"count": 1, "prefix": "pgq", **short},
        {"count": 1, "prefix": "pgb", "computer": "principiante", **timers})
    tables = clients_for(quick + people + computer, stack.daphne_ports)
    paused = tables[0]
    play = Play(tables)
    await play.start()
    try:
        await wait_for(lambda: all(t.newest() >= 8 for t in tables), SETUP_SECONDS, "every table played a few moves")
        await pause_with_deadline(db, paused, 3)  # runs out during the (10 s) outage, as a 5 s timer would

        down = time.time()
        await in_thread(postgres.stop, "fast")
        # Actions go on meanwhile (the drivers keep playing): each must be refused at once, not
        # crash: the loop's own connection fails at once, a thread's waits for the pool's
        # `timeout` (DB_POOL_TIMEOUT, 1 s).
        await wait_for(lambda: all(error_codes(t.clients, down).get("unavailable") for t in tables[1:-1]),
                       10, "an `unavailable` error at every table that tried to play")
        await asyncio.sleep(max(0.0, down + SHORT_TIMER + 2 - time.time()))
        await in_thread(postgres.start)
        back = time.time()

        # A page reloaded right now: its first handshake must work.
        reloaded = [t.clients[-1] for t in tables[1:]]
        for client in reloaded:
            await client.drop()
        await wait_for(lambda: all(any(a["t"] >= back and a["answered"] for a in c.attempts) for c in reloaded),
                       10, "the reloaded pages connected again")
        extended = await wait_for(lambda: (lambda g: g["turn_deadline"].timestamp() > time.time() and g)(
            db.game(paused.game_id)), 10, "the paused table's deadline extended after the outage")
        assert extended["turn_deadline"].timestamp() >= back + AFTER_OUTAGE_SECONDS - 1, extended
        await clock_told(paused, extended)
        paused.paused = False
        start = {t.id: t.newest() for t in tables}
        await wait_for(lambda: all(t.newest() >= start[t.id] + 8 for t in tables), PLAY_ON_SECONDS,
                       "every table played on after the restart")
        await play.stop_driving()
        versions = await settle(play, db)
    finally:
        await play.close()
        if not postgres.running():
            await in_thread(postgres.start)

    print(f"postgres down at {down:.2f}, back at {back:.2f}, tables {[t.id for t in tables]}")
    first_after = [next(a for a in c.attempts if a["t"] >= back) for c in reloaded]
    refused = [min(t for c in table.clients for t, f in c.frames if t >= down and f.get("code") == "unavailable")
               for table in tables[1:-1]]
    rec = recovery(tables[1:], back)
    answers = unavailable_answers(play.clients, down)
    repeated = repeated_events(play.clients)
    integrity = await checked(db, tables)
    figures = report("postgres_restart", outage_seconds=round(back - down, 2),
                     unavailable_after_seconds=round(max(refused) - down, 2),
                     unavailable_answers=len(answers),
                     unavailable_answer_max_seconds=round(max(answers, default=0.0), 2),
                     events_repeated=len(repeated),
                     recovery_seconds=rec["recovery_seconds"], max_stall_seconds=rec["max_stall_seconds"],
                     per_table=rec["per_table"], worst_stall=rec["worst_stall"],
                     moves_checked=integrity["moves_checked"],
                     frames_checked=integrity["frames_checked"], versions=sum(versions.values()),
                     deadline_extended_to=str(extended["turn_deadline"]),
                     first_handshakes_after=[{k: a.get(k) for k in ("status", "error", "answered", "close_code")}
                                             for a in first_after],
                     hellos=sum(c.hellos for c in play.clients), close_codes=close_codes(play.clients),
                     errors=error_codes(play.clients),
                     note=f"{back - down:.1f} s outage; an action meanwhile refused `unavailable` "
                          f"after {max(refused) - down:.1f} s")
    assert all(a["answered"] for a in first_after), f"a first handshake after the restart failed: {figures}"
    assert "1011" not in figures["close_codes"], "a socket was closed by a server error"
    if rec["max_stall_seconds"] > RECOVERY_LIMIT and rec["worst_at"]:
        print("\n".join(await in_thread(moves_around, db, *rec["worst_at"], back)))
    assert rec["max_stall_seconds"] <= RECOVERY_LIMIT, figures
    assert answers and max(answers) <= UNAVAILABLE_LIMIT, figures
    assert rec["recovery_seconds"] <= MOVES_LIMIT, figures
    assert not repeated, f"an event twice (or out of order) on a socket: {repeated[:5]}"
