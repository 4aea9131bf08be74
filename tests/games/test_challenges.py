"""Challenges (issue 14 item 3): an invitation from the profile or the leaderboard, live on the
invitee's lobby socket, answered there; through real lobby sockets (Channels' communicator
against the site's ASGI application, on PostgreSQL and Redis) and the site's pages."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.live import clock
from games.models import Challenge, Game, PlayerRating, Table
from games.selectors.challenges import challenge_presets
from games.services.errors import ServiceError
from games.services.lobby import challenges
from tests.games.helpers import make_user
from tests.games.test_matchmaking import app, lobby, people, receive, receive_type, seated

__all__ = ["app"]  # the fixture, imported for these tests

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def challenge_rows():
    return list(Challenge.objects.order_by("id").values("challenger__username", "invitee__username", "preset",
                                                        "status", "table_id"))


@database_sync_to_async
def send(challenger, username, preset="classico", **kwargs):
    return challenges.send_challenge(challenger=challenger, username=username, preset=preset, **kwargs)


async def test_a_challenge_reaches_the_online_invitee_and_accepting_seats_both_at_one_unrated_table(app):
    anna, bruno = await people("anna", "bruno")
    a, b = await lobby(app, anna), await lobby(app, bruno)
    await receive(a), await receive(b)  # their queue states

    challenge = await send(anna, "bruno", "mano_unica")
    told = await receive_type(b, "challenge")
    assert (told["id"], told["status"], told["from"], told["to"], told["preset"]) == (
        challenge.pk, "pending", "anna", "bruno", "mano_unica")
    assert told["preset_label"] == "Mano unica" and 590 <= told["expires_in"] <= 600
    assert (await receive_type(a, "challenge"))["status"] == "pending"  # her own tabs see it sent

    await b.send_json_to({"type": "challenge_accept", "id": challenge.pk, "ref": "challenge"})
    found_b, found_a = await receive_type(b, "matched"), await receive_type(a, "matched")
    assert found_a == found_b and found_a["url"] == f"/tavolo/{found_a['table']}/"
    assert found_a["rated"] is False and found_a["computer"] is False and found_a["preset"] == "mano_unica"
    table = await database_sync_to_async(Table.objects.get)(pk=found_a["table"])
    assert table.status == Table.Status.PLAYING and table.private and not table.rated and table.players == 2
    assert await seated(table.pk) == ["anna", "bruno"]
    assert await database_sync_to_async(Game.objects.filter(table=table).exists)()
    assert await challenge_rows() == [
        {"challenger__username": "anna", "invitee__username": "bruno", "preset": "mano_unica",
         "status": "accepted", "table_id": table.pk}]

    # Accepting twice (another tab, a double click) makes no second table.
    await asyncio.sleep(0.2)
    await b.send_json_to({"type": "challenge_accept", "id": challenge.pk, "ref": "challenge"})
    error = await receive_type(b, "error")
    assert (error["code"], error["ref"]) == ("already_accepted", "challenge")
    assert error["message"] == "Questo invito è già stato accettato."
    assert await database_sync_to_async(Table.objects.count)() == 1
    await a.disconnect()
    await b.disconnect()


async def test_declining_tells_the_challenger_and_makes_no_table(app):
    anna, bruno = await people("anna", "bruno")
    a, b = await lobby(app, anna), await lobby(app, bruno)
    await receive(a), await receive(b)
    challenge = await send(anna, "bruno")
    await receive_type(b, "challenge")
    await receive_type(a, "challenge")

    await b.send_json_to({"type": "challenge_decline", "id": challenge.pk, "ref": "challenge"})
    heard = await receive_type(a, "challenge")
    assert (heard["id"], heard["status"], heard["to"]) == (challenge.pk, "declined", "bruno")
    assert (await receive_type(b, "challenge"))["status"] == "declined"  # his other tabs drop the notice
    assert [r["status"] for r in await challenge_rows()] == ["declined"]
    assert await database_sync_to_async(Table.objects.count)() == 0

    # Once declined, anna may ask again; she can also take it back, and bruno hears that.
    again = await send(anna, "bruno", "testa_a_testa")
    assert (await receive_type(b, "challenge"))["id"] == again.pk
    await receive_type(a, "challenge")
    await a.send_json_to({"type": "challenge_cancel", "id": again.pk, "ref": "challenge"})
    assert (await receive_type(b, "challenge"))["status"] == "cancelled"
    await a.disconnect()
    await b.disconnect()


async def test_every_refusal_is_answered_in_italian_or_english_and_changes_nothing(app):
    anna, bruno, carla = await people("anna", "bruno", "carla")
    live = await send(anna, "bruno")
    past = clock.now() - timedelta(seconds=settings.CHALLENGE_EXPIRE_SECONDS + 5)
    expired = await send(carla, "bruno", now=past)
    before = await challenge_rows()

    def refused(code, message, call):
        with pytest.raises(ServiceError) as caught:
            call()
        assert (caught.value.code, caught.value.message) == (code, message)

    cases = [
        ("self_challenge", "Non puoi sfidare te stesso: scegli un altro giocatore.",
         lambda: challenges.send_challenge(challenger=anna, username="anna", preset="classico")),
        ("already_challenged", "Hai già invitato bruno: aspetta la sua risposta o annulla l'invito.",
         lambda: challenges.send_challenge(challenger=anna, username="bruno", preset="mano_unica")),
        ("no_player", "Questo giocatore non esiste.",
         lambda: challenges.send_challenge(challenger=anna, username="nessuno", preset="classico")),
        ("bad_preset", "Variante sconosciuta: scegli una delle varianti proposte.",
         lambda: challenges.send_challenge(challenger=anna, username="carla", preset="scopa")),
        ("no_challenge", "Questo invito non esiste.",  # someone else's invitation
         lambda: challenges.accept_challenge(user=carla, challenge_id=live.pk)),
        ("no_challenge", "Questo invito non esiste.",  # the challenger cannot accept her own
         lambda: challenges.accept_challenge(user=anna, challenge_id=live.pk)),
    ]
    for code, message, call in cases:
        await database_sync_to_async(refused)(code, message, call)

    b = await lobby(app, bruno)
    await receive(b)
    await b.send_json_to({"type": "challenge_accept", "id": expired.pk, "ref": "challenge"})
    error = await receive_type(b, "error")
    assert (error["code"], error["message"]) == ("expired", "Questo invito è scaduto: chiedi una nuova sfida.")
    await asyncio.sleep(0.2)
    await b.send_json_to({"type": "challenge_accept", "id": "7", "ref": "challenge"})
    assert (await receive_type(b, "error"))["code"] == "no_challenge"
    await b.disconnect()
    assert await challenge_rows() == before
    assert await database_sync_to_async(Table.objects.count)() == 0

    # Carla reads English: the same refusal in her language, through her lobby socket.
    def english():
        carla.language = "en"
        carla.save(update_fields=["language"])

    await database_sync_to_async(english)()
    c = await lobby(app, carla)
    await receive(c)
    await c.send_json_to({"type": "challenge_decline", "id": live.pk, "ref": "challenge"})
    error = await receive_type(c, "error")
    assert (error["code"], error["message"]) == ("no_challenge", "This invitation does not exist.")
    stranger = await lobby(app)
    await stranger.send_json_to({"type": "challenge_accept", "id": live.pk, "ref": "challenge"})
    assert (await receive_type(stranger, "error"))["code"] == "login_required"
    await c.disconnect()
    await stranger.disconnect()
    assert await challenge_rows() == before and await database_sync_to_async(Table.objects.count)() == 0


# ----------------------------------------------------------------------------- the pages


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_sfida_from_the_profile_and_the_leaderboard_and_the_invitation_on_the_lobby_page():
    anna, bruno = make_user("anna"), make_user("bruno")
    a = signed_in(anna)
    profile = a.get(reverse("profile", args=["bruno"])).content.decode()
    assert 'data-challenge="bruno"' in profile
    # The presets for two come from the engine, all of them and only them.
    assert [p["value"] for p in challenge_presets()] == ["classico", "mano_unica", "testa_a_testa", "reale"]
    for preset in challenge_presets():
        assert f'<option value="{preset["value"]}">{preset["label"]}</option>' in profile
    assert 'data-challenge="anna"' not in a.get(reverse("profile", args=["anna"])).content.decode()  # not oneself

    PlayerRating.objects.create(user=bruno, mode="2p", rating=1600, games=12)
    board = a.get(reverse("leaderboards")).content.decode()
    assert 'data-challenge="bruno"' in board

    response = a.post(reverse("challenge_send"), {"username": "bruno", "preset": "testa_a_testa",
                                                  "next": "/giocatori/bruno/"})
    assert response.status_code == 302 and response["Location"] == reverse("lobby")
    challenge = Challenge.objects.get()
    assert (challenge.invitee, challenge.preset, challenge.status) == (bruno, "testa_a_testa", "pending")
    again = a.post(reverse("challenge_send"), {"username": "bruno", "preset": "classico", "next": "/giocatori/bruno/"},
                   follow=True)
    assert "Hai già invitato bruno" in again.content.decode() and Challenge.objects.count() == 1

    b = signed_in(bruno)
    page = b.get(reverse("lobby")).content.decode()
    assert f'data-challenge-id="{challenge.pk}"' in page and "anna ti sfida" in page
    assert "Hai sfidato bruno" in a.get(reverse("lobby")).content.decode()
    # Without the socket the list's form accepts and goes to the table.
    accepted = b.post(reverse("challenge_accept", args=[challenge.pk]))
    challenge.refresh_from_db()
    assert challenge.status == "accepted" and accepted["Location"] == reverse("table", args=[challenge.table_id])
    assert f'data-challenge-id="{challenge.pk}"' not in b.get(reverse("lobby")).content.decode()
