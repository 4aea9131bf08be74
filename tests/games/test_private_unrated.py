"""A private table is never rated: friends choosing their opponents could trade wins.

The table service refuses the pair (so does the lobby form, with the same words), and the rating
service ignores a private table even if a row says rated (made before the rule, or by hand)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.engine import Ruleset
from games.models import Game, PlayerRating, RatingChange, Seat, Table
from games.services.history.ratings import record_match_result
from games.services.table import seating
from games.services.table.seating import TableError
from tests.games.helpers import make_user

pytestmark = pytest.mark.django_db

MESSAGE = "Un tavolo privato non può essere valido per la classifica"
FORM = {
    "players": "2", "preset": "classico", "target": "505", "stock_exhausted": "end_at_two", "burraco_sets": "on",
    "draw_seconds": "30", "play_seconds": "60", "disconnect_grace_seconds": "45",
}


def test_service_refuses_a_rated_private_table_and_creates_nothing():
    anna = make_user("anna")
    with pytest.raises(TableError) as excinfo:
        seating.create_table(creator=anna, ruleset=Ruleset.preset("classico"), rated=True, private=True)
    assert excinfo.value.code == "private_unrated"
    assert MESSAGE in excinfo.value.message
    assert not Table.objects.exists() and not Seat.objects.exists()


def test_service_still_makes_rated_public_and_unrated_private_tables():
    anna = make_user("anna")
    rated = seating.create_table(creator=anna, ruleset=Ruleset.preset("classico"), rated=True)
    private = seating.create_table(creator=anna, ruleset=Ruleset.preset("classico"), private=True)
    assert (rated.rated, rated.private) == (True, False)
    assert (private.rated, private.private) == (False, True)


def test_lobby_form_refuses_the_pair_with_the_message_on_the_rated_box():
    anna = make_user("anna")
    client = Client()
    client.force_login(anna)
    response = client.post(reverse("table_create"), FORM | {"rated": "on", "private": "on"})
    assert response.status_code == 400
    form = response.context["form"]
    assert MESSAGE in form.errors["rated"][0]
    assert MESSAGE in response.content.decode()
    assert form.data["target"] == "505"  # nothing typed is lost
    assert not Table.objects.exists()


def test_lobby_form_refusal_in_english():
    anna = make_user("anna")
    anna.language = "en"
    anna.save(update_fields=["language"])
    client = Client()
    client.force_login(anna)
    response = client.post(reverse("table_create"), FORM | {"rated": "on", "private": "on"})
    assert response.status_code == 400
    assert "A private table cannot count for the leaderboards" in response.content.decode()


def test_rating_ignores_a_private_table_even_if_its_row_says_rated():
    anna, bruno = make_user("anna"), make_user("bruno")
    table = Table.objects.create(creator=anna, players=2, rated=True, private=True, status=Table.Status.FINISHED)
    Seat.objects.create(table=table, position=0, user=anna, own_moves=10)
    Seat.objects.create(table=table, position=1, user=bruno, own_moves=10)
    game = Game.objects.create(table=table, finished=True, winner_side=0, result={"totals": [0, 0]})
    assert record_match_result(game) == []
    assert not PlayerRating.objects.exists() and not RatingChange.objects.exists()
    # The same match at a public table does count (so the check above is the private rule).
    Table.objects.filter(pk=table.pk).update(private=False)
    game.refresh_from_db()
    assert len(record_match_result(game)) == 2


def test_rules_page_states_the_rule_in_both_languages(client):
    text = client.get(reverse("rules")).content.decode()
    assert "Un tavolo privato non vale mai per la classifica" in text
    client.cookies.load({"django_language": "en"})
    text = client.get(reverse("rules")).content.decode()
    assert "A private table never counts for the leaderboards" in text
