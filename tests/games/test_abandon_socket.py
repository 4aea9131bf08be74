"""The `abandon` frame over the real table socket: the players and the spectators hear that the
match is over; a spectator's `abandon` is refused."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Game, Table
from tests.games.helpers import make_user

# `quiet_turns` is its autouse fixture, here too: no timers, this file is about the socket.
from tests.games.test_consumers import (  # noqa: F401
    asgi_application,
    connect,
    hello,
    quiet_turns,
    receive_type,
    two_player_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def reload(game: Game) -> Game:
    return Game.objects.select_related("table").get(pk=game.pk)


async def test_abandon_frame_ends_the_match_for_everyone_at_the_table():
    app = asgi_application()
    anna, bruno, game = await two_player_game()
    carlo = await database_sync_to_async(make_user)("carlo")
    sockets = {}
    for name, user in (("anna", anna), ("bruno", bruno), ("carlo", carlo)):
        comm, connected = await connect(app, game.table_id, user)
        assert connected
        await hello(comm)
        sockets[name] = comm
    try:
        # A spectator cannot give up the match for the players.
        await sockets["carlo"].send_json_to({"type": "abandon", "ref": "x1"})
        error = await receive_type(sockets["carlo"], "error")
        assert (error["code"], error["message"], error["ref"]) == (
            "not_seated", "Non sei seduto a questo tavolo.", "x1")
        assert not (await reload(game)).finished

        await sockets["bruno"].send_json_to({"type": "abandon"})
        for name, comm in sockets.items():
            over = await receive_type(comm, "match_over")
            assert over == {"type": "match_over", "version": 1, "hand_number": 1, "reason": "abandoned",
                            "abandoned_by": "bruno", "abandoned_seat": 1, "totals": [0, 0], "winner_side": 0,
                            "computer_for": []}
            snapshot = await receive_type(comm, "snapshot")
            assert snapshot["finished"] is True and snapshot["result"]["abandoned_by"] == "bruno"
            assert snapshot["seat"] == {"anna": 0, "bruno": 1, "carlo": None}[name]
            table = await receive_type(comm, "table")
            assert table["table"]["status"] == "finished"
        fresh = await reload(game)
        assert fresh.finished and fresh.abandoned_by_id == bruno.pk and fresh.winner_side == 0
        assert fresh.table.status == Table.Status.FINISHED

        # Asking again: the match is already over.
        await sockets["anna"].send_json_to({"type": "abandon", "ref": 7})
        error = await receive_type(sockets["anna"], "error")
        assert (error["code"], error["message"], error["ref"], error["version"]) == (
            "already_finished", "La partita è già finita.", 7, 1)
    finally:
        for comm in sockets.values():
            await comm.disconnect()
