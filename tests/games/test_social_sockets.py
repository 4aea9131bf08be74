"""Friends and the bell over real lobby sockets (Channels' communicator against the site's ASGI
application, on PostgreSQL and Redis): the bell's own socket (`/ws/lobby/?only=me`), its frame
when an invitation comes and when it is read, "your turn" at a table the person is not looking
at, and the friends list with a friend coming online and going away."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.engine import Ruleset
from games.live import presence
from games.models import Game, Notification
from games.services.lobby import challenges, social
from games.services.table import turns
from games.services.table.seating import create_table, sit
from tests.games.helpers import make_user, started_table, ws_headers
from tests.games.test_consumers import connect, hello
from tests.games.test_matchmaking import TIMEOUT, app, lobby, people, receive, receive_type

__all__ = ["app"]  # the fixture, imported for these tests

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def quiet_turns(monkeypatch):
    # No timers or computer moves: these tests are about who hears what.
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: None)


async def bell_socket(app, user=None) -> WebsocketCommunicator:
    headers = await database_sync_to_async(ws_headers)(user)
    comm = WebsocketCommunicator(app, "/ws/lobby/?only=me", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    return comm


async def test_the_bell_socket_starts_with_the_bell_hears_an_invitation_and_goes_quiet_when_read(app):
    anna, bruno = await people("anna", "bruno")
    anonymous = await bell_socket(app)
    assert (await anonymous.receive_output(timeout=TIMEOUT))["code"] == 4401  # no bell without an account

    b1, b2 = await bell_socket(app, bruno), await bell_socket(app, bruno)  # two pages of his
    for comm in (b1, b2):
        first = await receive(comm)
        assert first == {"type": "bell", "unread": 0, "items": []}  # no public list on this socket

    await database_sync_to_async(challenges.send_challenge)(challenger=anna, username="bruno", preset="mano_unica")
    for comm in (b1, b2):
        bell = await receive_type(comm, "bell")
        assert bell["unread"] == 1
        assert [(i["kind"], i["text"], i["url"], i["unread"]) for i in bell["items"]] == [
            ("challenge", "anna ti sfida a una partita (Mano unica).", "/gioca/#invitations", True)]

    await b1.send_json_to({"type": "bell_read"})
    for comm in (b1, b2):  # both pages' bells go quiet
        bell = await receive_type(comm, "bell")
        assert bell["unread"] == 0 and bell["items"][0]["unread"] is False
    assert await database_sync_to_async(Notification.objects.filter(read_at__isnull=True).count)() == 0

    # An anonymous full lobby socket asking for friends or the bell is told why not.
    guest = await lobby(app)
    await guest.send_json_to({"type": "friends", "ref": 1})
    error = await receive_type(guest, "error")
    assert (error["code"], error["message"], error["ref"]) == (
        "login_required", "Per questo bisogna entrare con il proprio account.", 1)
    for comm in (b1, b2, guest):
        await comm.disconnect()


@database_sync_to_async
def game_of_two(first, second):
    table = started_table([first, second])
    return table, Game.objects.get(table=table)


async def play_turn(comm) -> None:
    """Draw from the stock, then discard the first card of the hand: the turn passes."""
    await comm.send_json_to({"type": "action", "action": {"type": "draw"}})
    drawn = await receive_type(comm, "event")
    await comm.send_json_to({"type": "action", "action": {"type": "discard", "card": drawn["view"]["hand"][0]}})
    assert (await receive_type(comm, "event"))["action"]["type"] == "discard"


async def test_your_turn_rings_only_for_a_player_not_looking_at_the_table(app):
    anna, bruno = await people("anna", "bruno")
    table, game = await game_of_two(anna, bruno)
    first = game.to_move
    mover, other = (anna, bruno) if first == 0 else (bruno, anna)
    mover_table, ok = await connect(app, table.pk, mover)
    assert ok
    await hello(mover_table)  # a socket is sent nothing before it (docs/protocol.md)
    other_bell = await bell_socket(app, other)
    assert (await receive(other_bell))["unread"] == 0

    await play_turn(mover_table)
    bell = await receive_type(other_bell, "bell")
    assert bell["unread"] == 1
    assert (bell["items"][0]["kind"], bell["items"][0]["text"], bell["items"][0]["url"]) == (
        "turn", f"Tocca a te al tavolo {table.pk}.", f"/tavolo/{table.pk}/")

    # Now the other player looks at the table and plays: the mover, who is there, gets no line.
    other_table, ok = await connect(app, table.pk, other)
    assert ok
    await hello(other_table)
    await play_turn(other_table)
    await play_turn(mover_table)  # back to the other, who is looking now
    await asyncio.sleep(0.3)
    rows = await database_sync_to_async(lambda: list(Notification.objects.values_list("user__username", "kind")))()
    assert rows == [(other.username, "turn")]  # one line, for the one who was away
    for comm in (mover_table, other_table, other_bell):
        await comm.disconnect()


async def test_friends_over_the_socket_with_a_friend_coming_online_and_leaving(app, monkeypatch):
    monkeypatch.setattr(presence, "LINGER_SECONDS", 0.5)  # a closed page lingers this long
    anna, bruno = await people("anna", "bruno")
    await database_sync_to_async(social.follow)(user=anna, username="bruno")
    table, _game = await game_of_two(bruno, await database_sync_to_async(make_user)("carla"))
    a = await bell_socket(app, anna)
    await receive(a)  # her bell
    await a.send_json_to({"type": "friends"})
    friends = await receive_type(a, "friends")
    assert friends["friends"] == [{"username": "bruno", "url": "/giocatori/bruno/", "online": False, "tables": [
        {"id": table.pk, "status": "playing", "private": False, "players": 2, "free_seats": 0, "action": "watch",
         "url": f"/tavolo/{table.pk}/"}]}]

    b = await lobby(app, bruno)  # the lobby page: online for those who follow him
    assert (await receive_type(a, "friends_changed")) == {"type": "friends_changed"}
    await a.send_json_to({"type": "friends"})
    friends = (await receive_type(a, "friends"))["friends"]
    assert friends[0]["online"] is True
    assert [(t["id"], t["action"], t["url"]) for t in friends[0]["tables"]] == [
        (table.pk, "watch", f"/tavolo/{table.pk}/")]

    # A second page of his is no news, nor is going from one page to the next (the closed one
    # lingers); closing them all is, once the linger is over.
    b2 = await bell_socket(app, bruno)
    await b.disconnect()
    b3 = await bell_socket(app, bruno)
    await b2.disconnect()
    await asyncio.sleep(0.8)
    assert await a.receive_nothing(timeout=0.3)  # no friends_changed for any of that
    assert await database_sync_to_async(presence.online_users)([bruno.pk]) == {bruno.pk}
    await b3.disconnect()
    assert await database_sync_to_async(presence.online_users)([bruno.pk]) == {bruno.pk}  # lingering
    assert (await receive_type(a, "friends_changed")) == {"type": "friends_changed"}
    await a.send_json_to({"type": "friends"})
    assert (await receive_type(a, "friends"))["friends"][0]["online"] is False
    assert await database_sync_to_async(presence.online_users)([bruno.pk]) == set()
    await a.disconnect()


async def test_a_friend_sitting_down_and_the_game_starting_are_pushed_to_followers(app):
    anna, bruno, carla = await people("anna", "bruno", "carla")
    await database_sync_to_async(social.follow)(user=anna, username="bruno")
    a, c = await bell_socket(app, anna), await bell_socket(app, carla)
    await receive(a), await receive(c)

    table = await database_sync_to_async(create_table)(creator=bruno, ruleset=Ruleset.preset("classico", players=2))
    assert (await receive_type(a, "friends_changed")) == {"type": "friends_changed"}
    await a.send_json_to({"type": "friends"})
    tables = (await receive_type(a, "friends"))["friends"][0]["tables"]
    assert [(t["id"], t["status"], t["action"], t["free_seats"]) for t in tables] == [(table.pk, "waiting", "join", 1)]

    await database_sync_to_async(sit)(table_id=table.pk, user=carla, position=1)  # the game starts
    assert (await receive_type(a, "friends_changed")) == {"type": "friends_changed"}
    await a.send_json_to({"type": "friends"})
    tables = (await receive_type(a, "friends"))["friends"][0]["tables"]
    assert [(t["id"], t["status"], t["action"]) for t in tables] == [(table.pk, "playing", "watch")]
    assert await c.receive_nothing(timeout=0.3)  # she follows nobody: no friends_changed for her
    await a.disconnect()
    await c.disconnect()
