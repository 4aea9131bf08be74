"""History list, game page and move log: filters, order, privacy, and no hidden card in progress."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, Hand, Move, Table
from games.selectors.history import HistoryFilters, history_page
from tests.factories import finished_match, make_user, make_users, match_in_progress

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return make_users(5, prefix="h")


def ids(page) -> list[int]:
    return [row.game.pk for row in page.rows]


def test_list_shows_finished_games_newest_first_and_never_games_in_progress(client, people):
    now = timezone.now()
    old = finished_match(people[:2], finished_at=now - timedelta(days=3))
    new = finished_match(people[2:4], finished_at=now - timedelta(hours=1))
    live = match_in_progress(people[:2], stop_after=25)
    page = history_page(HistoryFilters())
    assert ids(page) == [new.pk, old.pk]
    body = client.get("/storico/").content.decode()
    assert f'data-game="{new.pk}"' in body and f'data-game="{old.pk}"' in body
    assert f'data-game="{live.pk}"' not in body
    assert body.index(f'data-game="{new.pk}"') < body.index(f'data-game="{old.pk}"')


def test_filters_by_player_size_preset_and_date(client, people):
    now = timezone.now()
    a, b, c, d, e = people
    g1 = finished_match([a, b], preset="mano_unica", finished_at=now - timedelta(days=10))
    g2 = finished_match([a, b, c, d], preset="classico", target=505, finished_at=now - timedelta(days=5))
    g3 = finished_match([c, e], preset="testa_a_testa", finished_at=now - timedelta(days=1))
    assert ids(history_page(HistoryFilters(player="h0"))) == [g2.pk, g1.pk]
    assert ids(history_page(HistoryFilters(player="H4"))) == [g3.pk]  # case is forgiven
    assert ids(history_page(HistoryFilters(players=4))) == [g2.pk]
    assert ids(history_page(HistoryFilters(players=2))) == [g3.pk, g1.pk]
    assert ids(history_page(HistoryFilters(preset="testa_a_testa"))) == [g3.pk]
    day = timezone.localdate()
    assert ids(history_page(HistoryFilters(date_from=day - timedelta(days=6), date_to=day - timedelta(days=2)))) == [
        g2.pk]
    assert ids(history_page(HistoryFilters(player="h2", players=2))) == [g3.pk]
    # Through the page, with the form's Italian field names.
    body = client.get("/storico/", {"giocatore": "h0", "giocatori": "4"}).content.decode()
    assert f'data-game="{g2.pk}"' in body and f'data-game="{g1.pk}"' not in body


def test_bad_filter_input_gets_an_italian_message_and_keeps_the_rest(client, people):
    game = finished_match(people[:2])
    response = client.get("/storico/", {"dal": "ieri", "giocatori": "7", "giocatore": "h0"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Inserisci una data valida" in body or "data valida" in body
    assert f'data-game="{game.pk}"' in body  # the valid player filter still applies
    body = client.get("/storico/", {"giocatore": "nessuno-si-chiama-cosi"}).content.decode()
    assert 'id="player-missing"' in body
    body = client.get("/storico/", {"dal": "2026-05-02", "al": "2026-05-01"}).content.decode()
    assert "La data finale viene prima di quella iniziale." in body


def test_pagination_without_counting(people):
    now = timezone.now()
    games = [finished_match(people[:2], finished_at=now - timedelta(minutes=i)) for i in range(5)]
    first = history_page(HistoryFilters(), 1, per_page=2)
    second = history_page(HistoryFilters(), 2, per_page=2)
    third = history_page(HistoryFilters(), 3, per_page=2)
    assert ids(first) + ids(second) + ids(third) == [g.pk for g in games]
    assert first.has_next and second.has_next and not third.has_next
    assert not first.has_previous and third.has_previous


def test_list_query_count_does_not_grow_with_games(people):
    finished_match(people[:2])
    finished_match(people[:4], preset="classico", target=505)
    with CaptureQueriesContext(connection) as few:
        history_page(HistoryFilters(player="h0"))
    for _ in range(4):
        finished_match(people[:2])
    with CaptureQueriesContext(connection) as many:
        page = history_page(HistoryFilters(player="h0"))
    assert len(page.rows) == 6
    assert len(many) == len(few) <= 4  # player, their tables, the games, their seats


def test_private_games_only_for_their_players(client, people):
    game = finished_match(people[:2])
    Table.objects.filter(pk=game.table_id).update(private=True)
    stranger = make_user("curioso")
    assert ids(history_page(HistoryFilters())) == []
    assert ids(history_page(HistoryFilters(), viewer=stranger)) == []
    assert ids(history_page(HistoryFilters(), viewer=people[0])) == [game.pk]
    assert client.get(f"/storico/partita/{game.pk}/").status_code == 404
    client.force_login(people[1])
    assert client.get(f"/storico/partita/{game.pk}/").status_code == 200


def test_game_page_shows_players_sides_and_every_hands_breakdown(client, people):
    # A fixed seed: how many hands random play needs must not depend on the tests that ran before.
    game = finished_match(people[:4], preset="classico", target=2005, seed=3)
    hands = list(game.hands.order_by("number"))
    assert len(hands) >= 2  # a multi-hand match
    body = client.get(f"/storico/partita/{game.pk}/").content.decode()
    for user in people[:4]:
        assert user.username in body
    assert "h0 &amp; h2" in body and "h1 &amp; h3" in body  # partners face each other: sides 0/2 and 1/3
    for hand in hands:
        assert f'id="mano-{hand.number}"' in body
        for side in (0, 1):
            assert f'>{hand.score[side]["total"]}<' in body
    for label in ("Carte calate", "Burraco", "Chiusura", "Carte in mano", "Pozzetto", "Totale della mano"):
        assert label in body
    totals = game.result["totals"]
    assert f">{totals[0]}<" in body and f">{totals[1]}<" in body
    assert "Vince " in body


def test_move_log_json_is_the_complete_record(client, people):
    game = finished_match(people[:2], preset="classico", target=505)
    response = client.get(f"/storico/partita/{game.pk}/mosse.json")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    log = json.loads(response.content)
    assert log["result"] == game.result
    assert [s["player"] for s in log["seats"]] == ["h0", "h1"]
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    flat = [m for h in log["hands"] for m in h["moves"]]
    assert [m["seq"] for m in flat] == [m.seq for m in moves]
    assert [m["action"] for m in flat] == [m.action for m in moves]
    for entry, hand in zip(log["hands"], game.hands.order_by("number"), strict=True):
        assert entry["deal"] == hand.deal and entry["score"] == hand.score


def test_game_in_progress_shows_no_hidden_card_anywhere(client, people):
    game = match_in_progress(people[:2], stop_after=40, preset="classico", target=2005)
    hand = Hand.objects.get(game=game, number=game.hand_number)
    secret = set(hand.deal["hands"][0]) | set(hand.deal["stock"])
    client.force_login(people[2])
    page = client.get(f"/storico/partita/{game.pk}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="in-progress"' in body
    assert "pcard" not in body and "data-card" not in body and '"deal"' not in body
    assert 'id="json-link"' not in body and 'id="replay-link"' not in body
    moves = client.get(f"/storico/partita/{game.pk}/mosse.json")
    assert moves.status_code == 409
    assert set(json.loads(moves.content)) == {"error", "message"}
    replay = client.get(f"/storico/partita/{game.pk}/replay/")
    assert replay.status_code == 409
    replay_body = replay.content.decode()
    assert "replay-data" not in replay_body and "pcard" not in replay_body
    assert "ancora in corso" in replay_body
    # No card notation of the hidden deal in any of the three answers.
    for text in (body, replay_body, moves.content.decode()):
        assert not any(f'"{card}"' in text for card in secret)
    assert Game.objects.get(pk=game.pk).finished is False
