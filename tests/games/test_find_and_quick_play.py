"""Finding people by name and quick play against the computer (issue 29 item 6): the search
finds any active player (no rated games needed), never oneself nor a deleted or inactive
account, the ones whose name starts with the text first, a page at a time; quick play takes the
variant and the level and remembers them for the next visit."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.selectors import search_players
from games.engine import Ruleset
from games.models import BotLevel, Challenge, Table
from games.services.errors import ServiceError
from games.services.table import seating
from tests.factories import make_user
from tests.games.helpers import logged_in

pytestmark = pytest.mark.django_db


def test_search_finds_any_active_player_by_part_of_the_name_prefix_first_any_case():
    me = make_user("marco")
    for name in ("Mariella", "anna_mar", "MARIO", "rosamaria", "bruno"):
        make_user(name)
    make_user("marisa", is_active=False)
    found = search_players(viewer=me, text="MAR")
    assert found.names == ["Mariella", "MARIO", "anna_mar", "rosamaria"]  # never "marco" himself
    assert not found.has_next and not found.has_previous and not found.too_short
    assert search_players(viewer=me, text="  UNO  ").names == ["bruno"]
    assert search_players(viewer=me, text="xyz").names == []
    short = search_players(viewer=me, text="m")
    assert short.too_short and short.names == []


def test_search_pages():
    me = make_user("zeta")
    for i in range(25):
        make_user(f"gioca{i:02d}")
    first = search_players(viewer=me, text="gioca", per_page=10)
    assert first.names == [f"gioca{i:02d}" for i in range(10)] and first.has_next and not first.has_previous
    third = search_players(viewer=me, text="gioca", page=3, per_page=10)
    assert third.names == [f"gioca{i:02d}" for i in range(20, 25)] and not third.has_next and third.has_previous


def test_friends_page_search_shows_new_players_with_follow_and_challenge_and_says_when_nothing_matches():
    anna, bruno = make_user("anna"), make_user("bruno_nuovo")
    client = logged_in(anna)
    page = client.get(reverse("friends"), {"q": "NUOVO"}).content.decode()
    assert 'data-key="bruno_nuovo"' in page and "Segui bruno_nuovo" in page and "Invita bruno_nuovo" in page
    page = client.get(reverse("friends"), {"q": "zzz"}).content.decode()
    assert "Nessun giocatore ha un nome che contiene «zzz»" in page
    page = client.get(reverse("friends"), {"q": "b"}).content.decode()
    assert "«b» è troppo corto: scrivi almeno 2 caratteri del nome." in page
    page = client.get(reverse("friends"), {"q": "anna"}).content.decode()
    assert "Nessun giocatore ha un nome che contiene «anna»" in page  # not oneself
    page = client.get(reverse("friends"), {"q": "bruno", "pagina": "x"}).content.decode()
    assert 'data-key="bruno_nuovo"' in page
    en = make_user("eve", language="en")
    page = logged_in(en).get(reverse("friends"), {"q": "qqq"}).content.decode()
    assert "No player has a name containing «qqq»" in page
    assert bruno.is_active


def test_quick_play_takes_the_variant_and_level_and_remembers_them():
    anna = make_user("anna")
    client = logged_in(anna)
    lobby = client.get(reverse("lobby")).content.decode()
    assert '<option value="mano_unica" selected>' in lobby and '<option value="medio" selected>' in lobby
    response = client.post(reverse("play_computer"), {"preset": "classico", "level": "esperto"})
    table = Table.objects.get()
    assert response["Location"] == reverse("table", args=[table.pk])
    assert table.preset == "classico" and table.options == Ruleset.preset("classico", players=2).to_dict()
    assert table.options["target"] == 2005
    assert list(table.seats.values_list("bot_level", flat=True)) == ["", "esperto"]
    anna.refresh_from_db()
    assert (anna.quick_preset, anna.quick_level) == ("classico", "esperto")
    lobby = client.get(reverse("lobby")).content.decode()
    assert '<option value="classico" selected>' in lobby and '<option value="esperto" selected>' in lobby


def test_quick_play_without_a_variant_uses_the_remembered_one_and_refuses_bad_choices():
    anna = make_user("anna", quick_preset="testa_a_testa")
    client = logged_in(anna)
    client.post(reverse("play_computer"), {"level": "principiante"})
    table = Table.objects.get()
    assert table.preset == "testa_a_testa" and table.options["target"] is None
    response = client.post(reverse("play_computer"), {"preset": "reale_vero", "level": "medio"}, follow=True)
    assert "Variante sconosciuta: scegli una delle varianti proposte." in response.content.decode()
    response = client.post(reverse("play_computer"), {"preset": "classico", "level": "campione"}, follow=True)
    assert "Livello del computer non valido." in response.content.decode() and Table.objects.count() == 1
    with pytest.raises(ServiceError) as exc:
        seating.play_against_computer(user=anna, level=BotLevel.MEDIO, preset="nessuna")
    assert exc.value.code == "bad_preset" and Table.objects.count() == 1
    anna.refresh_from_db()
    assert (anna.quick_preset, anna.quick_level) == ("testa_a_testa", "principiante")


def test_the_suggestions_endpoint_and_a_challenge_by_a_typed_name_in_any_case():
    anna, bruno = make_user("anna"), make_user("Bruno_Nuovo")
    client = logged_in(anna)
    assert client.get(reverse("player_search"), {"q": "nuo"}).json() == {"names": ["Bruno_Nuovo"], "more": False}
    assert client.get(reverse("player_search"), {"q": "ann"}).json() == {"names": [], "more": False}
    assert Client().get(reverse("player_search"), {"q": "nuo"}).status_code == 302  # log-in first
    lobby = client.get(reverse("lobby")).content.decode()
    assert 'id="challenge-name"' in lobby and 'data-player-search="/amici/cerca/"' in lobby
    response = client.post(reverse("challenge_send"), {"username": " bruno_nuovo ", "preset": "mano_unica"},
                           follow=True)
    assert "Invito mandato a Bruno_Nuovo" in response.content.decode()
    assert Challenge.objects.get().invitee == bruno
    response = client.post(reverse("challenge_send"), {"username": "nessuno", "preset": "mano_unica",
                                                       "next": "/gioca/"}, follow=True)
    assert "Questo giocatore non esiste." in response.content.decode() and Challenge.objects.count() == 1
