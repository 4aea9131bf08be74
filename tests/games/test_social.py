"""Friends, blocking and the bell (issue 14 items 4 and 8), through the services and selectors on
the real database (and Redis for who is online): every refusal answered in Italian with nothing
changed, blocking felt by challenges, follows and the queue, and the bell's stored lines."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.engine import Ruleset
from games.live import clock, presence
from games.models import Block, Challenge, Follow, Notification, QueueEntry, Seat, Table
from games.selectors import notifications as bell_selectors
from games.selectors import social as social_selectors
from games.services.lobby import challenges, matchmaking, notifications, rematch, social
from games.services.table.seating import TableError, create_table
from tests.factories import finished_match
from tests.games.helpers import make_user, started_table

pytestmark = pytest.mark.django_db(transaction=True)


def refused(call, **kwargs) -> TableError:
    with pytest.raises(TableError) as info:
        call(**kwargs)
    return info.value


def rows():
    return {
        "follows": sorted(Follow.objects.values_list("follower__username", "followed__username")),
        "blocks": sorted(Block.objects.values_list("blocker__username", "blocked__username")),
        "challenges": sorted(Challenge.objects.values_list("challenger__username", "invitee__username", "status")),
    }


def test_following_and_its_refusals_change_nothing():
    anna, bruno = make_user("anna"), make_user("bruno")
    social.follow(user=anna, username="bruno")
    before = rows()
    assert before["follows"] == [("anna", "bruno")]

    cases = [
        (dict(user=anna, username="anna"), "self_follow", "Non puoi seguire te stesso: scegli un altro giocatore."),
        (dict(user=anna, username="bruno"), "already_following", "Segui già bruno."),
        (dict(user=anna, username="nessuno"), "no_player", "Questo giocatore non esiste."),
        (dict(user=anna, username=["bruno"]), "no_player", "Questo giocatore non esiste."),
    ]
    for kwargs, code, message in cases:
        error = refused(social.follow, **kwargs)
        assert (error.code, error.message) == (code, message)
        assert rows() == before
    error = refused(social.unfollow, user=bruno, username="anna")
    assert (error.code, error.message) == ("not_following", "Non segui anna.")
    assert rows() == before

    # The same refusal in English for an English reader.
    with translation.override("en"):
        assert refused(social.follow, user=anna, username="bruno").message == "You already follow bruno."

    social.unfollow(user=anna, username="bruno")
    assert rows()["follows"] == []


def test_blocking_ends_follows_withdraws_invitations_and_refuses_follow_and_challenge():
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    social.follow(user=anna, username="bruno")
    social.follow(user=bruno, username="anna")
    social.follow(user=carla, username="anna")
    challenges.send_challenge(challenger=bruno, username="anna", preset="classico")
    assert Notification.objects.filter(user=anna, kind="challenge", read_at__isnull=True).count() == 1

    social.block(user=anna, username="bruno")
    assert rows() == {
        "follows": [("carla", "anna")],
        "blocks": [("anna", "bruno")],
        "challenges": [("bruno", "anna", "cancelled")],
    }
    assert not Notification.objects.filter(user=anna, kind="challenge").exists()  # the withdrawn one is gone

    before = rows()
    checks = [
        (social.block, dict(user=anna, username="bruno"), "already_blocked", "Hai già bloccato bruno."),
        (social.block, dict(user=anna, username="anna"), "self_block", "Non puoi bloccare te stesso."),
        (social.follow, dict(user=bruno, username="anna"), "blocked",
         "Non puoi seguire anna: questo giocatore non lo permette."),
        (social.follow, dict(user=anna, username="bruno"), "you_block",
         "Hai bloccato bruno: sbloccalo prima di seguirlo."),
        (challenges.send_challenge, dict(challenger=bruno, username="anna", preset="classico"), "blocked",
         "Non puoi sfidare anna: questo giocatore non accetta tuoi inviti."),
        (challenges.send_challenge, dict(challenger=anna, username="bruno", preset="classico"), "you_block",
         "Hai bloccato bruno: sbloccalo prima di sfidarlo."),
        (challenges.send_challenge, dict(challenger=anna, username="anna", preset="classico"), "self_challenge",
         "Non puoi sfidare te stesso: scegli un altro giocatore."),
        (social.unblock, dict(user=bruno, username="anna"), "not_blocked", "Non hai bloccato anna."),
    ]
    for call, kwargs, code, message in checks:
        error = refused(call, **kwargs)
        assert (error.code, error.message) == (code, message), code
        assert rows() == before
    assert Notification.objects.count() == 0

    # Carla is not concerned: she may still challenge Anna.
    challenges.send_challenge(challenger=carla, username="anna", preset="classico")
    social.unblock(user=anna, username="bruno")
    challenges.send_challenge(challenger=bruno, username="anna", preset="classico")
    assert rows()["blocks"] == [] and rows()["follows"] == [("carla", "anna")]  # follows do not come back


def test_the_pages_say_each_refusal_and_change_nothing():
    anna, _bruno = make_user("anna"), make_user("bruno")
    client = Client()
    client.force_login(anna)
    profile = reverse("profile", args=["bruno"])
    page = client.get(profile).content.decode()
    assert 'id="follow-button"' in page and 'id="block-button"' in page

    answer = client.post(reverse("follow"), {"username": "bruno", "next": profile}, follow=True)
    assert answer.redirect_chain[-1][0] == profile
    assert "Ora segui bruno" in answer.content.decode() and 'id="unfollow-button"' in answer.content.decode()
    answer = client.post(reverse("follow"), {"username": "bruno", "next": profile}, follow=True)
    assert "Segui già bruno." in answer.content.decode()
    answer = client.post(reverse("follow"), {"username": "anna"}, follow=True)
    assert "Non puoi seguire te stesso" in answer.content.decode()
    assert Follow.objects.count() == 1

    client.post(reverse("block"), {"username": "bruno", "next": profile})
    answer = client.post(reverse("block"), {"username": "bruno", "next": profile}, follow=True)
    body = answer.content.decode()
    assert "Hai già bloccato bruno." in body and 'id="unblock-button"' in body and 'id="follow-button"' not in body
    assert Block.objects.count() == 1 and Follow.objects.count() == 0
    friends_page = client.get(reverse("friends")).content.decode()
    assert "Sblocca bruno" in friends_page and "Non segui ancora nessuno." in friends_page
    # Her own profile has neither button; a stranger's request is sent to log in.
    assert 'id="follow-button"' not in client.get(reverse("profile", args=["anna"])).content.decode()
    assert Client().post(reverse("follow"), {"username": "bruno"}).status_code == 302
    assert Follow.objects.count() == 0


def test_friends_shows_who_is_online_and_where_with_a_way_to_watch_or_join(monkeypatch):
    monkeypatch.setattr(presence, "LINGER_SECONDS", 0.3)
    anna, bruno, carla, dario, elena = (make_user(n) for n in ("anna", "bruno", "carla", "dario", "elena"))
    for name in ("bruno", "carla", "dario"):
        social.follow(user=anna, username=name)
    playing = started_table([bruno, elena])  # public, in play: watch
    waiting = create_table(creator=carla, ruleset=Ruleset.preset("classico", players=2))  # an open seat: join
    private = create_table(creator=dario, ruleset=Ruleset.preset("classico", players=2), private=True)
    presence.user_connected(bruno.pk, "sock-b")
    presence.user_connected(dario.pk, "sock-d")
    try:
        friends = social_selectors.friends(anna)
    finally:
        presence.user_disconnected(bruno.pk, "sock-b")
        presence.user_disconnected(dario.pk, "sock-d")
    assert [(f["username"], f["online"]) for f in friends] == [("bruno", True), ("dario", True), ("carla", False)]
    tables = {f["username"]: f["tables"] for f in friends}
    assert tables["bruno"] == [{"id": playing.pk, "status": "playing", "private": False, "players": 2,
                                "free_seats": 0, "action": "watch", "url": f"/tavolo/{playing.pk}/"}]
    assert (tables["carla"][0]["id"], tables["carla"][0]["action"], tables["carla"][0]["free_seats"]) == (
        waiting.pk, "join", 1)
    assert private.pk and tables["dario"] == [{"id": None, "status": "waiting", "private": True, "players": 2,
                                "free_seats": 1, "action": None, "url": None}]  # no way into a private table
    # A closed page lingers a moment (the next page is about to open), then its person is gone.
    assert presence.online_users([bruno.pk, dario.pk]) == {bruno.pk, dario.pk}
    time.sleep(presence.LINGER_SECONDS + 0.1)
    assert presence.online_users([bruno.pk, dario.pk]) == set()

    # The page draws the same.
    client = Client()
    client.force_login(anna)
    page = client.get(reverse("friends")).content.decode()
    assert f'href="/tavolo/{playing.pk}/">Guarda' in page and f'href="/tavolo/{waiting.pk}/">Siediti' in page
    assert "a un tavolo privato" in page


def test_two_people_where_one_blocks_the_other_are_not_matched_in_the_queue():
    anna, bruno, carla = make_user("anna"), make_user("bruno"), make_user("carla")
    social.block(user=anna, username="bruno")
    matchmaking.join_queue(user=anna, mode="2p", preset="classico")
    matchmaking.join_queue(user=bruno, mode="2p", preset="classico")
    matchmaking.run_matcher()
    assert QueueEntry.objects.filter(status="waiting").count() == 2 and not Table.objects.exists()

    matchmaking.join_queue(user=carla, mode="2p", preset="classico")
    matchmaking.run_matcher()
    table = Table.objects.get()
    seated = set(Seat.objects.filter(table=table).values_list("user__username", flat=True))
    assert "carla" in seated and seated != {"anna", "bruno"} and len(seated) == 2
    assert QueueEntry.objects.filter(status="waiting").count() == 1


def test_the_bell_keeps_invitations_rematch_offers_and_turns_until_read():
    anna, bruno = make_user("anna"), make_user("bruno")
    challenge = challenges.send_challenge(challenger=anna, username="bruno", preset="mano_unica")
    bell = bell_selectors.bell(bruno)
    assert bell["unread"] == 1
    assert bell["items"][0]["text"] == "anna ti sfida a una partita (Mano unica)."
    assert bell["items"][0]["url"] == "/gioca/#invitations"
    challenges.decline_challenge(user=bruno, challenge_id=challenge.pk)
    assert bell_selectors.bell(bruno)["unread"] == 0  # answered: read
    # One left unanswered past its time is no longer counted, and says so.
    Challenge.objects.filter(pk=challenges.send_challenge(challenger=anna, username="bruno", preset="mano_unica").pk
                             ).update(expires_at=clock.now() - timedelta(seconds=1))
    bell = bell_selectors.bell(bruno)
    assert bell["unread"] == 0 and bell["items"][0]["unread"] is True
    assert bell["items"][0]["text"] == "anna ti aveva sfidato a una partita (Mano unica): l'invito è scaduto."
    Notification.objects.filter(challenge__expires_at__lte=clock.now()).delete()

    # "Your turn": one unread line per table, refreshed, not repeated.
    table = started_table([anna, bruno])
    notifications.your_turn(table_id=table.pk, user_id=bruno.pk)
    notifications.your_turn(table_id=table.pk, user_id=bruno.pk)
    turns = Notification.objects.filter(user=bruno, kind="turn")
    assert turns.count() == 1 and turns.get().read_at is None
    assert bell_selectors.bell(bruno)["items"][0]["text"] == f"Tocca a te al tavolo {table.pk}."
    with translation.override("en"):
        assert bell_selectors.bell(bruno)["items"][0]["text"] == f"Your turn at table {table.pk}."
    # Opening that table's page is seeing it: the line is read.
    client = Client()
    client.force_login(bruno)
    assert client.get(reverse("table", args=[table.pk])).status_code == 200
    assert bell_selectors.bell(bruno)["unread"] == 0 and turns.get().read_at is not None
    notifications.your_turn(table_id=table.pk, user_id=bruno.pk)  # a later turn there rings again
    assert bell_selectors.bell(bruno)["unread"] == 1 and turns.filter(read_at__isnull=True).count() == 1

    # A rematch offer reaches who is not looking at the finished table.
    game = finished_match([anna, bruno])
    rematch.offer_rematch(table_id=game.table_id, user=anna)
    offer = Notification.objects.get(user=bruno, kind="rematch")
    assert offer.actor == anna and offer.table_id == game.table_id
    assert not Notification.objects.filter(user=anna, kind="rematch").exists()
    assert bell_selectors.bell(bruno)["unread"] == 2

    assert notifications.mark_read(user=bruno) == 2
    assert bell_selectors.bell(bruno)["unread"] == 0 and len(bell_selectors.bell(bruno)["items"]) == 4
    assert notifications.mark_read(user=bruno) == 0

    rematch.offer_rematch(table_id=game.table_id, user=bruno)  # both said yes: a new table
    assert not Notification.objects.filter(kind="rematch", read_at__isnull=True).exists()


def test_the_friends_list_and_the_bell_cost_the_same_few_queries_for_many_friends():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    anna = make_user("anna")
    counts = []
    for batch in (range(2), range(2, 14)):
        for i in batch:
            friend = make_user(f"amico{i}")
            social.follow(user=anna, username=friend.username)
            started_table([friend, make_user(f"rivale{i}")])
            challenges.send_challenge(challenger=friend, username="anna", preset="classico")
        with CaptureQueriesContext(connection) as friends_queries:
            assert len(social_selectors.friends(anna)) == len(batch) + (2 if len(batch) > 2 else 0)
        with CaptureQueriesContext(connection) as bell_queries:
            bell_selectors.bell(anna)
        counts.append((len(friends_queries), len(bell_queries)))
    assert counts[0] == counts[1] == (4, 2), counts
