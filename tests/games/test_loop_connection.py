"""A person's action runs its statements on the server's event loop (burraco_site/dbasync.py),
through the very steps the thread's path runs: the same rows, the same one writer, and a
database that is down or a connection the server dropped changes nothing and loses nothing."""

from __future__ import annotations

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.db import DatabaseError, connection

from burraco_site import dbasync
from games.engine import Game as EngineGame
from games.engine import replay
from games.models import Game, Hand, Move
from games.services.play import play
from tests.games.helpers import postgresql_without_timers
from tests.games.test_consumers import app, connect, hello, receive_type, reload, two_player_game  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_and_quiet(monkeypatch):
    postgresql_without_timers(monkeypatch, "the loop's connections are PostgreSQL's")


@database_sync_to_async
def _next_action(game_id: int) -> tuple[int, dict]:
    """The seat to move and a legal action for it: draw, then discard a natural card."""
    engine = EngineGame.from_dict(Game.objects.get(pk=game_id).state)
    seat = engine.to_move
    view = engine.view(seat)
    if "draw" in view["allowed"]:
        return seat, {"type": "draw"}
    return seat, {"type": "discard", "card": next(c for c in view["hand"] if c[0] not in "2J")}


@database_sync_to_async
def _replayed_equals_stored(game_id: int) -> bool:
    game = Game.objects.get(pk=game_id)
    hand = Hand.objects.get(game=game, number=game.hand_number)
    actions = [m.action for m in Move.objects.filter(game=game, hand_number=hand.number).order_by("seq")]
    return replay(hand.deal, actions) == EngineGame.from_dict(game.state)


async def test_a_socket_action_runs_on_the_loop_without_a_database_thread(app, monkeypatch):  # noqa: F811
    anna, bruno, game = await two_player_game()
    user = anna if game.to_move == 0 else bruno
    comm, _ = await connect(app, game.table_id, user)
    await hello(comm)
    hops = []
    real_run_db = play.run_db
    monkeypatch.setattr(play, "run_db", lambda func: hops.append(func) or real_run_db(func))
    monkeypatch.setattr(play, "_run_steps", lambda steps: pytest.fail("the thread's driver ran"))
    await comm.send_json_to({"type": "action", "version": 0, "action": {"type": "draw"}})
    event = await receive_type(comm, "event")
    assert event["version"] == 1 and event["action"] == {"type": "draw"}
    assert hops == []  # the mover plays on: no presence look-up, no locked path, no thread
    assert (await reload(game)).version == 1
    assert await _replayed_equals_stored(game.pk)
    await comm.disconnect()


async def test_the_loop_and_the_thread_take_turns_on_one_game_and_the_log_replays_it():
    anna, bruno, game = await two_player_game()
    users = [anna, bruno]
    for n in range(1, 13):
        seat, action = await _next_action(game.pk)
        door = play.apply_action_async if n % 2 else database_sync_to_async(play.apply_action)
        applied = await door(game_id=game.pk, seat=seat, action=action, user=users[seat], expected_version=n - 1)
        assert applied.version == n
        groups = [g for g, _f in applied.messages]
        assert groups[:2] == [f"table.{game.table_id}.seat.0", f"table.{game.table_id}.seat.1"]
    assert (await reload(game)).version == 12
    assert await _replayed_equals_stored(game.pk)


async def test_a_stale_version_is_refused_on_the_loop_and_changes_nothing():
    anna, bruno, game = await two_player_game()
    seat, action = await _next_action(game.pk)
    users = [anna, bruno]
    await play.apply_action_async(game_id=game.pk, seat=seat, action=action, user=users[seat], expected_version=0)
    before = await reload(game)
    seat, action = await _next_action(game.pk)
    with pytest.raises(play.ServiceError) as refused:
        await play.apply_action_async(game_id=game.pk, seat=seat, action=action, user=users[seat], expected_version=0)
    assert refused.value.code == "stale_version"
    after = await reload(game)
    assert (after.version, after.state) == (before.version, before.state)


async def test_a_connection_the_server_dropped_is_replaced_before_it_fails_an_action():
    anna, bruno, game = await two_player_game()
    users = [anna, bruno]
    seat, action = await _next_action(game.pk)
    await play.apply_action_async(game_id=game.pk, seat=seat, action=action, user=users[seat], expected_version=0)
    async with dbasync.cursor() as cursor:
        await cursor.execute("SELECT pg_backend_pid()")
        (pid,) = await cursor.fetchone()

    @database_sync_to_async
    def terminate() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])

    await terminate()
    seat, action = await _next_action(game.pk)
    applied = await play.apply_action_async(game_id=game.pk, seat=seat, action=action, user=users[seat],
                                            expected_version=1)
    assert applied.version == 2
    async with dbasync.cursor() as cursor:
        await cursor.execute("SELECT pg_backend_pid()")
        assert (await cursor.fetchone())[0] != pid


async def test_postgresql_unreachable_is_a_database_error_and_changes_nothing(monkeypatch):
    anna, bruno, game = await two_player_game()
    users = [anna, bruno]
    dbasync.close_all()

    async def refused():
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(dbasync, "_connect", refused)
    seat, action = await _next_action(game.pk)
    with pytest.raises(DatabaseError):
        await play.apply_action_async(game_id=game.pk, seat=seat, action=action, user=users[seat], expected_version=0)
    assert (await reload(game)).version == 0
    assert await database_sync_to_async(Move.objects.count)() == 0


async def test_a_socket_hears_unavailable_when_the_loop_cannot_reach_postgresql(app, monkeypatch):  # noqa: F811
    anna, bruno, game = await two_player_game()
    user = anna if game.to_move == 0 else bruno
    comm, _ = await connect(app, game.table_id, user)
    await hello(comm)
    dbasync.close_all()

    async def refused():
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(dbasync, "_connect", refused)
    await comm.send_json_to({"type": "action", "version": 0, "ref": "d", "action": {"type": "draw"}})
    error = await receive_type(comm, "error")
    assert error["code"] == "unavailable" and error["ref"] == "d"
    assert (await reload(game)).version == 0
    await comm.disconnect()


def test_a_connection_made_after_a_thousand_sockets_can_still_be_checked():
    """poll(), not select(): a busy Daphne process gives a late connection a descriptor past 1024."""
    import resource
    import socket

    from burraco_site.dbpool import check_pooled, has_input

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2048 if hard == resource.RLIM_INFINITY else min(hard, 2048)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    filler = []
    try:
        quiet, peer = socket.socketpair()
        while quiet.fileno() <= 1024:
            filler.append(quiet)
            filler.append(peer)
            quiet, peer = socket.socketpair()
        assert not has_input(quiet.fileno())
        check_pooled(quiet)  # an idle pooled connection there is handed out (select() raised ValueError)
        peer.close()  # the server side hangs up, as PostgreSQL does when it restarts
        assert has_input(quiet.fileno())
        quiet.close()
    finally:
        for sock in filler:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_a_statement_cancelled_midway_never_reaches_the_next_caller():
    """A socket closing can cancel its action while the statement is in flight: the next action
    must not get the old statement's answer (psycopg cancels and drains it; the pool also closes
    any connection handed back in another state than idle)."""
    import asyncio

    async def slow() -> None:
        async with dbasync.cursor() as cursor:
            await cursor.execute("SELECT pg_backend_pid(), pg_sleep(2)")

    task = asyncio.ensure_future(slow())
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with dbasync.cursor() as cursor:
        await cursor.execute("SELECT 41 + 1")
        assert await cursor.fetchone() == (42,)
