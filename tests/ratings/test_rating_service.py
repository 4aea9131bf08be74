"""ELO arithmetic and the exactly-once rule of games.services.history.ratings."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from games.models import Game, PlayerRating, RatingChange, Seat, Table
from games.services.history.ratings import expected_score, k_factor, record_match_result
from tests import factories

pytestmark = pytest.mark.django_db


def make_users(n: int, prefix: str = "p") -> list:
    return factories.make_users(n, prefix)


def finished_game(users, *, winner_side=0, rated=True, bot_seat=None, abandoned_by=None, covered=None) -> Game:
    """A finished match at a table seating `users` in order (seat i -> users[i])."""
    table = Table.objects.create(creator=users[0], players=len(users), rated=rated, status=Table.Status.FINISHED)
    for pos, user in enumerate(users):
        if pos == bot_seat:
            Seat.objects.create(table=table, position=pos, bot_level="medio")
        else:
            own, cov = (covered or {}).get(pos, (10, 0))
            Seat.objects.create(table=table, position=pos, user=user, own_moves=own, covered_moves=cov)
    return Game.objects.create(
        table=table, finished=True, winner_side=winner_side, abandoned_by=abandoned_by, result={"totals": [0, 0]}
    )


def rating(user, mode="2p") -> PlayerRating:
    return PlayerRating.objects.get(user=user, mode=mode)


def test_expected_score_formula():
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1700, 1500) == pytest.approx(1 / (1 + 10 ** (-200 / 400)))
    assert expected_score(1500, 1700) + expected_score(1700, 1500) == pytest.approx(1.0)


def test_k_factor_thresholds():
    assert [k_factor(g, 1500) for g in (0, 29, 30, 500)] == [40, 40, 20, 20]
    assert k_factor(5, 2399.9) == 40
    assert k_factor(5, 2400) == 10
    assert k_factor(100, 2450) == 10


def test_one_against_one_win_from_start():
    a, b = make_users(2)
    changes = record_match_result(finished_game([a, b], winner_side=0))
    assert len(changes) == 2
    assert rating(a).rating == pytest.approx(1520.0)  # 1500 + 40 * (1 - 0.5)
    assert rating(b).rating == pytest.approx(1480.0)
    ra = rating(a)
    assert (ra.games, ra.wins, ra.losses, ra.draws, ra.peak) == (1, 1, 0, 0, pytest.approx(1520.0))
    rb = rating(b)
    assert (rb.games, rb.wins, rb.losses, rb.peak) == (1, 0, 1, 1500.0)
    stored = {c.user_id: c for c in RatingChange.objects.all()}
    assert stored[a.pk].before == 1500.0 and stored[a.pk].after == pytest.approx(1520.0) and stored[a.pk].score == 1
    assert stored[b.pk].score == 0 and stored[b.pk].mode == "2p"


def test_unequal_ratings_and_k_change_at_thirty_games():
    a, b = make_users(2)
    PlayerRating.objects.create(user=a, mode="2p", rating=1600, peak=1600, games=29)
    PlayerRating.objects.create(user=b, mode="2p", rating=1400, peak=1500, games=30)
    record_match_result(finished_game([a, b], winner_side=1))  # the underdog wins
    e_a = 1 / (1 + 10 ** ((1400 - 1600) / 400))
    assert rating(a).rating == pytest.approx(1600 + 40 * (0 - e_a))  # 29 games before: still K 40
    assert rating(b).rating == pytest.approx(1400 + 20 * (1 - (1 - e_a)))  # 30 games: K 20
    assert rating(a).games == 30
    # Now a also has 30 games: the next match uses K 20.
    record_match_result(finished_game([a, b], winner_side=0))
    last = RatingChange.objects.filter(user=a).order_by("-id").first()
    e = expected_score(last.before, RatingChange.objects.filter(user=b).order_by("-id").first().before)
    assert last.after - last.before == pytest.approx(20 * (1 - e))


def test_k_ten_once_peak_reached_2400_and_peak_tracks_maximum():
    a, b = make_users(2)
    PlayerRating.objects.create(user=a, mode="2p", rating=2390, peak=2390, games=100)
    PlayerRating.objects.create(user=b, mode="2p", rating=2390, peak=2390, games=100)
    record_match_result(finished_game([a, b], winner_side=0))
    assert rating(a).rating == pytest.approx(2400.0)  # K 20: the peak was 2390 before the match
    assert rating(a).peak == pytest.approx(2400.0)
    record_match_result(finished_game([a, b], winner_side=1))  # a loses: now K 10 for a
    change_a = RatingChange.objects.filter(user=a).order_by("-id").first()
    change_b = RatingChange.objects.filter(user=b).order_by("-id").first()
    e = expected_score(change_a.before, change_b.before)
    assert change_a.before == pytest.approx(2400.0)
    assert change_a.after - change_a.before == pytest.approx(10 * (0 - e))
    assert change_b.after - change_b.before == pytest.approx(20 * (1 - (1 - e)))  # b's peak is 2390
    assert rating(a).peak == pytest.approx(2400.0)  # the peak stays though the rating fell
    assert rating(a).rating < 2400


def test_draw_moves_ratings_toward_each_other():
    a, b = make_users(2)
    PlayerRating.objects.create(user=a, mode="2p", rating=1700, peak=1700)
    record_match_result(finished_game([a, b], winner_side=None))
    e_a = expected_score(1700, 1500)
    assert rating(a).rating == pytest.approx(1700 + 40 * (0.5 - e_a))
    assert rating(b).rating == pytest.approx(1500 + 40 * (0.5 - (1 - e_a)))
    assert rating(a).draws == 1 and rating(b).draws == 1
    assert set(RatingChange.objects.values_list("score", flat=True)) == {0.5}


def test_pairs_use_side_mean_and_each_partners_own_k():
    a, b, c, d = make_users(4)  # seats 0,2 = side 0 (a, c); seats 1,3 = side 1 (b, d)
    PlayerRating.objects.create(user=a, mode="4p", rating=1600, peak=1600, games=50)  # K 20
    PlayerRating.objects.create(user=c, mode="4p", rating=1400, peak=1500, games=3)  # K 40
    PlayerRating.objects.create(user=b, mode="4p", rating=1550, peak=2400, games=200)  # K 10
    PlayerRating.objects.create(user=d, mode="4p", rating=1550, peak=1550, games=31)  # K 20
    record_match_result(finished_game([a, b, c, d], winner_side=1))
    e0 = expected_score(1500, 1550)  # side 0 mean 1500, side 1 mean 1550
    e1 = 1 - e0
    assert rating(a, "4p").rating == pytest.approx(1600 + 20 * (0 - e0))
    assert rating(c, "4p").rating == pytest.approx(1400 + 40 * (0 - e0))
    assert rating(b, "4p").rating == pytest.approx(1550 + 10 * (1 - e1))
    assert rating(d, "4p").rating == pytest.approx(1550 + 20 * (1 - e1))
    assert not PlayerRating.objects.filter(mode="2p").exists()  # modes are separate
    assert RatingChange.objects.filter(mode="4p").count() == 4


def test_abandoning_player_loses_even_if_covered_for_the_rest():
    a, b = make_users(2)
    # a walked out; the computer covered a's seat for most of the match; the record says side 0
    # "won" on points, but the one who abandons loses.
    game = finished_game([a, b], winner_side=0, abandoned_by=a, covered={0: (5, 40)})
    record_match_result(game)
    assert rating(a).rating == pytest.approx(1480.0)
    assert rating(b).rating == pytest.approx(1520.0)
    assert rating(a).losses == 1


def test_abandon_in_pairs_makes_the_whole_side_lose():
    a, b, c, d = make_users(4)
    record_match_result(finished_game([a, b, c, d], winner_side=0, abandoned_by=c))
    assert rating(a, "4p").rating == pytest.approx(1480.0)
    assert rating(c, "4p").rating == pytest.approx(1480.0)
    assert rating(b, "4p").rating == pytest.approx(1520.0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rated": False},
        {"bot_seat": 1},
        {"covered": {1: (10, 11)}},  # the computer played most of seat 1's moves
    ],
)
def test_unrated_matches_change_nothing(kwargs):
    a, b = make_users(2)
    assert record_match_result(finished_game([a, b], **kwargs)) == []
    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()


def test_covered_for_half_still_counts():
    a, b = make_users(2)
    assert len(record_match_result(finished_game([a, b], covered={1: (10, 10)}))) == 2


def test_unfinished_game_is_ignored():
    a, b = make_users(2)
    game = finished_game([a, b])
    game.finished = False
    assert record_match_result(game) == []
    assert not RatingChange.objects.exists()


def test_retried_finish_applies_exactly_once():
    a, b = make_users(2)
    game = finished_game([a, b], winner_side=0)
    with transaction.atomic():
        first = record_match_result(game)
    with transaction.atomic():
        again = record_match_result(Game.objects.get(pk=game.pk))
    assert {c.pk for c in again} == {c.pk for c in first}
    assert rating(a).rating == pytest.approx(1520.0) and rating(a).games == 1
    assert RatingChange.objects.count() == 2
    # The schema is the last guard: a second change for the same (user, game) is refused.
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingChange.objects.create(user=a, game=game, mode="2p", before=1, after=2, score=1)


@pytest.mark.parametrize(("players", "mode", "other"), [(2, "r2", "2p"), (4, "r4", "4p")])
def test_burraco_reale_is_rated_apart(players, mode, other):
    users = make_users(players)
    PlayerRating.objects.create(user=users[0], mode=other, rating=1800, peak=1800, games=40)
    game = finished_game(users, winner_side=0)
    Table.objects.filter(pk=game.table_id).update(preset="reale")
    game.table.refresh_from_db()
    record_match_result(game)
    assert rating(users[0], mode).rating == pytest.approx(1520.0)  # a fresh Reale rating, from 1500
    assert rating(users[0], other).rating == 1800 and rating(users[0], other).games == 40
    assert not PlayerRating.objects.filter(mode=other).exclude(user=users[0]).exists()
    assert set(RatingChange.objects.values_list("mode", flat=True)) == {mode}
