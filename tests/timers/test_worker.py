"""Timers, computer players and absent players end to end, with a real Celery worker process.

No eager mode: this process commits actions through the play service, whose on_commit hook
(`turns.after_change`) publishes a computer's move to Redis; the worker runs it on the same test
database, and the worker's scheduler thread (SCHEDULER_INTERVAL_SECONDS = 0.2) finds the turns
whose deadline passed. Time is moved with the adjustable game clock, shared through the cache.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from games import tasks
from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import clock, presence
from games.models import Game, Move, Seat, Table
from games.selectors.tables import presence_frame
from games.services.play import autoplay
from games.services.play.play import submit_action
from games.services.table import attendance, seating, turns
from tests.games.helpers import make_user

from .conftest import last_tick, scheduler_ticks, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quiet_after")]


_names = iter(range(10**6))


def human_against_computer(level: str = "principiante", online: bool = True, **options) -> tuple[Table, object]:
    user = make_user(f"ada{next(_names)}")
    ruleset = Ruleset.preset("mano_unica", players=2, target=None, **options)
    table = seating.create_table(creator=user, ruleset=ruleset)
    if online:
        presence.connected(table.pk, 0, user.pk, "tab-1")
    seating.fill_with_computer(table_id=table.pk, user=user, position=1, level=level)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    return table, user


def game_of(table: Table) -> Game:
    return Game.objects.get(table=table)


def humans_turn(table: Table, position: int = 0) -> Game | None:
    """The game when it waits for `position` to draw (or is over), else None."""
    game = game_of(table)
    if game.finished:
        return game
    if game.to_move == position and EngineGame.from_dict(game.state).phase == "draw":
        return game
    return None


def play_own_turn(table: Table, user, rng: random.Random) -> None:
    """The person plays the rest of their turn (a beginner's choices), action by action."""
    while True:
        game = game_of(table)
        engine = EngineGame.from_dict(game.state)
        if game.finished or engine.hand_over or engine.to_move != 0:
            return
        action = choose_action(engine.view(0), "principiante", rng)
        submit_action(game_id=game.pk, seat=0, action=action, actor="person",
                      expected_version=game.version, user=user)


def test_the_worker_runs_the_scheduler_thread():
    first = wait_for(last_tick, what="the worker's scheduler to tick")
    scheduler_ticks(3, timeout=5)  # about every 0.2 s
    assert last_tick() > first


def test_computer_answers_every_human_move_to_the_end_of_the_hand():
    table, user = human_against_computer(level="medio")
    rng = random.Random(1)
    for _turn in range(200):
        game = wait_for(lambda: humans_turn(table), what="the computer to finish its turn")
        if game.finished:
            break
        play_own_turn(table, user, rng)
    game = game_of(table)
    assert game.finished
    moves = Move.objects.filter(game=game)
    assert set(moves.filter(seat=1).values_list("actor", flat=True)) == {"computer"}
    assert set(moves.filter(seat=0).values_list("actor", flat=True)) == {"person"}
    assert moves.filter(seat=1, action__type="discard").exists() or game.result["end_reason"] == "closed"


def _persons_turn_played_with(monkeypatch, apply_async):
    """The person plays a turn while this process queues the computer's move with `apply_async`;
    returns the table and the game's version after the turn (the computer to move)."""
    table, user = human_against_computer()
    wait_for(lambda: humans_turn(table), what="the person's turn")
    monkeypatch.setattr(tasks.computer_move, "apply_async", apply_async)
    play_own_turn(table, user, random.Random(2))
    game = game_of(table)
    if game.finished:
        pytest.skip("the person closed the hand in one turn")
    assert game.to_move == 1
    return table, game


def test_a_computer_move_that_could_not_be_queued_is_played_by_the_scheduler_at_once(monkeypatch):
    def broker_down(*args, **kwargs):
        raise ConnectionError("the broker is down")

    # This process cannot queue the computer's move after the person's turn (the worker can). No
    # task is coming, so the move is due for the scheduler when the computer's pause is over (0
    # here), not after COMPUTER_SLACK_SECONDS, which is meant for a task that is only late: the
    # clock is not moved on.
    table, game = _persons_turn_played_with(monkeypatch, broker_down)
    version = game.version
    wait_for(lambda: game_of(table).version > version, timeout=5, what="the scheduler to play the computer's move")
    assert Move.objects.get(game=game, seq=version + 1).actor == "computer"
    wait_for(lambda: humans_turn(table), what="the computer to finish its turn")


def test_a_queued_computer_move_that_is_lost_is_played_by_the_schedulers_safety_net(monkeypatch):
    def queued_and_lost(*args, **kwargs):
        return None  # the broker took it, and the task never ran (a worker lost with it)

    table, game = _persons_turn_played_with(monkeypatch, queued_and_lost)
    version = game.version
    scheduler_ticks(3)
    assert game_of(table).version == version  # not due yet: the task may only be late
    clock.advance(turns.COMPUTER_SLACK_SECONDS + 1)
    wait_for(lambda: game_of(table).version > version, timeout=5, what="the scheduler to play the computer's move")
    assert Move.objects.get(game=game, seq=version + 1).actor == "computer"
    # The rest of the computer's turn goes through the worker's own tasks.
    wait_for(lambda: humans_turn(table), what="the computer to finish its turn")


def test_timeouts_complete_the_turn_and_two_hand_the_seat_to_the_computer():
    table, user = human_against_computer()
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    # The person sits there and does nothing: the 30-second draw timer runs out.
    assert not Move.objects.filter(game=game, actor="timeout").exists()
    clock.advance(31)
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="timeout", action__type="discard").exists(),
             timeout=5, what="the scheduler to complete the turn")
    first = list(Move.objects.filter(game=game, seat=0, actor="timeout").order_by("seq"))
    assert [m.action["type"] for m in first] == ["draw", "discard"]
    seat = Seat.objects.get(table=table, position=0)
    assert seat.consecutive_timeouts == 1 and not seat.covered_by_computer
    # The computer plays its turn; the person's new timer has 30 s again.
    game = wait_for(lambda: humans_turn(table), what="the person's next turn")
    if game.finished:
        pytest.skip("the computer closed the hand")
    assert game.turn_deadline > clock.now()
    clock.advance(31)  # a second timeout in a row: the computer takes the seat over and plays it
    wait_for(lambda: Seat.objects.get(table=table, position=0).covered_by_computer, timeout=5,
             what="the computer's cover")
    assert Move.objects.filter(game=game, seat=0, actor="timeout").count() == 4
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="computer").exists() or game_of(table).finished,
             what="the computer to play the covered seat")
    assert presence_frame(table.pk)["seats"][0]["covered_by_computer"] is True
    # "Sono tornato": the seat is the person's again, and the computer stops playing it.
    seating.take_seat_back(table_id=table.pk, user=user)
    seat = Seat.objects.get(table=table, position=0)
    assert not seat.covered_by_computer and seat.consecutive_timeouts == 0
    wait_for(lambda: game_of(table).finished or game_of(table).to_move == 0, what="the person's turn")
    scheduler_ticks(3)
    played = Move.objects.filter(game=game, seat=0, actor="computer").count()
    scheduler_ticks(3)
    assert Move.objects.filter(game=game, seat=0, actor="computer").count() == played


def test_late_and_duplicated_tasks_change_nothing(timers):
    table, user = human_against_computer()
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    if game.version == 0:  # the person deals first: one turn, so the computer has moved
        play_own_turn(table, user, random.Random(4))
        game = wait_for(lambda: humans_turn(table), what="the person's next turn")
    stale_version = game.version - 1  # the computer's last discard was for this version
    assert stale_version >= 0
    before = (game.version, Move.objects.filter(game=game).count())
    seen = autoplay.stats()["stale"]
    # Late and duplicated moves for versions that are gone: each is received and ignored.
    for _ in range(3):
        tasks.computer_move.delay(game.pk, stale_version)
    tasks.computer_move.delay(game.pk, 0)
    tasks.computer_move.delay(game.pk, game.version)  # the person's turn: not the computer's
    wait_for(lambda: autoplay.stats()["stale"] >= seen + 4, what="the worker to drop the stale tasks")
    wait_for(lambda: timers.queued() == 0, what="the worker to take every task")
    scheduler_ticks(2)
    game.refresh_from_db()
    assert (game.version, Move.objects.filter(game=game).count()) == before
    assert game.to_move == 0


def test_two_schedulers_apply_each_due_game_once(timers):
    with timers.run_scheduler() as other:  # a second scheduler process beside the worker's thread
        games = []
        for n in range(8):
            anna, bruno = make_user(f"anna{n}"), make_user(f"bruno{n}")
            table = seating.create_table(creator=anna, ruleset=Ruleset.preset("mano_unica", target=None))
            seating.sit(table_id=table.pk, user=bruno, position=1)
            games.append(game_of(table))
        seen = autoplay.stats()["timeout"]
        other.ready()
        scheduler_ticks(2)
        clock.advance(31)  # every game is due at once
        for game in games:
            wait_for(lambda g=game: Move.objects.filter(game=g, action__type="discard").exists(), timeout=10,
                     what="every turn to be completed")
        scheduler_ticks(3)
        assert other.poll() is None
    for game in games:
        game.refresh_from_db()
        assert game.version == 2
        assert list(Move.objects.filter(game=game).order_by("seq").values_list("actor", "action__type")) == [
            ("timeout", "draw"), ("timeout", "discard")]
    assert autoplay.stats()["timeout"] - seen == 8


def test_an_away_player_is_covered_after_the_grace():
    table, user = human_against_computer()
    Table.objects.filter(pk=table.pk).update(disconnect_grace_seconds=5)
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    # The tab closes during the turn; 6 seconds pass on the game clock (the turn has 30).
    assert attendance.socket_closed(table.pk, 0, user.pk, "tab-1") is True
    scheduler_ticks(2)
    assert not Seat.objects.get(table=table, position=0).covered_by_computer
    clock.advance(6)
    wait_for(lambda: Seat.objects.get(table=table, position=0).covered_by_computer, timeout=5,
             what="the computer's cover")
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="computer", action__type="discard").exists()
             or game_of(table).finished, what="the computer to play the absent player's turn")
    assert not Move.objects.filter(game=game, actor="timeout").exists()
    frame = presence_frame(table.pk)
    assert frame["seats"][0] == {"position": 0, "online": False, "covered_by_computer": True, "computer": False}
    # Back: the page reconnects and "Sono tornato" returns the seat.
    presence.connected(table.pk, 0, user.pk, "tab-2")
    seating.take_seat_back(table_id=table.pk, user=user)
    assert not Seat.objects.get(table=table, position=0).covered_by_computer
    assert presence_frame(table.pk)["seats"][0]["online"] is True


def test_a_player_back_within_the_grace_is_not_covered():
    table, user = human_against_computer()
    Table.objects.filter(pk=table.pk).update(disconnect_grace_seconds=5)
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    before = (game.version, Move.objects.filter(game=game).count())
    attendance.socket_closed(table.pk, 0, user.pk, "tab-1")
    clock.advance(3)
    presence.connected(table.pk, 0, user.pk, "tab-1-reloaded")  # the page reloaded in time
    early = autoplay.stats()["early"]
    clock.advance(3)  # past the grace since the tab closed: the scheduler looks and leaves it
    wait_for(lambda: autoplay.stats()["early"] > early, timeout=5, what="the scheduler to look")
    scheduler_ticks(3)
    game.refresh_from_db()
    assert not Seat.objects.get(table=table, position=0).covered_by_computer
    assert (game.version, Move.objects.filter(game=game).count()) == before
    assert game.due_at == game.turn_deadline
    play_own_turn(table, user, random.Random(3))  # their turn waited for them
    assert Move.objects.filter(game=game, seat=0, actor="person").exists()


def test_one_broken_game_does_not_stop_the_scheduler(celery_worker):
    broken_table, _ = human_against_computer()
    good_table, _ = human_against_computer()
    broken = wait_for(lambda: humans_turn(broken_table), what="the person's turn")
    good = wait_for(lambda: humans_turn(good_table), what="the person's turn")
    first = good.turn_deadline - timedelta(seconds=1)  # claimed first, in the same tick as the good one
    Game.objects.filter(pk=broken.pk).update(state={"not": "a game"}, turn_deadline=first, due_at=first)
    clock.advance(31)
    wait_for(lambda: Move.objects.filter(game=good, actor="timeout", action__type="discard").exists(), timeout=5,
             what="the good game's timeout")
    wait_for(lambda: f"scheduler: game {broken.pk} v{broken.version} failed" in celery_worker.log_path.read_text(),
             timeout=5, what="the broken game's failure in the worker's log")
    # The loop lives on: it ticks, and the broken game is tried again when its lease runs out.
    scheduler_ticks(3)
    clock.advance(11)
    wait_for(lambda: celery_worker.log_path.read_text().count(f"scheduler: game {broken.pk} ") >= 2, timeout=5,
             what="the broken game to be tried again")
    assert Game.objects.get(pk=broken.pk).version == broken.version
    wait_for(lambda: humans_turn(good_table), what="the good game to go on")
