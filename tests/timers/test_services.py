"""The timer services on their own (no worker): what a timeout plays, stale calls, the cover."""

from __future__ import annotations

import pytest

from burraco_site.celery import app
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.models import Game, Move, Seat
from games.services import clock, tables, timeouts, turns
from games.services.tables import TableError
from tests.games.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _adjustable_clock(settings):
    settings.BURRACO_CLOCK_ADJUSTABLE = True
    settings.BOT_MOVE_DELAY_SECONDS = 0
    clock.reset()
    yield
    clock.reset()


def two_people() -> tuple[Game, list]:
    users = [make_user("gina"), make_user("ugo")]
    table = tables.create_table(creator=users[0], ruleset=Ruleset.preset("mano_unica", target=None))
    tables.sit(table_id=table.pk, user=users[1], position=1)
    return Game.objects.get(table=table), users


def test_timeout_actions_draw_then_discard_legally():
    game, _ = two_people()
    engine = EngineGame.from_dict(game.state)
    seat = engine.to_move
    actions = timeouts.timeout_actions(engine, seat)
    assert actions[0] == {"type": "draw"} and actions[1]["type"] == "discard"
    for action in actions:
        engine.apply(seat, action)  # legal, or this raises
    assert engine.to_move != seat


def test_complete_turn_ignores_stale_versions_and_early_calls():
    game, _ = two_people()
    assert timeouts.complete_turn(game.pk, game.version + 5) == "stale"
    assert timeouts.complete_turn(game.pk, game.version) == "stale"  # the deadline is 30 s away
    assert not Move.objects.filter(game=game).exists()
    clock.advance(31)
    assert timeouts.complete_turn(game.pk, game.version) == "timeout"
    moves = list(Move.objects.filter(game=game).values_list("actor", "action__type"))
    assert moves == [("timeout", "draw"), ("timeout", "discard")]
    assert timeouts.complete_turn(game.pk, game.version) == "stale"  # the same task, again
    assert Move.objects.filter(game=game).count() == 2
    seat = Seat.objects.get(table=game.table, position=moves and Move.objects.first().seat)
    assert seat.consecutive_timeouts == 1 and not seat.covered_by_computer


def test_two_timeouts_in_a_row_cover_the_seat_and_a_person_move_ends_it():
    game, users = two_people()
    first = EngineGame.from_dict(game.state).to_move
    for _ in range(3):  # first, other, first again
        game.refresh_from_db()
        clock.advance(31)
        assert timeouts.complete_turn(game.pk, game.version) == "timeout"
    seat = Seat.objects.get(table=game.table, position=first)
    assert seat.consecutive_timeouts == 2 and seat.covered_by_computer
    other = Seat.objects.get(table=game.table, position=1 - first)
    assert other.consecutive_timeouts == 1 and not other.covered_by_computer
    with pytest.raises(TableError):
        timeouts.reclaim_seat(game.table_id, 1 - first, seat.user)  # not their seat
    timeouts.reclaim_seat(game.table_id, first, seat.user)
    seat.refresh_from_db()
    assert not seat.covered_by_computer and seat.consecutive_timeouts == 0


def test_computer_move_only_for_computer_seats():
    game, _ = two_people()
    assert timeouts.play_computer_move(game.pk, game.version) == "not_computer"
    assert timeouts.play_computer_move(game.pk, game.version + 1) == "stale"
    Seat.objects.filter(table=game.table, position=game.to_move).update(covered_by_computer=True)
    assert timeouts.play_computer_move(game.pk, game.version) == "computer"
    move = Move.objects.get(game=game)
    assert move.actor == "computer" and move.action["type"] in ("draw", "take_discards")


def test_after_change_tolerates_stale_and_finished_games():
    game, _ = two_people()
    turns.after_change(game.pk, game.version + 3)  # a later change schedules its own turn
    Game.objects.filter(pk=game.pk).update(finished=True)
    turns.after_change(game.pk, game.version)
    turns.after_change(10**9, 0)


def test_beat_runs_the_sweep_every_few_seconds():
    entry = app.conf.beat_schedule["sweep-turns"]
    assert entry["task"] == "games.sweep"
    assert 0 < float(entry["schedule"]) <= 10
    app.loader.import_default_modules()  # what a worker does on start: autodiscover games.tasks
    assert {"games.sweep", "games.turn_timeout", "games.computer_move", "games.presence_check"} <= set(app.tasks)


def test_a_failing_computer_player_does_not_stall_the_table(monkeypatch):
    game, _ = two_people()
    Seat.objects.filter(table=game.table, position=game.to_move).update(covered_by_computer=True)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in a computer player")

    monkeypatch.setattr(timeouts, "choose_action", broken)
    assert timeouts.play_computer_move(game.pk, game.version) == "computer"
    assert Move.objects.get(game=game).action == {"type": "draw"}
    game.refresh_from_db()
    assert timeouts.play_computer_move(game.pk, game.version) == "computer"  # the discard
    assert Move.objects.filter(game=game, action__type="discard").count() == 1
