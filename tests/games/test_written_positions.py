"""The next action of a turn starts from the position this process wrote, and only when the row
is exactly as written: anybody else's write in between (even one that changed no version) sends
it back to the read, and the move is played on what the database holds."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.engine import Game as EngineGame
from games.models import Game, Move, Seat
from games.services.play import play
from games.services.play.play import apply_action
from tests.games.helpers import make_user, postgresql_without_timers, started_table

# Autocommit, as in the server: inside a test's transaction the kept positions are not used.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_and_quiet(monkeypatch):
    postgresql_without_timers(monkeypatch, "the kept positions belong to PostgreSQL's one-read-one-write path")


def _draw(game, users):
    seat = game.to_move
    applied = apply_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat])
    return seat, applied


def _a_natural(game_id: int, seat: int) -> str:
    hand = EngineGame.from_dict(Game.objects.get(pk=game_id).state).view(seat)["hand"]
    return next(c for c in hand if c[0] not in "2J")


def _statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries]


def test_the_discard_after_the_draw_is_one_statement():
    users = [make_user("anna"), make_user("bruno")]
    game = Game.objects.get(table=started_table(users))
    seat, drawn = _draw(game, users)
    card = _a_natural(game.pk, seat)
    with CaptureQueriesContext(connection) as queries:
        applied = apply_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": card},
                               user=users[seat], expected_version=drawn.version)
    statements = _statements(queries)
    assert len(statements) == 1, statements
    assert "UPDATE games_game" in statements[0] and "INSERT INTO games_move" in statements[0]
    assert applied.version == 2
    stored = EngineGame.from_dict(Game.objects.get(pk=game.pk).state)
    assert stored.to_move != seat and card in stored.view(seat)["discard"]
    assert list(Move.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)) == [1, 2]


def test_a_write_by_anybody_else_sends_the_next_action_back_to_the_read():
    users = [make_user("carla"), make_user("dario")]
    game = Game.objects.get(table=started_table(users))
    seat, drawn = _draw(game, users)
    # Another process changes the row without a new version (as a test or an operator setting a
    # position would): the kept position is no longer the row, so it must not be written back.
    row = Game.objects.get(pk=game.pk)
    engine = EngineGame.from_dict(row.state)
    hand = [c.text for c in engine.hands[seat]]
    natural = next(c for c in hand if c[0] not in "2J")
    position = engine.to_dict()
    position["state"]["hands"][seat] = [natural] + [c for c in hand if c != natural]
    Game.objects.filter(pk=game.pk).update(state=position)
    with CaptureQueriesContext(connection) as queries:
        applied = apply_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": natural},
                               user=users[seat])
    statements = _statements(queries)
    # The guarded write found another row, then the read and the write of the fresh path.
    assert len(statements) == 3, statements
    assert statements[1].lstrip().startswith("SELECT")
    assert applied.version == drawn.version + 1
    stored = EngineGame.from_dict(Game.objects.get(pk=game.pk).state)
    assert stored.discard_pile[-1].text == natural


def test_a_seat_changed_since_the_write_is_read_again():
    users = [make_user("elsa"), make_user("fabio")]
    game = Game.objects.get(table=started_table(users))
    seat, drawn = _draw(game, users)
    other = 1 - seat
    # The other seat is now covered by the computer, a change to the seats and not to the game:
    # after the discard the computer must be the one to move next.
    Seat.objects.filter(table_id=game.table_id, position=other).update(covered_by_computer=True)
    card = _a_natural(game.pk, seat)
    with CaptureQueriesContext(connection) as queries:
        applied = apply_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": card},
                               user=users[seat])
    assert len(_statements(queries)) == 3
    assert applied.computer_next is True
    assert applied.version == drawn.version + 1


def test_a_stale_version_named_by_the_client_is_refused_and_changes_nothing():
    users = [make_user("gino"), make_user("ida")]
    game = Game.objects.get(table=started_table(users))
    seat, drawn = _draw(game, users)
    card = _a_natural(game.pk, seat)
    with pytest.raises(play.ServiceError) as refused:
        apply_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": card},
                     user=users[seat], expected_version=drawn.version - 1)
    assert refused.value.code == "stale_version"
    assert Game.objects.get(pk=game.pk).version == drawn.version
    assert Move.objects.filter(game=game).count() == 1


def test_a_refusal_is_judged_on_the_game_not_on_the_kept_position():
    users = [make_user("lia"), make_user("marco")]
    game = Game.objects.get(table=started_table(users))
    seat, drawn = _draw(game, users)
    card = _a_natural(game.pk, seat)
    apply_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": card}, user=users[seat])
    # The match ends by another way (abandoned) while this process keeps the position.
    play.abandon_match(table_id=game.table_id, user=users[1 - seat])
    # On the kept position it is not this seat's turn: the engine would say so; the game says
    # the match is over, and that is the answer.
    with pytest.raises(play.ServiceError) as refused:
        apply_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat])
    assert refused.value.code == "not_playing"
    with pytest.raises(play.ServiceError) as refused:
        apply_action(game_id=game.pk, seat=1 - seat, action={"type": "draw"}, user=users[1 - seat])
    assert refused.value.code == "not_playing"


def test_a_socket_s_word_that_the_next_player_is_away_is_checked_before_anyone_is_marked(monkeypatch):
    """`seen` (what the acting socket's presence frames said) spares the Redis look-up only when
    it says the next mover is there; when it says they are away, Redis decides, so a stale frame
    never marks an online player away nor rings their bell, and the socket gets the answer."""
    from games.live import presence

    users = [make_user("anna"), make_user("bruno")]
    game = Game.objects.get(table=started_table(users))
    seat = game.to_move
    other = 1 - seat
    presence.connected(game.table_id, other, users[other].pk, "bruno-tab")  # really there
    looked: list[int] = []
    real = presence.at_table
    monkeypatch.setattr(presence, "at_table", lambda table_id: looked.append(table_id) or real(table_id))
    stale = presence.Seen(frozenset({seat}), False)  # this socket never heard the other arrive
    drawn = apply_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], seen=stale)
    assert looked == [] and drawn.seen is None  # the same person plays on: nothing to look up
    applied = apply_action(game_id=game.pk, seat=seat, action={"type": "discard", "card": _a_natural(game.pk, seat)},
                           user=users[seat], expected_version=drawn.version, seen=stale)
    assert looked == [game.table_id]
    assert applied.seen == presence.Seen(frozenset({other}), False) and applied.turn_user is None
    assert presence.away_since(game.table_id, other) is None
    row = Game.objects.get(pk=game.pk)
    assert row.due_at == row.turn_deadline
    # With fresh word that they are there, no look-up at all.
    fresh = presence.Seen(frozenset({seat, other}), False)
    drawn = apply_action(game_id=game.pk, seat=other, action={"type": "draw"}, user=users[other], seen=fresh)
    apply_action(game_id=game.pk, seat=other, action={"type": "discard", "card": _a_natural(game.pk, other)},
                 user=users[other], expected_version=drawn.version, seen=fresh)
    assert looked == [game.table_id]
