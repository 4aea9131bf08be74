"""The one door for actions: submit_action, the move log, the clock, hands and the match end."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine import IllegalMove, Ruleset, replay
from games.live import clock, frames
from games.models import Game, Hand, Move, Seat, Table
from games.services.errors import ServiceError
from games.services.history import ratings
from games.services.play.play import submit_action
from games.services.table import turns
from tests.games.helpers import capture, engine_of, make_user, random_legal, started_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def adjustable_clock(settings):
    settings.BURRACO_CLOCK_ADJUSTABLE = True
    yield clock
    clock.reset()


@pytest.fixture
def hooks(monkeypatch):
    """Record the calls to the two hooks other features fill in."""
    calls = {"after_change": [], "ratings": []}
    monkeypatch.setattr(turns, "after_change", lambda game_id, version, **_: calls["after_change"].append(
        (game_id, version)))
    monkeypatch.setattr(ratings, "record_match_result", lambda game: calls["ratings"].append(
        (game.pk, game.finished, game.winner_side)))
    return calls


def two_players(**kwargs):
    anna, bruno = make_user("anna"), make_user("bruno")
    table = started_table([anna, bruno], **kwargs)
    return [anna, bruno], Game.objects.get(table=table)


def force_position(game: Game, engine_game: EngineGame) -> None:
    """Test set-up: make the hand in play this exact position (its deal is stored as well, so
    the log still replays)."""
    game.state = engine_game.to_dict()
    game.to_move = engine_game.to_move
    game.hand_number = engine_game.hand_number + 1
    game.totals = list(engine_game.totals)
    game.save()
    Hand.objects.filter(game=game, number=game.hand_number).update(deal=engine_game.deal)


def closing_position(ruleset: Ruleset, *, totals=(0, 0), hand_number=0) -> EngineGame:
    """Seat 0 to move can close: draw TH, lay it off on its clean burraco, discard KS."""
    return EngineGame.setup(
        ruleset, hands=["KS", "5C 6C 9D"], stock="TH 4D 8S QC", discard="3S",
        melds=[["3H 4H 5H 6H 7H 8H 9H"], []], to_move=0, totals=totals, hand_number=hand_number,
    )


def close_the_hand(users, game: Game) -> int:
    submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, user=users[0])
    submit_action(game_id=game.pk, seat=0, action={"type": "lay_off", "meld": 1, "cards": ["TH"]}, user=users[0])
    return submit_action(game_id=game.pk, seat=0, action={"type": "discard", "card": "KS"}, user=users[0])


def test_an_accepted_action_is_logged_counted_and_versioned(hooks):
    users, game = two_players()
    seat = game.to_move
    version = submit_action(game_id=game.pk, seat=seat, action={"type": "draw", "junk": 1},
                            user=users[seat], expected_version=0)
    assert version == 1
    game.refresh_from_db()
    move = Move.objects.get(game=game)
    assert (move.seq, move.seat, move.hand_number, move.actor) == (1, seat, 1, "person")
    assert move.action == {"type": "draw"}  # the engine's canonical form, nothing else
    assert game.version == 1 and len(engine_of(game).hand(seat)) == 12
    assert hooks["after_change"] == [(game.pk, 0), (game.pk, 1)]  # the deal, then the draw


def test_only_the_seats_own_person_may_act():
    users, game = two_players()
    seat = game.to_move
    stranger = make_user("carla")
    for user in (stranger, users[1 - seat], None):
        with pytest.raises(ServiceError) as exc:
            submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=user)
        assert exc.value.code == "not_your_seat"
        assert exc.value.message == "Puoi giocare solo per il tuo posto."
    game.refresh_from_db()
    assert game.version == 0 and not Move.objects.exists()


def test_stale_version_is_refused_and_nothing_changes():
    users, game = two_players()
    seat = game.to_move
    before = game.state
    with pytest.raises(ServiceError) as exc:
        submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat], expected_version=3)
    assert exc.value.code == "stale_version"
    assert exc.value.message == "La partita è andata avanti: ecco la situazione aggiornata."
    game.refresh_from_db()
    assert game.state == before and game.version == 0


def test_illegal_meld_gives_the_engine_message_and_changes_nothing(hooks):
    users, game = two_players()
    position = EngineGame.setup(Ruleset.preset("classico"), hands=["7H 8S 9H KD", "5S 5D QS"],
                                stock="QC TS 4C", discard="QD", to_move=0)
    force_position(game, position)
    submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, user=users[0])
    game.refresh_from_db()
    before = (game.state, game.version, Move.objects.count(), game.turn_deadline)
    with pytest.raises(IllegalMove) as exc:
        submit_action(game_id=game.pk, seat=0, action={"type": "meld", "cards": ["7H", "8S", "9H"]}, user=users[0])
    assert exc.value.code == "mixed_suits"
    assert exc.value.message == "Le carte non sono tutte dello stesso seme"
    with pytest.raises(IllegalMove) as exc:
        submit_action(game_id=game.pk, seat=1, action={"type": "draw"}, user=users[1])
    assert exc.value.code == "not_your_turn"
    game.refresh_from_db()
    assert (game.state, game.version, Move.objects.count(), game.turn_deadline) == before
    assert hooks["after_change"] == [(game.pk, 0), (game.pk, 1)]  # no call for refused actions


def test_timeouts_and_computer_moves_on_a_persons_seat_are_counted_as_covered(monkeypatch):
    cap = capture(monkeypatch)
    users, game = two_players()
    seat = game.to_move
    Seat.objects.filter(table=game.table, position=seat).update(consecutive_timeouts=2, covered_by_computer=True)
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, actor="timeout")
    row = Seat.objects.get(table=game.table, position=seat)
    assert row.covered_by_computer is True
    eg = engine_of(Game.objects.get(pk=game.pk))
    discard = next(a for a in eg.legal_actions(seat) if a["type"] == "discard")
    submit_action(game_id=game.pk, seat=seat, action=discard, user=users[seat])
    row.refresh_from_db()
    assert (row.consecutive_timeouts, row.covered_by_computer) == (0, False)
    assert list(Move.objects.values_list("actor", flat=True)) == ["timeout", "person"]
    # The counts the ratings read are taken from the move log when the match ends.
    from games.services.play.play import _count_moves

    _count_moves(Game.objects.get(pk=game.pk))
    row.refresh_from_db()
    assert (row.covered_moves, row.own_moves) == (1, 1)
    # Everyone at the table is told the computer no longer covers the seat.
    presence_frames = [f for g, f in cap.sent if f["type"] == "presence" and g.endswith(".all")]
    assert presence_frames and presence_frames[-1]["seats"][seat]["covered_by_computer"] is False
    with pytest.raises(ServiceError) as exc:
        submit_action(game_id=game.pk, seat=0, action={"type": "draw"}, actor="robot")
    assert exc.value.code == "bad_actor"


def test_deadline_follows_the_injectable_clock(adjustable_clock):
    users, game = two_players(draw_seconds=20, play_seconds=90)
    seat = game.to_move
    adjustable_clock.advance(1000)
    submit_action(game_id=game.pk, seat=seat, action={"type": "draw"}, user=users[seat])
    game.refresh_from_db()
    expected = clock.now() + timedelta(seconds=90)
    assert abs((game.turn_deadline - expected).total_seconds()) < 5
    first = game.turn_deadline
    eg = engine_of(game)
    plays = [a for a in eg.legal_actions(seat) if a["type"] in ("meld", "lay_off")]
    if plays:  # melding within the turn does not restart the rest-of-turn timer
        adjustable_clock.advance(10)
        submit_action(game_id=game.pk, seat=seat, action=plays[0], user=users[seat])
        game.refresh_from_db()
        assert game.turn_deadline == first
        eg = engine_of(game)
    discard = next(a for a in eg.legal_actions(seat) if a["type"] == "discard")
    submit_action(game_id=game.pk, seat=seat, action=discard, user=users[seat])
    game.refresh_from_db()
    expected = clock.now() + timedelta(seconds=20)  # the next seat must draw
    assert game.to_move == 1 - seat and abs((game.turn_deadline - expected).total_seconds()) < 5
    assert game.turn_deadline > timezone.now() + timedelta(seconds=1000)  # the offset counts


def test_clock_cannot_move_unless_adjustable(settings):
    settings.BURRACO_CLOCK_ADJUSTABLE = False
    with pytest.raises(RuntimeError):
        clock.advance(5)
    assert clock.offset_seconds() == 0


def test_a_hand_ends_scores_and_the_next_hand_is_dealt_with_the_first_player_rotating(hooks, monkeypatch):
    cap = capture(monkeypatch)
    users, game = two_players(target=505)
    first = game.to_move
    force_position(game, closing_position(Ruleset.preset("classico", target=505), hand_number=0))
    cap.clear()
    version = close_the_hand(users, game)
    game.refresh_from_db()
    assert not game.finished and game.hand_number == 2 and game.version == version == 3
    hand1, hand2 = Hand.objects.filter(game=game).order_by("number")
    assert hand1.finished_at is not None and hand1.score[0]["closing"] == 100
    assert hand1.score[0]["burraco"] == 200 and game.totals == [hand1.score[0]["total"], hand1.score[1]["total"]]
    new = engine_of(game)
    assert hand2.deal == new.deal and new.hand_number == 1 and new.to_move == (0 + 1) % 2
    assert new.totals == tuple(game.totals)
    assert first in (0, 1)
    # The log replays hand 1 exactly.
    moves = list(Move.objects.filter(game=game, hand_number=1).order_by("seq").values_list("action", flat=True))
    assert replay(hand1.deal, moves).hand_over
    # Every seat got: the event, the scoring, then the new hand's snapshot (its own view).
    for position in (0, 1):
        frames = [f for g, f in cap.sent if g == f"table.{game.table_id}.seat.{position}"]
        assert [f["type"] for f in frames[-3:]] == ["event", "hand_over", "snapshot"]
        hand_over, snapshot = frames[-2], frames[-1]
        assert hand_over["hand_number"] == 1 and hand_over["totals"] == game.totals
        assert hand_over["match_over"] is False and hand_over["score"] == hand1.score
        assert snapshot["version"] == 3 and snapshot["hand_number"] == 2
        assert snapshot["view"]["hand"] == [c.text for c in new.hand(position)]
    assert hooks["ratings"] == []


def test_the_match_ends_when_a_side_reaches_the_target(hooks, monkeypatch):
    cap = capture(monkeypatch)
    users, game = two_players(target=505)
    force_position(game, closing_position(Ruleset.preset("classico", target=505), totals=(300, 100)))
    version = close_the_hand(users, game)
    game.refresh_from_db()
    table = Table.objects.get(pk=game.table_id)
    assert game.finished and game.winner_side == 0 and game.finished_at is not None
    assert game.to_move is None and game.turn_deadline is None
    assert game.result["totals"] == game.totals and game.totals[0] >= 505
    assert table.status == Table.Status.FINISHED and table.finished_at is not None
    assert hooks["ratings"] == [(game.pk, True, 0)]
    over = [f for g, f in cap.sent if f["type"] == "hand_over"]
    assert over and all(f["match_over"] and f["winner_side"] == 0 for f in over)
    with pytest.raises(ServiceError) as exc:
        submit_action(game_id=game.pk, seat=1, action={"type": "draw"}, user=users[1], expected_version=version)
    assert exc.value.code == "not_playing"


def test_a_single_hand_can_end_in_a_draw(hooks):
    users, game = two_players(target=None)
    # Side 0 closes for 355 (55 in melds, 200 burraco, 100 closing), side 1 keeps 20 in hand:
    # carried totals of 0 and 375 make it 355 each.
    force_position(game, closing_position(Ruleset.preset("classico", target=None), totals=(0, 375)))
    close_the_hand(users, game)
    game.refresh_from_db()
    score = Hand.objects.get(game=game, number=1).score
    assert (score[0]["total"], score[1]["total"]) == (355, -20)
    assert game.finished and game.winner_side is None and game.totals == [355, 355]
    assert game.result["winner_side"] is None
    assert hooks["ratings"] == [(game.pk, True, None)]


def test_random_legal_play_runs_whole_matches_and_the_log_replays(hooks):
    rng = random.Random(5)
    for players in (2, 4):
        users = [make_user(f"p{players}{i}") for i in range(players)]
        table = started_table(users, target=None)
        game = Game.objects.get(table=table)
        for _ in range(2000):
            game.refresh_from_db()
            if game.finished:
                break
            eg = engine_of(game)
            seat = eg.to_move
            submit_action(game_id=game.pk, seat=seat, action=random_legal(eg, rng), user=users[seat],
                          expected_version=game.version)
        assert game.finished
        hand = Hand.objects.get(game=game)
        moves = list(Move.objects.filter(game=game).order_by("seq"))
        assert [m.seq for m in moves] == list(range(1, game.version + 1))
        assert replay(hand.deal, [m.action for m in moves]) == engine_of(game)
        own = sum(Seat.objects.filter(table=table).values_list("own_moves", flat=True))
        assert own == len(moves)


def test_public_action_never_names_a_drawn_card():
    assert frames.public_action({"type": "draw", "card": "AS"}) == {"type": "draw"}
    assert frames.public_action({"type": "take_discards", "cards": ["AS"]}) == {"type": "take_discards"}
    assert frames.public_action({"type": "meld", "cards": ["7H", "8H", "9H"], "x": 1}) == {
        "type": "meld", "cards": ["7H", "8H", "9H"]}
