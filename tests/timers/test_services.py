"""The timer services and the scheduler in this process (no worker): what a timeout plays, stale
and duplicate work, the computer's cover, absent players, the outage extension, the scheduler's
cost. The same paths run in a real worker in test_worker.py."""

from __future__ import annotations

import logging
import random
import shutil
import socket
import subprocess
import threading
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from burraco_site.celery import app
from games import tasks
from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import clock, presence, transport
from games.models import Game, Move, SchedulerState, Seat, Table
from games.services import scheduler
from games.services.errors import ServiceError
from games.services.play import autoplay
from games.services.play.play import submit_action
from games.services.table import attendance, practice, seating, turns
from tests.games.helpers import capture, make_user

pytestmark = pytest.mark.django_db
# Tests whose commits must happen as in production: the frames and tasks that follow a commit
# are sent, and other threads see the rows.
COMMITS = pytest.mark.django_db(transaction=True)

POSTGRES = pytest.mark.skipif("connection.vendor != 'postgresql'",
                              reason="FOR UPDATE SKIP LOCKED needs PostgreSQL")


@pytest.fixture(autouse=True)
def _adjustable_clock(settings, monkeypatch):
    # Nothing else scans this process's games: the embedded worker (and its scheduler thread)
    # is never started in the test process.
    assert scheduler._thread is None or not scheduler._thread.is_alive()
    # Presence of this test's own: table ids come back after a rollback (SQLite) or in the next
    # run (PostgreSQL), and an old away mark must not count for a new table.
    cache = dict(settings.CACHES["default"])
    cache["KEY_PREFIX"] = f"timers-{uuid.uuid4().hex[:12]}"
    settings.CACHES = {"default": cache}
    settings.BURRACO_CLOCK_ADJUSTABLE = True
    settings.BOT_MOVE_DELAY_SECONDS = 0
    yield
    clock.reset()


_names = iter(range(10**6))


def two_people(*, grace: int | None = None, before_start=None) -> tuple[Game, list]:
    n = next(_names)
    users = [make_user(f"gina{n}"), make_user(f"ugo{n}")]
    table = seating.create_table(creator=users[0], ruleset=Ruleset.preset("mano_unica", target=None),
                                disconnect_grace_seconds=grace)
    if before_start is not None:
        before_start(table, users)
    seating.sit(table_id=table.pk, user=users[1], position=1)
    return Game.objects.get(table=table), users


def more_games(template: Game, count: int) -> list[Game]:
    """`count` more tables in play like `template`'s (the same people, deal and clock), in three
    writes: many games in play, cheaply."""
    table = template.table
    seats = list(Seat.objects.filter(table=table))
    fields = ("creator_id", "players", "preset", "options", "draw_seconds", "play_seconds",
              "disconnect_grace_seconds", "status", "started_at")
    new_tables = Table.objects.bulk_create([Table(**{f: getattr(table, f) for f in fields}) for _ in range(count)])
    Seat.objects.bulk_create([Seat(table=t, position=s.position, user_id=s.user_id, bot_level=s.bot_level)
                              for t in new_tables for s in seats])
    return Game.objects.bulk_create([
        Game(table=t, hand_number=template.hand_number, state=template.state, totals=template.totals, version=0,
             to_move=template.to_move, turn_deadline=template.turn_deadline, due_at=template.due_at)
        for t in new_tables])


def against_computer(level: str = "principiante") -> tuple[Game, object]:
    user = make_user(f"ada{next(_names)}")
    table = seating.create_table(creator=user, ruleset=Ruleset.preset("mano_unica", players=2, target=None))
    seating.fill_with_computer(table_id=table.pk, user=user, position=1, level=level)
    return Game.objects.get(table=table), user


def state_of(game: Game) -> tuple[int, int]:
    game.refresh_from_db()
    return game.version, Move.objects.filter(game=game).count()


def moves_of(game: Game) -> list[tuple[int, str, str]]:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("seat", "actor", "action__type"))


# ----------------------------------------------------------------------------- turn timers


def test_timeout_actions_draw_then_discard_legally():
    game, _ = two_people()
    engine = EngineGame.from_dict(game.state)
    seat = engine.to_move
    actions = autoplay.timeout_actions(engine, seat)
    assert actions[0] == {"type": "draw"} and actions[1]["type"] == "discard"
    for action in actions:
        engine.apply(seat, action)  # legal, or this raises
    assert engine.to_move != seat


def test_deadlines_are_data_a_move_sets_the_deadline_and_due_time():
    def online(table, users):
        for position, user in enumerate(users):
            presence.connected(table.pk, position, user.pk, f"tab-{position}")

    game, users = two_people(before_start=online)
    seat = game.to_move
    assert game.turn_deadline is not None and game.due_at == game.turn_deadline
    assert abs((game.turn_deadline - (clock.now() + timedelta(seconds=30))).total_seconds()) < 5
    clock.advance(100)
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=0)
    game.refresh_from_db()
    # The rest of the turn has the play timer, from the game clock; due when it runs out.
    assert abs((game.turn_deadline - (clock.now() + timedelta(seconds=60))).total_seconds()) < 5
    assert game.due_at == game.turn_deadline


def test_complete_turn_ignores_stale_versions_and_early_calls():
    game, _ = two_people()
    assert autoplay.complete_turn(game.pk, game.version + 5) == "stale"
    assert autoplay.complete_turn(game.pk, game.version) == "stale"  # the deadline is 30 s away
    assert autoplay.handle_due(game.pk, game.version) == "not_due"  # the scheduler came early
    assert not Move.objects.filter(game=game).exists()
    clock.advance(31)
    assert autoplay.handle_due(game.pk, game.version) == "timeout"
    first = game.to_move
    assert moves_of(game) == [(first, "timeout", "draw"), (first, "timeout", "discard")]
    assert autoplay.complete_turn(game.pk, game.version) == "stale"  # the same work, again
    assert autoplay.handle_due(game.pk, game.version) == "stale"
    assert Move.objects.filter(game=game).count() == 2
    seat = Seat.objects.get(table=game.table, position=first)
    assert seat.consecutive_timeouts == 1 and not seat.covered_by_computer
    game.refresh_from_db()
    assert game.version == 2 and game.to_move == 1 - first
    assert game.turn_deadline > clock.now() + timedelta(seconds=25)  # the next seat's own 30 s


def test_old_versions_are_stale_for_every_entry_point():
    game, users = two_people()
    seat = game.to_move
    Seat.objects.filter(table=game.table, position=1 - seat).update(covered_by_computer=True)
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=0)
    discard = next(a for a in EngineGame.from_dict(Game.objects.get(pk=game.pk).state).legal_actions(seat)
                   if a["type"] == "discard")
    submit_action(game_id=game.pk, seat=seat, action=discard, user=users[seat], expected_version=1)
    before = state_of(game)
    clock.advance(1000)  # every deadline of version 0 and 1 is long gone
    seen = autoplay.stats()["stale"]
    for version in (0, 1, 0, 1, 7):
        assert autoplay.handle_due(game.pk, version) == "stale"
        assert autoplay.play_computer_move(game.pk, version) == "stale"
        assert autoplay.complete_turn(game.pk, version) == "stale"
        assert autoplay.cover_seat(game.pk, version) == "stale"
    assert state_of(game) == before
    assert autoplay.stats()["stale"] - seen >= 15  # counted (cover_seat returns without counting)
    assert autoplay.handle_due(10**9, 0) == "stale"  # no such game


def test_a_person_and_the_timer_racing_one_wins_never_both():
    # The timer first: the person's late draw, meant for the old version, is refused.
    game, users = two_people()
    seat = game.to_move
    clock.advance(31)
    assert autoplay.handle_due(game.pk, 0) == "timeout"
    with pytest.raises(ServiceError) as info:
        submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=0)
    assert info.value.code == "stale_version"
    assert [m[1] for m in moves_of(game)] == ["timeout", "timeout"]
    # The person first (the scheduler has not come yet): the timer's work is stale.
    game, users = two_people()
    seat = game.to_move
    clock.advance(31)
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=0)
    assert autoplay.handle_due(game.pk, 0) == "stale"
    assert autoplay.complete_turn(game.pk, 0) == "stale"
    assert moves_of(game) == [(seat, "person", "draw")]


@COMMITS
def test_two_timeouts_in_a_row_cover_the_seat_and_sono_tornato_ends_it(monkeypatch):
    cap = capture(monkeypatch)
    game, users = two_people()
    first = game.to_move
    for _ in range(3):  # first, other, first again
        game.refresh_from_db()
        clock.advance(31)
        assert autoplay.handle_due(game.pk, game.version) == "timeout"
    seat = Seat.objects.get(table=game.table, position=first)
    assert seat.consecutive_timeouts == 2 and seat.covered_by_computer
    other = Seat.objects.get(table=game.table, position=1 - first)
    assert other.consecutive_timeouts == 1 and not other.covered_by_computer
    frames = [f for g, f in cap.sent if f["type"] == "presence" and g == transport.all_group(game.table_id)]
    assert frames and frames[-1]["seats"][first]["covered_by_computer"] is True
    # The covered seat is the computer's now: when its turn comes the scheduler plays it.
    game.refresh_from_db()
    submit_action(game_id=game.pk, seat=1 - first, action={"type": "draw"}, user=users[1 - first],
                  expected_version=game.version)
    discard = next(a for a in EngineGame.from_dict(Game.objects.get(pk=game.pk).state).legal_actions(1 - first)
                   if a["type"] == "discard")
    submit_action(game_id=game.pk, seat=1 - first, action=discard, user=users[1 - first],
                  expected_version=game.version + 1)
    game.refresh_from_db()
    assert game.to_move == first and game.due_at < clock.now() + timedelta(seconds=10)  # not its 30 s
    clock.advance(turns.COMPUTER_SLACK_SECONDS + 1)
    assert scheduler.run_due(clock.now()) == {"computer": 1}
    assert moves_of(game)[-1][:2] == (first, "computer")
    with pytest.raises(ServiceError):
        seating.take_seat_back(table_id=game.table_id, user=make_user("carla"))  # not seated at this table
    cap.clear()
    seating.take_seat_back(table_id=game.table_id, user=seat.user)
    seat.refresh_from_db()
    assert not seat.covered_by_computer and seat.consecutive_timeouts == 0
    frames = [f for g, f in cap.sent if f["type"] == "presence"]
    assert frames and frames[-1]["seats"][first]["covered_by_computer"] is False
    game.refresh_from_db()
    assert game.due_at == game.turn_deadline  # their own turn again: only the deadline is due
    assert autoplay.play_computer_move(game.pk, game.version) == "not_computer"


def _both_online(table, users):
    for position, user in enumerate(users):
        presence.connected(table.pk, position, user.pk, f"tab-{position}")


@COMMITS
def test_a_persons_own_move_ends_the_cover(monkeypatch):
    cap = capture(monkeypatch)
    game, users = two_people(before_start=_both_online)
    seat = game.to_move
    Seat.objects.filter(table=game.table, position=seat).update(covered_by_computer=True, consecutive_timeouts=2)
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=0)
    row = Seat.objects.get(table=game.table, position=seat)
    assert not row.covered_by_computer and row.consecutive_timeouts == 0
    assert moves_of(game) == [(seat, "person", "draw")]
    frames = [f for g, f in cap.sent if f["type"] == "presence"]
    assert frames and frames[-1]["seats"][seat]["covered_by_computer"] is False
    game.refresh_from_db()
    assert autoplay.play_computer_move(game.pk, game.version) == "not_computer"
    assert game.due_at == game.turn_deadline


# ----------------------------------------------------------------------------- computer moves


def test_computer_move_only_for_computer_seats():
    game, _ = two_people()
    assert autoplay.play_computer_move(game.pk, game.version) == "not_computer"
    assert autoplay.play_computer_move(game.pk, game.version + 1) == "stale"
    Seat.objects.filter(table=game.table, position=game.to_move).update(covered_by_computer=True)
    assert autoplay.play_computer_move(game.pk, game.version) == "computer"
    move = Move.objects.get(game=game)
    assert move.actor == "computer" and move.action["type"] in ("draw", "take_discards")
    assert autoplay.play_computer_move(game.pk, game.version) == "stale"  # the same task, delivered twice
    assert Move.objects.filter(game=game).count() == 1


@COMMITS
def test_only_a_computers_move_is_queued(monkeypatch):
    queued: list[tuple] = []
    monkeypatch.setattr(tasks.computer_move, "apply_async",
                        lambda args, countdown=None: queued.append((tuple(args), countdown)))
    game, users = two_people()
    seat = game.to_move
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=0)
    assert queued == []  # people's turns are data only: no task per action
    game.refresh_from_db()
    Seat.objects.filter(table=game.table, position=seat).update(covered_by_computer=True)
    turns.after_change(game.pk, game.version)
    assert queued == [((game.pk, game.version), 0.0)]
    turns.after_change(game.pk, game.version + 3)  # a later change queues its own move
    turns.after_change(10**9, 0)
    Game.objects.filter(pk=game.pk).update(finished=True)
    turns.after_change(game.pk, game.version)
    assert len(queued) == 1


@COMMITS
def test_a_broker_failure_is_logged_and_the_scheduler_plays_the_move_when_due(monkeypatch, caplog):
    def broker_down(*args, **kwargs):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(tasks.computer_move, "apply_async", broker_down)
    rng = random.Random(5)
    with caplog.at_level(logging.WARNING, logger="games.services.table.turns"):
        game, user = against_computer()
        # To the computer's turn (the person plays theirs): its move's task cannot be queued.
        while Game.objects.get(pk=game.pk).to_move == 0:
            current = Game.objects.get(pk=game.pk)
            action = choose_action(EngineGame.from_dict(current.state).view(0), "principiante", rng)
            submit_action(game_id=game.pk, seat=0, action=action, user=user, expected_version=current.version)
    assert "could not queue the computer's move" in caplog.text
    game.refresh_from_db()
    assert game.to_move == 1
    # No task is coming: the move is due when the computer's pause is over, without the slack
    # that covers a task that is merely late (the pause is 0 in the tests).
    assert game.due_at <= clock.now()
    before = game.version
    assert scheduler.Scheduler().tick()["computer"] == 1
    assert Game.objects.get(pk=game.pk).version == before + 1
    assert moves_of(game)[-1][:2] == (1, "computer")


def test_a_hand_against_the_computer_goes_on_with_the_scheduler_alone(monkeypatch):
    """Case 1 in this process: every computer task is lost; the scheduler's safety net (due_at a
    little after the move should have come) plays the computer's whole turns."""
    monkeypatch.setattr(tasks.computer_move, "apply_async", lambda *a, **k: None)  # queued into the void
    game, user = against_computer()
    rng = random.Random(11)
    loop = scheduler.Scheduler()
    computer_turns = 0
    for _ in range(400):
        game.refresh_from_db()
        if game.finished or computer_turns >= 4:
            break
        if game.to_move == 0:
            action = choose_action(EngineGame.from_dict(game.state).view(0), "principiante", rng)
            submit_action(game_id=game.pk, seat=0, action=action, user=user, expected_version=game.version)
            if Game.objects.get(pk=game.pk).to_move == 1:
                computer_turns += 1
            continue
        clock.advance(turns.COMPUTER_SLACK_SECONDS + 1)
        assert loop.tick().get("computer") == 1  # each computer action is due 5 s after the last
    assert computer_turns >= 4 or game.finished
    # The person's turn came back after every computer turn: the computer finished each one.
    person_turns = Move.objects.filter(game=game, seat=0, action__type__in=["draw", "take_discards"]).count()
    assert person_turns >= 4 or game.finished
    computer = Move.objects.filter(game=game, seat=1)
    assert computer.exists() and set(computer.values_list("actor", flat=True)) == {"computer"}
    assert not Move.objects.filter(game=game, actor="timeout").exists()


def test_a_failing_computer_player_does_not_stall_the_table(monkeypatch):
    game, _ = two_people()
    Seat.objects.filter(table=game.table, position=game.to_move).update(covered_by_computer=True)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in a computer player")

    monkeypatch.setattr(autoplay, "choose_action", broken)
    assert autoplay.play_computer_move(game.pk, game.version) == "computer"
    assert Move.objects.get(game=game).action == {"type": "draw"}
    game.refresh_from_db()
    assert autoplay.play_computer_move(game.pk, game.version) == "computer"  # the discard
    assert Move.objects.filter(game=game, action__type="discard").count() == 1


def test_a_computer_player_receives_the_hands_public_record_beside_its_view(monkeypatch):
    game, _ = two_people()
    Seat.objects.filter(table=game.table).update(covered_by_computer=True)
    received = []

    def spy(view, level, rng, **kwargs):
        received.append((view, kwargs.get("record")))
        return choose_action(view, level, rng, **kwargs)

    monkeypatch.setattr(autoplay, "choose_action", spy)
    for _ in range(8):
        game.refresh_from_db()
        engine = EngineGame.from_dict(game.state)
        expected = engine.public_record()
        assert autoplay.play_computer_move(game.pk, game.version) == "computer"
        view, record = received[-1]
        assert record == expected  # the same for every seat: no hidden card in it
        assert sum(1 for e in record if e["seat"] is not None and e["type"] != "pozzetto") == view["version"]
    assert any(e["type"] == "discard" for e in received[-1][1])


def test_the_worker_runs_the_scheduler_and_only_computer_moves_are_tasks():
    app.loader.import_default_modules()  # what a worker does on start: autodiscover games.tasks
    ours = {name for name in app.tasks if name.startswith("games.")}
    # Besides the computer's moves, only the analysis of a finished match (one task per match, not a timer).
    assert ours == {"games.computer_move", "games.scheduler_tick", "games.analyse_game"}
    assert not (app.conf.beat_schedule or {})  # no beat sweep: the worker's own thread scans
    from celery.signals import worker_ready

    from burraco_site import celery as celery_module

    assert celery_module._start_scheduler in [ref() for _key, ref in worker_ready.receivers]


def test_the_tours_hold_ends_when_the_page_that_asked_for_it_goes(monkeypatch):
    """A practice table's clock held by a page's tour runs again, with its full time, when that
    page's socket closes; another page's closing leaves the hold alone."""
    monkeypatch.setattr(tasks.computer_move, "apply_async", lambda *a, **k: None)
    game, user = against_computer()
    while game.to_move != 0:  # the computer opened: its turn, then the person's
        autoplay.play_computer_move(game.pk, game.version)
        game.refresh_from_db()
    practice.hold_clock(table_id=game.table_id, user=user, hold=True, socket_id="page-a")
    game.refresh_from_db()
    assert game.turn_deadline is None and game.due_at is None and practice.held(game.table_id)
    practice.page_gone(table_id=game.table_id, user=user, socket_id="page-b")  # not the page that asked
    game.refresh_from_db()
    assert game.turn_deadline is None and practice.held(game.table_id)
    practice.hold_clock(table_id=game.table_id, user=user, hold=True, socket_id="page-b")  # another tab's tour
    practice.page_gone(table_id=game.table_id, user=user, socket_id="page-a")
    assert Game.objects.get(pk=game.pk).turn_deadline is None
    before = clock.now()
    practice.page_gone(table_id=game.table_id, user=user, socket_id="page-b")
    game.refresh_from_db()
    assert not practice.held(game.table_id)
    full = timedelta(seconds=game.table.draw_seconds)
    assert game.turn_deadline == game.due_at and before + full <= game.turn_deadline <= clock.now() + full


# ----------------------------------------------------------------------------- absent players


@COMMITS
def test_a_player_away_past_the_grace_during_their_turn_is_covered(monkeypatch):
    cap = capture(monkeypatch)

    def online(table, users):  # both players have the table open before the deal
        presence.connected(table.pk, 0, users[0].pk, "gina-tab-1")
        presence.connected(table.pk, 0, users[0].pk, "gina-tab-2")
        presence.connected(table.pk, 1, users[1].pk, "ugo-tab-1")

    game, users = two_people(grace=5, before_start=online)
    assert game.due_at == game.turn_deadline  # both online: only the deadline matters
    mover = game.to_move
    tabs = ["gina-tab-1", "gina-tab-2"] if mover == 0 else ["ugo-tab-1"]
    if mover == 0:
        assert attendance.socket_closed(game.table_id, 0, users[0].pk, tabs.pop(0)) is False  # one tab left
        game.refresh_from_db()
        assert game.due_at == game.turn_deadline
    assert attendance.socket_closed(game.table_id, mover, users[mover].pk, tabs[0]) is True
    game.refresh_from_db()
    away = presence.away_since(game.table_id, mover)
    # The scheduler must look when the grace runs out, not at the 30-second deadline.
    assert game.due_at == away + timedelta(seconds=5) < game.turn_deadline
    assert scheduler.run_due(clock.now()) == {}
    clock.advance(3)
    assert scheduler.run_due(clock.now()) == {}
    clock.advance(3)
    cap.clear()
    assert scheduler.run_due(clock.now()) == {"covered": 1}
    seat = Seat.objects.get(table=game.table, position=mover)
    assert seat.covered_by_computer and seat.consecutive_timeouts == 0
    frames = [f for g, f in cap.sent if f["type"] == "presence"]
    assert frames[-1]["seats"][mover] == {"position": mover, "online": False, "covered_by_computer": True,
                                          "computer": False}
    assert scheduler.run_due(clock.now()) == {}  # the computer's move is due a little later
    clock.advance(turns.COMPUTER_SLACK_SECONDS + 1)
    assert scheduler.run_due(clock.now()) == {"computer": 1}
    assert [(s, actor) for s, actor, _type in moves_of(game)] == [(mover, "computer")]


def test_a_player_back_within_the_grace_is_not_covered():
    def online(table, users):
        for position, user in enumerate(users):
            presence.connected(table.pk, position, user.pk, f"tab-{position}")

    game, users = two_people(grace=5, before_start=online)
    mover = game.to_move
    attendance.socket_closed(game.table_id, mover, users[mover].pk, f"tab-{mover}")
    clock.advance(3)
    presence.connected(game.table_id, mover, users[mover].pk, f"tab-{mover}-reloaded")  # back in time
    assert presence.away_since(game.table_id, mover) is None
    clock.advance(3)  # past the grace the disconnection started
    seen = autoplay.stats()["early"]
    assert scheduler.run_due(clock.now()) == {"not_due": 1}
    assert autoplay.stats()["early"] == seen + 1
    game.refresh_from_db()
    seat = Seat.objects.get(table=game.table, position=mover)
    assert not seat.covered_by_computer and not Move.objects.filter(game=game).exists()
    assert game.due_at == game.turn_deadline  # the next look: their deadline
    assert scheduler.run_due(clock.now()) == {}


def _forget_presence(table_id: int) -> None:
    """What a Redis flush or restart does to a table's presence: every socket forgotten."""
    client = presence.redis_client()
    if client is None:
        presence._memory.members.pop(table_id, None)
    else:
        client.delete(presence._prefix() + presence._set_key(table_id))


def test_after_presence_is_lost_the_heartbeat_clears_the_away_mark_too():
    """Redis forgot the sockets (flushed, restarted): the scheduler, looking at the game, sees the
    seat to move empty and notes it away. The sockets' next heartbeat puts them back and must
    clear that mark: kept, a later blink of the connection counted from it, and the player, who
    never left, had their seat handed to the computer at once."""
    def online(table, users):
        for position, user in enumerate(users):
            presence.connected(table.pk, position, user.pk, f"tab-{position}")

    game, users = two_people(grace=5, before_start=online)
    mover = game.to_move
    _forget_presence(game.table_id)
    Game.objects.filter(pk=game.pk).update(due_at=clock.now())  # the scheduler looks at it now
    assert scheduler.run_due(clock.now()) == {"not_due": 1}
    assert presence.away_since(game.table_id, mover) is not None
    clock.advance(10)  # longer than the grace, the sockets still there
    beats = [(game.table_id, p, u.pk, f"tab-{p}") for p, u in enumerate(users)]
    assert presence.heartbeat_many(beats) == {game.table_id}  # back online...
    assert presence.away_since(game.table_id, mover) is None  # ...and not away
    # A moment's disconnection now starts its own grace.
    assert attendance.socket_closed(game.table_id, mover, users[mover].pk, f"tab-{mover}") is True
    clock.advance(1)
    Game.objects.filter(pk=game.pk).update(due_at=clock.now())
    assert scheduler.run_due(clock.now()) == {"not_due": 1}
    assert not Seat.objects.get(table=game.table, position=mover).covered_by_computer


def test_a_player_who_left_before_their_turn_is_covered_when_it_comes():
    def online(table, users):
        presence.connected(table.pk, 0, users[0].pk, "tab-0")
        presence.connected(table.pk, 1, users[1].pk, "tab-1")

    game, users = two_people(grace=5, before_start=online)
    mover, other = game.to_move, 1 - game.to_move
    attendance.socket_closed(game.table_id, other, users[other].pk, f"tab-{other}")
    game.refresh_from_db()
    assert game.due_at == game.turn_deadline  # not their turn: nothing to pull forward
    clock.advance(6)
    submit_action(game_id=game.pk, seat=mover, action={"type": "draw"}, user=users[mover], expected_version=0)
    discard = next(a for a in EngineGame.from_dict(Game.objects.get(pk=game.pk).state).legal_actions(mover)
                   if a["type"] == "discard")
    submit_action(game_id=game.pk, seat=mover, action=discard, user=users[mover], expected_version=1)
    game.refresh_from_db()
    assert game.to_move == other and game.due_at <= clock.now()  # their grace is already over
    assert scheduler.run_due(clock.now()) == {"covered": 1}


# ----------------------------------------------------------------------------- the scheduler


def test_run_due_twice_applies_each_due_game_once():
    games = [two_people()[0] for _ in range(3)]
    assert scheduler.run_due(clock.now()) == {}
    clock.advance(31)
    assert scheduler.run_due(clock.now()) == {"timeout": 3}
    assert scheduler.run_due(clock.now()) == {}
    for game in games:
        assert state_of(game) == (2, 2)


@COMMITS
def test_two_schedulers_at_once_apply_each_due_game_once():
    first = two_people()[0]
    games = [first, *more_games(first, 9)]
    clock.advance(31)
    start = threading.Barrier(3)
    results: list[dict] = []

    def run(loop: scheduler.Scheduler) -> None:
        try:
            start.wait()
            results.append(loop.tick())
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(scheduler.Scheduler(),)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 3 and all(r["healthy"] for r in results)
    assert sum(r.get("timeout", 0) for r in results) == 10
    assert not any(r.get("stale") or r.get("failed") for r in results)
    for game in games:
        assert state_of(game) == (2, 2)
        assert [m[1:] for m in moves_of(game)] == [("timeout", "draw"), ("timeout", "discard")]


@POSTGRES
@COMMITS
def test_a_claim_skips_the_rows_another_scheduler_holds_without_waiting():
    games = [two_people()[0] for _ in range(4)]
    clock.advance(31)
    now = clock.now()
    held, release = threading.Event(), threading.Event()
    claimed: list = []

    def first_scheduler() -> None:
        try:
            with transaction.atomic():
                claimed.extend(scheduler.claim_due(now))
                held.set()
                release.wait(20)
        finally:
            connection.close()

    thread = threading.Thread(target=first_scheduler)
    thread.start()
    assert held.wait(20)
    started = time.monotonic()
    assert scheduler.claim_due(now) == []  # the rows are locked: skipped, not waited for
    assert time.monotonic() - started < 2
    release.set()
    thread.join(20)
    assert sorted(i for i, _v in claimed) == sorted(g.pk for g in games)
    assert scheduler.claim_due(now) == []  # committed: leased to the first scheduler


def test_a_scheduler_that_dies_mid_way_leaves_its_games_to_the_next():
    game, _ = two_people()
    clock.advance(31)
    assert scheduler.claim_due(clock.now()) == [(game.pk, 0)]  # and then it dies
    assert scheduler.run_due(clock.now()) == {}  # leased: another scheduler leaves it alone
    clock.advance(scheduler.LEASE_SECONDS + 1)
    assert scheduler.run_due(clock.now()) == {"timeout": 1}
    assert state_of(game) == (2, 2)


def test_one_broken_game_does_not_stop_the_scheduler(caplog):
    broken, _ = two_people()
    good, _ = two_people()
    Game.objects.filter(pk=broken.pk).update(state={"not": "a game"}, due_at=clock.now())
    clock.advance(31)
    with caplog.at_level(logging.ERROR, logger="games.services.scheduler"):
        assert scheduler.Scheduler().tick() == {"healthy": True, "extended": 0, "failed": 1, "timeout": 1}
    assert f"scheduler: game {broken.pk} v0 failed" in caplog.text
    assert state_of(good) == (2, 2)
    broken.refresh_from_db()
    assert broken.version == 0 and broken.due_at > clock.now()  # leased: retried later, not every tick
    assert scheduler.Scheduler().tick() == {"healthy": True, "extended": 0}
    clock.advance(scheduler.LEASE_SECONDS + 1)
    assert scheduler.Scheduler().tick()["failed"] == 1  # still broken, still alone


def test_the_scheduler_cost_follows_the_games_due_not_the_games_in_play():
    loop = scheduler.Scheduler()
    loop.tick()  # the first tick writes the scheduler's row
    counts = {}
    template = two_people()[0]
    for wanted in (3, 30):
        more_games(template, wanted - Game.objects.filter(finished=False).count())
        with CaptureQueriesContext(connection) as queries:
            assert loop.tick() == {"healthy": True, "extended": 0}
        counts[wanted] = len(queries)
    # 8, the matchmaking queue's claim (empty here) and the tournaments' one indexed look-up
    assert counts[3] == counts[30] <= 10, counts
    clock.advance(31)  # now all 30 are due: the work grows with them
    with CaptureQueriesContext(connection) as queries:
        assert loop.tick()["timeout"] == 30
    assert len(queries) > counts[30] + 30
    if connection.vendor == "postgresql":  # the claim can use the partial index on due_at
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + scheduler._CLAIM_SQL, [timezone.now(), timezone.now(), 10])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "game_due_idx" in plan, plan


# ----------------------------------------------------------------------------- outages


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def redis_server(port: int):
    """A Redis of this test's own, which the test stops and starts again."""
    process = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis

        client = redis.Redis(port=port, socket_connect_timeout=0.5)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        process.wait(10)


def _cache_answers() -> bool:
    from django.core.cache import cache

    try:
        cache.get("ping")
        return True
    except Exception:
        return False


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
@COMMITS
def test_an_outage_moves_the_live_deadlines_on_once(settings, monkeypatch):
    settings.BURRACO_CLOCK_ADJUSTABLE = False  # real time only: the clock's offset lives in the cache
    port = _free_port()
    cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                         "LOCATION": f"redis://127.0.0.1:{port}/0"}}
    cap = capture(monkeypatch)
    with override_settings(CACHES=cache):
        with redis_server(port):
            within, _ = two_people()  # its deadline will fall inside the outage
            ordinary, _ = two_people()
            done, _ = two_people()
            Game.objects.filter(pk=done.pk).update(finished=True)
            first, second, blip = scheduler.Scheduler(), scheduler.Scheduler(), scheduler.Scheduler()
            assert first.tick() == {"healthy": True, "extended": 0}
        # Redis is stopped: no scheduler enforces anything.
        assert first.tick() == {"healthy": False} and second.tick() == {"healthy": False}
        assert blip.tick() == {"healthy": False}
        assert first.saw_outage_since is not None and second.saw_outage_since is not None
        with redis_server(port):  # a blip shorter than a few ticks moves nothing
            assert _cache_answers() or _cache_answers()
            SchedulerState.objects.update(last_tick=timezone.now() - timedelta(seconds=scheduler.outage_seconds() - 1))
            assert blip.tick() == {"healthy": True, "extended": 0} and blip.saw_outage_since is None
        # The outage lasts 20 s (its ticks compressed: the last healthy one is 20 s back), and
        # one deadline fell 5 s into it.
        now = timezone.now()
        SchedulerState.objects.filter(name=scheduler.CLOCK_ROW).update(last_tick=now - timedelta(seconds=20))
        Game.objects.filter(pk=within.pk).update(turn_deadline=now - timedelta(seconds=15),
                                                 due_at=now - timedelta(seconds=15))
        before = {g.pk: g.turn_deadline for g in Game.objects.all()}
        assert first.tick() == {"healthy": False}  # still down: nothing moves
        assert {g.pk: g.turn_deadline for g in Game.objects.all()} == before
        with redis_server(port):  # Redis is back, empty
            assert _cache_answers() or _cache_answers()
            start = threading.Barrier(2)
            results: dict[str, dict] = {}

            def run(name: str, loop: scheduler.Scheduler) -> None:
                try:
                    start.wait()
                    results[name] = loop.tick()
                finally:
                    connection.close()

            threads = [threading.Thread(target=run, args=n) for n in (("first", first), ("second", second))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            # Both saw the outage; the one that locked the clock row first extended, once.
            assert sorted(r["extended"] for r in results.values()) == [0, 2], results
            assert all(r["healthy"] and "timeout" not in r for r in results.values()), results
            after = {g.pk: g for g in Game.objects.all()}
            for pk in (within.pk, ordinary.pk):
                shift = (after[pk].turn_deadline - before[pk]).total_seconds()
                left = (after[pk].turn_deadline - timezone.now()).total_seconds()
                # Moved on by the outage (20 s), and to at least AFTER_OUTAGE_SECONDS from now.
                assert shift >= 20 and left >= scheduler.AFTER_OUTAGE_SECONDS - 3, (shift, left)
                assert shift < 23 or left <= scheduler.AFTER_OUTAGE_SECONDS + 1, (shift, left)
                assert after[pk].due_at <= after[pk].turn_deadline  # never a look after the deadline
            assert after[done.pk].turn_deadline == before[done.pk]
            assert not Move.objects.exists()  # the deadline inside the outage was not enforced
            clocks = [(g, f) for g, f in cap.sent if f["type"] == "clock"]
            assert sorted(g for g, _f in clocks) == sorted(transport.all_group(after[pk].table_id)
                                                           for pk in (within.pk, ordinary.pk))
            for group, frame in clocks:
                game = next(g for g in after.values() if transport.all_group(g.table_id) == group)
                assert frame["reason"] == "outage" and frame["version"] == game.version
                assert frame["deadline"] == game.turn_deadline.isoformat()
            # A scheduler that did not see the outage still extends when Redis started after the
            # last healthy tick: with Redis as the broker a Redis restart kills the worker, and
            # the scheduler thread that saw it; its supervisor starts a new one. A computer to
            # move keeps its due_at: its move is played at once, not put off by the extension.
            cap.clear()
            covered, _ = two_people()
            Seat.objects.filter(table=covered.table, position=covered.to_move).update(covered_by_computer=True)
            now = timezone.now()
            SchedulerState.objects.update(last_tick=now - timedelta(seconds=60))  # before this Redis started
            Game.objects.filter(pk=within.pk).update(turn_deadline=now - timedelta(seconds=1),
                                                     due_at=now - timedelta(seconds=1))
            Game.objects.filter(pk=covered.pk).update(due_at=now - timedelta(seconds=2))
            before = {g.pk: g.turn_deadline for g in Game.objects.all()}
            monkeypatch.setattr(tasks.computer_move, "apply_async", lambda *a, **k: None)
            assert scheduler.Scheduler().tick() == {"healthy": True, "extended": 3, "computer": 1}
            for pk in (within.pk, ordinary.pk):
                game = Game.objects.get(pk=pk)
                assert (game.turn_deadline - before[pk]).total_seconds() >= 60
                assert game.turn_deadline >= timezone.now() + timedelta(seconds=scheduler.AFTER_OUTAGE_SECONDS - 3)
            assert not Move.objects.filter(game=within, actor="timeout").exists()  # not enforced
            assert moves_of(covered)[-1][1] == "computer"
            assert sorted(g for g, f in cap.sent if f["type"] == "clock") == sorted(
                transport.all_group(g.table_id) for g in (within, ordinary, covered))
            # A scheduler that merely restarted (it saw no outage, and PostgreSQL and Redis were
            # up all along: no scheduler ran) does not extend, whatever the gap: the deadline
            # that is really past is enforced.
            while float(presence.redis_client().info("server")["uptime_in_seconds"]) < scheduler.outage_seconds() + 1:
                time.sleep(0.2)
            cap.clear()
            gap = timedelta(seconds=scheduler.outage_seconds() + 0.5)
            SchedulerState.objects.update(last_tick=timezone.now() - gap)
            within.refresh_from_db()
            kept = Game.objects.get(pk=ordinary.pk).turn_deadline
            Game.objects.filter(pk=within.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1),
                                                     due_at=timezone.now() - timedelta(seconds=1))
            assert scheduler.Scheduler().tick() == {"healthy": True, "extended": 0, "timeout": 1}
            assert Game.objects.get(pk=ordinary.pk).turn_deadline == kept
            assert not [f for _g, f in cap.sent if f["type"] == "clock"]
            assert Move.objects.filter(game=within, actor="timeout").count() == 2  # its draw and discard


@COMMITS
def test_a_failed_tick_is_logged_and_counts_as_an_outage_seen(monkeypatch, caplog):
    loop = scheduler.Scheduler()
    stop = threading.Event()

    def failing(now):
        stop.set()  # one pass of the loop
        raise DatabaseError("connection lost mid-tick")

    monkeypatch.setattr(scheduler, "run_due", failing)
    with caplog.at_level(logging.ERROR, logger="games.services.scheduler"):
        loop.run_forever(stop)  # the failure is logged, not raised, and remembered
    assert "scheduler tick failed" in caplog.text
    assert loop.saw_outage_since is not None
