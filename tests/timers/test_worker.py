"""Timers, computer players and disconnections, end to end with a real Celery worker process.

No eager mode: this process commits actions through the play service, whose on_commit hook
(`turns.after_change`) publishes tasks to Redis; the worker process runs them on the same test
database. Time is moved with the adjustable game clock (`games.services.clock`), not slept.
"""

from __future__ import annotations

import random

import pytest

from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.models import Game, Move, Seat, Table
from games.selectors.tables import presence_frame
from games.services import clock, presence, tables, timeouts
from games.services.play import submit_action
from games.tasks import computer_move, sweep, turn_timeout
from tests.games.helpers import make_user

from .conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _real_time(celery_worker):
    clock.reset()
    yield
    clock.reset()
    # Quiet the worker before the test database is flushed: every game over (their tasks turn
    # stale), and a sweep sent last has run once everything queued before it has.
    Game.objects.update(finished=True)
    seen = timeouts.stats()["sweep"]
    sweep.delay()
    wait_for(lambda: timeouts.stats()["sweep"] > seen, what="the worker to go quiet")


def human_against_computer(username: str, level: str = "medio", **options) -> tuple[Table, object]:
    user = make_user(username)
    ruleset = Ruleset.preset("mano_unica", players=2, target=None, **options)
    table = tables.create_table(creator=user, ruleset=ruleset)
    tables.fill_with_computer(table_id=table.pk, user=user, position=1, level=level)
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


def test_computer_answers_every_human_move_to_the_end_of_the_hand():
    table, user = human_against_computer("ada", level="medio")
    rng = random.Random(1)
    for _turn in range(200):
        game = wait_for(lambda: humans_turn(table), what="the computer to finish its turn")
        if game.finished:
            break
        # The person plays a whole turn (a beginner's choices), action by action.
        while True:
            game = game_of(table)
            engine = EngineGame.from_dict(game.state)
            if engine.hand_over or engine.to_move != 0:
                break
            action = choose_action(engine.view(0), "principiante", rng)
            submit_action(game_id=game.pk, seat=0, action=action, actor="person",
                          expected_version=game.version, user=user)
    game = game_of(table)
    assert game.finished
    moves = Move.objects.filter(game=game)
    assert set(moves.filter(seat=1).values_list("actor", flat=True)) == {"computer"}
    assert set(moves.filter(seat=0).values_list("actor", flat=True)) == {"person"}
    assert moves.filter(seat=1, action__type="discard").exists() or game.result["end_reason"] == "closed"


def test_a_timer_fires_completes_the_turn_and_two_hand_the_seat_to_the_computer():
    table, user = human_against_computer("bruno", level="principiante", draw_seconds=1, play_seconds=1)
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    # Nobody moves: the countdown task fires at the deadline (one real second) and plays for us.
    first = wait_for(lambda: list(Move.objects.filter(game=game, seat=0, actor="timeout")), timeout=15,
                     what="the first timeout")
    assert first[0].action == {"type": "draw"}
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="timeout", action__type="discard").exists(),
             what="the timeout's discard")
    seat = Seat.objects.get(table=table, position=0)
    assert seat.consecutive_timeouts >= 1
    # A second timeout in a row: the computer takes the seat over and plays it.
    wait_for(lambda: Seat.objects.get(table=table, position=0).covered_by_computer, timeout=20,
             what="the computer's cover")
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="computer").exists(), timeout=15,
             what="the computer to play the covered seat")
    assert presence_frame(table.pk)["seats"][0]["covered_by_computer"] is True
    # "Sono tornato": the seat is the person's again.
    timeouts.reclaim_seat(table.pk, 0, user)
    seat = Seat.objects.get(table=table, position=0)
    assert not seat.covered_by_computer and seat.consecutive_timeouts == 0


def test_moved_clock_sweep_and_late_duplicate_tasks():
    table, user = human_against_computer("carla", level="principiante")
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    stale_version = game.version
    assert game.turn_deadline is not None
    # The 30-second draw timer has run out as far as the game clock knows; its countdown task
    # will not fire for half a minute of real time, so the sweep must catch it.
    clock.advance(31)
    sweep.delay()
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="timeout", action__type="discard").exists(),
             what="the sweep to complete the turn")
    game = wait_for(lambda: humans_turn(table), what="the person's next turn")
    before = (game.version, Move.objects.filter(game=game).count())
    assert game.turn_deadline > clock.now()
    seen = timeouts.stats()["stale"]
    # Late and duplicated tasks for the version that is gone: each is received and ignored.
    for _ in range(3):
        turn_timeout.delay(game.pk, stale_version)
    computer_move.delay(game.pk, stale_version)
    wait_for(lambda: timeouts.stats()["stale"] >= seen + 4, what="the worker to drop the stale tasks")
    game.refresh_from_db()
    assert (game.version, Move.objects.filter(game=game).count()) == before
    assert Move.objects.filter(game=game, actor="timeout").count() == 2


def test_a_late_action_meets_the_deadline_check_first():
    table, user = human_against_computer("dario", level="principiante")
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    clock.advance(31)
    # The person's draw arrives after the deadline, the timer task has not run: the check made
    # on every incoming action completes the turn, and the late draw is refused as stale.
    assert timeouts.enforce_deadline(game.pk) is True
    assert Move.objects.filter(game=game, seat=0, actor="timeout").count() == 2
    from games.engine import IllegalMove

    with pytest.raises(IllegalMove) as info:
        submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, actor="person",
                      expected_version=game.version, user=user)
    assert info.value.code == "stale_version"
    assert timeouts.enforce_deadline(game.pk) is False  # nothing left to catch


def test_a_disconnected_player_is_covered_and_takes_the_seat_back():
    table, user = human_against_computer("elena", level="principiante")
    Table.objects.filter(pk=table.pk).update(disconnect_grace_seconds=5)
    presence.connected(table.pk, 0)
    game = wait_for(lambda: humans_turn(table), what="the person's turn")
    # The tab closes during the turn; 6 seconds pass on the game clock.
    presence.disconnected(table.pk, 0)
    seen = timeouts.stats()["sweep"]
    sweep.delay()  # sees the player away and starts counting
    wait_for(lambda: timeouts.stats()["sweep"] > seen, what="a sweep")
    clock.advance(6)
    sweep.delay()
    wait_for(lambda: Seat.objects.get(table=table, position=0).covered_by_computer, what="the computer's cover")
    wait_for(lambda: Move.objects.filter(game=game, seat=0, actor="computer", action__type="discard").exists(),
             what="the computer to play the absent player's turn")
    frame = presence_frame(table.pk)
    assert frame["seats"][0] == {"position": 0, "online": False, "covered_by_computer": True, "computer": False}
    # The player is back: the socket reconnects and "Sono tornato" returns the seat (maybe in the
    # middle of a turn the computer began for them: they finish it).
    presence.connected(table.pk, 0)
    timeouts.reclaim_seat(table.pk, 0, user)
    assert not Seat.objects.get(table=table, position=0).covered_by_computer

    def seat_0_to_move():
        current = game_of(table)
        return current if current.to_move == 0 or current.finished else None

    game = wait_for(seat_0_to_move, what="the person's turn again")
    computer_moves = Move.objects.filter(game=game, seat=0, actor="computer").count()
    # Their turn waits for them: the sweep finds an online person with time left.
    seen = timeouts.stats()["sweep"]
    sweep.delay()
    sweep.delay()
    wait_for(lambda: timeouts.stats()["sweep"] >= seen + 2, what="the sweeps")
    game.refresh_from_db()
    assert game.to_move == 0
    assert Move.objects.filter(game=game, seat=0, actor="computer").count() == computer_moves
    action = choose_action(EngineGame.from_dict(game.state).view(0), "principiante", random.Random(3))
    submit_action(game_id=game.pk, seat=0, action=action, actor="person", expected_version=game.version, user=user)
