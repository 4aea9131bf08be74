"""A worker killed outright (SIGKILL) while it holds a computer's move: another worker, started
afterwards, plays that move within seconds, from `Game.due_at` alone.

The Redis broker would hand the killed worker's unacknowledged message to another worker only
after its visibility timeout (an hour), so only the new worker's scheduler thread can do it.
"""

from __future__ import annotations

import random
import time

import pytest

from games.bots import choose_action
from games.engine import Game as EngineGame
from games.engine import Ruleset
from games.live import clock, presence
from games.models import Game, Move, Table
from games.services.play.play import submit_action
from games.services.table import seating, turns
from tests.games.helpers import make_user

from .conftest import quiet, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

HELD_FOR = 60  # real seconds the killed worker was to wait before the computer's move


@pytest.mark.alone
def test_a_new_worker_plays_the_move_a_killed_worker_held(timers, transactional_db, settings):
    user = make_user("vera")
    table = seating.create_table(creator=user, ruleset=Ruleset.preset("mano_unica", players=2, target=None))
    presence.connected(table.pk, 0, user.pk, "tab-1")
    seating.fill_with_computer(table_id=table.pk, user=user, position=1, level="principiante")
    table = Table.objects.get(pk=table.pk)
    clock.reset()
    with timers.worker("doomed") as doomed:
        def persons_turn():
            game = Game.objects.get(table=table)
            if game.to_move == 0 and EngineGame.from_dict(game.state).phase == "draw":
                return game
            return None

        wait_for(persons_turn, what="the person's turn")
        # The person plays their turn; the computer's move is queued with a long pause, so the
        # worker receives it and holds it, unacknowledged (acks_late), until the pause is over.
        def received() -> int:
            return sum(1 for line in doomed.log_path.read_text().splitlines()
                       if "Task games.computer_move[" in line and line.endswith("received"))

        before = received()
        settings.BOT_MOVE_DELAY_SECONDS = HELD_FOR
        rng = random.Random(7)
        while (game := Game.objects.get(table=table)).to_move == 0 and not game.finished:
            action = choose_action(EngineGame.from_dict(game.state).view(0), "principiante", rng)
            submit_action(game_id=game.pk, seat=0, action=action, user=user, expected_version=game.version)
        if game.finished:
            pytest.skip("the person closed the hand in one turn")
        settings.BOT_MOVE_DELAY_SECONDS = 0
        version = game.version
        wait_for(lambda: received() > before, what="the worker to hold the computer's move")
        time.sleep(0.3)  # and, for good measure, to be well into its wait
        doomed.kill()
        doomed.wait(10)
    assert Game.objects.get(pk=game.pk).version == version  # the move died with the worker
    assert timers.queued() == 0  # not back in the queue either: it sits unacknowledged
    with timers.worker("heir") as heir:
        # The computer's move was due HELD_FOR + COMPUTER_SLACK_SECONDS after the person's turn.
        clock.advance(HELD_FOR + turns.COMPUTER_SLACK_SECONDS + 1)
        started = time.monotonic()
        wait_for(lambda: Game.objects.get(pk=game.pk).version > version, timeout=5,
                 what="the new worker to play the computer's move")
        took = time.monotonic() - started
        assert Move.objects.get(game=game, seq=version + 1).actor == "computer"
        # The rest of the computer's turn goes through the new worker's tasks, without the pause.
        wait_for(lambda: Game.objects.get(pk=game.pk).to_move == 0 or Game.objects.get(pk=game.pk).finished,
                 what="the computer's turn to end")
        assert took < 5
        assert heir.poll() is None
        quiet(timers)
