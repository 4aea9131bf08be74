"""Pairs queued together ("Gioca con persone" with a partner): one invites, the other accepts on
their lobby page, and the ready pair meets another ready pair or two singles, sitting as
partners. Real lobby sockets (Channels' communicator on the site's ASGI application, PostgreSQL
and Redis), as in test_matchmaking."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from games.live import clock
from games.models import QueueEntry, Table
from games.services.lobby import matchmaking
from games.services.lobby.matchmaking import PAIR_INVITE_SECONDS
from tests.games.helpers import make_user, started_table
from tests.games.test_matchmaking import (  # noqa: F401 - app is a fixture
    app,
    lobby,
    people,
    queue_rows,
    receive,
    receive_type,
    seated,
)

pytestmark = pytest.mark.django_db(transaction=True)

JOIN = {"type": "queue_join", "mode": "4p", "preset": "classico"}


async def opened(app, user):  # noqa: F811 - the fixture's value
    sock = await lobby(app, user)
    assert (await receive(sock))["type"] == "queue"
    return sock


async def form_pair(inviter_sock, invitee_sock, inviter: str, invitee: str) -> None:
    """`inviter` queues naming `invitee`, who gets the invitation and accepts it."""
    await inviter_sock.send_json_to({**JOIN, "partner": invitee})
    waiting = await receive_type(inviter_sock, "queue")
    assert (waiting["status"], waiting["partner"], waiting["partner_ready"]) == ("waiting", invitee, False)
    invite = await receive_type(invitee_sock, "pair_invite")
    assert (invite["status"], invite["from"], invite["to"], invite["preset"]) == ("pending", inviter, invitee,
                                                                                 "classico")
    await invitee_sock.send_json_to({**JOIN, "partner": inviter})
    for sock, mate in ((invitee_sock, inviter), (inviter_sock, invitee)):
        ready = await receive_type(sock, "queue")
        assert (ready["status"], ready["partner"], ready["partner_ready"]) == ("waiting", mate, True)


async def test_a_ready_pair_meets_another_ready_pair_and_partners_sit_together(app):  # noqa: F811
    # As four singles the matcher would seat the weakest with the strongest (dario with anna).
    ratings = {"anna": 1560, "bruno": 1540, "carla": 1500, "dario": 1460}
    users = await people(*ratings, ratings=ratings, mode="4p")
    a, b, c, d = [await opened(app, user) for user in users]
    await form_pair(a, b, "anna", "bruno")
    assert await database_sync_to_async(Table.objects.count)() == 0  # a pair alone is no table
    await form_pair(c, d, "carla", "dario")
    frames = [await receive_type(sock, "matched") for sock in (a, b, c, d)]

    assert len({f["table"] for f in frames}) == 1 and frames[0]["players"] == 4 and frames[0]["rated"]
    names = await seated(frames[0]["table"])
    assert {names[0], names[2]} in ({"anna", "bruno"}, {"carla", "dario"})
    assert {names[1], names[3]} in ({"anna", "bruno"}, {"carla", "dario"})
    assert [s["username"] for s in frames[0]["seats"]] == names
    assert {r["status"] for r in await queue_rows()} == {"matched"}
    for sock in (a, b, c, d):
        await sock.disconnect()


async def test_a_ready_pair_meets_two_singles(app):  # noqa: F811
    users = await people("anna", "bruno", "carla", "dario")
    a, b, c, d = [await opened(app, user) for user in users]
    await c.send_json_to(JOIN)
    await d.send_json_to(JOIN)
    assert (await receive_type(c, "queue"))["partner"] is None
    await receive_type(d, "queue")
    assert await database_sync_to_async(Table.objects.count)() == 0  # two singles are no table
    await form_pair(a, b, "anna", "bruno")
    frames = [await receive_type(sock, "matched") for sock in (a, b, c, d)]

    assert len({f["table"] for f in frames}) == 1
    names = await seated(frames[0]["table"])
    assert names[0::2] == ["anna", "bruno"] and set(names[1::2]) == {"carla", "dario"}
    for sock in (a, b, c, d):
        await sock.disconnect()


async def test_an_invitation_waits_on_the_partners_page_and_a_no_ends_it(app):  # noqa: F811
    anna, bruno = await people("anna", "bruno")
    a = await opened(app, anna)
    await a.send_json_to({**JOIN, "partner": "bruno"})
    await receive_type(a, "queue")
    b = await lobby(app, bruno)  # Bruno opens the lobby later: the invitation is there
    assert (await receive(b))["status"] == "idle"
    assert (await receive(b))["type"] == "pair_invite"
    await b.send_json_to({"type": "pair_decline", "from": "anna", "ref": "pair"})
    told = await receive_type(a, "queue")
    assert told == {"type": "queue", "status": "idle", "reason": "partner_declined"}
    assert (await receive_type(b, "pair_invite"))["status"] == "declined"
    assert await queue_rows() == []
    await b.send_json_to({"type": "pair_decline", "from": "anna", "ref": "pair"})  # once more
    error = await receive_type(b, "error")
    assert (error["code"], error["ref"]) == ("no_invitation", "pair")

    # A pair that formed leaves together: Anna cancels, Bruno's search ends too, and he hears why.
    await asyncio.sleep(0.3)
    await form_pair(a, b, "anna", "bruno")
    await a.send_json_to({"type": "queue_leave"})
    assert (await receive_type(a, "queue"))["reason"] == "cancelled"
    assert (await receive_type(b, "queue")) == {"type": "queue", "status": "idle", "reason": "partner_left"}
    assert await queue_rows() == []
    for sock in (a, b):
        await sock.disconnect()


async def test_bad_pairs_are_refused_clearly_and_change_nothing(app):  # noqa: F811
    anna, bruno, carla, dario, elena = await people("anna", "bruno", "carla", "dario", "elena")
    c = await opened(app, carla)
    await c.send_json_to({"type": "queue_join", "mode": "2p", "preset": "classico"})  # Carla queues alone
    await receive_type(c, "queue")
    await database_sync_to_async(started_table)([dario, elena])  # Dario and Elena play a match
    a = await opened(app, anna)
    before = await queue_rows()

    refusals = [
        ("self_partner", {**JOIN, "partner": "anna"}, "Non puoi fare coppia con te stesso: scegli un altro giocatore."),
        ("partner_pairs_only", {"type": "queue_join", "mode": "2p", "preset": "classico", "partner": "bruno"},
         "Si gioca in coppia con un compagno solo nella modalità a coppie."),
        ("no_player", {**JOIN, "partner": "nessuno"}, "Questo giocatore non esiste."),
        ("partner_queued", {**JOIN, "partner": "carla"},
         "carla è già in coda per un'altra partita: potrete fare coppia quando avrà finito la ricerca."),
        ("partner_playing", {**JOIN, "partner": "dario"}, None),
        ("bad_frame", {**JOIN, "partner": 7}, "Messaggio non valido."),
    ]
    for ref, (code, frame, message) in enumerate(refusals):
        await asyncio.sleep(0.25)  # within the rate limit
        await a.send_json_to({**frame, "ref": ref})
        error = await receive_type(a, "error")
        assert (error["code"], error["ref"]) == (code, ref), error
        assert error["message"] == message if message else error["message"].startswith("dario sta giocando al tavolo")
    assert await queue_rows() == before and await database_sync_to_async(Table.objects.count)() == 1

    # Seated at a table in play, Dario may not queue (in English for him).
    def english():
        dario.language = "en"
        dario.save(update_fields=["language"])

    await database_sync_to_async(english)()
    d = await opened(app, dario)
    await d.send_json_to({**JOIN, "ref": "q"})
    error = await receive_type(d, "error")
    table = await database_sync_to_async(Table.objects.get)()
    assert error["code"] == "playing_elsewhere"
    assert error["message"] == (f"You are playing at table {table.pk}: finish or abandon that match before "
                                "looking for another.")
    # Queueing twice, pair or not: refused, the one entry untouched.
    await c.send_json_to({**JOIN, "partner": "anna", "ref": "again"})
    assert (await receive_type(c, "error"))["code"] == "already_queued"
    assert await queue_rows() == before
    assert not await database_sync_to_async(QueueEntry.objects.filter(partner__isnull=False).exists)()
    for sock in (a, c, d):
        await sock.disconnect()


# ----------------------------------------------------------------------------- the matcher's side


def test_an_unanswered_invitation_lapses_and_a_pair_whose_page_closed_leaves_together():
    anna, bruno, carla, dario = (make_user(n) for n in ("anna", "bruno", "carla", "dario"))
    t0 = clock.now()
    matchmaking.join_queue(user=anna, mode="4p", preset="classico", partner="bruno", now=t0, match_now=False)
    # Carla and Dario queue alone: with Anna's invitation unanswered there is no table of four.
    for user in (carla, dario):
        matchmaking.join_queue(user=user, mode="4p", preset="classico", now=t0, match_now=False)
    later = t0 + timedelta(seconds=PAIR_INVITE_SECONDS)
    matchmaking.heartbeat([anna.pk, carla.pk, dario.pk], later)
    assert matchmaking.run_matcher(t0 + timedelta(seconds=PAIR_INVITE_SECONDS - 1))["tables"] == 0
    done = matchmaking.run_matcher(later)
    assert done["dropped"] == 1 and done["tables"] == 0
    assert sorted(QueueEntry.objects.values_list("user__username", flat=True)) == ["carla", "dario"]

    # A ready pair: Bruno's page closes past the grace, so Anna's entry goes with his.
    t1 = clock.now()
    matchmaking.join_queue(user=anna, mode="4p", preset="classico", partner="bruno", now=t1, match_now=False)
    matchmaking.join_queue(user=bruno, mode="4p", preset="classico", partner="anna", now=t1, match_now=False)
    matchmaking.socket_closed(bruno.pk, t1)
    gone = t1 + timedelta(seconds=settings.QUEUE_LEAVE_GRACE_SECONDS + 1)
    matchmaking.heartbeat([anna.pk, carla.pk, dario.pk], gone)
    done = matchmaking.run_matcher(gone)
    assert done["dropped"] == 2 and done["tables"] == 0  # Bruno, and Anna with him
    assert sorted(QueueEntry.objects.values_list("user__username", flat=True)) == ["carla", "dario"]


def test_joining_otherwise_says_no_to_the_other_invitations():
    anna, bruno, carla = (make_user(n) for n in ("anna", "bruno", "carla"))
    t0 = clock.now()
    matchmaking.join_queue(user=anna, mode="4p", preset="classico", partner="carla", now=t0, match_now=False)
    matchmaking.join_queue(user=bruno, mode="4p", preset="classico", partner="carla", now=t0, match_now=False)
    matchmaking.join_queue(user=carla, mode="4p", preset="classico", partner="anna", now=t0, match_now=False)
    rows = dict(QueueEntry.objects.values_list("user__username", "partner__username"))
    assert rows == {"anna": "carla", "carla": "anna"}  # Bruno's invitation went: Carla chose Anna


def test_a_blocked_person_is_kept_from_a_pair_and_from_a_table_of_singles():
    """The matcher's grouping with blocks (no database: the entries are only what it reads):
    the blocker's pair takes the two singles it may play with, not the nearer one it blocked,
    and four singles make no table while one of them blocks another."""
    now = clock.now()

    def entry(pk, user, rating, partner=None):
        return QueueEntry(id=pk, user_id=user, partner_id=partner, rating=rating, joined_at=now, reliability=None)

    anna, bruno = entry(1, 101, 1500, partner=102), entry(2, 102, 1500, partner=101)
    carla, dario, elena = entry(3, 103, 1500), entry(4, 104, 1540), entry(5, 105, 1560)
    members = [anna, bruno, carla, dario, elena]
    free = matchmaking.table_groups(members, 4, now)
    assert [sorted(e.user_id for e in table) for table in free] == [[101, 102, 103, 104]]
    kept = matchmaking.table_groups(members, 4, now, {frozenset((101, 103))})
    assert [sorted(e.user_id for e in table) for table in kept] == [[101, 102, 104, 105]]
    singles = [carla, dario, elena, entry(6, 106, 1520)]
    assert len(matchmaking.table_groups(singles, 4, now)) == 1
    assert matchmaking.table_groups(singles, 4, now, {frozenset((104, 106))}) == []
