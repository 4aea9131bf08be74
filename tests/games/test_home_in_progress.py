"""The home page's "Le tue partite in corso" (issue 14 item 5): the signed-in person's tables
waiting or in play, with opponents, whose turn it is and the way back, in a fixed number of
queries however many there are."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.engine import Ruleset
from games.models import Game, Table
from games.services.table.seating import create_table
from tests.games.helpers import make_user, started_table

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_home_page_lists_the_games_in_progress_in_a_fixed_number_of_queries():
    anna, bruno, carla, dario = (make_user(n) for n in ("anna", "bruno", "carla", "dario"))
    a = signed_in(anna)
    a.get("/")  # the session and the user are read once before counting

    def counted() -> tuple[str, int]:
        with CaptureQueriesContext(connection) as queries:
            html = a.get("/").content.decode()
        return html, len(queries)

    duel = started_table([anna, bruno])
    _html, one = counted()
    pairs = started_table([carla, anna, dario, bruno])
    waiting = create_table(creator=anna, ruleset=Ruleset.preset("classico", players=2), private=True)
    finished = started_table([anna, carla])
    Table.objects.filter(pk=finished.pk).update(status=Table.Status.FINISHED)
    html, three = counted()
    assert three == one, f"{one} queries with one game, {three} with three"

    assert 'id="in-progress"' in html
    for table in (duel, pairs, waiting):
        assert f'href="/tavolo/{table.pk}/"' in html
    assert f'href="/tavolo/{finished.pk}/"' not in html
    duel_turn = Game.objects.get(table=duel).to_move
    duel_item = html.split(f'data-table-id="{duel.pk}"')[1].split("</li>")[0]
    assert "Contro: bruno" in duel_item
    assert ("Tocca a te" if duel_turn == 0 else "Tocca a bruno") in duel_item
    pairs_item = html.split(f'data-table-id="{pairs.pk}"')[1].split("</li>")[0]
    assert "Contro: carla, dario" in pairs_item and "in coppia con bruno" in pairs_item
    waiting_item = html.split(f'data-table-id="{waiting.pk}"')[1].split("</li>")[0]
    assert "posto libero" in waiting_item and "Si aspettano i giocatori" in waiting_item

    assert 'id="in-progress"' not in signed_in(make_user("elena")).get("/").content.decode()
    assert 'id="in-progress"' not in Client().get("/").content.decode()
