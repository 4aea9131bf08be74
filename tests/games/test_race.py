"""One writer per game: conflicting actions at the same moment, exactly one wins.

On PostgreSQL the row lock (`select_for_update`) decides, with writers really running at once;
SQLite ignores FOR UPDATE but takes its write lock at the start of each transaction (IMMEDIATE),
so the embedded mode must give the same answer: these run on both.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from games.engine import IllegalMove
from games.models import Game, Move
from games.services.errors import ServiceError
from games.services.play.play import submit_action
from tests.games.helpers import make_user, started_table, without_timers

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    without_timers(monkeypatch)


def race(calls):
    """Run the calls in threads released together; return each one's result or exception."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - collected for the assertions
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


def new_game():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = started_table([anna, bruno])
    return {0: anna, 1: bruno}, Game.objects.get(table=table)


@pytest.mark.parametrize("round_", range(3))
def test_same_expected_version_exactly_one_wins(round_):
    users, game = new_game()
    seat = game.to_move
    actions = [{"type": "draw"}, {"type": "take_discards"}]
    results = race([
        lambda a=a: submit_action(game_id=game.pk, seat=seat, action=a, user=users[seat], expected_version=0)
        for a in actions
    ])
    wins = [r for r in results if r == 1]
    losses = [r for r in results if isinstance(r, ServiceError)]
    assert len(wins) == 1 and len(losses) == 1, results
    assert losses[0].code == "stale_version"
    game.refresh_from_db()
    assert game.version == 1
    assert Move.objects.filter(game=game).count() == 1
    assert Move.objects.get(game=game).action["type"] in ("draw", "take_discards")


def test_a_timer_and_the_person_race_one_move_is_kept():
    users, game = new_game()
    seat = game.to_move
    results = race([
        lambda: submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, actor="timeout",
                              expected_version=0),
        lambda: submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat],
                              expected_version=0),
    ])
    assert sorted(type(r).__name__ for r in results) == ["ServiceError", "int"], results
    game.refresh_from_db()
    move = Move.objects.get(game=game)
    # Exactly the winner's move is logged, at the next version.
    assert (move.seq, move.actor in ("person", "timeout"), game.version) == (1, True, 1)


def test_without_versions_the_engine_refuses_the_second_draw():
    users, game = new_game()
    seat = game.to_move
    results = race([
        lambda: submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat])
        for _ in range(4)
    ])
    assert sum(1 for r in results if r == 1) == 1
    assert {r.code for r in results if isinstance(r, IllegalMove)} == {"already_drawn"}
    assert Move.objects.filter(game=game).count() == 1
