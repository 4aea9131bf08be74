"""Leaderboards (tabs, minimum games, provisional marks, pages, search) and the profile's ratings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import PlayerRating, RatingChange
from games.selectors.leaderboards import leaderboard_page, rank_of, search
from tests.factories import finished_match, make_users

pytestmark = pytest.mark.django_db


def board(n: int, mode: str = "2p", prefix: str = "b") -> list[PlayerRating]:
    """n players with distinct ratings; player i has rating 2000 - 7 i and 5 + 3 i games."""
    users = make_users(n, prefix=prefix)
    return PlayerRating.objects.bulk_create([
        PlayerRating(user=u, mode=mode, rating=2000 - 7 * i, peak=2000 - 7 * i, games=5 + 3 * i, wins=(5 + 3 * i) // 2,
                     losses=(5 + 3 * i) - (5 + 3 * i) // 2)
        for i, u in enumerate(users)
    ])


def test_board_lists_players_with_ten_games_best_first_with_ranks_and_provisional_marks(client):
    ratings = board(12)
    ranked = [r for r in ratings if r.games >= 10]  # players 2.. (games 11, 14, ...)
    page = leaderboard_page("2p", 1)
    assert [row.username for row in page.rows] == [r.user.username for r in ranked]
    assert [row.rank for row in page.rows] == list(range(1, len(ranked) + 1))
    assert page.rows[0].provisional and not page.rows[-1].provisional  # 11 games vs 38
    assert page.rows[0].win_percent == pytest.approx(100 * 5 / 11)
    body = client.get("/classifiche/").content.decode()
    assert 'data-user="b2" data-rank="1"' in body
    assert 'data-user="b0"' not in body and 'data-user="b1"' not in body  # fewer than 10 games
    assert body.count('class="provisional"') == sum(1 for r in ranked if r.games < 30)


def test_modes_are_separate_tabs(client):
    board(4, mode="4p", prefix="pair")
    assert leaderboard_page("2p").rows == []
    assert [r.username for r in leaderboard_page("4p").rows] == ["pair2", "pair3"]
    body = client.get("/classifiche/", {"modo": "4p"}).content.decode()
    assert 'data-user="pair2"' in body and 'data-user="pair1"' not in body
    assert 'data-mode="4p" aria-current="page"' in body
    assert 'id="board-empty"' in client.get("/classifiche/", {"modo": "2p"}).content.decode()


def test_pages_continue_the_ranks_with_a_constant_number_of_queries():
    board(30)
    with CaptureQueriesContext(connection) as first_queries:
        first = leaderboard_page("2p", 1, per_page=5)
    with CaptureQueriesContext(connection) as deep_queries:
        deep = leaderboard_page("2p", 6, per_page=5)
    assert first.total == 28 and first.pages == 6
    assert [r.rank for r in deep.rows] == [26, 27, 28]
    assert deep.rows[0].username == "b27"
    assert len(first_queries) == len(deep_queries) == 3
    assert leaderboard_page("2p", 99, per_page=5).number == 6  # past the end: the last page


def test_search_by_name_start_gives_true_ranks_in_two_queries(client):
    board(25)
    everyone = [row.username for row in leaderboard_page("2p", 1, per_page=100).rows]
    with CaptureQueriesContext(connection) as queries:
        found = search("2p", "B1")  # b1 (unranked), b10..b19
    assert len(queries) == 2
    assert [r.username for r in found] == [f"b{i}" for i in range(10, 20)]
    for row in found:
        assert row.rank == everyone.index(row.username) + 1
        assert row.rank == rank_of("2p", row.rating, row.user_id)
    body = client.get("/classifiche/", {"q": "b2"}).content.decode()
    assert 'id="search-results"' in body and 'data-user="b24"' in body
    assert 'id="no-results"' in client.get("/classifiche/", {"q": "zzz"}).content.decode()


def test_jump_to_a_player_shows_their_page_highlighted(client):
    board(70)
    body = client.get("/classifiche/", {"giocatore": "b60"}).content.decode()
    assert 'class="highlight"' in body and 'data-user="b60" data-rank="59"' in body
    assert "Pagina 2 di 2" in body
    body = client.get("/classifiche/", {"giocatore": "b0"}).content.decode()
    assert 'id="board-notice"' in body  # not enough games yet


def test_profile_shows_both_ratings_rank_record_chart_and_games(client):
    users = make_users(4, prefix="pro")
    now = timezone.now()
    for i in range(3):
        finished_match(users[:2], rated=True, finished_at=now - timedelta(days=3 - i))
    finished_match(users, rated=True, preset="classico", target=505)
    # Spread the changes in time as real play would.
    for i, change in enumerate(RatingChange.objects.filter(user=users[0]).order_by("id")):
        RatingChange.objects.filter(pk=change.pk).update(created_at=now - timedelta(days=10 - i))
    body = client.get("/giocatori/pro0/").content.decode()
    assert 'id="profile-ratings"' in body and 'data-mode="2p"' in body and 'data-mode="4p"' in body
    two = PlayerRating.objects.get(user=users[0], mode="2p")
    assert f"{two.rating:.0f}" in body
    assert "provvisorio" in body  # 3 games
    assert "3 partite:" in body
    assert "1 partita:" in body and "1 partite" not in body  # the one 4-player match
    assert '<svg id="rating-chart"' in body
    points = body.split('data-mode="2p"/>')[0].rsplit('points="', 1)[1].split('"')[0].split()
    assert len(points) == 3 + 1  # the start, then one point per rated match
    assert 'id="profile-games"' in body and body.count("data-game=") == 4


def test_profile_query_count_does_not_grow_with_history(client):
    users = make_users(2, prefix="q")
    finished_match(users, rated=True)
    with CaptureQueriesContext(connection) as few:
        client.get("/giocatori/q0/")
    for _ in range(5):
        finished_match(users, rated=True)
    PlayerRating.objects.filter(user=users[0]).update(games=40)  # now ranked as well
    with CaptureQueriesContext(connection) as many:
        client.get("/giocatori/q0/")
    assert len(many) <= len(few) + 1  # + the rank count once ranked
    # The player, ratings, rank, chart, recent games (and their seats), reliability (one
    # statement) and past tournaments: a fixed number, whatever the history.
    assert len(many) <= 9
