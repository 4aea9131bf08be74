"""Two finishes of the same match racing in two connections change the ratings exactly once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from games.models import Game, PlayerRating, RatingChange
from games.services.history.ratings import record_match_result
from tests.factories import finished_match, make_users

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_finishes_apply_once_and_do_not_deadlock():
    people = make_users(4, prefix="cc")
    # Recorded unrated, then made rated: the same match finished twice at once, and another
    # match of the same four players finishing at the same time (locks taken in user order).
    game = finished_match(people, preset="classico", target=505, rated=False)
    other = finished_match([people[3], people[2], people[1], people[0]], preset="classico", target=None,
                           rated=False)
    for g in (game, other):
        g.table.rated = True
        g.table.save(update_fields=["rated"])
    barrier = threading.Barrier(3)
    errors: list[Exception] = []

    def finish(game_id: int) -> None:
        try:
            barrier.wait(timeout=10)
            with transaction.atomic():
                record_match_result(Game.objects.select_related("table").get(pk=game_id))
        except Exception as exc:  # reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(g,)) for g in (game.pk, game.pk, other.pk)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert RatingChange.objects.filter(game=game).count() == 4
    assert RatingChange.objects.filter(game=other).count() == 4
    for user in people:
        rating = PlayerRating.objects.get(user=user, mode="4p")
        assert rating.games == 2  # each match counted once
        changes = list(RatingChange.objects.filter(user=user).order_by("id").values_list("before", "after"))
        assert changes[0][0] == 1500.0 and changes[0][1] == pytest.approx(changes[1][0])
        assert rating.rating == pytest.approx(changes[1][1])
