"""Fault: one of the two Daphne processes is killed with SIGKILL while players are connected to
it (no goodbye, no close frame: the connections just drop).

Its clients reconnect to the other Daphne, say `hello` with their last version and get what they
missed (events marked `resync` or a snapshot); play goes on within a few seconds; nothing is
lost or played twice.
"""

from __future__ import annotations

import time

from .harness import (
    PLAY_ON_SECONDS,
    RECOVERY_LIMIT,
    SETUP_SECONDS,
    Db,
    Play,
    checked,
    clients_for,
    close_codes,
    error_codes,
    in_thread,
    make_tables,
    recovery,
    report,
    settle,
    wait_for,
)


async def test_daphne_kill(make_stack):
    stack = await in_thread(make_stack)
    db = Db(stack.database_url)
    timers = {"draw_seconds": 15, "play_seconds": 15, "grace_seconds": 20}
    people, computer = await in_thread(make_tables, stack, {"count": 3, "prefix": "dk", **timers},
                                       {"count": 1, "prefix": "dkb", "computer": "principiante", **timers})
    tables = clients_for(people + computer, stack.daphne_ports)
    victim_port = stack.daphne_ports[0]
    play = Play(tables)
    await play.start()
    try:
        await wait_for(lambda: all(t.newest() >= 8 for t in tables), SETUP_SECONDS, "every table played a few moves")
        on_victim = [c for c in play.clients if c.ports[c.port_index % len(c.ports)] == victim_port]
        assert on_victim, "some clients are on the Daphne that will be killed"
        killed = time.time()
        await in_thread(stack.kill, "daphne-0")
        start = {t.id: t.newest() for t in tables}
        await wait_for(lambda: all(any(a["t"] >= killed and a["answered"] and a["port"] != victim_port
                                       for a in c.attempts) for c in on_victim), 20,
                       "the killed Daphne's clients connected to the other one")
        reconnected = time.time()
        await wait_for(lambda: all(t.newest() >= start[t.id] + 8 for t in tables), PLAY_ON_SECONDS,
                       "every table played on after the kill")
        await play.stop_driving()
        versions = await settle(play, db)
    finally:
        await play.close()

    rec = recovery(tables, killed)
    integrity = await checked(db, tables)
    resyncs = sum(1 for c in on_victim for t, f in c.frames if t >= killed and f.get("resync"))
    figures = report("daphne_kill", recovery_seconds=rec["recovery_seconds"],
                     max_stall_seconds=rec["max_stall_seconds"], per_table=rec["per_table"],
                     worst_stall=rec["worst_stall"],
                     reconnect_seconds=round(reconnected - killed, 2), clients_moved=len(on_victim),
                     resync_events=resyncs, moves_checked=integrity["moves_checked"],
                     frames_checked=integrity["frames_checked"], versions=sum(versions.values()),
                     close_codes=close_codes(play.clients), errors=error_codes(play.clients))
    assert rec["max_stall_seconds"] <= RECOVERY_LIMIT, figures
