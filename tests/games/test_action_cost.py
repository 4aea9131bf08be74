"""An action is cheap: on PostgreSQL a move that does not end the hand is one read and one write."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.live import sockets
from games.models import Game, Move
from games.services.table import turns
from games.services.table.play import apply_action
from tests.games.helpers import make_user, started_table

pytestmark = pytest.mark.django_db


def test_a_move_is_one_read_and_one_version_guarded_write(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("the one-read-one-write path is PostgreSQL's (SQLite takes the locked path)")
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: None)
    users = [make_user("anna"), make_user("bruno")]
    game = Game.objects.get(table=started_table(users))
    seat = game.to_move
    with CaptureQueriesContext(connection) as queries:
        applied = apply_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat],
                               expected_version=0)
    statements = [q["sql"] for q in queries.captured_queries]
    assert len(statements) == 2, statements
    assert statements[0].lstrip().startswith("SELECT") and "FOR UPDATE" not in statements[0]
    assert "UPDATE games_game" in statements[1] and "INSERT INTO games_move" in statements[1]
    assert applied.version == 1 and Move.objects.get(game=game).seq == 1
    # One frame per recipient, each seat's with its own view.
    for group, frame in applied.messages:
        if ".seat." in group:
            assert frame["view"]["seat"] == int(group.rsplit(".", 1)[1])
        else:
            assert "hand" not in frame["view"]


def _orm_snapshot(table_id: int, position: int) -> dict:
    """The snapshot as the ORM builds it (select_related and prefetch_related), to compare with."""
    from django.db.models import Prefetch

    from games.models import Seat, Table
    from games.selectors.tables import snapshot_frame

    table = (Table.objects.select_related("creator")
             .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("position")))
             .get(pk=table_id))
    return snapshot_frame(Game.objects.filter(table_id=table_id).first(), table, position)


def test_a_socket_opens_and_gets_its_snapshot_in_four_statements_with_the_orms_values():
    from games.selectors import tables as table_selectors

    users = [make_user("anna"), make_user("bruno")]
    table = started_table(users)
    with CaptureQueriesContext(connection) as queries:
        opened = sockets.open_socket(table.pk, users[1], {}, "test-socket", 5)
        frames = table_selectors.resync_frames(table.pk, opened["position"], None)
    assert len(queries.captured_queries) == 4, [q["sql"] for q in queries.captured_queries]
    assert opened["position"] == 1 and opened["game_id"] == Game.objects.get(table=table).pk
    [snapshot] = frames
    expected = _orm_snapshot(table.pk, 1)
    for frame in (snapshot, expected):
        frame.pop("server_time")
    assert snapshot == expected  # dates, booleans, JSON and names converted as the ORM does
    assert snapshot["view"]["seat"] == 1 and snapshot["table"]["seats"][0]["username"] == "anna"
