"""Analisi della partita end to end with a real Celery worker process: requested from the replay
page, or queued by the play service when a match ends; the worker runs `games.analyse_game` on
the test database and the replay page then shows the marks. No eager mode."""

from __future__ import annotations

import random

import pytest

from games.engine import Game as EngineGame
from games.models import Analysis, Game, Move
from games.services.history import analysis
from games.services.play.play import abandon_match, submit_action
from tests.factories import finished_match
from tests.games.helpers import make_user, random_legal, started_table

from .conftest import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quiet_after")]


def _done(game_id: int):
    return Analysis.objects.filter(game_id=game_id, status=Analysis.Status.DONE).first()


def test_requested_from_the_replay_page_the_worker_marks_the_moves(client, celery_worker):
    person = make_user("analista")
    game = finished_match([person, None], seed=21)
    client.force_login(person)
    response = client.post(f"/storico/partita/{game.pk}/analisi/", {"mano": "1"})
    assert response.status_code == 302
    assert Analysis.objects.get(game=game).status in (Analysis.Status.QUEUED, Analysis.Status.RUNNING,
                                                      Analysis.Status.DONE)
    done = wait_for(lambda: _done(game.pk), timeout=120, what="the worker to finish the analysis")
    assert done.worlds == 4  # the worker's own setting: it, not this process, did the work
    assert done.reviewed > 20 and done.notes
    assert "games.analyse_game" in celery_worker.log_path.read_text()
    page = client.get(f"/storico/partita/{game.pk}/replay/")
    notes = page.context["replay_data"]["notes"]
    assert notes and all(n["seat"] == 0 and n["text"].startswith("Qui ") for n in notes)
    assert "Analisi pronta" in page.content.decode()


def test_a_match_that_ends_is_queued_and_analysed(celery_worker):
    ada, bea = make_user("ada_an"), make_user("bea_an")
    table = started_table([ada, bea], preset="mano_unica")
    rng = random.Random(3)
    users = [ada, bea]
    for _ in range(40):
        game = Game.objects.get(table=table)
        engine = EngineGame.from_dict(game.state)
        seat = engine.to_move
        submit_action(game_id=game.pk, seat=seat, action=random_legal(engine, rng), actor="person",
                      expected_version=game.version, user=users[seat])
    assert not Analysis.objects.exists()
    abandon_match(table_id=table.pk, user=bea)
    game = Game.objects.get(table=table)
    assert game.finished
    done = wait_for(lambda: _done(game.pk), timeout=120, what="the analysis queued at the end of the match")
    assert done.reviewed > 5  # both people's draws and discards of the interrupted hand
    assert {n["seat"] for n in done.notes} <= {0, 1}


def test_a_requested_review_is_taken_before_the_automatic_ones_waiting(celery_worker):
    """The worker reads the requests' queue besides the automatic one: a review asked for while
    automatic ones wait runs right after the one in progress: kombu's Redis transport takes, after
    a message from one queue, the others first. (On RabbitMQ the two queues are served in turn: a
    request may wait for one automatic review more; checked by hand, docs/performance.md.)"""
    person = make_user("prima_an")
    first, *waiting, asked = (finished_match([person, None], seed=s) for s in (70, 71, 72, 73))
    for game in (*waiting, asked):  # short reviews: the first of a whole hand is the one that must last
        Move.objects.filter(game=game).exclude(pk__in=game.moves.order_by("seq").values("pk")[:20]).delete()
    analysis.queue_after_game(first.pk)
    taken = wait_for(lambda: Analysis.objects.filter(game=first).exclude(status=Analysis.Status.QUEUED).first(),
                     timeout=30, what="the worker to take the first automatic review")
    assert taken.status == Analysis.Status.RUNNING  # still busy with it while the others arrive
    for game in waiting:
        analysis.queue_after_game(game.pk)
    analysis.request_analysis(asked)
    games = [first, *waiting, asked]
    wait_for(lambda: all(_done(g.pk) for g in games), timeout=120, what="the four reviews")
    finished = {g.pk: _done(g.pk).finished_at for g in games}
    assert finished[first.pk] < finished[asked.pk] < min(finished[g.pk] for g in waiting)
