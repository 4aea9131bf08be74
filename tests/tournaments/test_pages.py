"""Tournament pages over HTTP (list, page, registration forms, the profile, the rules page's
scale) and the lobby socket's `tournament_watch` with a live `tournament` frame."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games.engine import swiss
from games.models import Tournament, TournamentEntry
from games.services import tournaments
from tests.games.helpers import make_user, ws_headers
from tests.games.test_consumers import asgi_application


def client_for(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.mark.django_db
def test_list_page_registration_and_refusals(monkeypatch):
    from tests.games.helpers import capture

    capture(monkeypatch)
    ada, bea = make_user("ada"), make_user("bea")
    t = tournaments.create_tournament(name="Sit and go del martedì", kind="sitgo", capacity=4,
                                      description="Quattro posti, due turni.")
    page = Client().get("/tornei/")
    assert page.status_code == 200 and "Sit and go del martedì" in page.content.decode()
    detail = Client().get(f"/tornei/{t.pk}/").content.decode()
    assert "Quattro posti, due turni." in detail and "Accedi per iscriverti." in detail
    c = client_for(ada)
    answer = c.post(f"/tornei/{t.pk}/iscriviti/", follow=True).content.decode()
    assert "Iscrizione fatta" in answer and TournamentEntry.objects.filter(user=ada).count() == 1
    answer = c.post(f"/tornei/{t.pk}/iscriviti/", follow=True).content.decode()
    assert "Sei già iscritto a questo torneo." in answer and TournamentEntry.objects.count() == 1
    answer = client_for(bea).post(f"/tornei/{t.pk}/ritirati/", follow=True).content.decode()
    assert "Non sei iscritto a questo torneo." in answer
    answer = c.post(f"/tornei/{t.pk}/ritirati/", follow=True).content.decode()
    assert "Ti sei ritirato" in answer and TournamentEntry.objects.count() == 0
    # In English too.
    c.cookies["django_language"] = "en"
    ada.language = "en"
    ada.save()
    c.post(f"/tornei/{t.pk}/iscriviti/")
    answer = c.post(f"/tornei/{t.pk}/iscriviti/", follow=True).content.decode()
    assert "You are already registered for this tournament." in answer
    assert Client().get("/tornei/999/").status_code == 404
    assert Client().post(f"/tornei/{t.pk}/iscriviti/").status_code == 302  # to the login page
    assert TournamentEntry.objects.count() == 1


@pytest.mark.django_db
def test_rules_page_shows_the_scale_and_profile_the_past_events(monkeypatch):
    from tests.games.helpers import capture

    capture(monkeypatch)
    rules = Client().get("/regole/").content.decode()
    assert 'id="tornei"' in rules and 'id="tournament-scale"' in rules
    for _upper, points in swiss.SCALE[1:]:
        assert f"<td class=\"num\">{points}</td><td class=\"num\">{20 - points}</td>" in rules
    ada = make_user("ada")
    t = tournaments.create_tournament(name="Coppa di prova", kind="sitgo", capacity=4)
    TournamentEntry.objects.create(tournament=t, user=ada, rating=1500, registered_at=t.created_at, final_rank=2)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED, finished_at=t.created_at)
    profile = Client().get(f"/giocatori/{ada.username}/").content.decode()
    assert "Coppa di prova" in profile and "2° su 1" in profile


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_follows_a_tournament():
    t = await database_sync_to_async(tournaments.create_tournament)(name="Live", kind="sitgo", capacity=4)
    ada = await database_sync_to_async(make_user)("ada")
    headers = await database_sync_to_async(ws_headers)(ada)
    comm = WebsocketCommunicator(asgi_application(), "/ws/lobby/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    frames = []

    async def until(kind):
        while True:
            frame = json.loads(await comm.receive_from(timeout=5))
            frames.append(frame)
            if frame["type"] == kind:
                return frame

    await comm.send_to(text_data=json.dumps({"type": "tournament_watch", "id": "x"}))
    assert (await until("error"))["code"] == "no_tournament"
    await comm.send_to(text_data=json.dumps({"type": "tournament_watch", "id": t.pk}))
    first = await until("tournament")
    assert first["id"] == t.pk and first["entrants"] == 0
    await database_sync_to_async(tournaments.register)(tournament_id=t.pk, user=ada)
    live = await until("tournament")
    assert live["entrants"] == 1 and live["standings"][0]["name"] == "ada"
    await comm.disconnect()


@pytest.mark.django_db
def test_the_admin_shows_tournaments_read_only(admin_client, monkeypatch):
    from tests.games.helpers import capture

    capture(monkeypatch)
    t = tournaments.create_tournament(name="Admin", kind="sitgo", capacity=4)
    for i in range(4):
        tournaments.register(tournament_id=t.pk, user=make_user(f"adm{i}"))
    assert admin_client.get("/admin/games/tournament/").status_code == 200
    assert admin_client.get(f"/admin/games/tournament/{t.pk}/change/").status_code == 200
    assert admin_client.get("/admin/games/tournamentpairing/").status_code == 200
    assert admin_client.get("/admin/games/tournament/add/").status_code == 403
