"""Replays are rebuilt through the engine and must agree with the recorded result."""

from __future__ import annotations

import json
import logging

import pytest

from games.models import Game, Move
from games.selectors.replays import build_hand_replay, verify_game
from tests.factories import finished_match, make_users

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return make_users(4, prefix="r")


@pytest.mark.parametrize(
    ("players", "kwargs"),
    [
        (2, {"preset": "mano_unica"}),
        (2, {"preset": "testa_a_testa"}),
        (2, {"preset": "classico", "target": 1005}),
        (4, {"preset": "classico", "target": 505}),
    ],
)
def test_every_recorded_game_replays_to_its_recorded_result(people, players, kwargs):
    game = finished_match(people[:players], **kwargs)
    assert verify_game(game) == []
    for hand in game.hands.order_by("number"):
        replay = build_hand_replay(game, hand.number)
        moves = Move.objects.filter(game=game, hand_number=hand.number).count()
        assert replay.error is None
        assert len(replay.frames) == moves + 1  # the deal, then one frame per move
        assert replay.frames[-1]["over"] is True
        assert replay.score == hand.score
        assert replay.frames[-1]["score"] == [hand.score[0]["total"], hand.score[1]["total"]]
        # All hands face up: every seat's cards are in every frame.
        assert all(len(frame["hands"]) == players for frame in replay.frames)
        assert replay.frames[0]["hands"] == hand.deal["hands"]


def test_tampered_move_is_detected_logged_and_shown_in_italian(client, people, caplog):
    game = finished_match(people[:2], preset="mano_unica")
    # Swap the 4th discard for a card the player most likely did not hold (else the score differs).
    move = Move.objects.filter(game=game, action__type="discard").order_by("seq")[3]
    move.action = {"type": "discard", "card": "JK" if move.action["card"] != "JK" else "2C"}
    move.save()
    problems = verify_game(game)
    assert len(problems) == 1
    with caplog.at_level(logging.ERROR, logger="games.replays"):
        response = client.get(f"/storico/partita/{game.pk}/replay/")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="replay-error"' in body and 'role="alert"' in body
    assert "La registrazione non corrisponde al risultato" in body
    assert "rifiutata dal motore" in body or "non dà il punteggio registrato" in body
    assert any("Replay mismatch" in r.getMessage() and str(game.pk) in r.getMessage() for r in caplog.records)
    # The frames before the bad move are still there to look at.
    data = json.loads(body.split('id="replay-data" type="application/json">')[1].split("</script>")[0])
    assert 1 <= len(data["frames"]) <= Move.objects.filter(game=game).count()


def test_move_for_the_wrong_seat_is_detected(people):
    game = finished_match(people[:2], preset="mano_unica")
    move = Move.objects.filter(game=game).order_by("seq")[5]
    move.seat = 1 - move.seat
    move.save()
    [problem] = verify_game(game)
    assert "toccava al posto" in problem


def test_a_missing_move_is_detected(people):
    """Every move the log keeps is legal, but the hand no longer reaches its recorded end."""
    game = finished_match(people[:2], preset="mano_unica")
    Move.objects.filter(game=game).order_by("-seq").first().delete()
    [problem] = verify_game(game)
    assert "non dà il punteggio registrato" in problem


def test_tampered_score_or_result_is_detected(people):
    game = finished_match(people[:2], preset="classico", target=505)
    hand = game.hands.order_by("number").first()
    hand.score[0]["total"] += 5
    hand.save()
    problems = verify_game(game)
    assert any("non dà il punteggio registrato" in p for p in problems)

    other = finished_match(people[2:4], preset="mano_unica")
    Game.objects.filter(pk=other.pk).update(result={**other.result, "totals": [1, 2]})
    other.refresh_from_db()
    [problem] = verify_game(other)
    assert "non è quello registrato" in problem


def test_replay_page_offers_every_hand_and_the_controls(client, people):
    # A fixed seed, not the factory's running counter: random play can reach even 2005 in one
    # hand, so how many hands a match lasts must not depend on which tests ran before.
    game = finished_match(people[:2], preset="classico", target=2005, seed=3)
    numbers = list(game.hands.order_by("number").values_list("number", flat=True))
    assert len(numbers) >= 2
    response = client.get(f"/storico/partita/{game.pk}/replay/", {"mano": numbers[-1]})
    assert response.status_code == 200
    body = response.content.decode()
    for n in numbers:
        assert f'href="?mano={n}"' in body
    for control in ("r-first", "r-prev", "r-next", "r-last", "r-slider"):
        assert f'id="{control}"' in body
    assert 'id="replay-error"' not in body
    assert client.get(f"/storico/partita/{game.pk}/replay/", {"mano": 99}).status_code == 404
    assert client.get(f"/storico/partita/{game.pk}/replay/", {"mano": "x"}).status_code == 404
