"""A client seed sent with `hello` (docs/protocol.md, docs/fairness.md): kept on the player's seat
for the next deal, a bad one refused with an error frame, a spectator's ignored; the snapshot
shows the hand's commitment and never its seed."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from games.models import Hand, Seat
from tests.games.helpers import make_user
from tests.games.test_consumers import app, connect, hello, quiet_turns, receive_type, two_player_game  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def seeds_and_hand(table_id: int) -> tuple[list[str], Hand]:
    seeds = list(Seat.objects.filter(table_id=table_id).order_by("position").values_list("client_seed", flat=True))
    return seeds, Hand.objects.get(game__table_id=table_id, number=1)


async def settled(comm) -> None:
    """The socket's earlier frames are handled (one at a time, in order): the seed is kept after
    the answer to `hello` is sent, so a `pong` marks the end of that handler."""
    await comm.send_json_to({"type": "ping"})
    await receive_type(comm, "pong")


async def test_hello_carries_a_client_seed_for_the_next_deal(app):  # noqa: F811
    anna, _bruno, game = await two_player_game(target=2005)
    carla = await database_sync_to_async(make_user)("carla")
    comm, _ = await connect(app, game.table_id, anna)
    await comm.send_json_to({"type": "hello", "last_version": None, "client_seed": "anna-7"})
    snap = await receive_type(comm, "snapshot")
    await settled(comm)
    seeds, hand = await seeds_and_hand(game.table_id)
    assert seeds == ["anna-7", ""]
    assert snap["view"]["commitment"] == hand.deal["commitment"]["hash"]
    assert hand.seed not in json.dumps(snap)

    await comm.send_json_to({"type": "hello", "last_version": 0, "client_seed": "due parole"})
    error = await receive_type(comm, "error")
    assert error["code"] == "bad_client_seed"
    spy, _ = await connect(app, game.table_id, carla)
    await spy.send_json_to({"type": "hello", "last_version": None, "client_seed": "spia"})
    await receive_type(spy, "snapshot")
    await settled(spy)
    assert (await seeds_and_hand(game.table_id))[0] == ["anna-7", ""]
    assert (await hello(comm))["seat"] == 0  # the socket works on after the refusal
    await comm.disconnect()
    await spy.disconnect()
