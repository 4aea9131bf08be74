"""An action is cheap: on PostgreSQL a move that does not end the hand is one read and one write."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game, Move
from games.services import turns
from games.services.play import apply_action
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
