"""A NUL character anywhere a view could pass it to the database is refused with 400, never 500.

PostgreSQL text cannot hold NUL, so before the middleware these pages raised DataError there
(run with DATABASE_URL set to see it); SQLite accepted them, so the status code alone is checked
on both and the page must say what was wrong.
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_user

pytestmark = pytest.mark.django_db

MESSAGE = "contiene un carattere non ammesso"

GET_URLS = [
    "/classifiche/?q=%00",
    "/classifiche/?q=an%00na&modo=2p",
    "/classifiche/?giocatore=a%00b",
    "/classifiche/?modo=%00",
    "/giocatori/%00/",
    "/giocatori/an%00na/",
    "/storico/?giocatore=a%00b",
    "/storico/?preimpostazione=%00&giocatori=2",
    "/storico/?dal=2024-01-01%00",
    "/storico/?pagina=%00",
    "/storico/partita/1/?x=%00",
    "/gioca/?q=%00",
    "/tavolo/invito/ab%00cd/",
    "/account/accedi/?next=%00",
    "/account/registrati/?%00=1",
    "/regole/?sezione=%00",
    "/?%00",
]


@pytest.fixture
def anon() -> Client:
    return Client(raise_request_exception=False)


@pytest.mark.parametrize("url", GET_URLS)
def test_nul_in_path_or_query_is_refused_with_400(anon, url):
    response = anon.get(url)
    assert response.status_code == 400, url
    text = response.content.decode()
    assert MESSAGE in text
    assert "<html" in text  # a page, not a bare word


def test_nul_refused_for_a_logged_in_player_too(anon):
    anon.force_login(make_user("anna"))
    assert anon.get("/classifiche/?q=%00").status_code == 400
    assert anon.get("/tavolo/invito/%00/").status_code == 400


def test_the_same_pages_without_nul_still_work(anon):
    make_user("anna")
    assert anon.get("/classifiche/?q=an").status_code == 200
    assert anon.get("/classifiche/?giocatore=anna").status_code == 200
    assert anon.get("/giocatori/anna/").status_code == 200
    assert anon.get("/storico/?giocatore=anna").status_code == 200


def test_nul_in_a_form_post_changes_nothing(anon):
    from django.contrib.auth import get_user_model

    data = {"username": "mar\x00io", "email": "mario@example.it", "password1": "Scopa-Briscola-77",
            "password2": "Scopa-Briscola-77"}
    response = anon.post("/account/registrati/", data)
    assert response.status_code == 400
    assert MESSAGE in response.content.decode()
    response = anon.post("/account/accedi/", {"username": "an\x00na", "password": "x"})
    assert response.status_code == 400
    assert not get_user_model().objects.exists()


def test_nul_in_the_session_cookie_is_refused_not_looked_up(anon):
    # http.cookies decodes the octal escape \000 inside a quoted value, so the session key that
    # would reach the database holds a real NUL.
    anon.cookies.load('sessionid="abcdefgh\\000ijklmnop"')
    from django.conf import settings

    assert "\x00" in anon.cookies[settings.SESSION_COOKIE_NAME].value
    assert anon.get("/classifiche/").status_code == 400


def test_the_refusal_follows_the_visitors_language(anon):
    anon.cookies.load({"django_language": "en"})
    response = anon.get("/classifiche/?q=%00")
    assert response.status_code == 400
    assert "not allowed" in response.content.decode()
